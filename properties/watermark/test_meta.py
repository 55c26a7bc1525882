"""Meta-tests: the watermark strategies reach the corners where implementations go wrong."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, Phase, find, settings

import oracle
from oracle.versions import LATEST
from properties.watermark.strategies import LONG_MAX, LONG_MIN, requests

REACH = settings(max_examples=3000, database=None, deadline=None, phases=[Phase.generate], derandomize=True,
                 suppress_health_check=list(HealthCheck))


def _ev(r: dict[str, Any]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = r["input"]["events"]
    return events


def _all_idle_in_order(order: tuple[int, ...]) -> Callable[[dict[str, Any]], bool]:
    def pred(r: dict[str, Any]) -> bool:
        tail = _ev(r)[-len(order):]
        return (r["input"]["channels"] == len(order)
                and [e.get("channel") for e in tail] == list(order)
                and all(e.get("status") == "IDLE" for e in tail))
    return pred


@attrs.frozen
class _Seen:
    """The valve's channels just before and just after one event (as StatusWatermarkValve keeps them)."""

    event: dict[str, Any]
    output_before: int  # the last watermark emitted before the event
    idle_before: frozenset[int]
    watermark_before: dict[int, int]
    idle_after: frozenset[int]
    aligned_after: frozenset[int]


def _replay(r: dict[str, Any]) -> list[_Seen]:
    """Each event with the channel states around it; the output comes from the oracle's answer. A channel
    is aligned while active and not behind the output: it stops on IDLE and starts again on ACTIVE or a
    watermark at or above the output (StatusWatermarkValve's isWatermarkAligned)."""
    answer = oracle.answer({"id": 0, **r})
    if "output" not in answer or "subpartitions" in r["input"]:  # SWV-10's refusals; slots, not channels
        return []
    n = r["input"]["channels"]
    idle: set[int]
    last, wm, idle, aligned = LONG_MIN, dict.fromkeys(range(n), LONG_MIN), set(), set(range(n))
    seen = []
    for e, emitted in zip(_ev(r), answer["output"]["emitted"], strict=True):
        ch, before, idle_before = e["channel"], dict(wm), frozenset(idle)
        if e.get("status") == "IDLE":
            idle.add(ch)
            aligned.discard(ch)
        elif e.get("status") == "ACTIVE":
            if ch in idle and wm[ch] >= last:
                aligned.add(ch)
            idle.discard(ch)
        elif ch not in idle and e["watermark"] > wm[ch]:
            wm[ch] = e["watermark"]
            if e["watermark"] >= last:
                aligned.add(ch)
        seen.append(_Seen(e, last, idle_before, before, frozenset(idle), frozenset(aligned)))
        last = max([last, *[x["watermark"] for x in emitted if "watermark" in x]])
    return seen


def _resumes_behind(r: dict[str, Any]) -> bool:
    """Some channel becomes ACTIVE while its watermark is behind the valve's output."""
    return any(s.event.get("status") == "ACTIVE" and s.event["channel"] in s.idle_before
               and s.watermark_before[s.event["channel"]] < s.output_before for s in _replay(r))


def _idle_leaves_only_unaligned(r: dict[str, Any]) -> bool:
    """A channel goes IDLE and every channel still active is behind the output: no aligned channel is left
    to take the minimum over (FLINK-7721's valve emitted Long.MAX_VALUE here)."""
    n = r["input"]["channels"]
    return any(s.event.get("status") == "IDLE" and len(s.idle_after) < n and not s.aligned_after
               for s in _replay(r))


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
    "a channel going idle while every active channel is behind the output": _idle_leaves_only_unaligned,
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
    "the empty namespace": lambda r: any(e.get("namespace") == "" for e in _ev(r)),
    "a namespace beyond ASCII": lambda r: any(not e.get("namespace", "").isascii() for e in _ev(r)),
    "a namespace of whitespace": lambda r: any(e.get("namespace") == " " for e in _ev(r)),
    "the empty key": lambda r: any(e.get("key") == "" for e in _ev(r)),
    "a key of an unusual first character": lambda r: any(e.get("key", "a")[:1] in ("ü", "$", "1", " ") for e in _ev(r)),
    "two namespaces of one key at one time": lambda r: any(
        a.get("key") == b.get("key") and a.get("register") == b.get("register") is not None
        and a.get("namespace") != b.get("namespace") for i, a in enumerate(_ev(r)) for b in _ev(r)[i + 1:]),
}


@pytest.mark.parametrize("corner", list(TIMER_CORNERS))
def test_timer_strategy_reaches(corner: str) -> None:
    """The timer strategy reaches the named corner."""
    find(requests("watermark.timers", LATEST), TIMER_CORNERS[corner], settings=REACH)
