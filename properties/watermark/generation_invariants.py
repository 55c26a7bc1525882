"""The documented watermark-generation rules, as checks on any implementation's own answers.

Sources: the javadoc of ``WatermarkStrategy.forBoundedOutOfOrderness`` / ``forMonotonousTimestamps`` /
``withIdleness`` and of ``BoundedOutOfOrdernessWatermarks`` ("the watermark is the maximum timestamp seen minus
the out-of-orderness bound minus 1"; monotonous timestamps: the bound is 0), Flink's documentation "Generating
Watermarks" (its periodic generator example emits ``currentMaxTimestamp - maxOutOfOrderness - 1``; "Dealing With
Idle Sources": with ``withIdleness`` a split/partition that has had no records for the timeout is marked idle,
and is active again when records arrive), and the protocol page for the answer's shape. Each check replays the
request's events (the clock, the records seen) and compares the answer with what the documentation promises.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from oracle.versions import FlinkVersion
from oracle.watermark_generation import GENERATION, LONG_MAX, LONG_MIN, NANOS_PER_MILLI
from properties.rules import Request, Response, RuleBook, Violation

BOOK = RuleBook()  # the rules this module declares, named by the area's declaration
BOOK.differential(GENERATION, "WMG")

JAVADOC = ("WatermarkStrategy javadoc (forBoundedOutOfOrderness, forMonotonousTimestamps), "
           "BoundedOutOfOrdernessWatermarks")
IDLE_DOCS = "WatermarkStrategy.withIdleness javadoc; docs: Generating Watermarks, Dealing With Idle Sources"


def _input(req: Request) -> Mapping[str, Any]:
    inp: Mapping[str, Any] = req.get("input", {})
    return inp


def _outputs(resp: Response) -> list[Any] | None:
    out = resp.get("output") if resp.get("error") is None else None
    if not isinstance(out, Mapping) or not isinstance(out.get("outputs"), list):
        return None
    outputs: list[Any] = out["outputs"]
    return outputs


def _item_ok(item: Any) -> bool:
    if not isinstance(item, Mapping) or len(item) != 1:
        return False
    if "watermark" in item:
        wm = item["watermark"]
        return isinstance(wm, int) and not isinstance(wm, bool) and LONG_MIN <= wm <= LONG_MAX
    return item.get("status") in ("idle", "active")


@BOOK.invariant("WMG-1", GENERATION, "The answer holds one list per event of the calls the generator made on its "
                "output, each {watermark: long} or {status: idle|active}.", "docs/protocol/watermark-generation.md")
def shape(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    if "output" not in resp or resp.get("error") is not None:
        return []
    outputs = _outputs(resp)
    events = _input(req).get("events", [])
    if outputs is None or len(outputs) != len(events):
        return [Violation("WMG-1", "output.outputs must be a list with one entry per event")]
    for i, calls in enumerate(outputs):
        if not isinstance(calls, list) or not all(_item_ok(c) for c in calls):
            return [Violation("WMG-1", f"output.outputs[{i}] = {calls!r} is not a list of calls")]
    return []


def _replay(req: Request, resp: Response) -> list[tuple[int, Mapping[str, Any], list[Any], int, int | None]] | None:
    """Per event: its index, the event, its calls, the clock (ms) and the clock at the last record (None: none
    yet), for a well-shaped answer."""
    outputs = _outputs(resp)
    events = _input(req).get("events", [])
    if outputs is None or shape(req, resp, None) != []:  # type: ignore[arg-type]
        return None
    out: list[tuple[int, Mapping[str, Any], list[Any], int, int | None]] = []
    clock = 0
    last_record: int | None = None
    for i, (ev, calls) in enumerate(zip(events, outputs, strict=True)):
        if ev.get("kind") == "advance":
            clock += ev["ms"]
        out.append((i, ev, calls, clock, last_record))
        if ev.get("kind") == "record":
            last_record = clock
    return out


@BOOK.invariant("WMG-2", GENERATION, "A bounded out-of-orderness generator emits, on a periodic emit, the maximum "
                "timestamp seen minus the bound minus 1 (Long.MIN_VALUE before any record makes it larger); "
                "monotonous timestamps is a bound of 0; neither emits a watermark on a record.", JAVADOC)
def bounded_watermark(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    inp = _input(req)
    kind = inp.get("generator")
    replay = _replay(req, resp)
    if replay is None or kind not in ("bounded", "monotonous"):
        return []
    bound = inp.get("out_of_orderness_ms", 0) if kind == "bounded" else 0
    highest: int | None = None
    for i, ev, calls, _clock, _last in replay:
        wms = [c["watermark"] for c in calls if "watermark" in c]
        if ev.get("kind") == "record":
            highest = ev["timestamp"] if highest is None else max(highest, ev["timestamp"])
            if wms:
                return [Violation("WMG-2", f"event {i} (a record) emitted the watermark {wms[0]}")]
            continue
        expected = LONG_MIN if highest is None else max(LONG_MIN, highest - bound - 1)
        for wm in wms:
            if wm != expected:
                return [Violation("WMG-2", f"event {i}: watermark {wm}, the maximum timestamp "
                                  f"{highest} - {bound} - 1 is {expected}")]
    return []


def _timeout(req: Request) -> int | None:
    timeout = _input(req).get("idle_timeout_ms")
    return timeout if isinstance(timeout, int) and timeout > 0 else None


@BOOK.invariant("WMG-3", GENERATION, "With withIdleness, the output is marked idle only after the timeout has "
                "passed without records: never while less than the timeout has passed since the last record (or "
                "the start).", IDLE_DOCS)
def not_idle_early(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    timeout, replay = _timeout(req), _replay(req, resp)
    if replay is None:
        return []
    for i, _ev, calls, clock, last in replay:
        if {"status": "idle"} in calls:
            if timeout is None:
                return [Violation("WMG-3", f"event {i}: marked idle without an idle timeout")]
            since = clock - (last or 0)
            if since < timeout:
                return [Violation("WMG-3", f"event {i}: marked idle {since} ms after the last record, before the "
                                  f"timeout of {timeout} ms")]
    return []


@BOOK.invariant("WMG-4", GENERATION, "With withIdleness, the output is active again when records arrive: the first"
                " periodic emit after a record does not mark it idle, and a bounded or monotonous generator emits a "
                "watermark there.", IDLE_DOCS)
def active_again(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    replay = _replay(req, resp)
    if replay is None or _timeout(req) is None:
        return []
    kind = _input(req).get("generator")
    after_record = False
    for i, ev, calls, _clock, _last in replay:
        if ev.get("kind") == "record":
            after_record = True
        elif ev.get("kind") == "periodic":
            if after_record and ({"status": "idle"} in calls
                                 or (kind != "punctuated" and not any("watermark" in c for c in calls))):
                return [Violation("WMG-4", f"event {i}: the first periodic emit after a record emitted {calls}")]
            after_record = False
    return []


@BOOK.invariant("WMG-5", GENERATION, "With withIdleness, a periodic emit once more than the timeout has passed "
                "since the last record (or the start) marks the output idle, unless it was marked idle already "
                "since that record.", IDLE_DOCS)
def idle_after_timeout(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    timeout, replay = _timeout(req), _replay(req, resp)
    if replay is None or timeout is None:
        return []
    idle_since_record = False
    for i, ev, calls, clock, last in replay:
        if ev.get("kind") == "record":
            idle_since_record = False
        if {"status": "idle"} in calls:
            idle_since_record = True
        if ev.get("kind") != "periodic" or idle_since_record:
            continue
        since = clock - (last or 0)
        if since * NANOS_PER_MILLI > min(timeout * NANOS_PER_MILLI, LONG_MAX):
            return [Violation("WMG-5", f"event {i}: {since} ms without records, more than the timeout of {timeout} "
                              "ms, and the output was not marked idle")]
    return []


# Documented rules that real Flink itself breaks (docs/documented-rules.md)
BOOK.flink_violates("WMG-5", "IdlenessTimer starts counting the inactivity only at the first periodic emit that "
                    "finds no record since the one before (and not at all while the clock reads 0), so the output "
                    "goes idle only at a later emit, up to the timeout plus three emit intervals after the last "
                    "record (FLINK-40503, an open pull request, proposes documenting this timing)")
