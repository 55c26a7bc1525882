"""Meta-tests: the window strategy reaches the corners where implementations go wrong, and the oracle's rules hold
on pinned inputs (each the answer real Flink gives, read from the bridge at 1.13.6 and 2.3.0: ``WindowsArea``)."""

from __future__ import annotations

from typing import Any

import oracle
from oracle.versions import parse_version
from oracle.watermark_windows import LONG_MAX, LONG_MIN, WINDOWS
from properties.corpus import Corner, answered_with, refused_with
from properties.meta import corner_tests
from properties.watermark.windows_invariants import contents_in_window, documented_windows, normalize
from properties.watermark.windows_strategies import requests

SAMPLE = 3000  # requests drawn once per release below; every corner must be among them


def _fired(out: dict[str, Any]) -> list[dict[str, Any]]:
    return [x["fired"] for items in out["outputs"] for x in items if "fired" in x]


def _on_watermark(out: dict[str, Any], inp: dict[str, Any]) -> list[list[dict[str, Any]]]:
    return [[x["fired"] for x in items if "fired" in x]
            for ev, items in zip(inp["events"], out["outputs"], strict=True) if "watermark" in ev]


def _refired(out: dict[str, Any], inp: dict[str, Any]) -> bool:
    """A record that fires a window the watermark had already passed (late, within the lateness)."""
    return any("key" in ev and any("fired" in x for x in items)
               for ev, items in zip(inp["events"], out["outputs"], strict=True))


def _exactly_at_cleanup(out: dict[str, Any], inp: dict[str, Any]) -> bool:
    """A record whose every window's end - 1 + lateness equals the watermark: late by exactly nothing."""
    wm, lateness = LONG_MIN, inp.get("allowed_lateness_ms", 0)
    for ev in inp["events"]:
        if "watermark" in ev:
            wm = ev["watermark"]
        elif wm > LONG_MIN and (windows := documented_windows(inp, ev["timestamp"])) \
                and max(e - 1 + lateness for _s, e in windows) == wm:
            return True
    return False


def _merged_session(out: dict[str, Any], inp: dict[str, Any]) -> bool:
    gap = inp.get("gap_ms")
    return inp["assigner"] == "session" and any(f["end"] - f["start"] > gap for f in _fired(out))


def _touching(out: dict[str, Any], inp: dict[str, Any]) -> bool:
    """Two records of a key exactly a gap apart in one fired session window (windows that touch merge)."""
    if inp["assigner"] != "session":
        return False
    gap = inp["gap_ms"]
    for f in _fired(out):
        stamps = {e["timestamp"] for e in inp["events"] if e.get("key") == f["key"] and f["start"] <= e["timestamp"]
                  < f["end"]}
        if any(t + gap in stamps and not any(t < u < t + gap for u in stamps) for t in stamps):
            return True
    return False


CORNERS: dict[str, Corner] = {
    "a tumbling window fired": answered_with(lambda o, i: i["assigner"] == "tumbling" and bool(_fired(o))),
    "a sliding window fired": answered_with(lambda o, i: i["assigner"] == "sliding" and bool(_fired(o))),
    "a session window fired": answered_with(lambda o, i: i["assigner"] == "session" and bool(_fired(o))),
    "several keys fire on one watermark": answered_with(lambda o, i: any(
        len({f["key"] for f in fired}) >= 3 for fired in _on_watermark(o, i))),
    "equal timestamps of different keys on one watermark": answered_with(lambda o, i: any(
        len({f["key"] for f in fired if f["timestamp"] == fired[0]["timestamp"]}) >= 2
        for fired in _on_watermark(o, i) if fired)),
    "a window fired again within the allowed lateness": answered_with(_refired),
    "a late record on the side output": answered_with(lambda o, i: any(
        "late" in x for items in o["outputs"] for x in items)),
    "a late record dropped and counted": answered_with(lambda o, i: bool(o["dropped"]) and o["dropped"][-1] > 0),
    "a record exactly at its windows' cleanup time": answered_with(_exactly_at_cleanup),
    "a merged session": answered_with(_merged_session),
    "touching sessions merged": answered_with(_touching),
    "a window fired by a Long.MAX_VALUE watermark": answered_with(lambda o, i: any(
        "watermark" in ev and ev["watermark"] == LONG_MAX and items
        for ev, items in zip(i["events"], o["outputs"], strict=True))),
    "a Long.MIN_VALUE watermark": answered_with(lambda o, i: {"watermark": LONG_MIN} in i["events"]),
    "a cleanup time that overflows, fired": answered_with(lambda o, i: i.get("allowed_lateness_ms", 0) > 2**62
                                                          and bool(_fired(o))),
    "a record near Long.MAX_VALUE fired": answered_with(lambda o, i: any(f["start"] > 2**62 for f in _fired(o))),
    "a negative window": answered_with(lambda o, i: any(f["end"] < 0 for f in _fired(o))),
    "tumbling refused": refused_with("IllegalArgumentException", "TumblingEventTimeWindows parameters"),
    "sliding refused": refused_with("IllegalArgumentException", "SlidingEventTimeWindows parameters must satisfy abs"),
    "session refused": refused_with("IllegalArgumentException", "EventTimeSessionWindows parameters"),
}
BY_VERSION: dict[str, tuple[str, Corner]] = {
    "2.3: size / slide above 10,000,000 refused": ("2.3", refused_with(
        "IllegalArgumentException", "SlidingEventTimeWindows parameters must satisfy size / slide")),
    "1.13: an element outside its window (FLINK-26334)": ("1.13", lambda d: bool(
        contents_in_window(d[0], d[1], parse_version("1.13")))),
}


