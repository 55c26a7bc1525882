"""Meta-tests: the watermark.join strategy reaches the corners where implementations go wrong (pairs on and off
each bound, exclusive bounds, a combined watermark held by the slower input, cleanup exactly at a record's cleanup
time, late records with and without a side output, wrapping bounds, Flink's rejections), the invariants reject
what they must, and the oracle's rules hold on pinned inputs (each the answer real Flink's IntervalJoinOperator
gives: ``flinkspec serve --impl flink:2.3`` and ``flink:1.13``)."""

from __future__ import annotations

from typing import Any

import oracle
from oracle.versions import SUPPORTED, v
from oracle.watermark_join import BOUNDS_MESSAGE, JOIN, NO_TIMESTAMP_MESSAGE
from oracle.watermark_windows import LONG_MAX, LONG_MIN
from properties.corpus import Corner, answered_with, refused_with
from properties.meta import corner_tests
from properties.watermark import join_invariants as inv
from properties.watermark.join_strategies import requests

SAMPLE = 2000  # requests drawn once; every corner must be among them
KEEPS = (inv.shape, inv.join_condition, inv.every_pair, inv.late, inv.watermarks)


def _items(pred: Any) -> Corner:
    return answered_with(lambda out, inp: any(pred(item, inp) for o in out["outputs"] for item in o))


def _on_bound(which: str) -> Corner:
    """A pair exactly on the lower or the upper bound (the given one, inclusive)."""
    def pred(item: Any, inp: dict[str, Any]) -> bool:
        j = item.get("joined")
        if j is None or max(abs(inp["lower_bound_ms"]), abs(inp["upper_bound_ms"])) > 100:
            return False
        return bool(j["right_timestamp"] - j["left_timestamp"] == inp[f"{which}_bound_ms"])
    return _items(pred)


def _exclusive_edge(inp: dict[str, Any]) -> bool:
    """An exclusive bound with a later record of the other side exactly on it (left or right arriving second)."""
    if not (inp.get("lower_exclusive") or inp.get("upper_exclusive")) or abs(inp["upper_bound_ms"]) > 100:
        return False
    recs = [e for e in inp["events"] if "watermark" not in e]
    return any(a["side"] == "left" and b["side"] == "right" and a["key"] == b["key"]
               and b["timestamp"] - a["timestamp"] in (inp["lower_bound_ms"], inp["upper_bound_ms"])
               for a in recs for b in recs)


def _held_by_slower(out: dict[str, Any], inp: dict[str, Any]) -> bool:
    """A watermark of one input that emits nothing because the other input is behind."""
    return any("watermark" in e and not o for e, o in zip(inp["events"], out["outputs"], strict=True))


def _joined_then_cleaned(out: dict[str, Any], inp: dict[str, Any]) -> bool:
    """A record that joins nothing although an earlier record of the other side lies within its interval: the
    earlier one was cleaned up (or it is late)."""
    if abs(inp["lower_bound_ms"]) > 100 or abs(inp["upper_bound_ms"]) > 100:
        return False
    lo = inp["lower_bound_ms"] + (1 if inp.get("lower_exclusive") else 0)
    hi = inp["upper_bound_ms"] - (1 if inp.get("upper_exclusive") else 0)
    events = inp["events"]
    for i, (e, o) in enumerate(zip(events, out["outputs"], strict=True)):
        if "watermark" in e or o:
            continue
        for f in events[:i]:
            if "watermark" in f or f["side"] == e["side"] or f["key"] != e["key"]:
                continue
            left, right = (e, f) if e["side"] == "left" else (f, e)
            if lo <= right["timestamp"] - left["timestamp"] <= hi:
                return True
    return False


