"""Requests for ``watermark.windows``: keyed records and watermarks on and around every rule of Flink's window
operator with an event-time assigner.

A request draws the assigner (tumbling with an offset; sliding with a slide dividing the size or not, and an
offset; session with a gap), now and then a parameter Flink refuses (an offset as large as the size or slide, a
size or gap of 0; and one sliding assigner in ten, without records, with size / slide at or above 10,000,000,
which 2.1 refuses: FLINK-37512's cap), an allowed
lateness (0 half the time; small, a size, and now and then one whose cleanup time overflows a long), a late side
output or not, and 0-20 events over two to four keys: records at or around the last watermark (before it by the
lateness, one more or one less, exactly at a window's cleanup time, after it), negative timestamps (FLINK-26334's
window start), now and then a timestamp near Long.MAX_VALUE; watermarks that stay, step by one, by a window's size
or past the lateness, Long.MIN_VALUE first and Long.MAX_VALUE last now and then, so that several keys' windows fire
on one watermark, late elements re-fire windows within the lateness and are dropped or side-output beyond it, and
session windows merge (touching and overlapping gaps).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from oracle.versions import FlinkVersion
from oracle.watermark_windows import LONG_MAX, LONG_MIN, MAX_WINDOW_NUM, WINDOWS
from properties.draws import booleans, integers, sampled

AREA = WINDOWS
KEYS = ("a", "b", "c", "d")


@st.composite
def _assigner(draw: st.DrawFn) -> tuple[dict[str, Any], int, bool]:
    """The assigner's fields, the window's extent (size or gap) and whether records may be drawn."""
    kind = draw(sampled(("tumbling", "sliding", "session")))
    bad = draw(integers(0, 24)) == 0
    if kind == "session":
        gap = draw(sampled((0, -1))) if bad else draw(sampled((1, 2, 3, 5, 10)))
        return {"assigner": "session", "gap_ms": gap}, max(gap, 1), True
    if kind == "tumbling":
        size = draw(sampled((1, 2, 5, 10, 100)))
        offset = draw(sampled((0, 0, 0, 1, -1, size - 1, 1 - size)))
        if bad:
            size, offset = draw(sampled(((size, size), (size, -size), (0, 0), (-5, 0))))
        return {"assigner": "tumbling", "size_ms": size, "offset_ms": offset}, max(size, 1), True
    if draw(integers(0, 9)) == 0:  # FLINK-37512's cap, at and past it, without records
        slide = draw(sampled((1, 1, 3)))
        ratio = MAX_WINDOW_NUM + draw(sampled((0, 1, 1, 1000)))
        return {"assigner": "sliding", "size_ms": slide * ratio, "slide_ms": slide}, 1, False
    slide = draw(sampled((1, 2, 5, 10)))
    size = slide * draw(integers(1, 4)) + draw(sampled((0, 0, 0, 1)))
    offset = draw(sampled((0, 0, 1, -1, slide - 1, 1 - slide)))
    if bad:
        size, slide, offset = draw(sampled(((size, slide, slide), (0, slide, 0))))
    return {"assigner": "sliding", "size_ms": size, "slide_ms": slide, "offset_ms": offset}, max(size, 1), True


@st.composite
def inputs(draw: st.DrawFn, version: FlinkVersion) -> dict[str, Any]:
    out, extent, records = draw(_assigner())
    lateness = draw(sampled((0, 0, 0, 1, 2, 5, extent)))
    if draw(integers(0, 19)) == 0:  # the cleanup time's overflow guard
        lateness = draw(sampled((LONG_MAX, LONG_MAX - 3)))
    if lateness:
        out["allowed_lateness_ms"] = lateness
    if draw(booleans()):
        out["late_output"] = True
    keys = KEYS[:draw(integers(2, 4))]
    small = min(lateness, 1000)
    base = draw(sampled((0, 0, 100, -20, -7)))
    wm: int | None = None
    events: list[dict[str, Any]] = []
    if draw(integers(0, 9)) == 0:
        wm = LONG_MIN
        events.append({"watermark": LONG_MIN})
    for _ in range(draw(integers(0, 20))):
        kind = draw(sampled(("record", "record", "record", "watermark")))
        if kind == "record" and records:
            if draw(integers(0, 29)) == 0 and out["assigner"] != "sliding":
                ts = draw(sampled((LONG_MAX, LONG_MAX - 1, LONG_MAX - extent, LONG_MIN + 1)))
            else:
                anchor = base if wm is None or wm in (LONG_MIN, LONG_MAX) else wm
                delta = draw(sampled((-small - extent, -small - 1, -small, 1 - small, -extent, -1, 0, 1, 2,
                                              extent - 1, extent, 2 * extent)))
                ts = anchor + delta if abs(anchor + delta) < 2**62 else anchor
            events.append({"key": draw(sampled(keys)), "timestamp": ts,
                           "value": draw(integers(-3, 9))})
        elif kind == "watermark":
            if wm == LONG_MAX:
                continue
            if draw(integers(0, 14)) == 0:
                wm = LONG_MAX
            else:
                start = base if wm is None or wm == LONG_MIN else wm
                step = draw(sampled((0, 1, 1, extent - 1, extent, extent + 1, small, small + extent)))
                wm = max(start + step, wm if wm is not None else LONG_MIN)
            events.append({"watermark": wm})
    out["events"] = events
    return out


def requests(version: FlinkVersion) -> st.SearchStrategy[dict[str, Any]]:
    """Protocol requests for ``watermark.windows`` and ``version``."""
    return inputs(version).map(lambda i: {"area": AREA, "flink": str(version), "input": i})


def size(req: dict[str, Any]) -> int:
    return len(req["input"].get("events", []))
