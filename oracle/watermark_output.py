"""Protocol area ``watermark.output``: what leaves a task through its network output, Flink's ``RecordWriterOutput``,
and what a finished source task sends there last (RWO-1 ... RWO-6, declared in :data:`RULES`).

Issue 29, item 4 (docs/protocol/watermark-output.md). The events are the calls reaching the task's output from its
operator chain: records, watermarks, watermark statuses (StreamStatus in 1.13), latency markers, and ``end``, the end
of a source task's input (``StreamTask.endData`` -> ``advanceToEndOfEventTime``, of a ``SourceOperatorStreamTask``
or of a legacy ``SourceStreamTask`` as the request's ``source`` says). The answer is, per event, the stream elements
the output's ``RecordWriter`` serializes into the task's result partition.

The output's status starts ACTIVE. From 1.14 the ``RecordWriterOutput`` keeps it (``announcedStatus``): a status
equal to it is not sent again, and a watermark is dropped while it is IDLE. In 1.13 the ``OperatorChain`` keeps it
(``toggleStreamStatus`` sends only a change to its ``RecordWriterOutput``s), and the ``RecordWriterOutput`` asks it
(its ``StreamStatusProvider``) before sending a watermark: the same elements leave. A source task's final
``Long.MAX_VALUE`` watermark is emitted through that output with no ACTIVE status first, so an idle output drops it
(every release; FLINK-40499 proposes the fix), except 1.13's legacy source, whose ``StreamSource`` emits it through
its ``WatermarkContext``, which toggles ACTIVE first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from oracle import watermark_assigner as assigner
from oracle.changes import Change
from oracle.explain import INPUT, at, because
from oracle.protocol import AreaFn, BadRequest, Rejected, field, java_long
from oracle.rules import Declared
from oracle.versions import FlinkVersion, pick

OUTPUT = "watermark.output"  # the protocol area (docs/protocol/watermark-output.md)
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
EVENT_KINDS = ("record", "watermark", "status", "latency", "end")
SOURCES = ("operator", "legacy")
CHAINS = ("assigner",)  # the operators a request can chain in front of the output (input.chain)

RULES: tuple[Declared, ...] = (
    Declared("RWO-1",
             "A record leaves as it is, its timestamp or none (RecordWriter.emit to one channel), whatever the "
             "output's status.",
             "RecordWriterOutput.collect, RecordWriterOutput.pushToRecordWriter"),
    Declared("RWO-2",
             "A watermark leaves (RecordWriter.broadcastEmit) only while the output's status is ACTIVE; while IDLE it "
             "is dropped. From 1.14 the status is the RecordWriterOutput's announcedStatus; in 1.13 its "
             "StreamStatusProvider's, the task's OperatorChain.",
             "RecordWriterOutput.emitWatermark, OperatorChain.getStreamStatus"),
    Declared("RWO-3",
             "A watermark status leaves only if it differs from the output's status, which it then becomes; the "
             "status starts ACTIVE. From 1.14 RecordWriterOutput.emitWatermarkStatus checks its announcedStatus; in "
             "1.13 OperatorChain.toggleStreamStatus checks the chain's status and sends the change to "
             "RecordWriterOutput.emitStreamStatus, which sends what it is given.",
             "RecordWriterOutput.emitWatermarkStatus, OperatorChain.toggleStreamStatus, "
             "RecordWriterOutput.emitStreamStatus"),
    Declared("RWO-4",
             "A latency marker leaves (RecordWriter.randomEmit, to one channel) whatever the output's status.",
             "RecordWriterOutput.emitLatencyMarker"),
    Declared("RWO-5",
             "The end of a SourceOperatorStreamTask's input (StreamTask.endData with StopMode.DRAIN, 1.13's "
             "afterInvoke) runs advanceToEndOfEventTime: Long.MAX_VALUE through the task's output "
             "(AsyncDataOutputToOutput.emitWatermark), no status first, so RWO-2 drops it while the output is IDLE "
             "(every release; FLINK-40499 proposes an ACTIVE status first).",
             "SourceOperatorStreamTask.advanceToEndOfEventTime, StreamTask.endData"),
    Declared("RWO-6",
             "The end of a legacy SourceStreamTask's input: in 1.13 StreamSource.advanceToEndOfEventTime emits "
             "Long.MAX_VALUE through its WatermarkContext, which toggles the status ACTIVE first (so an idle output "
             "sends ACTIVE, then the watermark); from 1.14.0 SourceStreamTask.advanceToEndOfEventTime emits it on "
             "the chain's main operator output with no status first (FLINK-23808), dropped while IDLE as RWO-5's.",
             "SourceStreamTask.advanceToEndOfEventTime, StreamSource.advanceToEndOfEventTime, "
             "StreamSourceContexts.WatermarkContext.emitWatermark"),
    Declared("RWO-7",
             "A one-input task whose chain is one TimestampsAndWatermarksOperator (chain: assigner): what the "
             "operator emits (watermark.assigner's TWO rules) goes to the RecordWriterOutput, its output, under "
             "RWO-1 ... RWO-3. An upstream status goes through the operator from 1.14 (forwarded by 1.14.0 ... "
             "1.14.4, dropped from 1.14.5, FLINK-26708); in 1.13 the task's StreamTaskNetworkOutput toggles it on the "
             "OperatorChain, where the operator's WatermarkEmitter toggles its own. The emitter's idle flag is its own:"
             " after an upstream IDLE (1.13 ... 1.14.4) it believes the output active, so its next watermark, the "
             "maximum one at the end of input too, goes with no ACTIVE first and the idle output drops it.",
             "OperatorChain.createOutputCollector, OneInputStreamTask.StreamTaskNetworkOutput, "
             "AbstractDataOutput.emitStreamStatus, TimestampsAndWatermarksOperator.WatermarkEmitter"),
)

_IDLE_END = {"source": "legacy", "events": [{"kind": "status", "status": "idle"}, {"kind": "end"}]}
LEGACY_END_BYPASSES_CONTEXT = Change(
    since="1.14", issue="FLINK-23808",
    what="a legacy SourceStreamTask's final Long.MAX_VALUE watermark goes straight to the chain's main operator "
    "output (SourceStreamTask.advanceToEndOfEventTime) instead of through the StreamSource's WatermarkContext, which "
    "toggled the status ACTIVE first: an idle task's output now drops it",
    witnesses=(_IDLE_END,))
STATUS_IN_OUTPUT = Change(
    since="1.14", issue="FLINK-18934",
    what="the output's status moves from the OperatorChain (StreamStatusMaintainer.toggleStreamStatus, asked by "
    "RecordWriterOutput as its StreamStatusProvider) into the RecordWriterOutput (announcedStatus, "
    "emitWatermarkStatus)",
    unseen="the same elements leave: 1.13's chain sends only a change of status to its outputs, 1.14's output "
    "sends only a change of its own announced status, both starting ACTIVE")
_CHAIN_IDLE = {"chain": "assigner", "generator": "bounded", "out_of_orderness_ms": 1, "auto_watermark_interval_ms": 5,
               "events": [{"kind": "record", "timestamp": 10}, {"kind": "status", "status": "idle"},
                          {"kind": "advance", "ms": 5}, {"kind": "watermark", "timestamp": LONG_MAX}]}
CHAIN_STATUS_DROPPED = Change(
    since="1.14.5", issue="FLINK-26708",
    what="a chained TimestampsAndWatermarksOperator drops an upstream watermark status, which made the task's output "
    "idle behind its WatermarkEmitter's back: its watermarks, the maximum one too, leave again (RWO-7)",
    witnesses=(_CHAIN_IDLE,))
_CHAIN_CLOCK = {"chain": "assigner", **assigner.CLOCK_WITNESS}
CHAIN_CLOCK, CHAIN_CLOCK_1_20 = (attrs.evolve(c, what="in a chain, " + c.what, witnesses=(_CHAIN_CLOCK,))
                                 for c in (assigner.OPERATOR_CLOCK, assigner.OPERATOR_CLOCK_1_20))
CHANGES: dict[str, tuple[Change, ...]] = {OUTPUT: (STATUS_IN_OUTPUT, LEGACY_END_BYPASSES_CONTEXT,
                                                   CHAIN_STATUS_DROPPED, CHAIN_CLOCK, CHAIN_CLOCK_1_20)}

# whether a legacy source's final watermark goes through its WatermarkContext (which marks the output ACTIVE first)
LEGACY_END_MARKS_ACTIVE: Mapping[FlinkVersion, bool] = LEGACY_END_BYPASSES_CONTEXT.table(True, False)

ACTIVE: dict[str, Any] = {"status": "active"}
IDLE: dict[str, Any] = {"status": "idle"}


@attrs.frozen
class Event:
    kind: str
    timestamp: int | None = None
    status: str = ""


@attrs.frozen
class Request:
    source: str
    events: tuple[Event, ...]


def _event(raw: Any, i: int) -> Event:
    where = f"input.events[{i}]"
    if not isinstance(raw, Mapping):
        raise BadRequest(f"{where} must be an object")
    kind = field(raw, "kind", str, where)
    if kind == "record":
        if "timestamp" not in raw:
            raise BadRequest(f"{where}.timestamp is missing (null: a record without a timestamp)")
        ts = java_long(raw, "timestamp", where) if raw["timestamp"] is not None else None
        return Event("record", timestamp=ts)
    if kind == "watermark":
        return Event("watermark", timestamp=java_long(raw, "timestamp", where))
    if kind == "status":
        status = field(raw, "status", str, where)
        if status not in ("idle", "active"):
            raise BadRequest(f"{where}.status must be one of idle, active, got {status!r}")
        return Event("status", status=status)
    if kind == "latency":
        return Event("latency", timestamp=java_long(raw, "marked_time", where))
    if kind == "end":
        return Event("end")
    raise BadRequest(f"{where}.kind must be one of {', '.join(EVENT_KINDS)}, got {kind!r}")


def parse(inp: Mapping[str, Any]) -> Request:
    """The request's input, checked (BadRequest naming the field otherwise)."""
    source = field(inp, "source", str, "input") if "source" in inp else "operator"
    if source not in SOURCES:
        raise BadRequest(f"input.source must be one of {', '.join(SOURCES)}, got {source!r}")
    raw = field(inp, "events", list, "input")
    events = tuple(_event(e, i) for i, e in enumerate(raw))
    if any(e.kind == "end" for e in events[:-1]):
        raise BadRequest("input.events: end must be the last event (a finished task sends nothing more)")
    return Request(source, events)


