"""Meta-tests: the watermark.async strategy reaches the corners where implementations go wrong (a full queue, a
watermark at the head, completions out of order, records between watermarks reordered, end of input waiting),
the invariants reject what they must, and the oracle's rules hold on pinned inputs (each the answer real Flink's
queues give: ``flinkspec check --impl flink``)."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import oracle
from oracle.versions import SUPPORTED
from oracle.watermark_async import ASYNC, CAPACITY_MESSAGE, TIMEOUT_CAUSE
from properties.corpus import Corner, answered_with, refused_with
from properties.meta import corner_tests
from properties.watermark import async_invariants as inv
from properties.watermark.async_strategies import requests

SAMPLE = 2000  # requests drawn once; every corner must be among them


def _steps(pred: Any) -> Corner:
    return answered_with(lambda out, inp: pred(out["steps"], inp))


def _events_with(steps: list[Any], inp: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return list(zip(inp["events"], steps, strict=True))


def _out_of_order(steps: list[Any], inp: dict[str, Any]) -> bool:
    """A completion of a record that is not the oldest pending one."""
    pending: list[str] = []
    for ev, step in _events_with(steps, inp):
        if ev["kind"] == "record" and not step.get("held"):
            pending.append(ev["name"])
        if ev["kind"] == "complete":
            if pending and ev["name"] != pending[0]:
                return True
            if ev["name"] in pending:
                pending.remove(ev["name"])
        pending.extend(inp["events"][a]["name"] for a in step.get("admitted", [])
                       if inp["events"][a]["kind"] == "record")
    return False


def _reordered(steps: list[Any], inp: dict[str, Any]) -> bool:
    """Unordered: results emitted in another order than their records arrived."""
    if inp["mode"] != "unordered":
        return False
    order = {ev["timestamp"]: i for i, ev in enumerate(inp["events"]) if ev["kind"] == "record" and "timestamp" in ev}
    found = [order.get(item.get("timestamp")) for s in steps for item in s["emitted"] if "record" in item]
    seen = [x for x in found if x is not None]
    return any(a > b for a, b in pairwise(seen))


CORNERS: dict[str, Corner] = {
    "a full queue holds an input": _steps(lambda s, i: any(x.get("held") for x in s)),
    "a held watermark": _steps(lambda s, i: any(x.get("held") and e["kind"] == "watermark"
                                                for e, x in _events_with(s, i))),
    "a completion admits a held input": _steps(lambda s, i: any(x.get("admitted") for x in s)),
    "a completion admits two held inputs": _steps(lambda s, i: any(len(x.get("admitted", [])) >= 2 for x in s)),
    "a watermark at the head emitted at once": _steps(lambda s, i: any(
        e["kind"] == "watermark" and x["emitted"] == [{"watermark": e["timestamp"]}] for e, x in _events_with(s, i))),
    "a watermark waits for an earlier record": _steps(lambda s, i: any(
        e["kind"] == "watermark" and not x.get("held") and not x["emitted"] for e, x in _events_with(s, i))),
    "completions out of order": _steps(_out_of_order),
    "ordered: a completion behind the head emits nothing": _steps(lambda s, i: i["mode"] == "ordered" and any(
        e["kind"] == "complete" and e["results"] and not x["emitted"] for e, x in _events_with(s, i))),
    "unordered: results reordered": _steps(_reordered),
    "unordered: a completion behind a watermark emits nothing": _steps(lambda s, i: i["mode"] == "unordered" and any(
        e["kind"] == "complete" and e["results"] and not x["emitted"] for e, x in _events_with(s, i))),
    "a record without a timestamp emitted": _steps(lambda s, i: any(
        "record" in item and "timestamp" not in item for x in s for item in x["emitted"])),
    "a completion with no results": _steps(lambda s, i: any(e["kind"] == "complete" and not e["results"]
                                                            for e in i["events"])),
    "end of input waits": _steps(lambda s, i: any(e["kind"] == "end" and x.get("held")
                                                  for e, x in _events_with(s, i))),
    "end of input admitted once drained": _steps(lambda s, i: any(
        i["events"][a]["kind"] == "end" for x in s for a in x.get("admitted", []))),
    "a capacity of 1000": answered_with(lambda o, i: i["capacity"] == 1000),
    "a capacity not above zero": refused_with("IllegalArgumentException", CAPACITY_MESSAGE),
    "a timeout fails the task": _steps(lambda s, i: any(
        f["cause"]["exception"] == TIMEOUT_CAUSE[0] for x in s for f in x.get("failures", []))),
    "two requests time out at one advance": _steps(lambda s, i: any(
        sum(f["cause"]["exception"] == TIMEOUT_CAUSE[0] for f in x.get("failures", [])) >= 2 for x in s)),
    "a timeout override emits its results": _steps(lambda s, i: bool(i.get("timeout_results")) and any(
        e["kind"] == "advance" and any("record" in item for item in x["emitted"]) for e, x in _events_with(s, i))),
    "a timeout admits a held input": _steps(lambda s, i: any(
        e["kind"] == "advance" and x.get("admitted") for e, x in _events_with(s, i))),
    "a failed request fails the task": _steps(lambda s, i: any(
        e["kind"] == "fail" and x.get("failures") for e, x in _events_with(s, i))),
    "a late completion after a timeout": _steps(lambda s, i: _late(s, i)),
    "a timeout while end of input waits": _steps(lambda s, i: any(
        i["events"][a]["kind"] == "end" for e, x in _events_with(s, i) if e["kind"] == "advance"
        for a in x.get("admitted", []))),
    "a timeout of 0: no timer": answered_with(lambda o, i: i.get("timeout") == 0 and any(
        e["kind"] == "advance" for e in i["events"])),
}


def _late(steps: list[Any], inp: dict[str, Any]) -> bool:
    """A complete or fail event naming a record that timed out before (by the step it timed out at)."""
    timed_out: set[str] = set()
    for ev, step in _events_with(steps, inp):
        if ev["kind"] in ("complete", "fail") and ev["name"] in timed_out:
            return True
        if ev["kind"] == "advance" and (step.get("failures") or inp.get("timeout_results") is not None):
            for f in step.get("failures", []):
                timed_out.add(f["message"].rsplit(" : ", 1)[-1].rstrip("."))
            if inp.get("timeout_results") is not None and step["emitted"]:
                return any(e["kind"] == "complete" for e in inp["events"][inp["events"].index(ev):])
    return False


(test_strategy_reaches, _, test_every_generated_request_is_well_formed_and_keeps_the_rules) = corner_tests(
    requests, SAMPLE, CORNERS, keeps=(inv.shape, inv.ordered, inv.unordered_boundary, inv.after_completion,
                                      inv.capacity, inv.watermark_at_head, inv.timeouts, inv.failures))


def _rec(name: str, ts: int | None = None) -> dict[str, Any]:
    return {"kind": "record", "name": name, **({} if ts is None else {"timestamp": ts})}


def _done(name: str, *results: int) -> dict[str, Any]:
    return {"kind": "complete", "name": name, "results": list(results)}


def _wm(ts: int) -> dict[str, Any]:
    return {"kind": "watermark", "timestamp": ts}


def _ask(mode: str, capacity: int, *events: dict[str, Any], **options: Any) -> dict[str, Any]:
    req = {"area": ASYNC, "flink": "2.3", "input": {"mode": mode, "capacity": capacity, "events": list(events),
                                                    **options}}
    resp = oracle.answer({"id": 0, **req})
    return {"request": req, "response": resp, "steps": resp.get("output", {}).get("steps")}


def test_ordered_waits_for_the_head() -> None:
    """AQ-3: ordered, b completes first and waits for a; a's completion emits both, in arrival order."""
    got = _ask("ordered", 3, _rec("a", 1), _rec("b", 2), _done("b", 20), _done("a", 10))
    assert got["steps"] == [{"emitted": []}, {"emitted": []}, {"emitted": []},
                            {"emitted": [{"record": 10, "timestamp": 1}, {"record": 20, "timestamp": 2}]}]


