"""Meta-tests: the watermark-generation strategy reaches the corners where implementations go wrong, and the
oracle's rules hold on pinned inputs (each the answer real Flink gives: ``flinkspec check --impl flink``)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from typing import Any

import oracle
from oracle.watermark_generation import GENERATION, LONG_MAX, LONG_MIN
from properties.corpus import Corner, Drawn, refused_with
from properties.meta import corner_tests
from properties.watermark.generation_strategies import MAX_CLOCK_MS, requests

SAMPLE = 3000  # requests drawn once per release below; every corner must be among them
IDLE = {"status": "idle"}


def _calls(pred: Callable[[list[Any], dict[str, Any]], bool]) -> Corner:
    def check(d: Drawn) -> bool:
        out = d[1].get("output")
        return out is not None and pred(out["outputs"], d[0]["input"])
    return check


def _flat(outputs: list[Any]) -> list[Any]:
    return [c for calls in outputs for c in calls]


def _error(starts: str) -> Corner:
    return refused_with("IllegalArgumentException", starts)


def _woken(outputs: list[Any], inp: dict[str, Any]) -> bool:
    """Idle, then a record, then a periodic emit with a watermark."""
    state = 0
    for ev, calls in zip(inp["events"], outputs, strict=True):
        if state == 0 and IDLE in calls:
            state = 1
        elif state == 1 and ev["kind"] == "record":
            state = 2
        elif state == 2 and any("watermark" in c for c in calls):
            return True
    return False


def _idle_at_the_boundary(outputs: list[Any], inp: dict[str, Any]) -> bool:
    """A check exactly the timeout after the check that started the inactivity: not idle yet (> not >=)."""
    timeout = inp.get("idle_timeout_ms")
    if not isinstance(timeout, int) or timeout <= 0:
        return False
    clock, started, reset = 0, None, False
    for ev, calls in zip(inp["events"], outputs, strict=True):
        if ev["kind"] == "advance":
            clock += ev["ms"]
        elif ev["kind"] == "record":
            started, reset = None, True
        elif ev["kind"] == "periodic":
            if reset:  # the first check after a record only notes the record
                reset = False
            elif started is None:
                started = clock if clock else None
            elif clock - started == timeout and IDLE not in calls:
                return True
    return False


CORNERS: dict[str, Corner] = {
    "a bounded watermark": _calls(lambda o, i: i["generator"] == "bounded" and any(
        "watermark" in c and c["watermark"] > LONG_MIN for c in _flat(o))),
    "a monotonous watermark": _calls(lambda o, i: i["generator"] == "monotonous" and any(
        "watermark" in c and c["watermark"] > LONG_MIN for c in _flat(o))),
    "a punctuated watermark": _calls(lambda o, i: i["generator"] == "punctuated" and any("watermark" in c
                                                                                        for c in _flat(o))),
    "the first watermark Long.MIN_VALUE": _calls(lambda o, i: {"watermark": LONG_MIN} in _flat(o)),
    "a bound of Long.MAX_VALUE": _calls(lambda o, i: i.get("out_of_orderness_ms") == LONG_MAX and bool(_flat(o))),
    "a record at Long.MAX_VALUE": _calls(lambda o, i: any(e.get("timestamp") == LONG_MAX for e in i["events"])),
    "a record out of order": _calls(lambda o, i: any(
        a.get("timestamp", LONG_MIN) > b.get("timestamp", LONG_MAX) for a, b in zip(
            [e for e in i["events"] if e["kind"] == "record"], [e for e in i["events"] if e["kind"] == "record"][1:],
            strict=False))),
    "a repeated watermark": _calls(lambda o, i: any(
        a and a == b and "watermark" in a[0] for a, b in pairwise(o))),
    "marked idle": _calls(lambda o, i: IDLE in _flat(o)),
    "idle, then woken by a record": _calls(_woken),
    "idle with a punctuated generator": _calls(lambda o, i: i["generator"] == "punctuated" and IDLE in _flat(o)),
    "two checks while the clock reads 0": _calls(lambda o, i: "idle_timeout_ms" in i and [
        e["kind"] for e in i["events"] if e["kind"] != "record"][:2] == ["periodic", "periodic"]),
    "idle exactly one timeout after the inactivity started": _calls(_idle_at_the_boundary),
    "built by a strategy, idle": _calls(lambda o, i: i.get("built_by") == "strategy" and IDLE in _flat(o)),
    "a timeout whose nanoseconds overflow": _calls(lambda o, i: i.get("idle_timeout_ms", 0) > MAX_CLOCK_MS),
    "a negative bound": _error("maxOutOfOrderness cannot be negative"),
    "a timeout not above zero": _error("idleTimeout must be greater than zero"),
}
BY_VERSION: dict[str, tuple[str, Corner]] = {
    "1.20.0: a strategy's timer reads the system clock": ("1.20.0", _calls(
        lambda o, i: i.get("built_by") == "strategy" and sum(
            e.get("ms", 0) for e in i["events"]) > i.get("idle_timeout_ms", 2**63) and IDLE not in _flat(o))),
    "1.15.2: markIdle repeated": ("1.15.2", _calls(lambda o, i: sum(c == IDLE for c in _flat(o)) >= 2 and not any(
        e["kind"] == "record" for e in i["events"]))),
}


(test_strategy_reaches, test_strategy_reaches_version_corner,
 test_every_generated_request_is_well_formed) = corner_tests(requests, SAMPLE, CORNERS, BY_VERSION)


def _outputs(version: str, **inp: Any) -> list[Any]:
    resp = oracle.answer({"id": 0, "area": GENERATION, "flink": version, "input": inp})
    out: list[Any] = resp["output"]["outputs"]
    return out


def _ev(*spec: str | int) -> list[dict[str, Any]]:
    """'p': periodic, ('r', ts) as 'r5': a record at 5, an int: advance that many ms."""
    out: list[dict[str, Any]] = []
    for s in spec:
        if isinstance(s, int):
            out.append({"kind": "advance", "ms": s})
        elif s == "p":
            out.append({"kind": "periodic"})
        else:
            out.append({"kind": "record", "timestamp": int(s[1:])})
    return out


def test_the_first_watermark_is_long_min() -> None:
    """WG-1: before any record the bounded generator emits Long.MIN_VALUE, whatever its bound."""
    for bound in (0, 5, LONG_MAX):
        assert _outputs("2.3", generator="bounded", out_of_orderness_ms=bound, events=_ev("p")) == [
            [{"watermark": LONG_MIN}]]


def test_a_repeated_watermark_is_emitted_again() -> None:
    """WG-3: the generator emits its watermark at every periodic emit, also an equal one."""
    assert _outputs("2.3", generator="bounded", out_of_orderness_ms=3, events=_ev("r10", "p", "p")) == [
        [], [{"watermark": 6}], [{"watermark": 6}]]


def test_idle_once_since_1_15_3() -> None:
    """WG-8: markIdle at every periodic emit while idle until 1.15.3, once until the next record from it."""
    events = _ev(1, "p", 2, "p", "p", "r5", "p", 5, "p", 2, "p")
    assert _outputs("1.15.2", generator="monotonous", idle_timeout_ms=1, events=events) == [
        [], [{"watermark": LONG_MIN}], [], [IDLE], [IDLE], [], [{"watermark": 4}], [], [{"watermark": 4}], [],
        [IDLE]]
    assert _outputs("1.15.3", generator="monotonous", idle_timeout_ms=1, events=events)[3:5] == [[IDLE], []]


def test_a_clock_at_zero_leaves_the_inactivity_unstarted() -> None:
    """WG-8: a check while the clock reads 0 does not start the inactivity; the next one does."""
    assert _outputs("2.3", generator="monotonous", idle_timeout_ms=1, events=_ev("p", 5, "p", "p", 2, "p")) == [
        [{"watermark": LONG_MIN}], [], [{"watermark": LONG_MIN}], [{"watermark": LONG_MIN}], [], [IDLE]]


def test_a_timeout_whose_nanoseconds_overflow_never_idles() -> None:
    """WG-6: Duration.toNanos overflows: the timer's timeout is Long.MAX_VALUE ns, never exceeded."""
    out = _outputs("2.3", generator="punctuated", idle_timeout_ms=MAX_CLOCK_MS + 1,
                   events=_ev(1, "p", MAX_CLOCK_MS - 1, "p"))
    assert IDLE not in _flat(out)


