"""Shared plumbing of the suite's state machines (valve, alignment, coordinator): each step sends the
whole sequence so far to the implementation under test, judged as every route judges
(:class:`flinkspec.plugin.gate.Gate`), and the machine checks that a longer sequence never revises what a
shorter one answered."""

from __future__ import annotations

from typing import Any

from hypothesis import settings
from hypothesis.stateful import RuleBasedStateMachine, run_state_machine_as_test

from oracle.versions import FlinkVersion
from properties.under_test import Judged


class JudgedMachine(RuleBasedStateMachine):
    """A machine whose steps are requests of one area, judged as they are answered."""

    gate: Judged
    version: FlinkVersion

    def judged(self, area: str, payload: dict[str, Any], rid: int) -> dict[str, Any]:
        """The implementation's output for ``payload``, after every rule of ``area`` held on it (a
        step the implementation cannot be sent is rejected: the machine draws another run)."""
        output: dict[str, Any] = self.gate.answer(area, self.version, payload)["output"]
        return output


def run(machine: type[JudgedMachine], gate: Judged, version: FlinkVersion, *, steps: int | None = None) -> None:
    """Run ``machine`` against the implementation behind ``gate`` at ``version``; ``steps`` caps
    examples and steps (for machines whose every step re-sends a long sequence) whatever the profile."""
    bound = type(machine.__name__, (machine,), {"gate": gate, "version": version})
    capped = None if steps is None else settings(settings.default, stateful_step_count=steps,
                                                 max_examples=min(settings().max_examples, steps))
    run_state_machine_as_test(bound, settings=capped)
