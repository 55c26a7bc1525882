"""Watermark-generation mutants: bugs a reimplementation of Flink's watermark generators plausibly has.

Each answers with one method or table of :mod:`oracle.watermark_generation` swapped for the buggy one, for the
duration of one answer (:func:`properties.mutant.with_patches`).
"""

from __future__ import annotations

from typing import Any

import oracle.watermark_generation as wg
from oracle.changes import FIRST
from properties.mutant import PR, Mutant, historical, with_patches

AREA = wg.GENERATION
MUTANTS: list[Mutant] = []  # this module's mutants, in the order flinkspec mutants lists them

_with_idleness_event = wg.WithIdleness.on_event
_with_idleness_emit = wg.WithIdleness.on_periodic_emit


def _no_minus_one(self: wg.Bounded) -> list[dict[str, Any]]:
    return [wg.watermark(self.max_timestamp - self.bound)]


def _idle_at_timeout(self: wg.IdlenessTimer, inactive_nanos: int) -> bool:
    return inactive_nanos >= self.max_idle_nanos


def _record_does_not_wake(self: wg.WithIdleness, timestamp: int, marker: bool) -> list[dict[str, Any]]:
    """Once idle, a record no longer counts as activity: the output stays idle."""
    if self.idle_now:
        return self.inner.on_event(timestamp, marker)
    return _with_idleness_event(self, timestamp, marker)


def _idle_still_emits(self: wg.WithIdleness) -> list[dict[str, Any]]:
    """An idle output still gets the generator's periodic watermark, after the markIdle."""
    out = _with_idleness_emit(self)
    return out + self.inner.on_periodic_emit() if wg.IDLE in out else out


def _deduplicated(self: wg.Bounded) -> list[dict[str, Any]]:
    """The generator drops a periodic watermark equal to the one it emitted before."""
    wm = self.max_timestamp - self.bound - 1
    if getattr(self, "_last", None) == wm:
        return []
    self._last = wm  # type: ignore[attr-defined]
    return [wg.watermark(wm)]


# why each mutant that no documented rule catches breaks none
UNDOCUMENTED = {
    "wg-idle-at-timeout": "The documentation says a stream with no records for the timeout is idle; whether exactly "
    "the timeout counts (IdlenessTimer compares with >) is only in WatermarksWithIdleness.IdlenessTimer.checkIfIdle.",
    "wg-idle-still-emits": "The documentation says when the output is marked idle, not that WatermarksWithIdleness "
    "skips the generator's periodic emit while idle; only WatermarksWithIdleness.onPeriodicEmit decides it.",
    "wg-watermark-deduplicated": "The documentation's generators emit a watermark per period; that a repeated "
    "equal watermark is emitted again by the generator (and dropped by the output) is only in "
    "BoundedOutOfOrdernessWatermarks.onPeriodicEmit, and WMG-2 judges the values emitted, not their number.",
    "wg-idle-repeated": "The documentation says when the output becomes idle, not how often markIdle is called "
    "while it stays idle; the 1.15.3 change is only in WatermarksWithIdleness (isIdleNow).",
}

for _name, _doc, _patches in (
    ("wg-no-minus-one", "The bounded out-of-orderness watermark is the maximum timestamp minus the bound, without "
     "the - 1.", ((wg.Bounded, "on_periodic_emit", _no_minus_one),)),
    ("wg-idle-at-timeout", "The output is idle once exactly the timeout has passed since the inactivity started "
     "(>= instead of >).", ((wg.IdlenessTimer, "timed_out", _idle_at_timeout),)),
    ("wg-record-does-not-wake", "A record after the output went idle is not counted as activity: it stays idle.",
     ((wg.WithIdleness, "on_event", _record_does_not_wake),)),
    ("wg-idle-still-emits", "An idle output still gets the generator's periodic watermark after markIdle.",
     ((wg.WithIdleness, "on_periodic_emit", _idle_still_emits),)),
    ("wg-watermark-deduplicated", "The bounded generator emits a periodic watermark only when it differs from the "
     "one it emitted before.", ((wg.Bounded, "on_periodic_emit", _deduplicated),)),
    ("wg-idle-repeated", "markIdle is called at every periodic emit while the output stays idle, in every release "
     "(Flink before 1.15.3 did; from 1.15.3 once until the next record).",
     ((wg, "REPEATS_IDLE", {FIRST: True}),)),
):
    MUTANTS.append(Mutant(_name, AREA, _doc, after=with_patches(*_patches), undocumented=UNDOCUMENTED.get(_name, "")))

MUTANTS.append(historical(
    wg.ACTIVITY_CLOCK, AREA,
    "A WatermarkStrategy's idleness timer reads the system clock, not the context's input-activity clock: time "
    "the task spends backpressured or blocked by watermark alignment counts as idle time (the manual clock's "
    "advances are not seen at all).",
    f"{PR}25223 (Flink 1.19.2; 1.20.1 by PR 25222, 2.0.0 by PR 25167)", "1.11-1.19.1, 1.20.0",
    after=with_patches((wg, "CONTEXT_CLOCK", {FIRST: False})),
    undocumented="The documentation of withIdleness says a partition without records for the timeout is idle, not "
    "which clock measures the timeout; that a backpressured or blocked task's time is not counted is only in "
    "WatermarkStrategyWithIdleness and WatermarkGeneratorSupplier.Context.getInputActivityClock (FLINK-35886)."))
MUTANTS.append(historical(
    wg.IDLE_ONCE, AREA,
    "WatermarksWithIdleness calls markIdle at every periodic emit while the output stays idle, not once when it "
    "becomes idle (no isIdleNow): with a FLIP-27 source's per-split outputs this kept marking the reader output idle "
    "(FLINK-28975: withIdleness marked all streams from FLIP-27 sources as idle).",
    f"{PR}20831 (Flink 1.15.3; 1.16.0 by PR 20819)", "1.11-1.15.2",
    after=with_patches((wg, "REPEATS_IDLE", {FIRST: True})),
    undocumented=UNDOCUMENTED["wg-idle-repeated"]))
