"""Meta-tests: the watermark.output strategy reaches the corners where implementations go wrong (a watermark
dropped while idle, a status sent again, records and latency markers through an idle output, an idle finished
source), the invariants reject what they must, and the oracle's rules hold on pinned inputs (each the answer real
Flink gives: ``flinkspec check --impl flink``)."""

from __future__ import annotations

from typing import Any

import oracle
from oracle.versions import SUPPORTED
from oracle.watermark_output import LONG_MAX, LONG_MIN, OUTPUT
from properties.corpus import Corner, answered_with
from properties.meta import corner_tests
from properties.watermark import output_invariants as inv
from properties.watermark.output_strategies import requests

SAMPLE = 2000  # requests drawn once; every corner must be among them
KEEPS = (inv.shape, inv.blocked_while_idle, inv.records_propagate)  # WMO-3: Flink breaks it


def _pairs(pred: Any) -> Corner:
    """Some event and its elements satisfy ``pred(event, elements, input)``."""
    return answered_with(lambda out, inp: any(pred(e, c, inp) for e, c in zip(inp["events"], out["outputs"],
                                                                               strict=True)))


CORNERS: dict[str, Corner] = {
    "a watermark leaves": _pairs(lambda e, c, i: e["kind"] == "watermark" and bool(c)),
    "a watermark dropped while idle": _pairs(lambda e, c, i: e["kind"] == "watermark" and not c),
    "a status sent": _pairs(lambda e, c, i: e["kind"] == "status" and bool(c)),
    "a status equal to the last not sent": _pairs(lambda e, c, i: e["kind"] == "status" and not c),
    "a record without a timestamp": _pairs(lambda e, c, i: c == [{"record": None}]),
    "a latency marker": _pairs(lambda e, c, i: e["kind"] == "latency"),
    "an active source ends with Long.MAX_VALUE": _pairs(lambda e, c, i: e["kind"] == "end" and c == [
        {"watermark": LONG_MAX}]),
    "an idle source ends with nothing": _pairs(lambda e, c, i: e["kind"] == "end" and not c),
    "a legacy source ends": _pairs(lambda e, c, i: e["kind"] == "end" and i.get("source") == "legacy"),
}
def _max_held(out: Any, inp: Any) -> bool:
    """A chain's upstream Long.MAX_VALUE sends nothing though none left before (an idle output holds it back)."""
    sent: list[Any] = []
    for e, c in zip(inp["events"], out["outputs"], strict=True):
        if e == _wm(LONG_MAX) and not c and {"watermark": LONG_MAX} not in sent:
            return True
        sent += c
    return False


CORNERS["a chain's generator watermark leaves"] = _pairs(
    lambda e, c, i: "chain" in i and e["kind"] == "advance" and any("watermark" in x for x in c))
CORNERS["a chain's own idleness sends IDLE"] = _pairs(lambda e, c, i: "chain" in i and c == [{"status": "idle"}]
                                                      and e["kind"] == "advance")
BY_VERSION: dict[str, tuple[str, Corner]] = {
    "1.14.0: an upstream IDLE holds back a chain's maximum watermark": (
        "1.14.0", answered_with(lambda out, inp: "chain" in inp and _max_held(out, inp))),
    "1.13: an upstream IDLE holds back a chain's maximum watermark": (
        "1.13", answered_with(lambda out, inp: "chain" in inp and _max_held(out, inp))),
    "1.13: an idle legacy source marks ACTIVE before Long.MAX_VALUE": ("1.13", _pairs(
        lambda e, c, i: e["kind"] == "end" and c == [{"status": "active"}, {"watermark": LONG_MAX}])),
}

(test_strategy_reaches, test_strategy_reaches_version_corner,
 test_every_generated_request_is_well_formed_and_keeps_the_rules) = corner_tests(
    requests, SAMPLE, CORNERS, BY_VERSION, keeps=KEEPS)

IDLE = {"kind": "status", "status": "idle"}
ACTIVE = {"kind": "status", "status": "active"}
END = {"kind": "end"}


def _wm(ts: int) -> dict[str, Any]:
    return {"kind": "watermark", "timestamp": ts}


def _ask(flink: str, *events: dict[str, Any], source: str = "operator") -> Any:
    resp = oracle.answer({"id": 0, "area": OUTPUT, "flink": flink, "input": {"source": source,
                                                                             "events": list(events)}})
    return resp.get("output", {}).get("outputs", resp)


def test_a_watermark_is_dropped_while_idle() -> None:
    """RWO-2: blocked between IDLE and ACTIVE, in 1.13 (the chain's status) as from 1.14 (the output's)."""
    for flink in ("1.13", "2.3"):
        assert _ask(flink, _wm(1), IDLE, _wm(2), ACTIVE, _wm(3)) == [
            [{"watermark": 1}], [{"status": "idle"}], [], [{"status": "active"}], [{"watermark": 3}]]


def test_a_status_leaves_only_when_it_changes() -> None:
    """RWO-3: the status starts ACTIVE; only a change leaves."""
    assert _ask("2.3", ACTIVE, IDLE, IDLE, ACTIVE, ACTIVE) == [[], [{"status": "idle"}], [], [{"status": "active"}],
                                                               []]


