"""Protocol area ``watermark.generation``: what Flink's built-in watermark generators emit to their
``WatermarkOutput`` (WG-1 ... WG-8, declared in :data:`RULES`).

The generator level (docs/protocol/watermark-generation.md): one generator of flink-core's
``org.apache.flink.api.common.eventtime`` (``BoundedOutOfOrdernessWatermarks``, ``AscendingTimestampsWatermarks``,
or a punctuated generator that emits a marked record's timestamp), optionally wrapped in
``WatermarksWithIdleness`` whose ``IdlenessTimer`` reads a manual processing-time clock, driven by a sequence of
events: a record with a timestamp (``onEvent``), a periodic emit (``onPeriodicEmit``, what
``pipeline.auto-watermark-interval`` schedules), processing time advancing by some milliseconds. The answer is,
per event, the calls the generator made on its output: ``emitWatermark``, ``markIdle``, ``markActive``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

from oracle.changes import Change
from oracle.explain import INPUT, at, because, rejected_because
from oracle.protocol import AreaFn, BadRequest, Rejected, field, java_long
from oracle.rules import Declared
from oracle.versions import FlinkVersion, pick, v

GENERATION = "watermark.generation"  # the protocol area (docs/protocol/watermark-generation.md)
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
NANOS_PER_MILLI = 1_000_000
Kind = Literal["bounded", "monotonous", "punctuated"]
KINDS: tuple[Kind, ...] = ("bounded", "monotonous", "punctuated")
EVENT_KINDS = ("record", "periodic", "advance")
BUILDERS = ("constructor", "strategy")
# built by a WatermarkStrategy, a timer may read the system clock: its timeout must exceed by far what a request
# takes, so that the system clock's own progress decides nothing
MIN_STRATEGY_TIMEOUT_MS = 60_000
SYSTEM_NANOS = 1  # the system clock as the oracle models it within one request: started (not 0), never advancing

RULES: tuple[Declared, ...] = (
    Declared("WG-1",
             "A bounded out-of-orderness generator takes its bound as Duration.toMillis; a negative bound is "
             "IllegalArgumentException(\"maxOutOfOrderness cannot be negative\"). Its maximum timestamp starts at "
             "Long.MIN_VALUE + bound + 1 (so that its first watermark is Long.MIN_VALUE).",
             "BoundedOutOfOrdernessWatermarks.<init>, WatermarkStrategy.forBoundedOutOfOrderness"),
    Declared("WG-2",
             "On a record the bounded generator keeps the maximum of its maximum timestamp and the record's "
             "timestamp, and emits nothing.",
             "BoundedOutOfOrdernessWatermarks.onEvent"),
    Declared("WG-3",
             "On a periodic emit the bounded generator emits the watermark maximum timestamp - bound - 1, every "
             "time, also when it equals the one emitted before (the output, not the generator, drops repeats).",
             "BoundedOutOfOrdernessWatermarks.onPeriodicEmit"),
    Declared("WG-4",
             "Monotonous timestamps is the bounded generator with a bound of 0: its watermark is the maximum "
             "timestamp - 1.",
             "AscendingTimestampsWatermarks, WatermarkStrategy.forMonotonousTimestamps"),
    Declared("WG-5",
             "A punctuated generator (the WatermarkGenerator javadoc's pattern, the bridge's own) emits a marked "
             "record's timestamp as a watermark on that record, and nothing on a periodic emit.",
             "WatermarkGenerator.onEvent, WatermarkGenerator.onPeriodicEmit"),
    Declared("WG-6",
             "withIdleness wraps the generator in WatermarksWithIdleness (the generator is built first); a timeout "
             "that is zero or negative is IllegalArgumentException(\"idleTimeout must be greater than zero\"). Its "
             "IdlenessTimer holds the timeout in nanoseconds (Duration.toNanos; Long.MAX_VALUE where that "
             "overflows).",
             "WatermarksWithIdleness.<init>, WatermarksWithIdleness.IdlenessTimer.<init>"),
    Declared("WG-7",
             "On a record WatermarksWithIdleness passes it to the generator first (whatever it emits goes out), "
             "then counts one activity on its timer (and from 1.15.3 notes that it is no longer idle).",
             "WatermarksWithIdleness.onEvent, IdlenessTimer.activity"),
    Declared("WG-8",
             "On a periodic emit WatermarksWithIdleness asks its timer: a record since the last check resets it "
             "(not idle); else a check that finds no inactivity started starts it at the clock's relativeTimeNanos"
             " (not idle; a clock reading 0 leaves it unstarted); else it is idle once the clock has advanced "
             "strictly more than the timeout since that start. Not idle: the generator's onPeriodicEmit. Idle: "
             "markIdle instead of the generator's emit, at every such periodic emit until 1.15.3, from 1.15.3 "
             "once until the next record. Nothing calls markActive: an output is active again when a watermark is"
             " emitted.",
             "WatermarksWithIdleness.onPeriodicEmit, IdlenessTimer.checkIfIdle"),
    Declared("WG-9",
             "Built by a WatermarkStrategy (forBoundedOutOfOrderness, forMonotonousTimestamps, forGenerator, then "
             "withIdleness), the timeout is checked when withIdleness is called, before the generator is built (so "
             "its rejection comes first), and the idleness timer reads the system clock, not the context's: from "
             "1.19.2 and 1.20.1 (not in 1.20.0) it reads the context's input-activity clock (FLINK-35886).",
             "WatermarkStrategy.withIdleness, WatermarkStrategyWithIdleness.createWatermarkGenerator, "
             "WatermarkGeneratorSupplier.Context.getInputActivityClock"),
)

# Flink's changes in this area, each written once; the tables below read them
_IDLE = {"generator": "monotonous", "idle_timeout_ms": 1,
         "events": [{"kind": "advance", "ms": 1}, {"kind": "periodic"}, {"kind": "advance", "ms": 2},
                    {"kind": "periodic"}, {"kind": "periodic"}]}
IDLE_ONCE = Change(
    since="1.15.3", issue="FLINK-28975",
    what="WatermarksWithIdleness calls markIdle once when it becomes idle, not again at every periodic emit "
    "while it stays idle (field isIdleNow, reset by a record)",
    witnesses=(_IDLE,))
_CLOCK = {"generator": "monotonous", "built_by": "strategy", "idle_timeout_ms": MIN_STRATEGY_TIMEOUT_MS,
          "events": [{"kind": "advance", "ms": 1}, {"kind": "periodic"},
                     {"kind": "advance", "ms": MIN_STRATEGY_TIMEOUT_MS + 1}, {"kind": "periodic"}]}
_CLOCK_WHAT = ("the idleness timer of WatermarkStrategy.withIdleness reads the context's input-activity clock "
               "(WatermarkGeneratorSupplier.Context.getInputActivityClock, paused while the task is backpressured "
               "or blocked by watermark alignment) instead of the system clock")
ACTIVITY_CLOCK = Change(since="1.19.2", issue="FLINK-35886", what=_CLOCK_WHAT + " (backported to 1.19.2)",
                        witnesses=(_CLOCK,))
ACTIVITY_CLOCK_1_20 = Change(since="1.20.1", regressed="1.20.0", issue="FLINK-35886",
                             what=_CLOCK_WHAT + " (1.20.0 was released without the fix 1.19.2 has)",
                             witnesses=(_CLOCK,))
CHANGES: dict[str, tuple[Change, ...]] = {GENERATION: (IDLE_ONCE, ACTIVITY_CLOCK, ACTIVITY_CLOCK_1_20)}

# whether markIdle is repeated at every periodic emit while idle (WatermarksWithIdleness without isIdleNow)
REPEATS_IDLE: Mapping[FlinkVersion, bool] = IDLE_ONCE.table(True, False)
# whether a strategy-built idleness timer reads the context's clock (else the system clock)
CONTEXT_CLOCK: Mapping[FlinkVersion, bool] = {**ACTIVITY_CLOCK.table(False, True), v("1.20.0"): False,
                                              ACTIVITY_CLOCK_1_20.at: True}


class GenerationRejected(Exception):
    """``IllegalArgumentException`` from a constructor (``Preconditions.checkArgument``)."""


@attrs.frozen
class Event:
    kind: str
    timestamp: int = 0
    marker: bool = False
    ms: int = 0


@attrs.frozen
class Request:
    generator: Kind
    out_of_orderness_ms: int
    idle_timeout_ms: int | None
    events: tuple[Event, ...]
    built_by: str = "constructor"


# ------------------------------------------------------------------ the generators, as small state machines

class Generator:
    """A ``WatermarkGenerator``: its methods return the calls it made on its output."""

    def on_event(self, timestamp: int, marker: bool) -> list[dict[str, Any]]:
        raise NotImplementedError

    def on_periodic_emit(self) -> list[dict[str, Any]]:
        raise NotImplementedError


def watermark(ts: int) -> dict[str, Any]:
    return {"watermark": ts}


IDLE: dict[str, Any] = {"status": "idle"}


class Bounded(Generator):
    """WG-1 ... WG-4: ``BoundedOutOfOrdernessWatermarks`` (and ``AscendingTimestampsWatermarks``, bound 0)."""

    def __init__(self, bound_ms: int) -> None:
        because("WG-1")
        if bound_ms < 0:
            raise GenerationRejected("maxOutOfOrderness cannot be negative")
        self.bound = bound_ms
        self.max_timestamp = LONG_MIN + bound_ms + 1

    def on_event(self, timestamp: int, marker: bool) -> list[dict[str, Any]]:
        because("WG-2")
        self.max_timestamp = max(self.max_timestamp, timestamp)
        return []

    def on_periodic_emit(self) -> list[dict[str, Any]]:
        because("WG-3")
        return [watermark(self.max_timestamp - self.bound - 1)]


class Punctuated(Generator):
    """WG-5: a marked record's timestamp is a watermark."""

    def on_event(self, timestamp: int, marker: bool) -> list[dict[str, Any]]:
        because("WG-5")
        return [watermark(timestamp)] if marker else []

    def on_periodic_emit(self) -> list[dict[str, Any]]:
        because("WG-5")
        return []


