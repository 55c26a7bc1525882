"""Requests for ``watermark.join``: keyed records and per-input watermarks on and around every rule of Flink's
IntervalJoinOperator.

A request draws the bounds (small, around zero: both negative, both positive, one of each, equal; one in twenty
lower > upper, Flink's rejection; now and then Long.MIN_VALUE or Long.MAX_VALUE, where the relative bounds and the
cleanup times wrap), each exclusive or not, from 1.17.0 a late side output per side or not, and 0-24 events over
one to three keys: records of either side at, one inside and one outside each bound of a record buffered on the
other side, behind the watermark (late) or at it; now and then a timestamp Long.MIN_VALUE (Flink's FlinkException)
or near Long.MAX_VALUE; watermarks per input that stay, step by one or past a bound, so that the combined
watermark rises only when the slower input's does and cleanup timers fire exactly at a buffered record's cleanup
time or one before. Each record's value is its index among the events, so every pair names its records.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from oracle.versions import FlinkVersion
from oracle.watermark_join import JOIN, LATE_OUTPUTS, SIDES
from oracle.watermark_windows import LONG_MAX, LONG_MIN
from properties.draws import booleans, integers, sampled

AREA = JOIN
KEYS = ("a", "b", "c")


@st.composite
def _bounds(draw: st.DrawFn) -> tuple[int, int]:
    if draw(integers(0, 19)) == 0:  # Flink's rejection
        lower = draw(integers(-5, 5))
        return lower, lower - draw(sampled((1, 1, 2, 10)))
    if draw(integers(0, 14)) == 0:  # the relative bounds and cleanup times wrap
        return draw(sampled(((LONG_MIN, 0), (LONG_MIN, 3), (-3, LONG_MAX), (0, LONG_MAX),
                                     (LONG_MIN, LONG_MAX), (LONG_MIN, LONG_MIN), (LONG_MAX, LONG_MAX))))
    lower = draw(integers(-6, 4))
    return lower, lower + draw(sampled((0, 0, 1, 2, 3, 5, 8)))


@st.composite
def inputs(draw: st.DrawFn, version: FlinkVersion) -> dict[str, Any]:
    lower, upper = draw(_bounds())
    out: dict[str, Any] = {"lower_bound_ms": lower, "upper_bound_ms": upper}
    for name in ("lower_exclusive", "upper_exclusive"):
        if draw(integers(0, 2)) == 0:
            out[name] = True
        elif draw(integers(0, 4)) == 0:
            out[name] = False
    if version >= LATE_OUTPUTS.at:
        for name in ("left_late_output", "right_late_output"):
            if draw(booleans()):
                out[name] = draw(integers(0, 3)) != 0
    keys = KEYS[:draw(integers(1, 3))]
    small = (-10, 10)
    clock = draw(sampled((0, 0, 100, -20)))
    extreme = draw(integers(0, 9)) == 0
    if extreme:
        clock = draw(sampled((LONG_MAX - 10, LONG_MIN + 10)))
    no_timestamp = draw(integers(0, 24)) == 0
    marks = {"left": LONG_MIN, "right": LONG_MIN}
    buffered: list[int] = []
    events: list[dict[str, Any]] = []
    for i in range(draw(integers(0, 24))):
        side = draw(sampled(SIDES))
        if draw(integers(0, 3)) == 0:  # a watermark of one input
            step = draw(sampled((0, 1, 1, 2, 3, 5, max(abs(upper), 1) if abs(upper) < 100 else 1)))
            mark = max(marks[side], _clamp(clock + step - 2))
            if draw(integers(0, 29)) == 0:
                mark = LONG_MAX
            marks[side] = mark
            clock = max(clock, mark) if abs(mark) < 2**62 or extreme else clock
            events.append({"side": side, "watermark": mark})
            if draw(booleans()):  # the other input follows: the combined watermark rises
                other = "right" if side == "left" else "left"
                marks[other] = max(marks[other], mark)
                events.append({"side": other, "watermark": marks[other]})
            continue
        if bool(buffered) and draw(booleans()):  # on or around a bound of a buffered record
            base = draw(sampled(buffered))
            bound = draw(sampled((lower, upper, -lower, -upper))) if max(abs(lower), abs(upper)) < 100 \
                else draw(integers(*small))
            ts = _clamp(base + bound + draw(sampled((-1, 0, 0, 1))))
        else:
            ts = _clamp(clock + draw(integers(-3, 4)))
        if no_timestamp and draw(integers(0, 3)) == 0:
            ts = LONG_MIN  # no timestamp: Flink's FlinkException
        buffered.append(ts)
        events.append({"side": side, "key": draw(sampled(keys)), "timestamp": ts, "value": i})
    out["events"] = events
    return out


def _clamp(x: int) -> int:
    return max(LONG_MIN + 1, min(LONG_MAX, x))


def requests(version: FlinkVersion) -> st.SearchStrategy[dict[str, Any]]:
    """Protocol requests for ``watermark.join`` and ``version``."""
    return inputs(version).map(lambda i: {"area": AREA, "flink": str(version), "input": i})


def size(req: dict[str, Any]) -> int:
    return len(req["input"].get("events", []))
