"""Requests for ``watermark.async``: records, completions, watermarks and end of input on and around every rule of
Flink's async queues.

A request draws the output mode, a capacity (mostly 1-4, so that the queue is full often; now and then 1000, or 0
or a negative one, Flink's rejection) and 0-30 events: records (a timestamp around the last one, absent one time
in eight), watermarks (around the last record's timestamp), completions of a pending request (the oldest, the
newest or any, so completions come out of order; with 0-3 results) and, at most once, end of input, after which
only completions follow. The oracle's operator replays the events as they are drawn, so that a completion names
only a record whose request was made (one not still waiting for a slot).

Half the requests use timeouts and failures (feature ``watermark.async.timeouts``): a timeout of a few ms (now and
then 0 or negative: no timer), a third of them with a timeout override's results, processing-time advances of
0-12 ms among the events (after end too: timers fire while end of input waits) and requests that fail; a
completion may then name a record that has timed out already (a late completion, which Flink ignores).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from oracle.versions import FlinkVersion
from oracle.watermark_async import ASYNC, MODES, Event, Operator, queue_of
from properties.draws import booleans, integers, sampled

AREA = ASYNC
CAPACITIES = (1, 1, 2, 2, 3, 4, 5)
CAPACITY_CORNERS = (1000, 0, -1, -(2**31))
TIMEOUTS = (1, 2, 3, 3, 5, 5, 8, 10, 0, -4)
ADVANCES = (0, 1, 1, 2, 3, 4, 5, 12)


@st.composite
def inputs(draw: st.DrawFn, version: FlinkVersion) -> dict[str, Any]:
    mode = draw(sampled(MODES))
    capacity = draw(sampled(CAPACITY_CORNERS)) if draw(integers(0, 19)) == 0 \
        else draw(sampled(CAPACITIES))
    out: dict[str, Any] = {"mode": mode, "capacity": capacity}
    timed = draw(booleans())
    timeout, override = 0, None
    if timed:
        timeout = draw(sampled(TIMEOUTS))
        out["timeout"] = timeout
        if draw(integers(0, 2)) == 0:
            override = tuple(draw(st.lists(integers(-5, 50), max_size=2)))
            out["timeout_results"] = list(override)
    op = Operator(queue_of(mode, max(capacity, 1)), timeout, override)
    events: list[dict[str, Any]] = []
    ts = draw(sampled((0, 100, -5)))
    ended = False
    completed: set[str] = set()  # the records a complete or fail event named (a request completes once)
    for i in range(draw(integers(0, 30))):
        pending = [n for n in op.entries if n not in completed]
        kinds = ("record", "record", "complete", "complete", "complete", "watermark", "end") if not timed else \
            ("record", "record", "complete", "complete", "advance", "advance", "watermark", "end", "fail")
        kind = draw(sampled(("complete", "advance", "fail") if timed else ("complete",))) if ended \
            else draw(sampled(kinds))
        if kind == "end" and draw(integers(0, 3)) != 0:
            kind = "complete"
        if kind == "fail" and draw(integers(0, 1)) == 0:
            kind = "advance"
        if kind == "fail" and not pending:
            kind = "advance"
        if kind == "complete" and not pending:
            if ended:
                break
            kind = "record"
        ev: dict[str, Any]
        if kind == "record":
            ts += draw(sampled((-3, 0, 1, 1, 2, 5)))
            ev = {"kind": "record", "name": f"r{i}"}
            if draw(integers(0, 7)) != 0:
                ev["timestamp"] = ts
            event = Event("record", name=ev["name"], timestamp=ev.get("timestamp"))
        elif kind == "watermark":
            ev = {"kind": "watermark", "timestamp": ts + draw(sampled((-1, 0, 0, 1)))}
            event = Event("watermark", timestamp=ev["timestamp"])
        elif kind == "advance":
            ev = {"kind": "advance", "ms": draw(sampled(ADVANCES))}
            event = Event("advance", ms=ev["ms"])
        elif kind == "fail":
            name = draw(sampled(pending))
            completed.add(name)
            ev = {"kind": "fail", "name": name, "message": f"{name} failed"}
            event = Event("fail", name=name, message=ev["message"])
        elif kind == "end":
            ended = True
            ev = {"kind": "end"}
            event = Event("end")
        else:
            which = draw(sampled(("oldest", "newest", "any")))
            name = pending[0] if which == "oldest" else pending[-1] if which == "newest" \
                else draw(sampled(pending))
            results = draw(st.lists(integers(-5, 50), max_size=3))
            completed.add(name)
            ev = {"kind": "complete", "name": name, "results": results}
            event = Event("complete", name=name, results=tuple(results))
        op.step(i, event)
        events.append(ev)
    out["events"] = events
    return out


def requests(version: FlinkVersion) -> st.SearchStrategy[dict[str, Any]]:
    """Protocol requests for ``watermark.async`` and ``version``."""
    return inputs(version).map(lambda i: {"area": AREA, "flink": str(version), "input": i})


def size(req: dict[str, Any]) -> int:
    return len(req["input"].get("events", []))
