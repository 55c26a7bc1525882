"""The documented rules of what leaves a task's network output, as checks on any implementation's own answers.

Source: the javadoc of ``StreamStatus`` (1.13; ``WatermarkStatus`` from 1.14 says the same): "for watermarks, since
there may be watermark generators that might produce watermarks anywhere in the middle of topologies regardless of
whether there are input data at the operator, the current status of the task must be checked before forwarding
watermarks emitted from an operator. If the status is actually idle, the watermark must be blocked", "downstream
tasks can always safely process and propagate records through their operator chain when they receive them", and
"to notify downstream tasks that a source task is permanently closed and will no longer send any more elements, the
source should still send a Watermark#MAX_WATERMARK instead of StreamStatus#IDLE"; and the protocol page for the
answer's shape.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from oracle.versions import FlinkVersion
from oracle.watermark_output import LONG_MAX, LONG_MIN, OUTPUT
from properties.rules import Request, Response, RuleBook, Violation, output_steps
from properties.watermark.assigner_invariants import element_ok, outputs_shape

BOOK = RuleBook()  # the rules this module declares, named by the area's declaration
BOOK.differential(OUTPUT, "WMO")

STATUS_DOCS = "StreamStatus javadoc (1.13), WatermarkStatus javadoc (1.14+)"


def _events(req: Request) -> list[Any]:
    events: list[Any] = req.get("input", {}).get("events", [])
    return events


@BOOK.invariant("WMO-1", OUTPUT, "The answer holds one list per event of the elements leaving the task's output, "
                "each {record: its timestamp or null}, {watermark: long}, {status: idle|active} or {latency: long}.",
                "docs/protocol/watermark-output.md")
def shape(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    return outputs_shape("WMO-1", req, resp, lambda item: element_ok(item, latency=True), "stream elements")


def _replay(req: Request, resp: Response) -> Iterator[tuple[int, Mapping[str, Any], list[Any]]]:
    """Per event of a well-shaped answer: its index, the event and the elements it sent."""
    outputs = output_steps(resp, "outputs")
    if outputs is None or shape(req, resp, None) != []:  # type: ignore[arg-type]
        return
    for i, (ev, elements) in enumerate(zip(_events(req), outputs, strict=True)):
        yield i, ev, elements


@BOOK.invariant("WMO-2", OUTPUT, "The task's status is checked before a watermark is forwarded: no watermark leaves "
                "while the task is idle (after an IDLE status the output sent, before the next ACTIVE).", STATUS_DOCS)
def blocked_while_idle(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    idle = False
    for i, _ev, elements in _replay(req, resp):
        for c in elements:
            if "status" in c:
                idle = c["status"] == "idle"
            elif "watermark" in c and idle:
                return [Violation("WMO-2", f"event {i}: watermark {c['watermark']} left the idle task")]
    return []


@BOOK.invariant("WMO-3", OUTPUT, "A source task that is permanently closed sends Long.MAX_VALUE (MAX_WATERMARK), "
                "not an IDLE status: the end of its input sends the watermark Long.MAX_VALUE and no IDLE status.",
                STATUS_DOCS)
def finished_sends_max(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    for i, ev, elements in _replay(req, resp):
        if ev.get("kind") != "end":
            continue
        if {"status": "idle"} in elements:
            return [Violation("WMO-3", f"event {i}: the finished source sent an IDLE status")]
        if {"watermark": LONG_MAX} not in elements:
            return [Violation("WMO-3", f"event {i}: the finished source sent {elements}, no Long.MAX_VALUE watermark")]
    return []


@BOOK.invariant("WMO-4", OUTPUT, "Records are propagated whenever they come, whatever the task's status: each record "
                "leaves once, with its timestamp, when it is given to the output, and no other event sends one (in a "
                "chain, when it reaches the TimestampsAndWatermarksOperator, with the timestamp it assigns: "
                "watermark.assigner's WMS-2).",
                STATUS_DOCS)
def records_propagate(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    for i, ev, elements in _replay(req, resp):
        recs = [c for c in elements if "record" in c]
        ts = ev.get("timestamp")
        if ts is None and "chain" in req.get("input", {}):  # the assigner's timestamp: Long.MIN_VALUE for none
            ts = LONG_MIN
        expected = [{"record": ts}] if ev.get("kind") == "record" else []
        if recs != expected:
            return [Violation("WMO-4", f"event {i} ({ev.get('kind')}) sent the records {recs}, not {expected}")]
    return []


# Documented rules that real Flink itself breaks (docs/documented-rules.md)
BOOK.flink_violates("WMO-3", "a source task whose output is idle at the end of its input sends nothing: "
                    "advanceToEndOfEventTime emits Long.MAX_VALUE with no ACTIVE status first and RecordWriterOutput "
                    "drops it while idle (SourceOperatorStreamTask in every release, SourceStreamTask from 1.14.0; "
                    "FLINK-40499, open, proposes an ACTIVE status first)")
