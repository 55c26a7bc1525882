"""Shared plumbing of the suite's state machines (valve, alignment, coordinator): each step sends the
whole sequence so far to the implementation under test, judges the answer with every rule of the
area, and the machine checks that a longer sequence never revises what a shorter one answered."""

from __future__ import annotations

from typing import Any

from hypothesis import settings
from hypothesis.stateful import RuleBasedStateMachine, run_state_machine_as_test

from flinkspec.impls import Implementation, answer_one
from flinkspec.judge.verdict import evaluate
from oracle.versions import FlinkVersion
from properties.areas import AREAS


class JudgedMachine(RuleBasedStateMachine):
    """A machine whose steps are requests of one area, judged as they are answered."""

    impl: Implementation
    version: FlinkVersion
    conformance: str = "flink"

    def judged(self, area: str, payload: dict[str, Any], rid: int) -> dict[str, Any]:
        """The implementation's output for ``payload``, after every rule of ``area`` held on it."""
        request = {"id": rid, "area": area, "flink": str(self.version), "input": payload}
        answer = answer_one(self.impl, request)
        broken = evaluate(request, answer, self.version, AREAS[area], conformance=self.conformance)
        assert not broken, broken
        output: dict[str, Any] = answer["output"]
        return output


def run(machine: type[JudgedMachine], impl: Implementation, version: FlinkVersion, conformance: str,
        *, steps: int | None = None) -> None:
    """Run ``machine`` against ``impl`` at ``version``; ``steps`` caps examples and steps (for machines
    whose every step re-sends a long sequence) whatever the profile."""
    bound = type(machine.__name__, (machine,), {"impl": impl, "version": version, "conformance": conformance})
    capped = None if steps is None else settings(settings.default, stateful_step_count=steps,
                                                 max_examples=min(settings().max_examples, steps))
    run_state_machine_as_test(bound, settings=capped)
