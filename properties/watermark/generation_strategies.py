"""Requests for ``watermark.generation``: event sequences on and around every rule of Flink's watermark generators.

A request draws how it is built (Flink's constructors, or one time in four a WatermarkStrategy, then with a
timeout of at least a minute), the generator (bounded out-of-orderness with a bound of 0, small, large or
Long.MAX_VALUE, a negative one now and then; monotonous; punctuated), an idle timeout one time in three absent
(then small, large, one whose nanoseconds overflow a long, zero or negative now and then), and 0-24 events: records with
timestamps around the previous ones (out of order, equal, Long.MIN_VALUE and Long.MAX_VALUE now and then;
marked for the punctuated generator), periodic emits (several in a row, and before the clock has moved, where
the idleness timer's start stays 0), and processing-time advances of 0, 1, the timeout - 1, the timeout, the
timeout + 1 and twice it, so that a generator goes idle, stays idle and is woken by a record; and now and then a
probe of the timer's boundary (two checks, then one exactly the timeout later, then one just past it).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from oracle.versions import FlinkVersion
from oracle.watermark_generation import (
    GENERATION,
    KINDS,
    LONG_MAX,
    LONG_MIN,
    MIN_STRATEGY_TIMEOUT_MS,
    NANOS_PER_MILLI,
)
from properties.draws import booleans, integers, sampled

AREA = GENERATION
MAX_CLOCK_MS = LONG_MAX // NANOS_PER_MILLI  # the manual clock counts nanoseconds in a long
BOUNDS = (0, 0, 1, 5, 100, 3000, 2**31, LONG_MAX)
TIMEOUTS = (1, 2, 5, 10, 100, 1000, 60_000)
TIMEOUT_CORNERS = (MAX_CLOCK_MS, MAX_CLOCK_MS + 1, LONG_MAX, 0, -1, LONG_MIN)


@st.composite
def timestamp(draw: st.DrawFn, last: int) -> int:
    kind = draw(integers(0, 19))
    if kind == 0:
        return draw(sampled((LONG_MIN, LONG_MAX, LONG_MIN + 1, LONG_MAX - 1, 0, -1)))
    step = draw(sampled((-1000, -10, -1, 0, 1, 1, 2, 5, 10, 100, 1000)))
    return max(LONG_MIN, min(LONG_MAX, last + step))


@st.composite
def generator_fields(draw: st.DrawFn) -> dict[str, Any]:
    """The generator and its bound (also watermark.assigner's)."""
    generator = draw(sampled(KINDS))
    out: dict[str, Any] = {"generator": generator}
    if generator == "bounded":
        out["out_of_orderness_ms"] = draw(sampled((-1, LONG_MIN))) if draw(integers(0, 29)) == 0 \
            else draw(sampled(BOUNDS))
    return out


@st.composite
def inputs(draw: st.DrawFn, version: FlinkVersion) -> dict[str, Any]:
    out = draw(generator_fields())
    generator = out["generator"]
    strategy = draw(integers(0, 3)) == 0  # built by a WatermarkStrategy (FLINK-35886's clock)
    if strategy:
        out["built_by"] = "strategy"
    timeout: int | None = None
    if draw(integers(0, 2)) != 0:
        timeout = draw(sampled(TIMEOUT_CORNERS)) if draw(integers(0, 14)) == 0 \
            else draw(sampled(TIMEOUTS))
        if strategy and 0 < timeout < MIN_STRATEGY_TIMEOUT_MS:
            timeout = draw(sampled((MIN_STRATEGY_TIMEOUT_MS, 2 * MIN_STRATEGY_TIMEOUT_MS)))
        out["idle_timeout_ms"] = timeout
    t = timeout if timeout is not None and 0 < timeout <= MAX_CLOCK_MS // 30 else draw(sampled((5, 100)))
    advances = (0, 1, max(t - 1, 0), t, t + 1, 2 * t, t // 2)
    events: list[dict[str, Any]] = []
    clock = 0
    last = draw(sampled((0, 1000, 1_600_000_000_000, -5)))
    for _ in range(draw(integers(0, 24))):
        kind = draw(sampled(("record", "record", "periodic", "periodic", "advance", "probe")))
        if kind == "probe" and clock + t + 2 <= MAX_CLOCK_MS:
            # the idleness timer's boundary: checks that note a record and start the inactivity, then one exactly
            # the timeout later (not idle: > not >=), then one just past it
            clock += t + 2
            events.extend([{"kind": "advance", "ms": 1}, {"kind": "periodic"}, {"kind": "periodic"},
                           {"kind": "advance", "ms": t}, {"kind": "periodic"}, {"kind": "advance", "ms": 1},
                           {"kind": "periodic"}])
        elif kind == "record":
            last = draw(timestamp(last))
            ev: dict[str, Any] = {"kind": "record", "timestamp": last}
            if generator == "punctuated" and draw(booleans()):
                ev["marker"] = True
            events.append(ev)
        elif kind == "periodic":
            events.extend({"kind": "periodic"} for _ in range(draw(sampled((1, 1, 1, 2, 3)))))
        elif kind == "advance":
            ms = draw(sampled(advances))
            if clock + ms <= MAX_CLOCK_MS:
                clock += ms
                events.append({"kind": "advance", "ms": ms})
    out["events"] = events
    return out


def requests(version: FlinkVersion) -> st.SearchStrategy[dict[str, Any]]:
    """Protocol requests for ``watermark.generation`` and ``version``."""
    return inputs(version).map(lambda i: {"area": AREA, "flink": str(version), "input": i})


def size(req: dict[str, Any]) -> int:
    return len(req["input"].get("events", []))