def test_unordered_reorders_only_between_watermarks() -> None:
    """AQ-4: unordered, b overtakes a, but c (after the watermark) waits for the watermark, which waits for a."""
    got = _ask("unordered", 5, _rec("a", 1), _rec("b", 2), _wm(2), _rec("c", 3), _done("b", 20), _done("c", 30),
               _done("a", 10))
    assert got["steps"] == [{"emitted": []}, {"emitted": []}, {"emitted": []}, {"emitted": []},
                            {"emitted": [{"record": 20, "timestamp": 2}]}, {"emitted": []},
                            {"emitted": [{"record": 10, "timestamp": 1}, {"watermark": 2},
                                         {"record": 30, "timestamp": 3}]}]


def test_a_full_queue_holds_the_next_input() -> None:
    """AQ-2, AQ-6: capacity 1 (a watermark counts too): the watermark and the record behind it are held until a's
    completion frees the slot; the watermark then enters the empty queue and is emitted at once."""
    got = _ask("ordered", 1, _rec("a"), _wm(5), _rec("b", 7), _done("a", 1), _done("b", 2))
    assert got["steps"] == [{"emitted": []}, {"emitted": [], "held": True}, {"emitted": [], "held": True},
                            {"emitted": [{"record": 1}, {"watermark": 5}], "admitted": [1, 2]},
                            {"emitted": [{"record": 2, "timestamp": 7}]}]


