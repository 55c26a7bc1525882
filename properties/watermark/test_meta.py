"""Meta-tests: the watermark strategies reach the corners where implementations go wrong."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, find, settings

import oracle
from oracle.versions import LATEST
from properties.watermark.strategies import LONG_MAX, LONG_MIN, requests

REACH = settings(max_examples=3000, database=None, deadline=None, phases=[Phase.generate], derandomize=True,
                 suppress_health_check=list(HealthCheck))


def _ev(r: dict[str, Any]) -> list[dict[str, Any]]:
    return r["input"]["events"]


def _all_idle_in_order(order: tuple[int, ...]) -> Callable[[dict[str, Any]], bool]:
    def pred(r: dict[str, Any]) -> bool:
        tail = _ev(r)[-len(order):]
        return (r["input"]["channels"] == len(order)
                and [e.get("channel") for e in tail] == list(order)
                and all(e.get("status") == "IDLE" for e in tail))
    return pred


def _resumes_behind(r: dict[str, Any]) -> bool:
    """Some channel becomes ACTIVE while its watermark is behind the valve's output."""
    answer = oracle.answer({"id": 0, **r})
    if "output" not in answer:  # a status event once a channel is shared (WM-10)
        return False
    out = answer["output"]["emitted"]
    last, wm, idle = LONG_MIN, {}, set()
    for e, emitted in zip(_ev(r), out, strict=True):
        ch = e["channel"]
        if e.get("status") == "ACTIVE" and ch in idle and wm.get(ch, LONG_MIN) < last:
            return True
        if e.get("status") == "IDLE":
            idle.add(ch)
        elif e.get("status") == "ACTIVE":
            idle.discard(ch)
        elif ch not in idle:
            wm[ch] = max(wm.get(ch, LONG_MIN), e["watermark"])
        last = max([last, *[x["watermark"] for x in emitted if "watermark" in x]])
    return False


VALVE_CORNERS = {
    "Long.MIN_VALUE watermark": lambda r: any(e.get("watermark") == LONG_MIN for e in _ev(r)),
    "Long.MAX_VALUE watermark": lambda r: any(e.get("watermark") == LONG_MAX for e in _ev(r)),
    "neighbour of Long.MAX_VALUE": lambda r: any(e.get("watermark") == LONG_MAX - 1 for e in _ev(r)),
    "16 channels": lambda r: r["input"]["channels"] == 16,
    "thousands of events": lambda r: len(_ev(r)) >= 1000,
    "an equal watermark repeated on a channel": lambda r: any(
        a.get("watermark") is not None and a == b for a, b in zip(_ev(r), _ev(r)[1:], strict=False)),
    "a regression on a channel": lambda r: any(
        a.get("channel") == b.get("channel") and a.get("watermark", LONG_MIN) > b.get("watermark", LONG_MAX)
        for a, b in zip(_ev(r), _ev(r)[1:], strict=False)),
    "every channel idle, 3 channels in order 2,0,1": _all_idle_in_order((2, 0, 1)),
    "every channel idle, 3 channels in order 1,2,0": _all_idle_in_order((1, 2, 0)),
    "a channel resuming behind the output": _resumes_behind,
}


@pytest.mark.parametrize("corner", list(VALVE_CORNERS))
def test_valve_strategy_reaches(corner: str) -> None:
    """The valve strategy reaches the named corner."""
    find(requests("watermark.valve", LATEST), VALVE_CORNERS[corner], settings=REACH)


TIMER_CORNERS = {
    "a timer registered twice": lambda r: any(
        "register" in a and a == b for i, a in enumerate(_ev(r)) for b in _ev(r)[i + 1:]),
    "a registered timer deleted": lambda r: any(
        "register" in a and b.get("delete") == a["register"] and b.get("key") == a.get("key")
        and b.get("namespace") == a.get("namespace") for i, a in enumerate(_ev(r)) for b in _ev(r)[i + 1:]),
    "two keys due at the same timestamp": lambda r: len({(e["register"], e["key"]) for e in _ev(r)
                                                         if "register" in e}) > len({e["register"] for e in _ev(r)
                                                                                     if "register" in e}),
    "a namespace": lambda r: any("namespace" in e for e in _ev(r)),
}


@pytest.mark.parametrize("corner", list(TIMER_CORNERS))
def test_timer_strategy_reaches(corner: str) -> None:
    """The timer strategy reaches the named corner."""
    find(requests("watermark.timers", LATEST), TIMER_CORNERS[corner], settings=REACH)