@attrs.define
class Output:
    """RWO-1 ... RWO-4: a ``RecordWriterOutput`` (with, in 1.13, its ``OperatorChain``'s status)."""

    idle: bool = False

    def record(self, timestamp: int | None) -> list[dict[str, Any]]:
        because("RWO-1")
        return [{"record": timestamp}]

    def watermark(self, timestamp: int) -> list[dict[str, Any]]:
        because("RWO-2")
        return [] if self.idle else [{"watermark": timestamp}]

    def status(self, status: str) -> list[dict[str, Any]]:
        because("RWO-3")
        idle = status == "idle"
        if idle == self.idle:
            return []
        self.idle = idle
        return [{"status": status}]

    def latency(self, marked_time: int) -> list[dict[str, Any]]:
        because("RWO-4")
        return [{"latency": marked_time}]

    def give(self, element: Mapping[str, Any]) -> list[dict[str, Any]]:
        """An element a chained operator emits to the output (RWO-7)."""
        if "record" in element:
            return self.record(element["record"])
        if "watermark" in element:
            return self.watermark(element["watermark"])
        return self.status(element["status"])

    def end(self, source: str, version: FlinkVersion) -> list[dict[str, Any]]:
        """RWO-5, RWO-6: the source task's advanceToEndOfEventTime."""
        if source == "legacy":
            because("RWO-6")
            if pick(LEGACY_END_MARKS_ACTIVE, version):
                return [*self.status("active"), *self.watermark(LONG_MAX)]
        else:
            because("RWO-5")
        return self.watermark(LONG_MAX)


