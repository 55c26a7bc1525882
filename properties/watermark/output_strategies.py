"""Requests for ``watermark.output``: event sequences on and around every rule of Flink's RecordWriterOutput and
a source task's end.

A request draws the source task (SourceOperatorStreamTask two times in three, else the legacy SourceStreamTask)
and 0-20 events: records (no timestamp one time in ten), watermarks around the last timestamp (Long.MIN_VALUE and
Long.MAX_VALUE now and then), statuses (idle and active, so the output is idle about half of the time, and
repeated, so the same status comes twice in a row), latency markers, probes (an idle status, then a watermark, a
record and a latency marker: what the idle output still sends), and the end last two times in three (after an idle
status one time in three of those: a finished idle source).

One request in three is a one-input task whose chain is a TimestampsAndWatermarksOperator (``chain: assigner``): its
input and events are drawn as ``watermark.assigner``'s are, with upstream statuses at every release.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from oracle.versions import FlinkVersion
from oracle.watermark_output import LONG_MAX, LONG_MIN, OUTPUT
from properties.draws import integers, sampled
from properties.watermark import assigner_strategies

AREA = OUTPUT


@st.composite
def inputs(draw: st.DrawFn, version: FlinkVersion) -> dict[str, Any]:
    if draw(integers(0, 2)) == 0:
        return {"chain": "assigner", **draw(assigner_strategies.inputs(version, task_status=True))}
    out: dict[str, Any] = {}
    source = draw(sampled(("operator", "operator", "legacy", None)))
    if source is not None:
        out["source"] = source
    events: list[dict[str, Any]] = []
    last = draw(sampled((0, 1000, 1_600_000_000_000, -5)))
    for _ in range(draw(integers(0, 20))):
        kind = draw(sampled(("record", "record", "watermark", "watermark", "status", "status", "latency",
                                     "probe")))
        if kind == "record":
            ts: int | None = None
            if draw(integers(0, 9)) != 0:
                last = ts = last + draw(integers(-3, 10))
            events.append({"kind": "record", "timestamp": ts})
        elif kind == "watermark":
            corner = draw(integers(0, 9))
            wm = LONG_MAX if corner == 0 else LONG_MIN if corner == 1 else last + draw(integers(-3, 3))
            events.append({"kind": "watermark", "timestamp": wm})
        elif kind == "status":
            events.append({"kind": "status", "status": draw(sampled(("idle", "active")))})
        elif kind == "latency":
            events.append({"kind": "latency", "marked_time": draw(sampled((0, 1, last, LONG_MAX)))})
        else:
            events.extend([{"kind": "status", "status": "idle"}, {"kind": "watermark", "timestamp": last},
                           {"kind": "record", "timestamp": last}, {"kind": "latency", "marked_time": 1}])
    if draw(integers(0, 2)) != 0:
        if draw(integers(0, 2)) == 0:
            events.append({"kind": "status", "status": "idle"})
        events.append({"kind": "end"})
    out["events"] = events
    return out


def requests(version: FlinkVersion) -> st.SearchStrategy[dict[str, Any]]:
    """Protocol requests for ``watermark.output`` and ``version``."""
    return inputs(version).map(lambda i: {"area": AREA, "flink": str(version), "input": i})


def size(req: dict[str, Any]) -> int:
    """The events."""
    return len(req["input"].get("events", []))
