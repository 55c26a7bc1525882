"""Protocol area ``watermark.join``: what Flink's ``IntervalJoinOperator`` (what ``KeyedStream.intervalJoin(other)
.between(lower, upper)`` runs, with ``lowerBoundExclusive()``, ``upperBoundExclusive()`` and, from 1.17.0,
``sideOutputLeftLateData`` / ``sideOutputRightLateData``) emits for a sequence of keyed records and watermarks of
its two inputs (IJ-1 ... IJ-7, declared in :data:`RULES`; docs/protocol/watermark-join.md).

The operator level: one ``IntervalJoinOperator`` of flink-streaming-java, its buffers keyed ``MapState`` of a heap
backend, its cleanup timers event-time timers of an ``InternalTimerService``; its watermarks come per input and
are combined as ``AbstractStreamOperator.processWatermark1`` / ``processWatermark2`` combine them. Its
``ProcessJoinFunction`` emits the key, both values and both timestamps of each pair. Per event, the answer is
what reached the operator's output: joined pairs, late records on a side output, the combined watermark.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

from oracle.changes import Change
from oracle.explain import INPUT, at, because, rejected_because
from oracle.protocol import AreaFn, BadRequest, Rejected, field, java_long
from oracle.rules import Declared
from oracle.versions import FlinkVersion
from oracle.watermark_windows import LONG_MIN, wrap

JOIN = "watermark.join"  # the protocol area (docs/protocol/watermark-join.md)
Side = Literal["left", "right"]
SIDES: tuple[Side, ...] = ("left", "right")
BOUNDS_MESSAGE = "lowerBound <= upperBound must be fulfilled"
NO_TIMESTAMP_MESSAGE = ("Long.MIN_VALUE timestamp: Elements used in interval stream joins need to have timestamps "
                        "meaningful timestamps.")
LATE_OUTPUT_FIELDS = {"left": "left_late_output", "right": "right_late_output"}

RULES: tuple[Declared, ...] = (
    Declared("IJ-1",
             "The operator checks lowerBound <= upperBound (the bounds as given, before exclusivity) when built: "
             "else IllegalArgumentException(\"lowerBound <= upperBound must be fulfilled\"). Then an exclusive "
             "lower bound becomes lowerBound + 1 and an exclusive upper bound upperBound - 1 (Java long arithmetic, "
             "wrapping), so that every later comparison is inclusive; both exclusive on equal bounds joins nothing.",
             "IntervalJoinOperator.<init>"),
    Declared("IJ-2",
             "A record whose timestamp is Long.MIN_VALUE (no timestamp) is FlinkException(\"Long.MIN_VALUE "
             "timestamp: Elements used in interval stream joins need to have timestamps meaningful timestamps.\").",
             "IntervalJoinOperator.processElement"),
    Declared("IJ-3",
             "A record is late when its timestamp is less than the timer service's current watermark (1.13-1.14 "
             "also require that watermark not to be Long.MIN_VALUE: the same, as no timestamp is below it): it is "
             "neither buffered nor joined; from 1.17.0 (FLINK-24907) it goes to its side's late-data side output "
             "with its own timestamp if one is set, else it is dropped without a trace.",
             "IntervalJoinOperator.isLate, IntervalJoinOperator.sideOutput"),
    Declared("IJ-4",
             "A record not late is added to its side's buffer (MapState of its key: timestamp -> records in arrival "
             "order), then joined with each record buffered on the other side for its key whose timestamp t lies "
             "in [ts + lower, ts + upper] for a left record, [ts - upper, ts - lower] for a right one (the relative "
             "bounds -upper and -lower, ts + bound a Java long addition, wrapping). Each pair is emitted with the "
             "larger of the two timestamps; the context's left and right timestamps are the pair's.",
             "IntervalJoinOperator.processElement, IntervalJoinOperator.collect, ContextImpl"),
    Declared("IJ-5",
             "Each record not late registers an event-time cleanup timer for its key: a left record at ts + upper "
             "if upper > 0, else at ts; a right record at ts - lower if -lower > 0, else at ts (Java long "
             "arithmetic). A fired left timer removes the left bucket at time - upper if upper > 0, else at time; "
             "a right timer the right bucket at time + lower if lower <= 0, else at time. (A right record with "
             "lower = Long.MIN_VALUE: -lower wraps to Long.MIN_VALUE, its timer is at ts and removes the bucket at "
             "ts + Long.MIN_VALUE.)",
             "IntervalJoinOperator.processElement, IntervalJoinOperator.onEventTime"),
    Declared("IJ-6",
             "Each input's watermark is kept (both start at Long.MIN_VALUE); when the least of the two rises above "
             "the combined watermark, it becomes the combined watermark: the timer service advances to it (firing "
             "every cleanup timer with time <= it) and the operator emits it. (1.13: processWatermark1/2 with "
             "input1Watermark, input2Watermark; from 1.14 IndexedCombinedWatermarkStatus, the same for inputs "
             "never idle.)",
             "AbstractStreamOperator.processWatermark1, AbstractStreamOperator.processWatermark2, "
             "AbstractStreamOperator.processWatermark, InternalTimerServiceImpl.advanceWatermark"),
    Declared("IJ-7",
             "The pairs one record joins come bucket by bucket in the order the other buffer's map iterates (a "
             "HashMap of timestamps for the heap backend, serialized key order for RocksDB: Flink defines none), "
             "within a bucket in arrival order. The oracle emits them by the other record's timestamp, then arrival;"
             " the answers are compared with each event's pairs sorted (docs/protocol/watermark-join.md).",
             "IntervalJoinOperator.processElement, HeapMapState.entries"),
)

# Flink's changes in this area, each written once; the tables below read them
_LATE = {"lower_bound_ms": 0, "upper_bound_ms": 0, "left_late_output": True,
         "events": [{"side": "left", "watermark": 5}, {"side": "right", "watermark": 5},
                    {"side": "left", "key": "a", "timestamp": 1, "value": 1}]}
LATE_OUTPUTS = Change(
    since="1.17.0", issue="FLINK-24907",
    what="IntervalJoined.sideOutputLeftLateData / sideOutputRightLateData: IntervalJoinOperator takes an OutputTag "
    "per side and emits a late record to its side's tag (dropped before, and the request's late outputs are not "
    "defined)",
    witnesses=(_LATE,))
CHANGES: dict[str, tuple[Change, ...]] = {JOIN: (LATE_OUTPUTS,)}


@attrs.frozen
class Record:
    side: Side
    key: str
    timestamp: int
    value: int


@attrs.frozen
class Watermark:
    side: Side
    timestamp: int


Event = Record | Watermark


@attrs.frozen
class Request:
    lower: int
    upper: int
    lower_exclusive: bool
    upper_exclusive: bool
    late_outputs: frozenset[Side]
    events: tuple[Event, ...]


class JoinRejected(Exception):
    """An exception of Flink's: ``exception`` its simple name."""

    def __init__(self, exception: str, message: str) -> None:
        super().__init__(message)
        self.exception = exception