def test_end_waits_for_the_queue_to_drain() -> None:
    """AQ-6: endInput waits until every request has completed."""
    got = _ask("unordered", 2, _rec("a", 1), {"kind": "end"}, _done("a"))
    assert got["steps"] == [{"emitted": []}, {"emitted": [], "held": True}, {"emitted": [], "admitted": [1]}]


def test_a_capacity_of_zero_is_flinks_rejection() -> None:
    """AQ-1."""
    got = _ask("ordered", 0)
    assert got["response"]["error"] == {"type": "InvalidConfiguration", "exception": "IllegalArgumentException",
                                        "message": CAPACITY_MESSAGE}


def _advance(ms: int) -> dict[str, Any]:
    return {"kind": "advance", "ms": ms}


def _timed_out(name: str, ts: int | None = None) -> dict[str, Any]:
    record = f"Record @ {'(undef)' if ts is None else ts} : {name}"
    return {"exception": "java.lang.Exception", "message": f"Could not complete the stream element: {record}.",
            "cause": {"exception": TIMEOUT_CAUSE[0], "message": TIMEOUT_CAUSE[1]}}


def test_a_timeout_fails_the_task_once_processing_time_reaches_it() -> None:
    """AQ-7, AQ-8: timeout 5: a (taken at 0) times out at 5, not at 4; b, taken at 3, at 8; the default timeout
    fails the task with Flink's TimeoutException and the entry completes with nothing, so the queue moves on."""
    got = _ask("ordered", 2, _rec("a", 1), _advance(3), _rec("b"), _wm(9), _advance(1), _advance(1), _advance(3),
               timeout=5)
    assert got["steps"] == [{"emitted": []}, {"emitted": []}, {"emitted": []}, {"emitted": [], "held": True},
                            {"emitted": []}, {"emitted": [], "admitted": [3], "failures": [_timed_out("a", 1)]},
                            {"emitted": [{"watermark": 9}], "failures": [_timed_out("b")]}]


def test_a_timeout_override_completes_with_its_results() -> None:
    """AQ-7: AsyncFunction.timeout overridden to complete with [7]: no failure, the results carry the timestamp;
    a timeout of 0 or less registers no timer."""
    got = _ask("unordered", 2, _rec("a", 4), _advance(2), timeout=2, timeout_results=[7])
    assert got["steps"] == [{"emitted": []}, {"emitted": [{"record": 7, "timestamp": 4}]}]
    assert _ask("unordered", 2, _rec("a", 4), _advance(100), timeout=0)["steps"] == [{"emitted": []}, {"emitted": []}]


def test_a_late_completion_after_a_timeout_is_ignored() -> None:
    """AQ-9: a completes after it timed out (ResultHandler.completed): nothing more is emitted, nothing fails; a
    completion before the timeout cancels the timer."""
    got = _ask("ordered", 2, _rec("a", 1), _advance(5), _done("a", 10), timeout=5, timeout_results=[3])
    assert got["steps"] == [{"emitted": []}, {"emitted": [{"record": 3, "timestamp": 1}]}, {"emitted": []}]
    got = _ask("ordered", 2, _rec("a", 1), _done("a", 10), _advance(50), timeout=5)
    assert got["steps"] == [{"emitted": []}, {"emitted": [{"record": 10, "timestamp": 1}]}, {"emitted": []}]


