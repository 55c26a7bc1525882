"""Issue 18: the documented level catches the four faults of tests/documented_faults.py, and its new
rules (CCR-9, TM-11, JM-7) never contradict real Flink (the oracle) at any supported version."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from flinkspec import catch_rate
from flinkspec.corpus import inputs
from oracle import answer
from oracle.versions import LATEST, SUPPORTED
from properties.checkpoint.coordinator_invariants import completion_subsumes, failure_threshold
from properties.checkpoint.recovery import exactly_once
from properties.memory.invariants import jm_unit_case, tm_unit_case
from properties.rules import Violation
from tests import documented_faults as faults

Rule = Callable[[dict[str, Any], dict[str, Any], Any], list[Violation]]
NEW_RULES: list[tuple[str, Rule]] = [("checkpoint.coordinator", failure_threshold),
                                     ("memory.taskmanager", tm_unit_case), ("memory.jobmanager", jm_unit_case)]


def _req(area: str, inp: dict[str, Any], version: Any = LATEST) -> dict[str, Any]:
    return {"area": area, "flink": str(version), "input": inp}


@pytest.mark.parametrize("version", SUPPORTED, ids=str)
def test_the_new_rules_hold_for_real_flink(version: Any) -> None:
    for area, rule in NEW_RULES:
        for inp in inputs(area, version, 150, 0):
            req = _req(area, inp, version)
            assert rule(req, answer(req), version) == [], (area, inp)


THRESHOLD = {"config": {"tolerable_failures": 1}, "tasks": ["t0"],
             "events": [{"at": 1, "trigger": "periodic"},
                        {"at": 1, "decline": "t0", "checkpoint": 1, "reason": "CHECKPOINT_DECLINED"},
                        {"at": 2, "trigger": "periodic"},
                        {"at": 2, "decline": "t0", "checkpoint": 2, "reason": "CHECKPOINT_DECLINED"}]}
SUBSUMED = {"config": {"max_concurrent": 2}, "tasks": ["t0"],
            "events": [{"at": 0, "trigger": "periodic"}, {"at": 0, "trigger": "periodic"},
                       {"at": 0, "ack": "t0", "checkpoint": 2}]}
CLASSIC = {"mode": "exactly_once", "channels": 2, "fail_after": 6,
           "events": [{"channel": 0, "barrier": 1}, {"channel": 0, "record": "k"}, {"channel": 1, "record": "k"},
                      {"channel": 1, "barrier": 1}, {"channel": 0, "record": "k"}, {"channel": 1, "record": "k"}]}
CAPITAL = {"config": {"taskmanager.memory.process.size": "4G"}}
JM_CAPITAL = {"config": {"jobmanager.memory.process.size": "2048MB"}}

CASES = [
    ("checkpoint.coordinator", THRESHOLD, faults.late_failure, failure_threshold, "CCR-9"),
    ("checkpoint.coordinator", SUBSUMED, faults.no_subsumption_abort, completion_subsumes, "CCR-5"),
    ("checkpoint.recovery", CLASSIC, faults.at_least_once_recovery, exactly_once, "RCV-2"),
    ("memory.taskmanager", CAPITAL, faults.capital_units_rejected, tm_unit_case, "TM-11"),
    ("memory.jobmanager", JM_CAPITAL, faults.capital_units_rejected, jm_unit_case, "JM-7"),
]


@pytest.mark.parametrize(("area", "inp", "fault", "rule", "rule_id"), CASES, ids=[c[4] for c in CASES])
def test_each_fault_is_caught_by_its_documented_rule(area: str, inp: dict[str, Any], fault: Any, rule: Rule,
                                                     rule_id: str) -> None:
    req = _req(area, inp)
    assert rule(req, answer(req), LATEST) == []
    assert [v.rule for v in rule(req, fault(req), LATEST)] == [rule_id]


def test_the_threshold_rule_says_too_early_too() -> None:
    """The job failing on the n-th failure, one too early, is a violation as well."""
    req = _req("checkpoint.coordinator", {**THRESHOLD, "config": {"tolerable_failures": 2}})
    resp = answer(_req("checkpoint.coordinator", THRESHOLD))
    assert "did not fail" not in failure_threshold(req, resp, LATEST)[0].message


def test_catch_rate_plans_implementations_at_the_documented_level() -> None:
    tasks = catch_rate.plan(["none"], seeds=2, examples=10, conformance="documented",
                            impls=[("memory.taskmanager", "python:tests.documented_faults:capital_units_rejected")])
    assert [(t.area, t.version, t.seed, t.conformance) for t in tasks] == [
        ("memory.taskmanager", str(LATEST), 0, "documented"), ("memory.taskmanager", str(LATEST), 1, "documented")]
    assert catch_rate.impl_spec(tasks[0].mutant) == "python:tests.documented_faults:capital_units_rejected"
    assert catch_rate.impl_spec("cc-no-subsume") == "mutant:cc-no-subsume"


def test_catch_rate_catches_capital_units_at_the_documented_level(capsys: pytest.CaptureFixture[str]) -> None:
    assert catch_rate.main(["--mutants", "none", "--seeds", "1", "--examples", "100", "--conformance", "documented",
                            "--impl", "memory.taskmanager=python:tests.documented_faults:capital_units_rejected"]) == 0
    assert "TM-11" in capsys.readouterr().out