CORNERS: dict[str, Corner] = {
    "a pair on the lower bound": _on_bound("lower"),
    "a pair on the upper bound": _on_bound("upper"),
    "a record joining two": answered_with(lambda out, inp: any(
        sum("joined" in i for i in o) >= 2 for o in out["outputs"])),
    "a pair whose timestamp is the left one's": _items(lambda i, inp: "joined" in i and i["joined"][
        "left_timestamp"] > i["joined"]["right_timestamp"]),
    "an exclusive bound with a record on it": answered_with(lambda out, inp: _exclusive_edge(inp)),
    "a watermark held by the slower input": answered_with(_held_by_slower),
    "a combined watermark emitted": _items(lambda i, inp: "watermark" in i),
    "a record within the interval of a cleaned or late one": answered_with(_joined_then_cleaned),
    "a late record on the left side output": _items(lambda i, inp: i.get("late", {}).get("side") == "left"),
    "a late record on the right side output": _items(lambda i, inp: i.get("late", {}).get("side") == "right"),
    "a late record dropped": answered_with(lambda out, inp: any(
        "watermark" not in e and not o and not (inp.get(f"{e['side']}_late_output")) for e, o in
        zip(inp["events"], out["outputs"], strict=True)) and any("watermark" in e for e in inp["events"])),
    "bounds that wrap": answered_with(lambda out, inp: LONG_MIN in (inp["lower_bound_ms"], inp["upper_bound_ms"])
                                      or LONG_MAX in (inp["lower_bound_ms"], inp["upper_bound_ms"])),
    "a watermark of Long.MAX_VALUE": answered_with(lambda out, inp: any(e.get("watermark") == LONG_MAX
                                                                         for e in inp["events"])),
    "lower > upper": refused_with("IllegalArgumentException", BOUNDS_MESSAGE),
    "a record without a timestamp": refused_with("FlinkException", NO_TIMESTAMP_MESSAGE),
}

(test_strategy_reaches, _, test_every_generated_request_is_well_formed_and_keeps_the_rules) = corner_tests(
    requests, SAMPLE, CORNERS, keeps=KEEPS)


def _rec(side: str, ts: int, value: int, key: str = "a") -> dict[str, Any]:
    return {"side": side, "key": key, "timestamp": ts, "value": value}


def _wm(ts: int, *sides: str) -> list[dict[str, Any]]:
    return [{"side": s, "watermark": ts} for s in sides or ("left", "right")]


def _ask(lower: int, upper: int, events: list[dict[str, Any]], flink: str = "2.3", **flags: bool) -> dict[str, Any]:
    req = {"area": JOIN, "flink": flink, "input": {"lower_bound_ms": lower, "upper_bound_ms": upper, **flags,
                                                  "events": events}}
    return oracle.answer({"id": 0, **req})


def _pairs(resp: dict[str, Any]) -> list[list[tuple[int, int]]]:
    return [[(i["joined"]["left"], i["joined"]["right"]) for i in o if "joined" in i]
            for o in resp["output"]["outputs"]]


def test_exclusive_bounds_move_by_one() -> None:
    """IJ-1: [-1, 1] joins the right records at -1, 0, 1; lowerBoundExclusive drops -1, upperBoundExclusive 1;
    both exclusive on equal bounds joins nothing; lower > upper is Flink's IllegalArgumentException."""
    events = [_rec("left", 10, 0), _rec("right", 9, 1), _rec("right", 10, 2), _rec("right", 11, 3)]
    assert _pairs(_ask(-1, 1, events)) == [[], [(0, 1)], [(0, 2)], [(0, 3)]]
    assert _pairs(_ask(-1, 1, events, lower_exclusive=True)) == [[], [], [(0, 2)], [(0, 3)]]
    assert _pairs(_ask(-1, 1, events, upper_exclusive=True)) == [[], [(0, 1)], [(0, 2)], []]
    assert _pairs(_ask(0, 0, events, lower_exclusive=True, upper_exclusive=True)) == [[], [], [], []]
    assert _ask(1, 0, events)["error"] == {"type": "InvalidConfiguration", "exception": "IllegalArgumentException",
                                           "message": BOUNDS_MESSAGE}


def test_a_record_without_a_timestamp_is_flinks_exception() -> None:
    """IJ-2: even behind the watermark (the check comes first)."""
    resp = _ask(0, 1, [*_wm(5), _rec("right", LONG_MIN, 0)])
    assert resp["error"] == {"type": "InvalidConfiguration", "exception": "FlinkException",
                             "message": NO_TIMESTAMP_MESSAGE}


def test_a_record_at_the_watermark_is_not_late() -> None:
    """IJ-3: a record at the combined watermark is buffered and joined; one below it goes to its side output (or,
    before 1.17, nowhere); the watermark of one input alone does not make a record late."""
    resp = _ask(0, 0, [*_wm(5), _rec("left", 5, 0), _rec("right", 5, 1), _rec("right", 4, 2)],
                right_late_output=True)
    assert resp["output"]["outputs"] == [
        [], [{"watermark": 5}], [],
        [{"joined": {"key": "a", "left": 0, "right": 1, "left_timestamp": 5, "right_timestamp": 5, "timestamp": 5}}],
        [{"late": {"side": "right", "key": "a", "timestamp": 4, "value": 2}}]]
    old = _ask(0, 0, [*_wm(5, "left"), _rec("right", 4, 0), *_wm(5, "right"), _rec("left", 4, 1)], flink="1.16")
    assert old["output"]["outputs"] == [[], [], [{"watermark": 5}], []]
    assert _ask(0, 0, [], flink="1.16", left_late_output=True)["error"]["type"] == "BadRequest"