def test_a_strategy_reads_the_context_clock_since_flink_35886() -> None:
    """WG-9: a strategy-built timer reads the system clock (the manual clock's advances unseen) before 1.19.2 and
    in 1.20.0, the context's input-activity clock in 1.19.2 and from 1.20.1; withIdleness rejects first."""
    events = _ev(1, "p", 60_001, "p")
    for version, idle in (("1.19.1", False), ("1.19.2", True), ("1.20.0", False), ("1.20.1", True), ("2.3", True)):
        out = _outputs(version, generator="monotonous", built_by="strategy", idle_timeout_ms=60_000, events=events)
        assert (out[3] == [IDLE]) is idle, (version, out)
    resp = oracle.answer({"id": 0, "area": GENERATION, "flink": "2.3", "input": {
        "generator": "bounded", "out_of_orderness_ms": -1, "built_by": "strategy", "idle_timeout_ms": 0,
        "events": []}})
    assert resp["error"]["message"] == "idleTimeout must be greater than zero"


def test_idleness_follows_the_first_silent_check() -> None:
    """WMG-5, broken by Flink: the inactivity starts at the first periodic emit that finds no new record, so
    more than the timeout after the last record the output is not yet idle."""
    out = _outputs("2.3", generator="monotonous", idle_timeout_ms=10, events=_ev(1, "r1", 20, "p", "p", 11, "p"))
    assert out[3:] == [[{"watermark": 0}], [{"watermark": 0}], [], [IDLE]]
