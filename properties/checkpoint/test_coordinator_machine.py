"""A stateful test of the checkpoint coordinator through the implementation under test: the steps
for every prefix of an event sequence are a prefix of the steps for the whole (the coordinator acts
on each event as it comes and never revises a step), and every rule holds after every event."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import initialize, rule

from oracle.versions import FlinkVersion
from properties.stateful import JudgedMachine, run
from properties.under_test import Judged

pytestmark = pytest.mark.flinkspec_area("checkpoint.coordinator")  # a test with an area parameter checks that one

TASKS = ["t0", "t1", "t2"]


class CoordinatorMachine(JudgedMachine):
    """Rules draw events; ids acknowledged are the ones the implementation itself triggered."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[dict[str, Any]] = []
        self.steps: list[dict[str, Any]] = []
        self.ids: list[int] = []
        self.at = 0

    @initialize(tasks=st.integers(1, len(TASKS)), max_concurrent=st.sampled_from([1, 2]),
                timeout=st.sampled_from([10, 40, 600000]), retained=st.sampled_from([1, 2]))
    def start(self, tasks: int, max_concurrent: int, timeout: int, retained: int) -> None:
        self.tasks = TASKS[:tasks]
        self.config = {"max_concurrent": max_concurrent, "timeout_ms": timeout, "retained": retained}

    def _send(self, **event: Any) -> None:
        self.events.append({"at": self.at, **event})
        steps = self.judged("checkpoint.coordinator",
                            {"config": self.config, "tasks": self.tasks, "events": self.events},
                            len(self.events))["steps"]
        assert steps[:-1] == self.steps, "a longer event sequence revised an earlier step"
        self.steps = steps
        self.ids += steps[-1].get("triggered", [])

    @rule(kind=st.sampled_from(["periodic", "checkpoint", "savepoint", "sync_savepoint"]))
    def trigger(self, kind: str) -> None:
        self._send(trigger=kind)

    @rule(task=st.integers(0, len(TASKS) - 1), back=st.sampled_from([0, 0, 1, 5]))
    def ack(self, task: int, back: int) -> None:
        cid = self.ids[-1 - min(back, len(self.ids) - 1)] if self.ids else 1
        self._send(ack=self.tasks[task % len(self.tasks)], checkpoint=cid)

    @rule(task=st.integers(0, len(TASKS) - 1))
    def decline(self, task: int) -> None:
        self._send(decline=self.tasks[task % len(self.tasks)], checkpoint=self.ids[-1] if self.ids else 1,
                   reason="CHECKPOINT_DECLINED")

    @rule(task=st.integers(0, len(TASKS) - 1), restart=st.booleans())
    def fail_or_restart(self, task: int, restart: bool) -> None:
        name = self.tasks[task % len(self.tasks)]
        self._send(**({"restart": name} if restart else {"fail": name}))

    @rule(ms=st.sampled_from([1, 5, 20, 50]))
    def tick(self, ms: int) -> None:
        self.at += ms
        self._send(tick=True)


def test_coordinator_machine(gate: Judged, flink_version: FlinkVersion) -> None:
    """Run the coordinator state machine against the implementation under test at each version."""
    run(CoordinatorMachine, gate, flink_version, steps=25)