class IdlenessTimer:
    """WG-6, WG-8: ``WatermarksWithIdleness.IdlenessTimer``."""

    def __init__(self, timeout_ms: int) -> None:
        nanos = timeout_ms * NANOS_PER_MILLI
        self.max_idle_nanos = nanos if nanos <= LONG_MAX else LONG_MAX  # Duration.toNanos's ArithmeticException
        self.counter = 0
        self.last_counter = 0
        self.start_of_inactivity = 0

    def activity(self) -> None:
        self.counter += 1

    def check_if_idle(self, now_nanos: int) -> bool:
        if self.counter != self.last_counter:
            self.last_counter = self.counter
            self.start_of_inactivity = 0
            return False
        if self.start_of_inactivity == 0:
            self.start_of_inactivity = now_nanos
            return False
        return self.timed_out(now_nanos - self.start_of_inactivity)

    def timed_out(self, inactive_nanos: int) -> bool:
        """Idle only once strictly more than the timeout has passed (``>``, not ``>=``)."""
        return inactive_nanos > self.max_idle_nanos


class WithIdleness(Generator):
    """WG-6 ... WG-8: ``WatermarksWithIdleness`` around ``inner``, reading a manual clock."""

    def __init__(self, inner: Generator, timeout_ms: int, version: FlinkVersion, system_clock: bool = False) -> None:
        because("WG-6")
        if timeout_ms <= 0:
            raise GenerationRejected("idleTimeout must be greater than zero")
        self.inner = inner
        self.timer = IdlenessTimer(timeout_ms)
        self.repeats_idle = pick(REPEATS_IDLE, version)
        self.idle_now = False
        self.system_clock = system_clock  # WG-9: the manual clock's advances are not seen
        self.now_nanos = SYSTEM_NANOS if system_clock else 0

    def advance_to(self, now_nanos: int) -> None:
        """The manual clock now reads ``now_nanos``."""
        because("WG-9" if self.system_clock else "WG-8")
        if not self.system_clock:
            self.now_nanos = now_nanos

    def on_event(self, timestamp: int, marker: bool) -> list[dict[str, Any]]:
        out = self.inner.on_event(timestamp, marker)
        because("WG-7")
        self.timer.activity()
        self.idle_now = False
        return out

    def on_periodic_emit(self) -> list[dict[str, Any]]:
        because("WG-8")
        if not self.timer.check_if_idle(self.now_nanos):
            return self.inner.on_periodic_emit()
        if self.repeats_idle or not self.idle_now:
            self.idle_now = True
            return [IDLE]
        return []


