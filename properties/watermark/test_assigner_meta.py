"""Meta-tests: the watermark.assigner strategy reaches the corners where implementations go wrong (an equal
watermark dropped, an upstream watermark dropped, Long.MAX_VALUE passed once, an idle output active again, a
long advance firing the timer once, end of input emitting), the invariants reject what they must, and the oracle's
rules hold on pinned inputs (each the answer real Flink gives: ``flinkspec check --impl flink``)."""

from __future__ import annotations

from typing import Any

import oracle
from oracle.versions import SUPPORTED
from oracle.watermark_assigner import ASSIGNER, LONG_MAX, LONG_MIN
from properties.corpus import Corner, answered_with, refused_with
from properties.meta import corner_tests
from properties.watermark import assigner_invariants as inv
from properties.watermark.assigner_strategies import requests

SAMPLE = 2000  # requests drawn once; every corner must be among them
KEEPS = (inv.shape, inv.records, inv.monotonous, inv.upstream_overwritten, inv.active_again, inv.interval)


def _pairs(pred: Any) -> Corner:
    """Some event and its calls satisfy ``pred(event, calls, input)``."""
    return answered_with(lambda out, inp: any(pred(e, c, inp) for e, c in zip(inp["events"], out["outputs"],
                                                                               strict=True)))


def _wm_dropped(e: dict[str, Any], c: list[Any], i: dict[str, Any]) -> bool:
    """A periodic emit whose watermark the emitter dropped (equal to the last)."""
    return e["kind"] == "advance" and not c and i.get("auto_watermark_interval_ms", 0) > 0 \
        and i["generator"] != "punctuated" and i.get("emit_progressive", True) and e["ms"] >= \
        i["auto_watermark_interval_ms"]


def _max_twice(out: dict[str, Any], inp: dict[str, Any]) -> bool:
    return sum(1 for e in inp["events"] if e["kind"] == "watermark" and e["timestamp"] == LONG_MAX) >= 2


CORNERS: dict[str, Corner] = {
    "a periodic watermark": _pairs(lambda e, c, i: e["kind"] == "advance" and any("watermark" in x for x in c)),
    "an equal periodic watermark dropped": _pairs(_wm_dropped),
    "an advance of several intervals": _pairs(lambda e, c, i: e["kind"] == "advance" and i[
        "auto_watermark_interval_ms"] > 0 and e["ms"] >= 2 * i["auto_watermark_interval_ms"]),
    "an upstream watermark dropped": _pairs(lambda e, c, i: e["kind"] == "watermark" and e["timestamp"] != LONG_MAX),
    "the upstream Long.MAX_VALUE passed": _pairs(lambda e, c, i: e["kind"] == "watermark" and c == [
        {"watermark": LONG_MAX}]),
    "the upstream Long.MAX_VALUE twice": answered_with(_max_twice),
    "an upstream status dropped": _pairs(lambda e, c, i: e["kind"] == "status" and not c),
    "a record without a timestamp": _pairs(lambda e, c, i: e["kind"] == "record" and c[0] == {"record": LONG_MIN}),
    "a punctuated watermark on a record": _pairs(lambda e, c, i: e["kind"] == "record" and len(c) > 1),
    "the output goes idle": _pairs(lambda e, c, i: {"status": "idle"} in c),
    "an idle output active again": _pairs(lambda e, c, i: {"status": "active"} in c),
    "end of input emits": _pairs(lambda e, c, i: e["kind"] == "end_of_input" and bool(c)),
    "no progressive watermarks": answered_with(lambda o, i: i.get("emit_progressive") is False),
    "an interval of 0": answered_with(lambda o, i: i["auto_watermark_interval_ms"] == 0 and len(i["events"]) > 3),
    "a negative interval": refused_with("IllegalArgumentException", "Auto watermark interval must not be negative."),
    "a negative bound": refused_with("IllegalArgumentException", "maxOutOfOrderness cannot be negative"),
    "a timeout of zero": refused_with("IllegalArgumentException", "idleTimeout must be greater than zero"),
}
BY_VERSION: dict[str, tuple[str, Corner]] = {
    "1.14.0 forwards an upstream idle status": ("1.14.0", _pairs(lambda e, c, i: e["kind"] == "status" and c == [
        {"status": "idle"}])),
    "1.14.0: a watermark after a forwarded idle status": ("1.14.0", answered_with(
        lambda o, i: inv.active_again({"input": i}, {"output": o}, SUPPORTED[-1]) != [])),
}

(test_strategy_reaches, test_strategy_reaches_version_corner,
 test_every_generated_request_is_well_formed_and_keeps_the_rules) = corner_tests(
    requests, SAMPLE, CORNERS, BY_VERSION, keeps=KEEPS)


def _rec(ts: int | None, marker: bool = False) -> dict[str, Any]:
    return {"kind": "record", "timestamp": ts, **({"marker": True} if marker else {})}


def _adv(ms: int) -> dict[str, Any]:
    return {"kind": "advance", "ms": ms}


def _wm(ts: int) -> dict[str, Any]:
    return {"kind": "watermark", "timestamp": ts}


END = {"kind": "end_of_input"}


def _ask(flink: str, generator: str, interval: int, *events: dict[str, Any], **extra: Any) -> Any:
    inp = {"generator": generator, "auto_watermark_interval_ms": interval, "events": list(events), **extra}
    resp = oracle.answer({"id": 0, "area": ASSIGNER, "flink": flink, "input": inp})
    return resp.get("output", {}).get("outputs", resp)