def test_a_failed_request_fails_the_task_and_frees_its_slot() -> None:
    """AQ-8: b's request fails: failExternally with Flink's message around the function's exception; the entry
    completes with no results, so a's results (behind nothing now) and the held c go on."""
    got = _ask("unordered", 1, _rec("b", 2), _rec("c", 3), {"kind": "fail", "name": "b", "message": "no"})
    failed = {"exception": "java.lang.Exception", "message": "Could not complete the stream element: Record @ 2 : b.",
              "cause": {"exception": "java.io.IOException", "message": "no"}}
    assert got["steps"] == [{"emitted": []}, {"emitted": [], "held": True},
                            {"emitted": [], "admitted": [1], "failures": [failed]}]


def _violations(mode: str, capacity: int, events: list[dict[str, Any]], steps: list[Any],
                **options: Any) -> list[str]:
    req = {"area": ASYNC, "flink": "2.3", "input": {"mode": mode, "capacity": capacity, "events": events, **options}}
    resp = {"id": 0, "output": {"steps": steps}}
    return [v.rule for check in (inv.shape, inv.ordered, inv.unordered_boundary, inv.after_completion,
                                 inv.capacity, inv.watermark_at_head, inv.timeouts, inv.failures)
            for v in check(req, resp, SUPPORTED[-1])]


def test_the_invariants_reject_what_they_must() -> None:
    """Each documented rule rejects an answer that breaks it."""
    ab = [_rec("a", 1), _rec("b", 2), _done("b", 20), _done("a", 10)]
    e: list[Any] = []
    assert _violations("ordered", 3, ab, [{"emitted": e}, {"emitted": e}, {"emitted": [
        {"record": 20, "timestamp": 2}]}, {"emitted": [{"record": 10, "timestamp": 1}]}]) == ["WMA-2"]
    awb = [_rec("a", 1), _wm(1), _rec("b", 2), _done("b", 20), _done("a", 10)]
    assert _violations("unordered", 3, awb, [{"emitted": e}, {"emitted": e}, {"emitted": e}, {"emitted": [
        {"record": 20, "timestamp": 2}]}, {"emitted": [{"record": 10, "timestamp": 1}, {"watermark": 1}]}]) == [
        "WMA-3"]
    assert _violations("unordered", 3, ab[:2], [{"emitted": e}, {"emitted": [{"record": 5, "timestamp": 2}]}]) == [
        "WMA-3", "WMA-4"]
    assert _violations("ordered", 1, ab[:2], [{"emitted": e}, {"emitted": e}]) == ["WMA-5"]
    assert _violations("ordered", 2, [_wm(4)], [{"emitted": e}]) == ["WMA-6"]
    assert _violations("ordered", 2, [_wm(4)], [{"emitted": "x"}]) == ["WMA-1"]
    # a watermark emitted while an earlier record's request is still pending
    aw = [_rec("a", 1), _wm(1)]
    assert _violations("ordered", 3, aw, [{"emitted": e}, {"emitted": [{"watermark": 1}]}]) == ["WMA-2"]
    assert _violations("unordered", 3, aw, [{"emitted": e}, {"emitted": [{"watermark": 1}]}]) == ["WMA-3"]



def test_the_timeout_invariants_reject_what_they_must() -> None:
    """WMA-7, WMA-8 and WMA-4 on timeouts: a timeout that does not fail, a failure without a timeout, a late
    completion emitted, a failure lost."""
    e: list[Any] = []
    a = [_rec("a", 1), _advance(5), _done("a", 10)]
    assert _violations("ordered", 2, a, [{"emitted": e}, {"emitted": e}, {"emitted": e}], timeout=5) == ["WMA-7"]
    assert _violations("ordered", 2, a, [{"emitted": e}, {"emitted": e, "failures": [_timed_out("a", 1)]},
                                         {"emitted": e}], timeout=6) == ["WMA-7"]
    assert _violations("ordered", 2, a, [{"emitted": e}, {"emitted": [{"record": 3, "timestamp": 1}]},
                                         {"emitted": [{"record": 10, "timestamp": 1}]}], timeout=5,
                       timeout_results=[3]) == ["WMA-2", "WMA-4"]
    f = [_rec("a", 1), {"kind": "fail", "name": "a", "message": "x"}]
    assert _violations("ordered", 2, f, [{"emitted": e}, {"emitted": e}]) == ["WMA-8"]
    assert _violations("ordered", 2, f, [{"emitted": e}, {"emitted": e, "failures": [{"exception": "E"}]}]) == [
        "WMA-1"]