(test_strategy_reaches, test_strategy_reaches_version_corner,
 test_every_generated_request_is_well_formed) = corner_tests(requests, SAMPLE, CORNERS, BY_VERSION)


def _answer(version: str, **inp: Any) -> dict[str, Any]:
    return oracle.answer({"id": 0, "area": WINDOWS, "flink": version, "input": inp})


def _rec(key: str, ts: int, value: int) -> dict[str, Any]:
    return {"key": key, "timestamp": ts, "value": value}


def _fire(key: str, start: int, end: int, *values: int) -> dict[str, Any]:
    return {"fired": {"key": key, "start": start, "end": end, "values": list(values), "timestamp": end - 1}}


def test_the_assigners_refuse_what_flink_refuses() -> None:
    """WW-1: each assigner's check, and 2.1's cap on size / slide (accepted by 2.0 without records)."""
    def message(version: str, **inp: Any) -> str | None:
        said: str | None = _answer(version, events=[], **inp).get("error", {}).get("message")
        return said
    assert message("2.3", assigner="tumbling", size_ms=5, offset_ms=5) == (
        "TumblingEventTimeWindows parameters must satisfy abs(offset) < size")
    assert message("2.3", assigner="session", gap_ms=0) == "EventTimeSessionWindows parameters must satisfy 0 < size"
    assert message("2.3", assigner="sliding", size_ms=0, slide_ms=1) == (
        "SlidingEventTimeWindows parameters must satisfy abs(offset) < slide and size > 0")
    cap = {"assigner": "sliding", "size_ms": 10_000_001, "slide_ms": 1}
    assert message("2.0", **cap) is None
    assert message("2.1", **cap) == "SlidingEventTimeWindows parameters must satisfy size / slide <= 10000000"
    assert message("2.1", **{**cap, "size_ms": 10_000_000}) is None


def test_window_start_before_and_after_flink_26334() -> None:
    """WW-2: before 1.14.5 the element -15 of a 10 ms tumbling window lands in [-10, 0); from it in [-20, -10)."""
    events = [_rec("a", -15, 1), {"watermark": LONG_MAX}]
    assert _answer("1.13", assigner="tumbling", size_ms=10, events=events)["output"]["outputs"][1] == [
        _fire("a", -10, 0, 1)]
    for version in ("1.14.5", "2.3"):
        assert _answer(version, assigner="tumbling", size_ms=10, events=events)["output"]["outputs"][1] == [
            _fire("a", -20, -10, 1)]


def test_the_cleanup_time_overflow_guard() -> None:
    """WW-4, WW-6: maxTimestamp + lateness overflows: the cleanup time is Long.MAX_VALUE, the window is never
    cleared and takes late elements until the watermark is Long.MAX_VALUE; an element's own lateness check has no
    guard (timestamp + lateness wraps), so then it is counted as dropped."""
    out = _answer("2.3", assigner="tumbling", size_ms=10, allowed_lateness_ms=LONG_MAX - 7, events=[
        _rec("a", 10, 1), {"watermark": 100}, _rec("a", 11, 2), {"watermark": LONG_MAX}, _rec("a", 12, 3)])["output"]
    assert out == {"outputs": [[], [_fire("a", 10, 20, 1)], [_fire("a", 10, 20, 1, 2)], [], []],
                   "dropped": [0, 0, 0, 0, 1]}


def test_several_keys_fire_on_one_watermark() -> None:
    """WW-7: one watermark fires every key's windows in ascending timestamp order (equal timestamps in the timer
    queue's order: Flink gives b, c, a here; the tie rule compares them sorted); the window fires again for a late
    element within the lateness, and a later one is dropped."""
    out = _answer("2.3", assigner="tumbling", size_ms=10, offset_ms=3, allowed_lateness_ms=5, events=[
        _rec("a", 4, 1), _rec("b", 5, 2), _rec("c", 12, 3), _rec("d", 1, 4), {"watermark": 12}, _rec("a", 6, 5),
        {"watermark": 17}, _rec("a", 7, 6), {"watermark": 30}])
    flink = {"id": 0, "output": {"outputs": [
        [], [], [], [], [_fire("d", -7, 3, 4), _fire("b", 3, 13, 2), _fire("c", 3, 13, 3), _fire("a", 3, 13, 1)],
        [_fire("a", 3, 13, 1, 5)], [], [], []], "dropped": [0, 0, 0, 0, 0, 0, 0, 1, 1]}}
    assert normalize(out) == normalize(flink)


def test_sessions_merge() -> None:
    """WW-8, WW-9: sessions that touch merge ([0, 5) and [5, 10) and [10, 15)); a late element of a closed session
    goes to the side output; a merge that would end before the watermark (its cleanup time overflowing) is
    Flink's UnsupportedOperationException."""
    out = _answer("2.3", assigner="session", gap_ms=5, late_output=True, events=[
        _rec("a", 0, 1), _rec("a", 10, 2), _rec("a", 5, 3), _rec("a", 20, 4), {"watermark": 14}, _rec("a", 1, 5),
        {"watermark": 24}])["output"]
    assert out["outputs"][4:] == [[_fire("a", 0, 15, 1, 2, 3)], [{"late": {"key": "a", "timestamp": 1, "value": 5}}],
                                  [_fire("a", 20, 25, 4)]]
    err = _answer("1.13", assigner="session", gap_ms=5, allowed_lateness_ms=LONG_MAX, events=[
        _rec("a", 10, 1), {"watermark": 100}, _rec("a", 12, 2)])["error"]
    assert (err["exception"], err["message"]) == (
        "UnsupportedOperationException", "The end timestamp of an event-time window cannot become earlier than the "
        "current watermark by merging. Current watermark: 100 window: TimeWindow{start=10, end=17}")