def check_strategy(req: Request) -> None:
    """WG-9: built by a strategy, ``withIdleness`` checks its timeout when called, before any generator is built."""
    if req.built_by == "strategy" and req.idle_timeout_ms is not None:
        because("WG-9")
        if req.idle_timeout_ms <= 0:
            raise GenerationRejected("idleTimeout must be greater than zero")


def build(req: Request, version: FlinkVersion) -> Generator:
    """The generator of the request (WG-1, WG-4 ... WG-6); GenerationRejected as Flink's constructors throw."""
    strategy = req.built_by == "strategy"
    check_strategy(req)
    inner: Generator
    if req.generator == "punctuated":
        inner = Punctuated()
    else:
        if req.generator == "monotonous":
            because("WG-4")
        inner = Bounded(req.out_of_orderness_ms if req.generator == "bounded" else 0)
    if req.idle_timeout_ms is None:
        return inner
    if strategy:
        because("WG-9")
    return WithIdleness(inner, req.idle_timeout_ms, version, strategy and not pick(CONTEXT_CLOCK, version))


# ------------------------------------------------------------------ reading the request

def _event(raw: Any, i: int) -> Event:
    where = f"input.events[{i}]"
    if not isinstance(raw, Mapping):
        raise BadRequest(f"{where} must be an object")
    kind = field(raw, "kind", str, where)
    if kind == "record":
        marker = field(raw, "marker", bool, where) if "marker" in raw else False
        return Event("record", timestamp=java_long(raw, "timestamp", where), marker=marker)
    if kind == "periodic":
        return Event("periodic")
    if kind == "advance":
        ms = java_long(raw, "ms", where)
        if ms < 0:
            raise BadRequest(f"{where}.ms must not be negative (processing time does not go back)")
        return Event("advance", ms=ms)
    raise BadRequest(f"{where}.kind must be one of {', '.join(EVENT_KINDS)}, got {kind!r}")