def chain_area(inp: Mapping[str, Any], version: FlinkVersion) -> dict[str, Any] | Rejected:
    """RWO-7: per event of the chained operator's input, the stream elements leaving the task's network output."""
    name = field(inp, "chain", str, "input")
    if name not in CHAINS:
        raise BadRequest(f"input.chain must be one of {', '.join(CHAINS)}, got {name!r}")
    if "source" in inp:
        raise BadRequest("input.source: a task whose chain is given is a one-input task fed by its network input, "
                         "not a source task")
    req = assigner.parse({k: val for k, val in inp.items() if k != "chain"}, version, task_status=True)
    at(*INPUT)
    emitted = assigner.run(req, version)
    if isinstance(emitted, Rejected):
        return emitted
    out = Output()
    outputs: list[list[dict[str, Any]]] = []
    for i, calls in enumerate(emitted):
        at("outputs", i)
        because("RWO-7")
        outputs.append([sent for call in calls for sent in out.give(call)])
    return {"outputs": outputs}


def output_area(inp: Mapping[str, Any], version: FlinkVersion) -> dict[str, Any] | Rejected:
    """Per event, the stream elements leaving the task's network output."""
    if "chain" in inp:
        return chain_area(inp, version)
    req = parse(inp)
    at(*INPUT)
    out = Output()
    outputs: list[list[dict[str, Any]]] = []
    for i, event in enumerate(req.events):
        at("outputs", i)
        if event.kind == "record":
            outputs.append(out.record(event.timestamp))
        elif event.kind == "watermark":
            outputs.append(out.watermark(LONG_MIN if event.timestamp is None else event.timestamp))
        elif event.kind == "status":
            outputs.append(out.status(event.status))
        elif event.kind == "latency":
            outputs.append(out.latency(LONG_MIN if event.timestamp is None else event.timestamp))
        else:
            outputs.append(out.end(req.source, version))
    return {"outputs": outputs}


ENTRIES: dict[str, AreaFn] = {OUTPUT: output_area}
