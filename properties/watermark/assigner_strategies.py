"""Requests for ``watermark.assigner``: event sequences on and around every rule of Flink's
TimestampsAndWatermarksOperator.

A request draws the generator as ``watermark.generation``'s strategy-built requests
do (bounded with a bound of 0, small, large or Long.MAX_VALUE, a negative one now and then; monotonous; punctuated),
an idle timeout one time in three (small where the operator gives the generator its clock, 1.19.2+ / 1.20.1+, else
at least a minute; zero or negative now and then), an auto-watermark interval (mostly 1-200 ms, 0 one time in eight,
negative or the largest the clock allows now and then), progressive watermarks one time in seven off, and 0-24
events: records with timestamps around the previous ones (no timestamp one time in ten; marked for the punctuated
generator), upstream watermarks around the last timestamp (Long.MAX_VALUE one time in four, twice now and then),
upstream statuses (from 1.14, where the operator has the method; at every release for watermark.output's chain),
processing-time advances of 0, 1, the interval - 1, the interval, the interval + 1, several intervals and the
timeout + 1, probes (six periodic emits far enough apart to go idle, or one advance of three intervals, then a
record with a new timestamp and a short advance: the output active again, the timer not caught up), and one time in
three end of input last.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from oracle.versions import FlinkVersion, pick
from oracle.watermark_assigner import ASSIGNER, FORWARDS_STATUS, MAX_CLOCK_MS
from oracle.watermark_generation import CONTEXT_CLOCK, LONG_MAX, MIN_STRATEGY_TIMEOUT_MS
from properties.draws import booleans, integers, sampled
from properties.watermark.generation_strategies import generator_fields, size, timestamp

AREA = ASSIGNER
INTERVALS = (1, 1, 2, 5, 10, 100, 200)
SMALL_TIMEOUTS = (1, 2, 5, 10, 100, 1000)


@st.composite
def inputs(draw: st.DrawFn, version: FlinkVersion, task_status: bool = False) -> dict[str, Any]:
    """``task_status``: statuses at every release (watermark.output's chain, whose task takes them in 1.13)."""
    out = draw(generator_fields())
    generator = out["generator"]
    timeout: int | None = None
    if draw(integers(0, 2)) == 0:
        if draw(integers(0, 19)) == 0:
            timeout = draw(sampled((0, -1, LONG_MAX)))
        elif pick(CONTEXT_CLOCK, version):
            timeout = draw(sampled(SMALL_TIMEOUTS))
        else:
            timeout = draw(sampled((MIN_STRATEGY_TIMEOUT_MS, 2 * MIN_STRATEGY_TIMEOUT_MS)))
        out["idle_timeout_ms"] = timeout
    corner = draw(integers(0, 39))
    interval = -1 if corner == 0 else MAX_CLOCK_MS if corner == 1 else \
        0 if draw(integers(0, 7)) == 0 else draw(sampled(INTERVALS))
    out["auto_watermark_interval_ms"] = interval
    if draw(integers(0, 6)) == 0:
        out["emit_progressive"] = False
    i = interval if 0 < interval <= 1000 else 5
    t = timeout if timeout is not None and 0 < timeout <= 1000 else i
    advances = (0, 1, max(i - 1, 0), i, i, i + 1, 2 * i, 3 * i, t + 1)
    statuses = task_status or pick(FORWARDS_STATUS, version) is not None
    events: list[dict[str, Any]] = []
    clock = 0
    last = draw(sampled((0, 1000, 1_600_000_000_000, -5)))
    for _ in range(draw(integers(0, 24))):
        kind = draw(sampled(("record", "record", "record", "advance", "advance", "advance", "watermark",
                                     "status", "probe")))
        if kind == "probe" and 0 < interval <= 1000 and clock + 6 * (i + t) <= MAX_CLOCK_MS:
            # idle (with a timeout: six periodic emits apart enough to pass it) or a long advance, then a record
            # with a new timestamp and the next periodic emit: the output active again, the timer not caught up
            step = max(i, t // 3 + 1)
            ahead = [step] * 6 if timeout is not None and draw(booleans()) else [3 * i]
            last = min(last + 10, LONG_MAX)
            short = draw(sampled((0, 1, i)))
            tail = [{"kind": "record", "timestamp": last, **({"marker": True} if generator == "punctuated" else {})},
                    {"kind": "advance", "ms": short}]
            events.extend([*({"kind": "advance", "ms": ms} for ms in ahead), *tail])
            clock += sum(ahead) + short
        elif kind == "record":
            ts: int | None = None
            if draw(integers(0, 9)) != 0:
                last = ts = draw(timestamp(last))
            ev: dict[str, Any] = {"kind": "record", "timestamp": ts}
            if generator == "punctuated" and draw(booleans()):
                ev["marker"] = True
            events.append(ev)
        elif kind == "watermark":
            wm = LONG_MAX if draw(integers(0, 3)) == 0 else draw(timestamp(last))
            events.append({"kind": "watermark", "timestamp": wm})
        elif kind == "status" and statuses:
            events.append({"kind": "status", "status": draw(sampled(("idle", "active")))})
        elif kind == "advance":
            ms = draw(sampled(advances))
            if clock + ms <= MAX_CLOCK_MS:
                clock += ms
                events.append({"kind": "advance", "ms": ms})
    if draw(integers(0, 2)) == 0:
        events.append({"kind": "end_of_input"})
    out["events"] = events
    return out


def requests(version: FlinkVersion) -> st.SearchStrategy[dict[str, Any]]:
    """Protocol requests for ``watermark.assigner`` and ``version``."""
    return inputs(version).map(lambda i: {"area": AREA, "flink": str(version), "input": i})


__all__ = ["AREA", "inputs", "requests", "size"]  # size: the events, as watermark.generation counts them