def test_an_equal_watermark_is_dropped() -> None:
    """TWO-3: the bounded generator emits 4 at every periodic emit; the emitter passes the first only."""
    got = _ask("2.3", "bounded", 10, _rec(10), _adv(10), _adv(10), out_of_orderness_ms=5)
    assert got == [[{"record": 10}], [{"watermark": 4}], []]


def test_one_advance_fires_the_timer_once() -> None:
    """TWO-5: an advance of five intervals fires the timer once; the next is 10 ms after the new time, so 9 ms more
    fire nothing, 1 ms more fire it."""
    got = _ask("2.3", "monotonous", 10, _rec(1), _adv(50), _rec(7), _adv(9), _adv(1))
    assert got == [[{"record": 1}], [{"watermark": 0}], [{"record": 7}], [], [{"watermark": 6}]]


def test_only_the_max_watermark_passes_once() -> None:
    """TWO-6: upstream watermarks are dropped, Long.MAX_VALUE goes through the emitter (once)."""
    got = _ask("2.3", "monotonous", 0, _wm(100), _wm(LONG_MAX), _wm(LONG_MAX), _rec(5))
    assert got == [[], [{"watermark": LONG_MAX}], [], [{"record": 5}]]


def test_end_of_input_emits_once_more() -> None:
    """TWO-8: with no interval, only end of input runs the generator's periodic emit."""
    got = _ask("1.13", "bounded", 0, _rec(100), _adv(1000), END, out_of_orderness_ms=0)
    assert got == [[{"record": 100}], [], [{"watermark": 99}]]


def test_without_progressive_watermarks_no_generator_is_built() -> None:
    """TWO-1: NoWatermarksGenerator: a negative bound is never checked, nothing is emitted but Long.MAX_VALUE."""
    got = _ask("2.3", "bounded", 10, _rec(100), _adv(20), _wm(LONG_MAX), END, out_of_orderness_ms=-1,
               emit_progressive=False)
    assert got == [[{"record": 100}], [], [{"watermark": LONG_MAX}], []]


def test_idle_through_the_operators_clock() -> None:
    """TWO-9, TWO-4: from 1.19.2 the idleness timer reads the operator's processing-time clock; idle once, then a
    record's watermark marks the output active again."""
    got = _ask("2.3", "monotonous", 5, _rec(1), _adv(5), _adv(5), _adv(5), _adv(5), _adv(5), _rec(9), _adv(5),
               idle_timeout_ms=6)
    assert got == [[{"record": 1}], [{"watermark": 0}], [], [], [{"status": "idle"}], [], [{"record": 9}],
                   [{"status": "active"}, {"watermark": 8}]]


def test_idle_then_active_again() -> None:
    """TWO-4: the same at 1.20.0 (the system clock: never idle within a request) is a BadRequest for a short
    timeout."""
    got = _ask("1.20.0", "monotonous", 5, _rec(1), idle_timeout_ms=6)
    assert isinstance(got, dict) and got["error"]["type"] == "BadRequest"


def test_upstream_status_forwarded_only_in_1_14_0_to_1_14_4() -> None:
    """TWO-7: FLINK-26708; 1.13 has no status method (a BadRequest)."""
    events = ({"kind": "status", "status": "idle"}, _rec(3, marker=True))
    assert _ask("1.14.4", "punctuated", 0, *events) == [[{"status": "idle"}], [{"record": 3}, {"watermark": 3}]]
    assert _ask("1.14.5", "punctuated", 0, *events) == [[], [{"record": 3}, {"watermark": 3}]]
    got = _ask("1.13", "punctuated", 0, *events)
    assert isinstance(got, dict) and got["error"]["type"] == "BadRequest"


def _violations(events: list[dict[str, Any]], outputs: list[Any], interval: int = 10) -> list[str]:
    req = {"area": ASSIGNER, "flink": "2.3",
           "input": {"generator": "monotonous", "auto_watermark_interval_ms": interval, "events": events}}
    resp = {"id": 0, "output": {"outputs": outputs}}
    return [v.rule for check in KEEPS for v in check(req, resp, SUPPORTED[-1])]


def test_the_invariants_reject_what_they_must() -> None:
    """Each documented rule rejects an answer that breaks it."""
    assert _violations([_rec(1)], [[{"record": 2}]]) == ["WMS-2"]
    assert _violations([_rec(1)], [[{"watermark": 0}, {"record": 1}]]) == ["WMS-2"]
    assert _violations([_adv(10), _adv(10)], [[{"watermark": 5}], [{"watermark": 4}]]) == ["WMS-3"]
    assert _violations([_wm(7)], [[{"watermark": 7}]]) == ["WMS-4"]
    assert _violations([_adv(10), _adv(10)], [[{"status": "idle"}], [{"watermark": 4}]]) == ["WMS-5"]
    assert _violations([_adv(5)], [[{"watermark": 4}]]) == ["WMS-6"]
    assert _violations([_adv(10)], [[{"watermark": 4}]], interval=0) == ["WMS-6"]
    assert _violations([_adv(10)], [[{"watermark": "4"}]]) == ["WMS-1"]
    assert _violations([_rec(None), _adv(10)], [[{"record": LONG_MIN}], [{"watermark": LONG_MIN + 1}]]) == []
