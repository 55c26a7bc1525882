"""Meta-tests: the coordinator strategies reach the corners where checkpoint coordination goes wrong."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, find, settings

import oracle
from oracle.versions import LATEST
from properties.checkpoint.coordinator_strategies import requests

REACH = settings(max_examples=3000, database=None, deadline=None, phases=[Phase.generate], derandomize=True,
                 suppress_health_check=list(HealthCheck))


def _steps(r: dict[str, Any]) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = oracle.answer({"id": 0, **r}).get("output", {}).get("steps", [])
    return steps


def _any(pred: Callable[[dict[str, Any]], bool]) -> Callable[[dict[str, Any]], bool]:
    return lambda r: any(pred(s) for s in _steps(r))


def _aborted(reason: str) -> Callable[[dict[str, Any]], bool]:
    return _any(lambda s: reason in s.get("aborted", {}).values())


def _rejected(reason: str) -> Callable[[dict[str, Any]], bool]:
    return _any(lambda s: reason in s.get("rejected", []))


def _declined_after_newer(r: dict[str, Any]) -> bool:
    """A decline aborts a checkpoint whose id is below one that already completed (CC-13 ignores it)."""
    newest = 0
    for event, step in zip(r["input"]["events"], _steps(r), strict=False):
        cid = event.get("checkpoint", 0)
        if "decline" in event and str(cid) in step.get("aborted", {}) and cid < newest:
            return True
        newest = max([newest, *step.get("completed", [])])
    return False


CORNERS: dict[str, Callable[[dict[str, Any]], bool]] = {
    "a completion subsumes a pending checkpoint": _aborted("CHECKPOINT_SUBSUMED"),
    "a checkpoint expires": _aborted("CHECKPOINT_EXPIRED"),
    "a decline aborts": _aborted("CHECKPOINT_DECLINED"),
    "a restart aborts (region failover)": _aborted("JOB_FAILOVER_REGION"),
    "the minimum pause rejects a periodic trigger": _rejected("MINIMUM_TIME_BETWEEN_CHECKPOINTS"),
    "the full request queue rejects": _rejected("TOO_MANY_CHECKPOINT_REQUESTS"),
    "a trigger while a task is down": _rejected("NOT_ALL_REQUIRED_TASKS_RUNNING"),
    "a duplicate ack": _any(lambda s: s.get("ack") == "DUPLICATE"),
    "requests wait in the queue": _any(lambda s: s.get("queued", 0) >= 2),
    "two checkpoints pending at once": lambda r: sum(len(s.get("triggered", [])) for s in _steps(r)) >= 2 and any(
        len(s.get("triggered", [])) >= 1 for s in _steps(r)[1:]),
    "the store holds several checkpoints": _any(lambda s: len(s.get("retained", [])) >= 2),
    "the job fails (tolerable failures exceeded)": _any(lambda s: "job_failed" in s),
    "a late ack of an expired or aborted checkpoint": _any(lambda s: s.get("was_pending") is True),
    "a rejected configuration": lambda r: "error" in oracle.answer({"id": 0, **r}),
    "a checkpoint older than the last completed one is declined": _declined_after_newer,
}


@pytest.mark.parametrize("corner", list(CORNERS))
def test_strategy_reaches(corner: str) -> None:
    find(requests(LATEST), CORNERS[corner], settings=REACH)


def _failures_at_threshold(r: dict[str, Any]) -> bool:
    """CCR-9's witness: a job failing on the (n+1)-th consecutive declined checkpoint, no savepoint."""
    n = r["input"]["config"].get("tolerable_failures", 0)
    events = r["input"]["events"]
    declines = [e for e in events[: 2 * (n + 1)] if "decline" in e]
    steps = _steps(r)
    return (len(declines) == n + 1 and n < 3 and len(steps) >= 2 * (n + 1) and "job_failed" in steps[2 * n + 1]
            and not any(e.get("trigger") in ("savepoint", "sync_savepoint") for e in events))


def _subsumed_without_savepoints(r: dict[str, Any]) -> bool:
    """CCR-5's witness: a completion subsumes a pending checkpoint in a sequence without savepoints."""
    return (not any(e.get("trigger") in ("savepoint", "sync_savepoint") for e in r["input"]["events"])
            and _aborted("CHECKPOINT_SUBSUMED")(r))