def test_cleanup_at_the_upper_bound() -> None:
    """IJ-5: with [0, 5] a left record at 10 is cleaned once the combined watermark reaches 15; a right record at
    15 arriving then is not late (15 is not below 15) but finds the left one gone."""
    before = _ask(0, 5, [_rec("left", 10, 0), *_wm(14), _rec("right", 15, 1)])
    assert _pairs(before)[-1] == [(0, 1)]
    after = _ask(0, 5, [_rec("left", 10, 0), *_wm(15), _rec("right", 15, 1)])
    assert _pairs(after)[-1] == []


def test_a_right_record_with_lower_long_min_is_never_cleaned() -> None:
    """IJ-5: lower = Long.MIN_VALUE: the right record's timer is at its timestamp and removes the bucket at
    ts + Long.MIN_VALUE, so it is still joined after the watermark passed it (with lower = -100 it is cleaned)."""
    events = [_rec("right", 0, 0), *_wm(LONG_MAX - 1), _rec("left", LONG_MAX - 1, 1)]
    assert _pairs(_ask(LONG_MIN, 0, events))[-1] == [(1, 0)]
    assert _pairs(_ask(-(2**62), 0, events))[-1] == []


def _violations(lower: int, upper: int, events: list[dict[str, Any]], outputs: list[Any],
                **flags: bool) -> list[str]:
    req = {"area": JOIN, "flink": "2.3", "input": {"lower_bound_ms": lower, "upper_bound_ms": upper, **flags,
                                                  "events": events}}
    resp = {"id": 0, "output": {"outputs": outputs}}
    return [x.rule for check in KEEPS for x in check(req, resp, SUPPORTED[-1])]


def _j(left: int, right: int, lt: int, rt: int) -> dict[str, Any]:
    return {"joined": {"key": "a", "left": left, "right": right, "left_timestamp": lt, "right_timestamp": rt,
                       "timestamp": max(lt, rt)}}


def test_the_invariants_reject_what_they_must() -> None:
    """Each documented rule rejects an answer that breaks it."""
    two = [_rec("left", 10, 0), _rec("right", 12, 1)]
    assert _violations(0, 2, two, [[], [_j(0, 1, 10, 12)]]) == []
    assert _violations(0, 1, two, [[], [_j(0, 1, 10, 12)]]) == ["WMJ-2"]
    assert _violations(0, 2, two, [[], [{"joined": {**_j(0, 1, 10, 12)["joined"], "timestamp": 10}}]]) == ["WMJ-2"]
    assert _violations(0, 2, two, [[], []]) == ["WMJ-3"]
    assert _violations(0, 2, two, [[], [_j(0, 1, 10, 12), _j(0, 1, 10, 12)]]) == ["WMJ-3"]
    late = [*_wm(20), _rec("left", 10, 0)]
    assert _violations(0, 2, late, [[], [{"watermark": 20}], []], left_late_output=True) == ["WMJ-4"]
    assert _violations(0, 2, late, [[], [{"watermark": 20}], []]) == []
    assert _violations(0, 2, late, [[], [], []]) == ["WMJ-5"]
    assert _violations(0, 2, late, [[{"watermark": 20}], [], []]) == ["WMJ-5"]
    assert _violations(0, 2, late, [[], "x", []]) == ["WMJ-1"]


def test_late_outputs_are_a_change_of_1_17() -> None:
    """FLINK-24907: the same request is a BadRequest at 1.16 and an answer at 1.17."""
    events = [*_wm(5), _rec("left", 1, 0)]
    assert _ask(0, 0, events, flink="1.16.3", left_late_output=True)["error"]["type"] == "BadRequest"
    assert _ask(0, 0, events, flink=str(v("1.17.0")), left_late_output=True)["output"]["outputs"][-1] == [
        {"late": {"side": "left", "key": "a", "timestamp": 1, "value": 0}}]


def test_the_pairs_of_one_record_by_timestamp_then_arrival() -> None:
    """IJ-7: the left records at 3, 1, 2, 1 (in that order) and a right record at 2 with [-1, 1]: the pairs by the
    left timestamp, the two at 1 in arrival order (real Flink's heap HashMap iterates small timestamps in that
    order too; the answers are compared sorted)."""
    events = [_rec("left", 3, 0), _rec("left", 1, 1), _rec("left", 2, 2), _rec("left", 1, 3), _rec("right", 2, 4)]
    assert _pairs(_ask(-1, 1, events))[-1] == [(1, 4), (3, 4), (2, 4), (0, 4)]
