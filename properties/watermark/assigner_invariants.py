"""The documented rules of assigning timestamps and watermarks, as checks on any implementation's own answers.

Sources: the javadoc of ``DataStream.assignTimestampsAndWatermarks(WatermarkStrategy)`` (for each event the timestamp
assigner assigns its timestamp and the generator's onEvent is called; periodically, every
``ExecutionConfig.getAutoWatermarkInterval()``, its onPeriodicEmit), of ``ExecutionConfig.setAutoWatermarkInterval``
(an interval of 0 disables periodic emission), of ``RecordTimestampAssigner`` (the default assigner forwards the
record's timestamp), of ``WatermarkOutput.emitWatermark`` (emitting a watermark implicitly marks the output active
again), Flink's documentation "Generating Watermarks" ("if the original stream had timestamps and/or watermarks
already, the timestamp assigner overwrites them") and "Timely Stream Processing" (watermarks advance event time,
which never goes back), and the protocol page for the answer's shape. Each check replays the request's events (the
processing-time clock) beside the answer's calls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from oracle.versions import FlinkVersion
from oracle.watermark_assigner import ASSIGNER, LONG_MAX, LONG_MIN
from properties.rules import Request, Response, RuleBook, Violation, output_steps

BOOK = RuleBook()  # the rules this module declares, named by the area's declaration
BOOK.differential(ASSIGNER, "WMS")

ASSIGN_DOCS = ("DataStream.assignTimestampsAndWatermarks javadoc; RecordTimestampAssigner javadoc; docs: Generating "
               "Watermarks (Using Watermark Strategies)")
INTERVAL_DOCS = "DataStream.assignTimestampsAndWatermarks javadoc; ExecutionConfig.setAutoWatermarkInterval javadoc"


def _long(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and LONG_MIN <= x <= LONG_MAX


def element_ok(item: Any, latency: bool = False) -> bool:
    """One stream element of an answer: {record: timestamp or null}, {watermark: long}, {status: idle|active}, and
    with ``latency`` {latency: long} (watermark.output's too)."""
    if not isinstance(item, Mapping) or len(item) != 1:
        return False
    if "record" in item:
        return item["record"] is None or _long(item["record"])
    if "watermark" in item:
        return _long(item["watermark"])
    if latency and "latency" in item:
        return _long(item["latency"])
    return item.get("status") in ("idle", "active")


def outputs_shape(rule: str, req: Request, resp: Response, ok: Callable[[Any], bool], what: str) -> list[Violation]:
    """``rule`` broken unless ``output.outputs`` holds one list per event, each of elements ``ok`` accepts."""
    if "output" not in resp or resp.get("error") is not None:
        return []
    outputs = output_steps(resp, "outputs")
    if outputs is None or len(outputs) != len(_events(req)):
        return [Violation(rule, "output.outputs must be a list with one entry per event")]
    for i, items in enumerate(outputs):
        if not isinstance(items, list) or not all(ok(c) for c in items):
            return [Violation(rule, f"output.outputs[{i}] = {items!r} is not a list of {what}")]
    return []


def _events(req: Request) -> list[Any]:
    events: list[Any] = req.get("input", {}).get("events", [])
    return events


@BOOK.invariant("WMS-1", ASSIGNER, "The answer holds one list per event of the calls reaching the operator's output, "
                "each {record: its timestamp or null}, {watermark: long} or {status: idle|active}.",
                "docs/protocol/watermark-assigner.md")
def shape(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    return outputs_shape("WMS-1", req, resp, element_ok, "calls")


def _replay(req: Request, resp: Response) -> Iterator[tuple[int, Mapping[str, Any], list[Any], int]]:
    """Per event of a well-shaped answer: its index, the event, its calls and the clock (ms) after it."""
    outputs = output_steps(resp, "outputs")
    if outputs is None or shape(req, resp, None) != []:  # type: ignore[arg-type]
        return
    clock = 0
    for i, (ev, calls) in enumerate(zip(_events(req), outputs, strict=True)):
        if ev.get("kind") == "advance":
            clock += ev["ms"]
        yield i, ev, calls, clock


@BOOK.invariant("WMS-2", ASSIGNER, "Every record comes out once, before anything its arrival makes the generator "
                "emit, with its timestamp (the default assigner forwards the record's own); no other event puts a "
                "record on the output.", ASSIGN_DOCS)
def records(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    for i, ev, calls, _clock in _replay(req, resp):
        recs = [c for c in calls if "record" in c]
        if ev.get("kind") != "record":
            if recs:
                return [Violation("WMS-2", f"event {i} ({ev.get('kind')}) put the record {recs[0]} on the output")]
            continue
        if len(recs) != 1 or calls[0] != recs[0]:
            return [Violation("WMS-2", f"event {i} (a record) put {calls} on the output, not the record first")]
        if ev.get("timestamp") is not None and recs[0]["record"] != ev["timestamp"]:
            return [Violation("WMS-2", f"event {i}: the record came out with the timestamp {recs[0]['record']}, "
                              f"not its own {ev['timestamp']}")]
    return []


@BOOK.invariant("WMS-3", ASSIGNER, "The watermarks the operator emits never go back: each is at least the one "
                "before.", "docs: Timely Stream Processing (Event Time and Watermarks)")
def monotonous(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    last = LONG_MIN
    for i, _ev, calls, _clock in _replay(req, resp):
        for c in calls:
            if "watermark" in c:
                if c["watermark"] < last:
                    return [Violation("WMS-3", f"event {i}: watermark {c['watermark']} after {last}")]
                last = c["watermark"]
    return []


@BOOK.invariant("WMS-4", ASSIGNER, "Upstream watermarks are overwritten: an upstream watermark below Long.MAX_VALUE "
                "puts nothing on the output (whether the end-of-input watermark Long.MAX_VALUE passes is not "
                "documented).", "docs: Generating Watermarks (Using Watermark Strategies)")
def upstream_overwritten(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    for i, ev, calls, _clock in _replay(req, resp):
        if ev.get("kind") == "watermark" and ev.get("timestamp") != LONG_MAX and calls:
            return [Violation("WMS-4", f"event {i}: the upstream watermark {ev.get('timestamp')} put {calls} on the "
                              "output")]
    return []


@BOOK.invariant("WMS-5", ASSIGNER, "Emitting a watermark marks the output active again: a watermark after an IDLE "
                "status comes after an ACTIVE status.", "WatermarkOutput.emitWatermark javadoc")
def active_again(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    idle = False
    for i, _ev, calls, _clock in _replay(req, resp):
        for c in calls:
            if "status" in c:
                idle = c["status"] == "idle"
            elif "watermark" in c and idle:
                return [Violation("WMS-5", f"event {i}: watermark {c['watermark']} while the output is idle")]
    return []


@BOOK.invariant("WMS-6", ASSIGNER, "The generator's periodic emit runs once per auto-watermark interval: a "
                "processing-time advance puts something on the output only once the clock has moved at least the "
                "interval since the start and since the last advance that did; never with an interval of 0 (or "
                "without progressive watermarks).", INTERVAL_DOCS)
def interval(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    inp = req.get("input", {})
    every = inp.get("auto_watermark_interval_ms")
    if not isinstance(every, int):
        return []
    periodic = every > 0 and inp.get("emit_progressive", True) is not False
    last = 0
    for i, ev, calls, clock in _replay(req, resp):
        if ev.get("kind") != "advance" or not calls:
            continue
        if not periodic:
            return [Violation("WMS-6", f"event {i}: an advance put {calls} on the output without periodic emits "
                              f"(interval {every} ms)")]
        if clock - last < every:
            return [Violation("WMS-6", f"event {i}: a periodic emit at {clock} ms, {clock - last} ms after the "
                              f"last, less than the interval of {every} ms")]
        last = clock
    return []


# Documented rules that real Flink itself breaks (docs/documented-rules.md)
BOOK.flink_violates("WMS-5", "1.14.0 ... 1.14.4 forward an upstream IDLE status to the output "
                    "(AbstractStreamOperator.processWatermarkStatus, not overridden before FLINK-26708) without "
                    "telling the WatermarkEmitter, whose next watermark then follows it with no ACTIVE status",
                    since="1.14", until="1.14.5")
