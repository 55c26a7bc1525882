"""Interval-join mutants: bugs a reimplementation of Flink's IntervalJoinOperator plausibly has.

Each answers with one function of :mod:`oracle.watermark_join` swapped for the buggy one, for the duration of one
answer (:func:`properties.mutant.with_patches`).
"""

from __future__ import annotations

import oracle.watermark_join as wj
from properties.mutant import Mutant, with_patches

AREA = wj.JOIN
MUTANTS: list[Mutant] = []  # this module's mutants, in the order flinkspec mutants lists them


def _inclusive(req: wj.Request) -> tuple[int, int]:
    """lowerBoundExclusive / upperBoundExclusive are ignored: both bounds stay inclusive."""
    if req.lower > req.upper:
        raise wj.JoinRejected("IllegalArgumentException", wj.BOUNDS_MESSAGE)
    return req.lower, req.upper


def _same_bounds(side: wj.Side, lower: int, upper: int) -> tuple[int, int]:
    """A right record searches the left buffer with the left side's bounds, not mirrored."""
    return lower, upper


def _never_late(self: wj.Operator, ts: int) -> bool:
    """Records behind the watermark are buffered and joined like any other."""
    return False


def _cleanup_at_timestamp(ts: int, relative_upper: int) -> int:
    """The cleanup timer is at the record's own timestamp: the upper bound is not waited for."""
    return ts


def _removed_at_time(side: wj.Side, time: int, lower: int, upper: int) -> int:
    return time


for _name, _doc, _patches in (
    ("wj-inclusive-always", "The exclusive flags are ignored: a pair exactly on an exclusive bound is joined.",
     ((wj, "bounds", _inclusive),)),
    ("wj-right-unmirrored", "A right record joins the left records in [ts + lower, ts + upper] instead of "
     "[ts - upper, ts - lower].", ((wj, "relative", _same_bounds),)),
    ("wj-joins-late", "A record behind the watermark is not late: it is buffered and joined (and never goes to the "
     "late side output).", ((wj.Operator, "is_late", _never_late),)),
    ("wj-early-cleanup", "A record's cleanup timer is at its own timestamp, so a watermark past it removes the record "
     "while records of the other side may still join it.",
     ((wj, "cleanup_time", _cleanup_at_timestamp), (wj, "removed_at", _removed_at_time))),
):
    MUTANTS.append(Mutant(_name, AREA, _doc, after=with_patches(*_patches)))
