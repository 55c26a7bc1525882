"""Meta-tests: the alignment strategies reach the corners where barrier handling goes wrong."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis.errors import NoSuchExample

import oracle
from oracle.versions import LATEST, v
from properties.checkpoint.alignment_strategies import requests

REACH = settings(max_examples=3000, database=None, deadline=None, phases=[Phase.generate], derandomize=True,
                 suppress_health_check=list(HealthCheck))


def _trace(r: dict[str, Any]) -> list[dict[str, Any]]:
    trace: list[dict[str, Any]] = oracle.answer({"id": 0, **r})["output"]["trace"]
    return trace


def _aborted(reason: str) -> Callable[[dict[str, Any]], bool]:
    return lambda r: any(s.get("abort", [0, ""])[1] == reason for s in _trace(r))


def _held_back(r: dict[str, Any]) -> bool:
    """Exactly-once processed a record after one that arrived later (it waited behind a barrier)."""
    if r["input"]["mode"] != "exactly_once":
        return False
    order = {(e["channel"], e["record"]): i for i, e in enumerate(r["input"]["events"]) if "record" in e}
    seen = [order[tuple(s["process"])] for s in _trace(r) if "process" in s]
    return any(a > b for a, b in itertools.pairwise(seen))


def _snapshots(r: dict[str, Any]) -> int:
    return sum("snapshot" in s for s in _trace(r))


CORNERS: dict[str, Callable[[dict[str, Any]], bool]] = {
    "exactly-once holds records back behind a barrier": _held_back,
    "a newer barrier subsumes a pending checkpoint": _aborted("CHECKPOINT_DECLINED_SUBSUMED"),
    "a cancel marker aborts": _aborted("CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER"),
    "an end of partition aborts": lambda r: (r["input"].get("checkpoints_after_finish") is False
                                             and _aborted("CHECKPOINT_DECLINED_INPUT_END_OF_STREAM")(r)),
    "an end of partition completes an alignment": lambda r: (
        r["input"].get("checkpoints_after_finish", True) and _snapshots(r) > 0
        and any("end" in e for e in r["input"]["events"][:-1])),
    "at-least-once with more than 50 checkpoints in flight": lambda r: (
        r["input"]["mode"] == "at_least_once" and len({e.get("barrier") for e in r["input"]["events"]}) > 51),
    "an obsolete (older) barrier after a newer one": lambda r: any(
        "barrier" in a and "barrier" in b and b["barrier"] < a["barrier"]
        for a, b in zip(r["input"]["events"], r["input"]["events"][1:], strict=False)),
    "several snapshots in one run": lambda r: _snapshots(r) >= 3,
    "a task failure": lambda r: any("fail" in s for s in _trace(r)),
    "9 or more channels": lambda r: r["input"]["channels"] >= 9,
    "100 events or more": lambda r: len(r["input"]["events"]) >= 100,
    "a barrier id near Long.MAX_VALUE": lambda r: any(e.get("barrier", 0) > (1 << 62) for e in r["input"]["events"]),
}


@pytest.mark.parametrize("corner", list(CORNERS))
def test_strategy_reaches(corner: str) -> None:
    find(requests(LATEST), CORNERS[corner], settings=REACH)


def test_1_13_gets_no_after_finish_option() -> None:
    """1.13 has no checkpoints-after-finish option: its requests never carry the extension."""
    with pytest.raises(NoSuchExample):
        find(requests(v("1.13")), lambda r: "checkpoints_after_finish" in r["input"],
             settings=settings(REACH, max_examples=300))


def _classic_exactly_once(r: dict[str, Any]) -> bool:
    """RCV-2's witness: exactly-once, a record after its channel's barrier while another channel's barrier
    of that checkpoint is pending, the checkpoint snapshotted, records after it."""
    events = r["input"]["events"]
    if r["input"]["mode"] != "exactly_once" or not any("snapshot" in s for s in _trace(r)):
        return False
    for i, e in enumerate(events):
        if "barrier" in e:
            later = events[i + 1:]
            pending = next((j for j, b in enumerate(later) if b.get("barrier") == e["barrier"]
                            and b["channel"] != e["channel"]), None)
            if pending is not None and any(x.get("channel") == e["channel"] and "record" in x
                                           for x in later[:pending]) and len(later) > pending + 2:
                return True
    return False


def test_one_request_in_twenty_is_the_classic_exactly_once_scenario() -> None:
    from properties.corpus import inputs

    drawn = [{"area": "checkpoint.alignment", "flink": str(LATEST), "input": i}
             for i in inputs("checkpoint.alignment", LATEST, 300, 0)]
    assert sum(map(_classic_exactly_once, drawn)) >= 15


def _completes_without_finished(r: dict[str, Any]) -> bool:
    """ALIGN-8's witness with finished inputs: a checkpoint settles with an ended channel counted (an end
    arrives before the barrier that completes it), checkpoints after finish on."""
    from properties.checkpoint.alignment_invariants import finished_inputs_excluded, settled

    inp = r["input"]
    return finished_inputs_excluded(inp, LATEST) and any(
        any("end" in e for e in inp["events"][:i]) for _, i in settled(inp, LATEST))


def test_one_request_in_twenty_completes_a_checkpoint_without_its_finished_channels() -> None:
    from properties.corpus import inputs

    drawn = [{"area": "checkpoint.alignment", "flink": str(LATEST), "input": i}
             for i in inputs("checkpoint.alignment", LATEST, 300, 0)]
    assert sum(map(_completes_without_finished, drawn)) >= 15


def test_one_recovery_request_in_twenty_fails_after_two_completed_checkpoints() -> None:
    """RCV-5's witness: two checkpoints settle before the failure, so restoring the older one is wrong."""
    from properties.checkpoint.alignment_invariants import settled
    from properties.checkpoint.recovery import requests as recovery_requests
    from properties.corpus import draw

    def two(inp: dict[str, Any]) -> bool:
        return len(settled(inp, LATEST, inp.get("fail_after", len(inp["events"])))) >= 2

    assert sum(two(r["input"]) for r in draw(recovery_requests(LATEST), 300, 0)) >= 15


def test_one_recovery_request_in_thirty_fails_an_at_least_once_single_input_job_after_a_checkpoint() -> None:
    """RCV-6's witness: at-least-once on one channel, a checkpoint completed before the failure, records after it."""
    from properties.checkpoint.alignment_invariants import settled
    from properties.checkpoint.recovery import requests as recovery_requests
    from properties.corpus import draw

    def witness(inp: dict[str, Any]) -> bool:
        upto = inp.get("fail_after", len(inp["events"]))
        done = settled(inp, LATEST, upto)
        return (inp["mode"] == "at_least_once" and inp["channels"] == 1 and bool(done)
                and any("record" in e for e in inp["events"][done[-1][1]:]))

    assert sum(witness(r["input"]) for r in draw(recovery_requests(LATEST), 300, 0)) >= 10