def bounds(req: Request) -> tuple[int, int]:
    """IJ-1: ``IntervalJoinOperator``'s constructor: the check, then the inclusive bounds."""
    because("IJ-1")
    if req.lower > req.upper:
        raise JoinRejected("IllegalArgumentException", BOUNDS_MESSAGE)
    lower = wrap(req.lower + 1) if req.lower_exclusive else req.lower
    upper = wrap(req.upper - 1) if req.upper_exclusive else req.upper
    return lower, upper


def relative(side: Side, lower: int, upper: int) -> tuple[int, int]:
    """The relative bounds a record of ``side`` joins within (processElement1 / processElement2)."""
    return (lower, upper) if side == "left" else (wrap(-upper), wrap(-lower))


def cleanup_time(ts: int, relative_upper: int) -> int:
    """IJ-5: the cleanup timer of a record, from its relative upper bound."""
    because("IJ-5")
    return wrap(ts + relative_upper) if relative_upper > 0 else ts


def removed_at(side: Side, time: int, lower: int, upper: int) -> int:
    """IJ-5: the bucket a fired cleanup timer removes (onEventTime)."""
    if side == "left":
        return wrap(time - upper) if upper > 0 else time
    return wrap(time + lower) if lower <= 0 else time


class Operator:
    """An ``IntervalJoinOperator`` with its buffers and cleanup timers per key and its two inputs' watermarks."""

    def __init__(self, req: Request, lower: int, upper: int) -> None:
        self.req = req
        self.lower, self.upper = lower, upper
        self.buffers: dict[tuple[Side, str], dict[int, list[int]]] = {}
        self.timers: set[tuple[int, str, Side]] = set()
        self.inputs: dict[Side, int] = {"left": LONG_MIN, "right": LONG_MIN}
        self.combined = LONG_MIN
        self.watermark = LONG_MIN  # the timer service's

    def is_late(self, ts: int) -> bool:
        late = ts < self.watermark
        if late:
            because("IJ-3")
        return late

    def process(self, rec: Record) -> list[dict[str, Any]]:
        if rec.timestamp == LONG_MIN:
            because("IJ-2")
            raise JoinRejected("FlinkException", NO_TIMESTAMP_MESSAGE)
        if self.is_late(rec.timestamp):
            if rec.side in self.req.late_outputs:
                return [{"late": {"side": rec.side, "key": rec.key, "timestamp": rec.timestamp, "value": rec.value}}]
            return []
        because("IJ-4")
        other: Side = "right" if rec.side == "left" else "left"
        self.buffers.setdefault((rec.side, rec.key), {}).setdefault(rec.timestamp, []).append(rec.value)
        rel_lower, rel_upper = relative(rec.side, self.lower, self.upper)
        out: list[dict[str, Any]] = []
        because("IJ-7")
        for ts, values in sorted(self.buffers.get((other, rec.key), {}).items()):
            if ts < wrap(rec.timestamp + rel_lower) or ts > wrap(rec.timestamp + rel_upper):
                continue
            for value in values:
                out.append(self.joined(rec, value, ts))
        self.timers.add((cleanup_time(rec.timestamp, rel_upper), rec.key, rec.side))
        return out

    @staticmethod
    def joined(rec: Record, other_value: int, other_ts: int) -> dict[str, Any]:
        left, right = (rec.value, other_value) if rec.side == "left" else (other_value, rec.value)
        left_ts, right_ts = (rec.timestamp, other_ts) if rec.side == "left" else (other_ts, rec.timestamp)
        return {"joined": {"key": rec.key, "left": left, "right": right, "left_timestamp": left_ts,
                           "right_timestamp": right_ts, "timestamp": max(left_ts, right_ts)}}

    def advance(self, wm: Watermark) -> list[dict[str, Any]]:
        because("IJ-6")
        self.inputs[wm.side] = wm.timestamp
        least = min(self.inputs.values())
        if least <= self.combined:
            return []
        self.combined = self.watermark = least
        because("IJ-5")
        for timer in sorted(t for t in self.timers if t[0] <= least):
            self.timers.discard(timer)
            time, key, side = timer
            bucket = self.buffers.get((side, key), {})
            bucket.pop(removed_at(side, time, self.lower, self.upper), None)
        return [{"watermark": least}]