def parse_generator(inp: Mapping[str, Any]) -> tuple[Kind, int, int | None]:
    """The request's generator, bound and idle timeout (BadRequest naming the field otherwise); also read by
    ``watermark.assigner``, whose operator gets the same generators through a WatermarkStrategy."""
    generator = field(inp, "generator", str, "input")
    if generator not in KINDS:
        raise BadRequest(f"input.generator must be one of {', '.join(KINDS)}, got {generator!r}")
    ooo = 0
    if generator == "bounded":
        ooo = java_long(inp, "out_of_orderness_ms", "input")
    elif "out_of_orderness_ms" in inp:
        raise BadRequest("input.out_of_orderness_ms is only for the bounded generator")
    timeout = java_long(inp, "idle_timeout_ms", "input") if inp.get("idle_timeout_ms") is not None else None
    return generator, ooo, timeout  # generator is one of KINDS


def timeout_too_short(timeout: int | None) -> BadRequest | None:
    """Read through the system clock, a positive timeout must exceed by far what a request takes."""
    if timeout is not None and 0 < timeout < MIN_STRATEGY_TIMEOUT_MS:
        return BadRequest(f"input.idle_timeout_ms: built by a strategy, a positive timeout must be at least "
                          f"{MIN_STRATEGY_TIMEOUT_MS} ms (the timer may read the system clock, whose own progress "
                          "must decide nothing)")
    return None


def parse(inp: Mapping[str, Any]) -> Request:
    """The request's input, checked (BadRequest naming the field otherwise)."""
    generator, ooo, timeout = parse_generator(inp)
    raw = field(inp, "events", list, "input")
    events = tuple(_event(e, i) for i, e in enumerate(raw))
    if generator != "punctuated" and any(e.marker for e in events):
        raise BadRequest("input.events: a marker is only for the punctuated generator")
    built_by = field(inp, "built_by", str, "input") if "built_by" in inp else "constructor"
    if built_by not in BUILDERS:
        raise BadRequest(f"input.built_by must be one of {', '.join(BUILDERS)}, got {built_by!r}")
    if built_by == "strategy" and (short := timeout_too_short(timeout)) is not None:
        raise short
    if sum(e.ms for e in events) * NANOS_PER_MILLI > LONG_MAX:
        raise BadRequest("input.events: the clock's nanoseconds (the sum of the advances times 1,000,000) must fit"
                         " a long")
    return Request(generator, ooo, timeout, events, built_by)


def generation_area(inp: Mapping[str, Any], version: FlinkVersion) -> dict[str, Any] | Rejected:
    """Per event, the calls the generator made on its WatermarkOutput."""
    req = parse(inp)
    at(*INPUT)
    try:
        gen = build(req, version)
    except GenerationRejected as exc:
        rejected_because(*(("WG-9",) if req.built_by == "strategy" and "idleTimeout" in str(exc) else ()),
                         "WG-6" if "idleTimeout" in str(exc) else "WG-1")
        return Rejected("IllegalArgumentException", str(exc))
    outputs: list[list[dict[str, Any]]] = []
    now = 0
    for i, event in enumerate(req.events):
        at("outputs", i)
        if event.kind == "record":
            outputs.append(gen.on_event(event.timestamp, event.marker))
        elif event.kind == "periodic":
            outputs.append(gen.on_periodic_emit())
        else:
            now += event.ms * NANOS_PER_MILLI
            if isinstance(gen, WithIdleness):
                gen.advance_to(now)
            outputs.append([])
    return {"outputs": outputs}


ENTRIES: dict[str, AreaFn] = {GENERATION: generation_area}
