"""Task network output mutants: bugs a reimplementation of Flink's RecordWriterOutput and a source task's end
plausibly has.

Each answers with one method of :mod:`oracle.watermark_output` swapped for the buggy one, for the duration of one
answer (:func:`properties.mutant.with_patches`).
"""

from __future__ import annotations

from typing import Any

import oracle.watermark_assigner as wa
import oracle.watermark_output as wo
from oracle.versions import FlinkVersion
from properties.mutant import Mutant, with_patches

AREA = wo.OUTPUT
MUTANTS: list[Mutant] = []  # this module's mutants, in the order flinkspec mutants lists them


def _watermark_always(self: wo.Output, timestamp: int) -> list[dict[str, Any]]:
    """The output does not check its status before sending a watermark."""
    return [{"watermark": timestamp}]


def _status_again(self: wo.Output, status: str) -> list[dict[str, Any]]:
    """Every status is sent, also one equal to the output's."""
    self.idle = status == "idle"
    return [{"status": status}]


def _records_blocked(self: wo.Output, timestamp: int | None) -> list[dict[str, Any]]:
    """Records are held back while the output is idle, as watermarks are."""
    return [] if self.idle else [{"record": timestamp}]


def _latency_blocked(self: wo.Output, marked_time: int) -> list[dict[str, Any]]:
    """Latency markers are dropped while the output is idle, as watermarks are."""
    return [] if self.idle else [{"latency": marked_time}]


def _end_active_first(self: wo.Output, source: str, version: FlinkVersion) -> list[dict[str, Any]]:
    """The end marks the output ACTIVE before its Long.MAX_VALUE watermark, whatever the source task."""
    return [*self.status("active"), *self.watermark(wo.LONG_MAX)]


_give = wo.Output.give


def _give_marks_active(self: wo.Output, element: dict[str, Any]) -> list[dict[str, Any]]:
    """A chained operator's watermark marks the task's output ACTIVE first, whoever made it idle."""
    if "watermark" in element:
        return [*self.status("active"), *self.watermark(element["watermark"])]
    return _give(self, element)


def _forwards_status(self: wa.Operator, status: str) -> list[dict[str, Any]]:
    """The chained operator passes an upstream status on in every release."""
    return [{"status": status}]


# why each mutant that no documented rule catches breaks none
UNDOCUMENTED = {
    "wo-status-sent-again": "The documentation says how statuses mark a stream idle or active, not that a task's "
    "output sends a status only when it changes; only RecordWriterOutput.emitWatermarkStatus (1.13: "
    "OperatorChain.toggleStreamStatus) decides it.",
    "wo-latency-blocked-while-idle": "The documentation blocks watermarks of an idle task, and says nothing of "
    "latency markers; only RecordWriterOutput.emitLatencyMarker decides that they pass.",
    "wo-chain-watermark-marks-active": "It keeps the documented rule that Flink breaks in 1.13 ... 1.14.4 (emitting a "
    "watermark marks the output active, WatermarkOutput's javadoc: watermark.assigner's WMS-5); only the task's two "
    "statuses, the emitter's flag and the output's, decide that an upstream IDLE holds the watermark back.",
    "wo-chain-forwards-upstream-status": "No document says whether a TimestampsAndWatermarksOperator passes an "
    "upstream watermark status on; only its processWatermarkStatus (a no-op from 1.14.5, FLINK-26708) decides it.",
    "wo-end-active-first": "It keeps the documented rule that Flink breaks (a finished source sends MAX_WATERMARK, "
    "what FLINK-40499 proposes); only Flink's advanceToEndOfEventTime, which marks nothing ACTIVE, decides that an "
    "idle source's final watermark is dropped.",
}

# where a mutant differs from Flink only before the newest release: an upstream status reaches the output in 1.13 ...
# 1.14.4 only (FLINK-26708)
MEASURED_AT = {"wo-chain-watermark-marks-active": "1.14.0"}

for _name, _doc, _patches in (
    ("wo-watermark-while-idle", "The output sends watermarks while the task is idle (it does not check its status).",
     ((wo.Output, "watermark", _watermark_always),)),
    ("wo-status-sent-again", "The output sends every status, also one equal to the status it announced last.",
     ((wo.Output, "status", _status_again),)),
    ("wo-records-blocked-while-idle", "The output holds back records while the task is idle, as it drops watermarks.",
     ((wo.Output, "record", _records_blocked),)),
    ("wo-latency-blocked-while-idle", "The output drops latency markers while the task is idle.",
     ((wo.Output, "latency", _latency_blocked),)),
    ("wo-end-active-first", "A finished source task marks its output ACTIVE before the final Long.MAX_VALUE watermark "
     "(FLINK-40499's proposal), so an idle one's gets through.",
     ((wo.Output, "end", _end_active_first),)),
    ("wo-chain-watermark-marks-active", "In a chain, a watermark of the TimestampsAndWatermarksOperator marks the "
     "task's output ACTIVE first also where an upstream IDLE, not the operator, made it idle.",
     ((wo.Output, "give", _give_marks_active),)),
    ("wo-chain-forwards-upstream-status", "In a chain, the TimestampsAndWatermarksOperator passes upstream watermark "
     "statuses on to the task's output in every release (as 1.14.0 ... 1.14.4 did).",
     ((wa.Operator, "status", _forwards_status),)),
):
    MUTANTS.append(Mutant(_name, AREA, _doc, after=with_patches(*_patches), undocumented=UNDOCUMENTED.get(_name, ""),
                          measured_at=MEASURED_AT.get(_name, "")))