def test_a_latency_marker_passes_an_idle_output() -> None:
    """RWO-4, RWO-1: latency markers and records leave an idle output."""
    got = _ask("2.3", IDLE, {"kind": "latency", "marked_time": 7}, {"kind": "record", "timestamp": 3})
    assert got == [[{"status": "idle"}], [{"latency": 7}], [{"record": 3}]]


def test_an_idle_finished_source_sends_nothing() -> None:
    """RWO-5: SourceOperatorStreamTask's Long.MAX_VALUE is dropped by an idle output in every release."""
    for version in SUPPORTED:
        assert _ask(str(version), IDLE, END) == [[{"status": "idle"}], []]
        assert _ask(str(version), END) == [[{"watermark": LONG_MAX}]]


def test_a_legacy_source_marks_active_first_only_in_1_13() -> None:
    """RWO-6: 1.13's StreamSource goes through its WatermarkContext (ACTIVE first); 1.14's SourceStreamTask does
    not (FLINK-23808)."""
    assert _ask("1.13", IDLE, END, source="legacy") == [[{"status": "idle"}],
                                                        [{"status": "active"}, {"watermark": LONG_MAX}]]
    assert _ask("1.14.0", IDLE, END, source="legacy") == [[{"status": "idle"}], []]
    assert _ask("1.13", END, source="legacy") == [[{"watermark": LONG_MAX}]]


def _violations(events: list[dict[str, Any]], outputs: list[Any]) -> list[str]:
    req = {"area": OUTPUT, "flink": "2.3", "input": {"events": events}}
    resp = {"id": 0, "output": {"outputs": outputs}}
    checks = (*KEEPS, inv.finished_sends_max)
    return [v.rule for check in checks for v in check(req, resp, SUPPORTED[-1])]


def test_the_invariants_reject_what_they_must() -> None:
    """Each documented rule rejects an answer that breaks it."""
    assert _violations([IDLE, _wm(2)], [[{"status": "idle"}], [{"watermark": 2}]]) == ["WMO-2"]
    assert _violations([END], [[]]) == ["WMO-3"]
    assert _violations([END], [[{"status": "idle"}]]) == ["WMO-3"]
    assert _violations([{"kind": "record", "timestamp": 1}], [[]]) == ["WMO-4"]
    assert _violations([_wm(1)], [[{"record": 1}]]) == ["WMO-4"]
    assert _violations([_wm(1)], [[{"watermark": "1"}]]) == ["WMO-1"]
    assert _violations([_wm(1)], []) == ["WMO-1"]
    assert _violations([IDLE, _wm(2), END], [[{"status": "idle"}], [], [{"status": "active"},
                                                                        {"watermark": LONG_MAX}]]) == []


def _chain(flink: str, *events: dict[str, Any], **operator: Any) -> Any:
    inp = {"chain": "assigner", "generator": "bounded", "out_of_orderness_ms": 1, "auto_watermark_interval_ms": 5,
           **operator, "events": list(events)}
    resp = oracle.answer({"id": 0, "area": OUTPUT, "flink": flink, "input": inp})
    return resp.get("output", {}).get("outputs", resp)


RECORD_10 = {"kind": "record", "timestamp": 10}
TICK = {"kind": "advance", "ms": 5}


def test_an_upstream_idle_holds_back_the_chains_watermarks() -> None:
    """RWO-7: in 1.13 (the task toggles the chain) and 1.14.0 ... 1.14.4 (the operator forwards it) an upstream IDLE
    makes the task's output idle behind the WatermarkEmitter's back: the generator's watermark and the maximum one
    are dropped; from 1.14.5 the operator drops the status (FLINK-26708) and both leave. Real Flink 1.13.6 and 1.14.0
    answer so (``flinkspec replay --impl flink:1.13.6``)."""
    events = (RECORD_10, IDLE, TICK, _wm(LONG_MAX), {"kind": "end_of_input"})
    held = [[{"record": 10}], [{"status": "idle"}], [], [], []]
    assert _chain("1.13", *events) == held
    assert _chain("1.14.4", *events) == held
    assert _chain("1.14.5", *events) == [[{"record": 10}], [], [{"watermark": 8}], [{"watermark": LONG_MAX}], []]


def test_the_chains_own_idleness_marks_the_output_active_again() -> None:
    """RWO-7 with RWO-3: the generator's own idleness (withIdleness) sends IDLE through the output once, and its next
    watermark ACTIVE first; a record without a timestamp leaves with Long.MIN_VALUE (the operator's assigner)."""
    got = _chain("2.3", RECORD_10, TICK, TICK, TICK, TICK, {"kind": "record", "timestamp": None},
                 {"kind": "record", "timestamp": 20}, TICK, idle_timeout_ms=5)
    assert got == [[{"record": 10}], [{"watermark": 8}], [], [], [{"status": "idle"}], [{"record": LONG_MIN}],
                   [{"record": 20}], [{"status": "active"}, {"watermark": 18}]]
