"""Window-operator mutants: bugs a reimplementation of Flink's WindowOperator with event-time windows plausibly has.

Each answers with one method of :mod:`oracle.watermark_windows` swapped for the buggy one, for the duration of
one answer (:func:`properties.mutant.with_patches`).
"""

from __future__ import annotations

from typing import Any

import oracle.watermark_windows as ww
from oracle.changes import FIRST
from properties.mutant import PR, Mutant, historical, with_patches

AREA = ww.WINDOWS
MUTANTS: list[Mutant] = []  # this module's mutants, in the order flinkspec mutants lists them

_process = ww.Operator.process


def _late_at_cleanup_accepted(self: ww.Operator, w: ww.Window) -> bool:
    """A window is late only strictly after its cleanup time: one exactly at it still takes elements."""
    return self.cleanup_time(w) < self.watermark


def _no_refire(self: ww.Operator, key: str, w: ww.Window, state: ww.Window, out: list[dict[str, Any]]) -> None:
    """An element within the allowed lateness is added, but its window does not fire again."""
    if ww.max_timestamp(w) > self.watermark:
        self.timers.add((ww.max_timestamp(w), key, w))
    self.register_cleanup(key, w)


def _touching_apart(windows: list[ww.Window]) -> list[tuple[ww.Window, set[ww.Window]]]:
    """Session windows merge only when they overlap, not when one ends where the next starts."""
    groups: list[tuple[ww.Window, set[ww.Window]]] = []
    for w in sorted(windows, key=lambda x: x[0]):
        if groups and groups[-1][0][0] < w[1] and groups[-1][0][1] > w[0]:
            cover, members = groups[-1]
            groups[-1] = ((min(cover[0], w[0]), max(cover[1], w[1])), members | {w})
        else:
            groups.append((w, {w}))
    return [(cover, members) for cover, members in groups if len(members) > 1]


def _side_output_counts(self: ww.Operator, rec: ww.Record) -> list[dict[str, Any]]:
    """A late record sent to the side output is counted in numLateRecordsDropped too."""
    out = _process(self, rec)
    if any("late" in x for x in out):
        self.dropped += 1
    return out


# why each mutant that no documented rule catches breaks none
UNDOCUMENTED = {
    "ww-touching-sessions-apart": "The documentation says a session closes after a gap of inactivity, not whether "
    "an element exactly one gap after the last one (windows that touch) continues it; only TimeWindow.intersects "
    "(start <= other end) decides it.",
}

for _name, _doc, _patches in (
    ("ww-late-at-cleanup-accepted", "A window is late only once the watermark is past its cleanup time (< instead "
     "of <=): an element arriving exactly when end - 1 + allowed lateness equals the watermark still fires it.",
     ((ww.Operator, "is_window_late", _late_at_cleanup_accepted),)),
    ("ww-no-refire", "A late element within the allowed lateness is added to its window, which does not fire "
     "again.", ((ww.Operator, "on_element", _no_refire),)),
    ("ww-touching-sessions-apart", "Session windows that touch (one ends where the next starts) are not merged.",
     ((ww, "merge_groups", _touching_apart),)),
    ("ww-side-output-counts", "A late record sent to the late side output is also counted in "
     "numLateRecordsDropped.", ((ww.Operator, "process", _side_output_counts),)),
):
    MUTANTS.append(Mutant(_name, AREA, _doc, after=with_patches(*_patches), undocumented=UNDOCUMENTED.get(_name, "")))

MUTANTS.append(historical(
    ww.WINDOW_START, AREA,
    "TimeWindow.getWindowStartWithOffset computes timestamp - (timestamp - offset + size) % size: where "
    "timestamp - offset + size < 0 (a negative timestamp more than a size before the offset) Java's remainder is "
    "negative and the element goes to the window after the one holding its timestamp (which may then be late).",
    f"{PR}19158 (Flink 1.14.5; 1.15.0 by PR 19159)", "1.13.6 and earlier, 1.14.0-1.14.4",
    after=with_patches((ww, "REMAINDER_START", {FIRST: False}))))
MUTANTS.append(historical(
    ww.SLIDING_CAP, AREA,
    "SlidingEventTimeWindows accepts any size / slide: an assigner with more than 10,000,000 windows per element is "
    "built (and every element then allocates that many windows, the OutOfMemoryError of FLINK-37512).",
    f"{PR}26321 (Flink 2.1.0)", "1.13-2.0.2",
    after=with_patches((ww, "CAPS_SLIDING", {FIRST: False})),
    undocumented="No documented rule states a limit on size / slide (WMW-ACCEPTED asks only that an assigner with "
    "size / slide below 10,000,000 is accepted); the refusal from 2.1.0 is only SlidingEventTimeWindows' constructor "
    "check against MAX_WINDOW_NUM."))