# ------------------------------------------------------------------ reading the request

def _side(raw: Mapping[str, Any], where: str) -> Side:
    side = field(raw, "side", str, where)
    if side in SIDES:
        return "left" if side == "left" else "right"
    raise BadRequest(f"{where}.side must be left or right, got {side!r}")


def _event(raw: Any, i: int, last: dict[Side, int]) -> Event:
    where = f"input.events[{i}]"
    if not isinstance(raw, Mapping):
        raise BadRequest(f"{where} must be an object")
    side = _side(raw, where)
    if "watermark" in raw:
        wm = java_long(raw, "watermark", where)
        if wm < last[side]:
            raise BadRequest(f"{where}.watermark goes back on the {side} input ({wm} after {last[side]})")
        last[side] = wm
        return Watermark(side, wm)
    return Record(side, field(raw, "key", str, where), java_long(raw, "timestamp", where),
                  java_long(raw, "value", where))


def _flag(inp: Mapping[str, Any], name: str) -> bool:
    return bool(field(inp, name, bool, "input")) if name in inp else False


def parse(inp: Mapping[str, Any], version: FlinkVersion) -> Request:
    """The request's input, checked (BadRequest naming the field otherwise)."""
    lower = java_long(inp, "lower_bound_ms", "input")
    upper = java_long(inp, "upper_bound_ms", "input")
    lower_exclusive, upper_exclusive = _flag(inp, "lower_exclusive"), _flag(inp, "upper_exclusive")
    late: set[Side] = set()
    for side, name in LATE_OUTPUT_FIELDS.items():
        if name in inp and version < LATE_OUTPUTS.at:
            raise BadRequest(f"input.{name} is not defined before Flink {LATE_OUTPUTS.since}: the late-data side "
                             f"outputs of an interval join come with {LATE_OUTPUTS.issue}")
        if _flag(inp, name):
            late.add(side)  # type: ignore[arg-type]
    raw = field(inp, "events", list, "input")
    last: dict[Side, int] = {"left": LONG_MIN, "right": LONG_MIN}
    events = tuple(_event(e, i, last) for i, e in enumerate(raw))
    return Request(lower, upper, lower_exclusive, upper_exclusive, frozenset(late), events)


def join_area(inp: Mapping[str, Any], version: FlinkVersion) -> dict[str, Any] | Rejected:
    """Per event, what the interval join emitted."""
    req = parse(inp, version)
    at(*INPUT)
    try:
        lower, upper = bounds(req)
    except JoinRejected as exc:
        rejected_because("IJ-1")
        return Rejected(exc.exception, str(exc))
    op = Operator(req, lower, upper)
    outputs: list[list[dict[str, Any]]] = []
    for i, event in enumerate(req.events):
        at("outputs", i)
        try:
            outputs.append(op.process(event) if isinstance(event, Record) else op.advance(event))
        except JoinRejected as exc:
            rejected_because("IJ-2")
            return Rejected(exc.exception, str(exc))
    return {"outputs": outputs}


ENTRIES: dict[str, AreaFn] = {JOIN: join_area}