def _share(pred: Callable[[dict[str, Any]], bool], n: int = 300) -> int:
    """How many of ``n`` drawn requests (a fixed seed) have the shape."""
    from properties.corpus import inputs

    return sum(pred({"area": "checkpoint.coordinator", "flink": str(LATEST), "input": i})
               for i in inputs("checkpoint.coordinator", LATEST, n, 0))


def test_one_request_in_twenty_fails_the_job_exactly_at_the_threshold() -> None:
    assert _share(_failures_at_threshold) >= 15


def test_one_request_in_twenty_subsumes_a_pending_checkpoint_without_savepoints() -> None:
    assert _share(_subsumed_without_savepoints) >= 15


def _intermediate_savepoint_completed(r: dict[str, Any]) -> bool:
    """CCR-10's witness: an intermediate savepoint, known for certain, completes (so a store that took it in
    would show it)."""
    from properties.checkpoint.coordinator_invariants import _intermediate_savepoints

    steps = _steps(r)
    return bool(_intermediate_savepoints(r, steps) & {c for s in steps for c in s.get("completed", [])})


def test_one_request_in_thirty_completes_an_intermediate_savepoint() -> None:
    assert _share(_intermediate_savepoint_completed) >= 10


def test_one_request_in_twenty_acknowledges_a_pending_checkpoint_twice() -> None:
    """CCR-8's witness: a task's second acknowledgement of a checkpoint still pending (answered DUPLICATE)."""
    assert _share(_any(lambda s: s.get("ack") == "DUPLICATE")) >= 15


# ---- the commit phase and the coordinator's end (protocol 4) --------------------------------------

def _event(kind: str) -> Callable[[dict[str, Any]], bool]:
    return lambda r: any(kind in e for e in r["input"]["events"])


def _pending_at_shutdown(r: dict[str, Any]) -> bool:
    """A shutdown aborts a pending checkpoint (CHECKPOINT_COORDINATOR_SHUTDOWN) and a later trigger is refused."""
    return _aborted("CHECKPOINT_COORDINATOR_SHUTDOWN")(r) and _rejected("CHECKPOINT_COORDINATOR_SHUTDOWN")(r)


END_CORNERS: dict[str, Callable[[dict[str, Any]], bool]] = {
    "a shutdown aborts a pending checkpoint, a later trigger is refused": _pending_at_shutdown,
    "a stopped scheduler aborts a pending checkpoint": _aborted("CHECKPOINT_COORDINATOR_SUSPEND"),
    "a stopped scheduler refuses a periodic trigger": _rejected("PERIODIC_SCHEDULER_SHUTDOWN"),
    "a failing ID counter fails a trigger": _rejected("TRIGGER_CHECKPOINT_FAILURE"),
    "a queued request fails at the end": lambda r: any(
        "queued" in s for s in _steps(r)) and (_rejected("CHECKPOINT_COORDINATOR_SHUTDOWN")(r)
                                               or _rejected("CHECKPOINT_COORDINATOR_SUSPEND")(r)),
    "tasks are told of an abort": _any(lambda s: any("aborted" in n for n in s.get("notified", []))),
    "tasks are told to commit": _any(lambda s: any("complete" in n for n in s.get("notified", []))),
}


@pytest.mark.parametrize("corner", list(END_CORNERS))
def test_strategy_reaches_the_end_events(corner: str) -> None:
    find(requests(LATEST), END_CORNERS[corner], settings=REACH)


def test_completions_tell_the_last_subsumed_checkpoint() -> None:
    """CC-20 from 1.15: a commit notification names a checkpoint the store subsumed (not -1)."""
    find(requests(LATEST), _any(lambda s: any(n.get("last_subsumed", -1) > 0 for n in s.get("notified", []))),
         settings=REACH)


def test_one_request_in_five_meets_the_end() -> None:
    """The end events are drawn often enough that a mutant of them is caught by every seed: one request in
    five at least shuts the coordinator down, stops its scheduler or fails its ID counter."""
    assert _share(lambda r: any(_event(k)(r) for k in ("shutdown", "stop_scheduler", "id_counter"))) >= 60
    assert _share(_pending_at_shutdown) >= 15
