"""Timestamps-and-watermarks operator mutants: bugs a reimplementation of Flink's TimestampsAndWatermarksOperator
plausibly has.

Each answers with one method of :mod:`oracle.watermark_assigner` swapped for the buggy one, for the duration of one
answer (:func:`properties.mutant.with_patches`).
"""

from __future__ import annotations

from typing import Any

import oracle.watermark_assigner as wt
from properties.mutant import PR, Mutant, historical, with_patches

AREA = wt.ASSIGNER
MUTANTS: list[Mutant] = []  # this module's mutants, in the order flinkspec mutants lists them

_advance = wt.Operator.advance


def _forwards(self: wt.Operator, timestamp: int) -> list[dict[str, Any]]:
    """Every upstream watermark goes through the emitter, not only Long.MAX_VALUE."""
    return self.emitter.emit_watermark(timestamp)


def _equal_again(self: wt.Emitter, ts: int) -> list[dict[str, Any]]:
    """The emitter drops only a watermark below the last: an equal one is emitted again."""
    if ts < self.current:
        return []
    self.current = ts
    return [*self.mark_active(), {"watermark": ts}]


def _no_final_emit(self: wt.Operator) -> list[dict[str, Any]]:
    return []


def _no_active(self: wt.Emitter, ts: int) -> list[dict[str, Any]]:
    """A watermark does not mark an idle output active again."""
    if ts <= self.current:
        return []
    self.current = ts
    return [{"watermark": ts}]


def _fixed_rate(self: wt.Operator, ms: int) -> list[dict[str, Any]]:
    """The next timer is at the fired timer's time + the interval (a fixed rate that catches up), not now + it."""
    fired = self.timer
    out = _advance(self, ms)
    if fired is not None and self.timer != fired:
        self.timer = fired + self.interval_ms
    return out


# why each mutant that no documented rule catches breaks none
UNDOCUMENTED = {
    "wt-equal-watermark-again": "The documentation says event time never goes back, not that the operator's output "
    "drops a watermark equal to the last; only TimestampsAndWatermarksOperator.WatermarkEmitter.emitWatermark "
    "decides it (<= dropped).",
    "wt-no-final-emit": "The documentation says the generator's onPeriodicEmit runs periodically, not that end of "
    "input runs it once more; only TimestampsAndWatermarksOperator.finish (close in 1.13) does.",
}

for _name, _doc, _patches in (
    ("wt-forwards-upstream-watermarks", "Every upstream watermark goes through the operator's emitter, not only "
     "Long.MAX_VALUE.", ((wt.Operator, "watermark", _forwards),)),
    ("wt-equal-watermark-again", "The emitter drops only a watermark below the last it emitted: an equal one is "
     "emitted again.", ((wt.Emitter, "emit_watermark", _equal_again),)),
    ("wt-no-final-emit", "End of input does not run the generator's periodic emit once more.",
     ((wt.Operator, "end_of_input", _no_final_emit),)),
    ("wt-no-active-on-watermark", "A watermark does not mark an idle output active again.",
     ((wt.Emitter, "emit_watermark", _no_active),)),
    ("wt-fixed-rate-timer", "The periodic timer is rescheduled at a fixed rate (the fired timer's time + the "
     "interval), so after a long advance the next short one fires it again.",
     ((wt.Operator, "advance", _fixed_rate),)),
):
    MUTANTS.append(Mutant(_name, AREA, _doc, after=with_patches(*_patches), undocumented=UNDOCUMENTED.get(_name, "")))
MUTANTS.append(historical(
    wt.STATUS_DROPPED, AREA,
    "TimestampsAndWatermarksOperator forwards an upstream WatermarkStatus to its output unchanged (it does not "
    "override AbstractStreamOperator.processWatermarkStatus) although it drops upstream watermarks: an upstream IDLE "
    "reaches the output behind the WatermarkEmitter's back, whose next watermark then follows it with no ACTIVE.",
    f"{PR}19135 (Flink 1.14.5 / 1.15.0)", "1.14.0-1.14.4",
    after=with_patches((wt, "FORWARDS_STATUS", wt.STATUS_REACHES.table(None, True)))))
