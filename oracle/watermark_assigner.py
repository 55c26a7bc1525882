"""Protocol area ``watermark.assigner``: what Flink's ``TimestampsAndWatermarksOperator`` (the operator
``DataStream.assignTimestampsAndWatermarks`` runs) emits to its output (TWO-1 ... TWO-8, declared in :data:`RULES`).

The operator level of issue 29 (docs/protocol/watermark-assigner.md): a WatermarkStrategy's generator (what
``watermark.generation`` models, reused from :mod:`oracle.watermark_generation`, built by the strategy) inside the
operator: its timestamp assigner, its ``WatermarkEmitter`` (drops a watermark not above the last, marks the output
active again, idle once), the processing-time timer of ``pipeline.auto-watermark-interval``, upstream watermarks
(dropped but ``Long.MAX_VALUE``), upstream statuses, end of input. The answer is, per event, the calls reaching
the operator's output: records, watermarks, statuses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from oracle import watermark_generation as gen
from oracle.changes import Change
from oracle.explain import INPUT, at, because, rejected_because
from oracle.protocol import AreaFn, BadRequest, Rejected, field, java_long
from oracle.rules import Declared
from oracle.versions import FlinkVersion, pick

ASSIGNER = "watermark.assigner"  # the protocol area (docs/protocol/watermark-assigner.md)
LONG_MIN, LONG_MAX = gen.LONG_MIN, gen.LONG_MAX
EVENT_KINDS = ("record", "watermark", "status", "advance", "end_of_input")
MAX_CLOCK_MS = LONG_MAX // gen.NANOS_PER_MILLI  # the processing-time clock counts nanoseconds in a long

RULES: tuple[Declared, ...] = (
    Declared("TWO-1",
             "The auto-watermark interval is ExecutionConfig.setAutoWatermarkInterval's: a negative one is "
             "IllegalArgumentException(\"Auto watermark interval must not be negative.\"), checked before the "
             "strategy is built (its withIdleness check comes next); the generator is built at open() by the "
             "strategy (as watermark.generation's strategy builds it) only when the operator emits progressive "
             "watermarks, else it is NoWatermarksGenerator (emits nothing, so a bound the generator would refuse "
             "is never checked).",
             "ExecutionConfig.setAutoWatermarkInterval, TimestampsAndWatermarksOperator.open"),
    Declared("TWO-2",
             "A record's timestamp is the strategy's timestamp assigner's (the default RecordTimestampAssigner: the "
             "record's own, Long.MIN_VALUE for a record without one); the record goes to the output with it first, "
             "then the generator sees it (onEvent), whatever it emits following the record.",
             "TimestampsAndWatermarksOperator.processElement, RecordTimestampAssigner"),
    Declared("TWO-3",
             "The WatermarkEmitter drops a watermark that is not greater than the last it emitted (it starts at "
             "Long.MIN_VALUE, so Long.MIN_VALUE is never emitted); a greater one marks the output active first "
             "(an ACTIVE status if it was idle), then is emitted.",
             "TimestampsAndWatermarksOperator.WatermarkEmitter.emitWatermark"),
    Declared("TWO-4",
             "markIdle emits an IDLE status only if the output is not idle already (from 1.14.0; 1.13's emitter "
             "toggles IDLE on its StreamStatusMaintainer at every markIdle); markActive (from 1.14) an ACTIVE "
             "status only if idle.",
             "TimestampsAndWatermarksOperator.WatermarkEmitter.markIdle, WatermarkEmitter.markActive"),
    Declared("TWO-5",
             "With an interval greater than 0 and progressive watermarks, open() registers a processing-time timer at"
             " now + interval; when it fires the generator's onPeriodicEmit runs and the next timer is registered "
             "at the then current time + interval. Processing time starts at 0; an advance sets the clock to the "
             "new time, then fires the timers due (at most one: the next is registered after the new time).",
             "TimestampsAndWatermarksOperator.open, TimestampsAndWatermarksOperator.onProcessingTime"),
    Declared("TWO-6",
             "An upstream watermark is dropped, except Long.MAX_VALUE, which goes through the WatermarkEmitter "
             "(so at most once, and marking the output active).",
             "TimestampsAndWatermarksOperator.processWatermark"),
    Declared("TWO-7",
             "An upstream watermark status reaches the operator from 1.14 (before, the task handles StreamStatus: "
             "no operator method); 1.14.0 ... 1.14.4 forward it to the output unchanged "
             "(AbstractStreamOperator.processWatermarkStatus), from 1.14.5 it is dropped (FLINK-26708).",
             "TimestampsAndWatermarksOperator.processWatermarkStatus, AbstractStreamOperator.processWatermarkStatus"),
    Declared("TWO-8",
             "End of input (finish() from 1.14, close() in 1.13) calls the generator's onPeriodicEmit once more, "
             "through the emitter; it emits no Long.MAX_VALUE of its own.",
             "TimestampsAndWatermarksOperator.finish, TimestampsAndWatermarksOperator.close"),
    Declared("TWO-9",
             "The generator's idleness timer reads the context's input-activity clock where the operator gives one "
             "(a PausableRelativeClock over the processing-time service's clock: 1.19.2+, 1.20.1+, FLINK-35886), "
             "else the system clock (as in watermark.generation).",
             "TimestampsAndWatermarksOperator.open, PausableRelativeClock"),
)

_STATUS = {"auto_watermark_interval_ms": 0, "generator": "monotonous",
           "events": [{"kind": "status", "status": "idle"}, {"kind": "status", "status": "active"}]}
STATUS_DROPPED = Change(
    since="1.14.5", issue="FLINK-26708",
    what="TimestampsAndWatermarksOperator drops an upstream WatermarkStatus (processWatermarkStatus is a no-op) "
    "instead of forwarding it as AbstractStreamOperator does, as it drops upstream watermarks",
    witnesses=(_STATUS,))
STATUS_REACHES = Change(
    since="1.14",
    what="an upstream watermark status reaches the operator (AbstractStreamOperator.processWatermarkStatus; in 1.13"
    " the task handles StreamStatus), and the WatermarkEmitter emits IDLE only when the output is not idle already "
    "(1.13's toggles IDLE on the StreamStatusMaintainer at every markIdle)",
    unseen="1.13's operator has no status method, so a status event is not modelled there (a BadRequest); markIdle "
    "is called repeatedly only by WatermarksWithIdleness before 1.15.3, whose timer reads the system clock there, "
    "so that no request goes idle: the emitter's own check is not visible")
# a record, then the periodic timer twice and a minute of processing time: idle only where the timer reads it
CLOCK_WITNESS = {"generator": "monotonous", "idle_timeout_ms": gen.MIN_STRATEGY_TIMEOUT_MS,
                 "auto_watermark_interval_ms": 1,
                 "events": [{"kind": "record", "timestamp": 1}, {"kind": "advance", "ms": 1},
                            {"kind": "advance", "ms": 1}, {"kind": "advance", "ms": gen.MIN_STRATEGY_TIMEOUT_MS + 1}]}
_OPERATOR_CLOCK_WHAT = ("the operator gives its generator a PausableRelativeClock over its processing-time service's "
                        "clock (WatermarkGeneratorSupplier.Context.getInputActivityClock): a withIdleness timer reads "
                        "the operator's processing time, no longer the system clock, and a timeout under a minute is "
                        "a request of its own (TWO-9)")
# watermark.generation's two changes (their releases and issue), as this operator shows them
OPERATOR_CLOCK = attrs.evolve(gen.ACTIVITY_CLOCK, what=_OPERATOR_CLOCK_WHAT + " (backported to 1.19.2)",
                              witnesses=(CLOCK_WITNESS,))
OPERATOR_CLOCK_1_20 = attrs.evolve(gen.ACTIVITY_CLOCK_1_20, witnesses=(CLOCK_WITNESS,),
                                   what=_OPERATOR_CLOCK_WHAT + " (1.20.0 was released without the fix 1.19.2 has)")
CHANGES: dict[str, tuple[Change, ...]] = {ASSIGNER: (STATUS_REACHES, STATUS_DROPPED, OPERATOR_CLOCK,
                                                     OPERATOR_CLOCK_1_20)}

# whether an upstream status is forwarded to the output (None: the operator has no status method)
FORWARDS_STATUS: Mapping[FlinkVersion, bool | None] = {**STATUS_REACHES.table(None, True), STATUS_DROPPED.at: False}
# whether markIdle emits IDLE again while idle
EMITTER_REPEATS_IDLE: Mapping[FlinkVersion, bool] = STATUS_REACHES.table(True, False)


@attrs.frozen
class Event:
    kind: str
    timestamp: int | None = None
    marker: bool = False
    ms: int = 0
    status: str = ""


@attrs.frozen
class Request:
    generator: gen.Request
    interval_ms: int
    progressive: bool
    events: tuple[Event, ...]


class Emitter:
    """TWO-3, TWO-4: ``TimestampsAndWatermarksOperator.WatermarkEmitter``."""

    def __init__(self, version: FlinkVersion) -> None:
        self.current = LONG_MIN
        self.idle = False
        self.repeats_idle = pick(EMITTER_REPEATS_IDLE, version)

    def emit_watermark(self, ts: int) -> list[dict[str, Any]]:
        because("TWO-3")
        if ts <= self.current:
            return []
        self.current = ts
        out = self.mark_active()
        return [*out, gen.watermark(ts)]

    def mark_idle(self) -> list[dict[str, Any]]:
        because("TWO-4")
        if self.idle and not self.repeats_idle:
            return []
        self.idle = True
        return [gen.IDLE]

    def mark_active(self) -> list[dict[str, Any]]:
        if not self.idle:
            return []
        self.idle = False
        return [{"status": "active"}]

    def through(self, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """What the generator's calls on its WatermarkOutput put on the operator's output."""
        out: list[dict[str, Any]] = []
        for call in calls:
            if "watermark" in call:
                out += self.emit_watermark(call["watermark"])
            elif call == gen.IDLE:
                out += self.mark_idle()
            else:
                because("TWO-4")
                out += self.mark_active()
        return out


class NoWatermarks(gen.Generator):
    """TWO-1: ``NoWatermarksGenerator``, the generator of an operator without progressive watermarks."""

    def on_event(self, timestamp: int, marker: bool) -> list[dict[str, Any]]:
        return []

    def on_periodic_emit(self) -> list[dict[str, Any]]:
        return []


# ------------------------------------------------------------------ reading the request

def _event(raw: Any, i: int, version: FlinkVersion, task_status: bool) -> Event:
    where = f"input.events[{i}]"
    if not isinstance(raw, Mapping):
        raise BadRequest(f"{where} must be an object")
    kind = field(raw, "kind", str, where)
    if kind == "record":
        ts = java_long(raw, "timestamp", where) if raw.get("timestamp") is not None else None
        if "timestamp" not in raw:
            raise BadRequest(f"{where}.timestamp is missing (null: a record without a timestamp)")
        marker = field(raw, "marker", bool, where) if "marker" in raw else False
        return Event("record", timestamp=ts, marker=marker)
    if kind == "watermark":
        return Event("watermark", timestamp=java_long(raw, "timestamp", where))
    if kind == "status":
        status = field(raw, "status", str, where)
        if status not in ("idle", "active"):
            raise BadRequest(f"{where}.status must be one of idle, active, got {status!r}")
        if pick(FORWARDS_STATUS, version) is None and not task_status:
            raise BadRequest(f"{where}: an upstream watermark status reaches no method of the operator before "
                             "Flink 1.14 (the task handles StreamStatus)")
        return Event("status", status=status)
    if kind == "advance":
        ms = java_long(raw, "ms", where)
        if ms < 0:
            raise BadRequest(f"{where}.ms must not be negative (processing time does not go back)")
        return Event("advance", ms=ms)
    if kind == "end_of_input":
        return Event("end_of_input")
    raise BadRequest(f"{where}.kind must be one of {', '.join(EVENT_KINDS)}, got {kind!r}")


def parse(inp: Mapping[str, Any], version: FlinkVersion, task_status: bool = False) -> Request:
    """The request's input, checked (BadRequest naming the field otherwise). ``task_status``: a status is taken where
    the operator has no method for it (1.13), its task takes it (``watermark.output``'s chain)."""
    kind, ooo, timeout = gen.parse_generator(inp)
    if "built_by" in inp:
        raise BadRequest("input.built_by: the operator's generator is always built by its WatermarkStrategy")
    interval = java_long(inp, "auto_watermark_interval_ms", "input")
    if interval > MAX_CLOCK_MS:
        raise BadRequest(f"input.auto_watermark_interval_ms must be at most {MAX_CLOCK_MS} (the clock's "
                         "milliseconds plus the interval must fit a long)")
    progressive = field(inp, "emit_progressive", bool, "input") if "emit_progressive" in inp else True
    if not pick(gen.CONTEXT_CLOCK, version) and (short := gen.timeout_too_short(timeout)) is not None:
        raise short
    raw = field(inp, "events", list, "input")
    events = tuple(_event(e, i, version, task_status) for i, e in enumerate(raw))
    if kind != "punctuated" and any(e.marker for e in events):
        raise BadRequest("input.events: a marker is only for the punctuated generator")
    if any(e.kind == "end_of_input" for e in events[:-1]):
        raise BadRequest("input.events: end_of_input must be the last event (nothing reaches a finished operator)")
    if sum(e.ms for e in events) > MAX_CLOCK_MS:
        raise BadRequest("input.events: the clock's nanoseconds (the sum of the advances times 1,000,000) must fit"
                         " a long")
    return Request(gen.Request(kind, ooo, timeout, (), "strategy"), interval, progressive, events)


# ------------------------------------------------------------------ the operator

@attrs.define
class Operator:
    """TWO-2, TWO-5 ... TWO-8: ``TimestampsAndWatermarksOperator`` after open(), around ``generator``."""

    generator: gen.Generator
    emitter: Emitter
    interval_ms: int
    forwards_status: bool
    now: int = 0
    timer: int | None = None  # the registered processing-time timer

    def record(self, timestamp: int | None, marker: bool) -> list[dict[str, Any]]:
        because("TWO-2")
        ts = LONG_MIN if timestamp is None else timestamp
        return [{"record": ts}, *self.emitter.through(self.generator.on_event(ts, marker))]

    def watermark(self, timestamp: int) -> list[dict[str, Any]]:
        because("TWO-6")
        return self.emitter.emit_watermark(LONG_MAX) if timestamp == LONG_MAX else []

    def status(self, status: str) -> list[dict[str, Any]]:
        because("TWO-7")
        return [{"status": status}] if self.forwards_status else []

    def advance(self, ms: int) -> list[dict[str, Any]]:
        self.now += ms
        if isinstance(self.generator, gen.WithIdleness):
            self.generator.advance_to(self.now * gen.NANOS_PER_MILLI)
        if self.timer is None or self.timer > self.now:
            return []
        because("TWO-5")
        out = self.emitter.through(self.generator.on_periodic_emit())
        self.timer = self.now + self.interval_ms
        return out

    def end_of_input(self) -> list[dict[str, Any]]:
        because("TWO-8")
        return self.emitter.through(self.generator.on_periodic_emit())


def open_operator(req: Request, version: FlinkVersion) -> Operator:
    """TWO-1, TWO-5, TWO-9: what open() sets up; GenerationRejected as the strategy or the generator throws."""
    gen.check_strategy(req.generator)
    because("TWO-1")
    generator = gen.build(req.generator, version) if req.progressive else NoWatermarks()
    if isinstance(generator, gen.WithIdleness):
        because("TWO-9")
    op = Operator(generator, Emitter(version), req.interval_ms, bool(pick(FORWARDS_STATUS, version)))
    if req.interval_ms > 0 and req.progressive:
        because("TWO-5")
        op.timer = op.now + req.interval_ms
    return op


def run(req: Request, version: FlinkVersion) -> list[list[dict[str, Any]]] | Rejected:
    """Per event, the calls reaching the operator's output, or Flink's rejection. A status the operator has no method
    for (1.13, taken by ``parse(task_status=True)``) goes to its task's status as it comes."""
    if req.interval_ms < 0:
        rejected_because("TWO-1")
        return Rejected("IllegalArgumentException", "Auto watermark interval must not be negative.")
    try:
        op = open_operator(req, version)
    except gen.GenerationRejected as exc:
        rejected_because("TWO-1")  # and the generation rule that refused it (traced by its module)
        return Rejected("IllegalArgumentException", str(exc))
    to_task = pick(FORWARDS_STATUS, version) is None
    outputs: list[list[dict[str, Any]]] = []
    for i, event in enumerate(req.events):
        at("outputs", i)
        if event.kind == "record":
            outputs.append(op.record(event.timestamp, event.marker))
        elif event.kind == "watermark":
            outputs.append(op.watermark(LONG_MIN if event.timestamp is None else event.timestamp))
        elif event.kind == "status":
            outputs.append([{"status": event.status}] if to_task else op.status(event.status))
        elif event.kind == "advance":
            outputs.append(op.advance(event.ms))
        else:
            outputs.append(op.end_of_input())
    return outputs


def assigner_area(inp: Mapping[str, Any], version: FlinkVersion) -> dict[str, Any] | Rejected:
    """Per event, the calls reaching the operator's output."""
    req = parse(inp, version)
    at(*INPUT)
    outputs = run(req, version)
    return outputs if isinstance(outputs, Rejected) else {"outputs": outputs}


ENTRIES: dict[str, AreaFn] = {ASSIGNER: assigner_area}
