"""Coordinator rules that change at a patch release, pinned on answers recorded from the real jars of
each side of the step (``flinkspec replay --impl flink:X.Y.Z --request ...``)."""

from __future__ import annotations

from typing import Any

import pytest

from oracle import answer

# Two savepoints; the first expires (timeout 10 ms) when the second is triggered at 60 ms.
EXPIRED_SAVEPOINT = {"config": {"timeout_ms": 10}, "tasks": ["t1"],
                     "events": [{"at": 1, "trigger": "savepoint"}, {"at": 60, "trigger": "savepoint"}]}
# A task declines checkpoint 1 with FINALIZE_CHECKPOINT_FAILURE.
FINALIZE_DECLINED = {"tasks": ["t0"], "events": [{"at": 0, "trigger": "checkpoint"},
                                                 {"at": 1, "decline": "t0", "checkpoint": 1,
                                                  "reason": "FINALIZE_CHECKPOINT_FAILURE"}]}
EXCEEDED = "Exceeded checkpoint tolerable failure threshold."


def steps(release: str, payload: dict[str, Any]) -> list[dict[str, Any]]:
    got = answer({"id": 1, "area": "checkpoint.coordinator", "flink": release, "input": payload})
    out: list[dict[str, Any]] = got["output"]["steps"]
    return out


@pytest.mark.parametrize(("release", "fails"), [("1.14.0", True), ("1.14.2", True), ("1.14.3", False),
                                                ("1.14", False)])
def test_savepoint_failures_count_until_1_14_2(release: str, fails: bool) -> None:
    """CC-14: until 1.14.2 abortPendingCheckpoint hands a savepoint's expiry to
    handleJobLevelCheckpointException, which counts it (the job fails at tolerable failures 0); from
    1.14.3 the failure manager sees the savepoint's properties and ignores it."""
    last = {"triggered": [2], "aborted": {"1": "CHECKPOINT_EXPIRED"},
            "notified": [{"task": "t1", "aborted": 1}]}  # CC-21 (protocol 4): the 1.14.0 jar sends it
    failed = {"job_failed": EXCEEDED} if fails else {}
    assert steps(release, EXPIRED_SAVEPOINT) == [{"triggered": [1]}, {**last, **failed}]


@pytest.mark.parametrize(("release", "fails"), [("1.15.0", False), ("1.15.1", False), ("1.15.2", True)])
def test_finalize_failures_count_from_1_15_2(release: str, fails: bool) -> None:
    """CC-13, FLINK-27570: from 1.15.2 FINALIZE_CHECKPOINT_FAILURE counts towards the tolerable failures."""
    last = steps(release, FINALIZE_DECLINED)[-1]
    assert ("job_failed" in last) is fails
