"""Issue 18: the documented level catches the faults of tests/documented_faults.py and the built-in mutants
that break a documented rule, and its new rules (CCR-9, CCR-10, TM-11, JM-7, TM-12, ALIGN-8, RCV-5, RCV-6) never
contradict real Flink (the oracle, and the answers recorded from its jars) at any supported version."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from flinkspec.mutants import MUTANTS
from flinkspec.tools import catch_rate
from oracle import answer
from oracle.versions import LATEST, SUPPORTED, parse_version
from properties.areas import AREAS, judge
from properties.checkpoint.coordinator_invariants import failure_threshold
from properties.corpus import draw, inputs
from properties.recordings import RECORDED, read
from tests import documented_faults as faults

# the documented rules issue 18 added, by area (judged as every route judges them: properties.areas.judge, with the
# implementation asked the twins of the metamorphic ones)
NEW_RULES: list[tuple[str, str]] = [("checkpoint.coordinator", "CCR-9"), ("checkpoint.coordinator", "CCR-10"),
                                    ("memory.taskmanager", "TM-11"), ("memory.jobmanager", "JM-7"),
                                    ("memory.taskmanager", "TM-12"), ("checkpoint.alignment", "ALIGN-8"),
                                    ("checkpoint.recovery", "RCV-5"), ("checkpoint.recovery", "RCV-6")]


def broken(area: str, rule_id: str, req: dict[str, Any], resp: dict[str, Any], version: Any,
           ask: Callable[[Any], Any] = answer) -> list[str]:
    """Whether documented rule ``rule_id`` breaks on ``resp``, the implementation ``ask`` answering twins."""
    return [v.rule for v in judge(area, req, resp, version, documented_only=True, ask=ask) if v.rule == rule_id]


# the recorded answers of real Flink's jars (properties/recorded) that each area's new rules judge
RECORDINGS = {"memory.taskmanager": ("memory.taskmanager", "memory.taskmanager.edges"),
              "memory.jobmanager": ("memory.jobmanager", "memory.jobmanager.edges"),
              "checkpoint.coordinator": ("checkpoint.coordinator",),
              "checkpoint.alignment": ("checkpoint.alignment", "checkpoint.alignment.ends"),
              "checkpoint.recovery": ("checkpoint.recovery",)}


def _req(area: str, inp: dict[str, Any], version: Any = LATEST) -> dict[str, Any]:
    return {"area": area, "flink": str(version), "input": inp}


@pytest.mark.parametrize("version", SUPPORTED, ids=str)
def test_the_new_rules_hold_for_real_flink(version: Any) -> None:
    """On the corpus and on the area's own strategy (recovery's differs from its corpus), the oracle's answer."""
    for area, rule in NEW_RULES:
        drawn = inputs(area, version, 150, 0) + [r["input"] for r in draw(AREAS[area].requests(version), 100, 1)]
        for inp in drawn:
            req = _req(area, inp, version)
            assert broken(area, rule, req, answer(req), version) == [], (area, inp)


@pytest.mark.parametrize("area", sorted(RECORDINGS))
def test_the_new_rules_hold_for_every_answer_recorded_from_flinks_jars(area: str) -> None:
    rules = [rule for a, rule in NEW_RULES if a == area]
    judged = 0
    for name in RECORDINGS[area]:
        for record in read(RECORDED / f"{name}.jsonl.gz")[1]:
            req, version = _req(area, record["input"], record["flink"]), parse_version(record["flink"])
            for rule in rules:
                assert broken(area, rule, req, record["answer"], version) == [], (name, record)
            judged += 1
    assert judged >= 4000


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
BIG = {"config": {"taskmanager.memory.flink.size": "16g"}}  # network 0.1 x 16g = 1.6g: no 1g cap from 1.17
ONE_INPUT = {"mode": "at_least_once", "channels": 1, "fail_after": 3,
             "events": [{"channel": 0, "record": "k"}, {"channel": 0, "barrier": 1}, {"channel": 0, "record": "k"}]}
SAVEPOINT = {"tasks": ["t0"], "events": [{"at": 0, "trigger": "periodic"}, {"at": 0, "ack": "t0", "checkpoint": 1},
                                     {"at": 1, "trigger": "savepoint"}, {"at": 1, "ack": "t0", "checkpoint": 2}]}
FINISHED = {"mode": "exactly_once", "channels": 2, "checkpoints_after_finish": True,
            "events": [{"channel": 1, "end": True}, {"channel": 0, "barrier": 1}]}
TWO_DONE = {"mode": "exactly_once", "channels": 2, "fail_after": 5,
            "events": [{"channel": 0, "barrier": 1}, {"channel": 1, "barrier": 1}, {"channel": 0, "record": "k"},
                       {"channel": 1, "barrier": 2}, {"channel": 0, "barrier": 2}]}
JM_CAPITAL = {"config": {"jobmanager.memory.process.size": "2048MB"}}

CASES = [
    ("checkpoint.coordinator", THRESHOLD, faults.late_failure, "CCR-9"),
    ("checkpoint.coordinator", SUBSUMED, faults.no_subsumption_abort, "CCR-5"),
    ("checkpoint.recovery", CLASSIC, faults.at_least_once_recovery, "RCV-2"),
    ("memory.taskmanager", CAPITAL, faults.capital_units_rejected, "TM-11"),
    ("memory.jobmanager", JM_CAPITAL, faults.capital_units_rejected, "JM-7"),
    ("memory.taskmanager", CAPITAL, faults.capital_units_in_own_words, "TM-11"),
    ("memory.jobmanager", JM_CAPITAL, faults.capital_units_in_own_words, "JM-7"),
    ("memory.taskmanager", BIG, MUTANTS["memory-network-max-1g"].answer, "TM-12"),
    ("checkpoint.alignment", FINISHED, MUTANTS["align-ends-ignored"].answer, "ALIGN-8"),
    ("checkpoint.recovery", TWO_DONE, MUTANTS["rcv-restore-oldest"].answer, "RCV-5"),
    ("checkpoint.recovery", ONE_INPUT, MUTANTS["rcv-rewind-to-start"].answer, "RCV-6"),
    ("checkpoint.coordinator", SAVEPOINT, MUTANTS["flink-21351"].answer, "CCR-10"),
]


@pytest.mark.parametrize(("area", "inp", "fault", "rule_id"), CASES,
                         ids=[f"{c[3]}-{c[2].__name__}" for c in CASES])
def test_each_fault_is_caught_by_its_documented_rule(area: str, inp: dict[str, Any], fault: Any,
                                                     rule_id: str) -> None:
    """Flink's answer keeps the rule; the fault's breaks it (whatever words a rejection uses)."""
    req = _req(area, inp)
    assert broken(area, rule_id, req, answer(req), LATEST) == []
    assert broken(area, rule_id, req, fault(req), LATEST, ask=fault) == [rule_id]


def test_the_threshold_rule_says_too_early_too() -> None:
    """The job failing on the n-th failure, one too early, is a violation as well."""
    req = _req("checkpoint.coordinator", {**THRESHOLD, "config": {"tolerable_failures": 2}})
    resp = answer(_req("checkpoint.coordinator", THRESHOLD))
    assert "did not fail" not in failure_threshold(req, resp, LATEST)[0].message


# Two checkpoints expire in one step and the job fails on the first of them: the second already counts
# towards the next run, so the next expiry fails the job again (every release's jar answers so; found by
# properties/test_conformance.py at 1.13 before CCR-9 knew it).
TWO_IN_ONE_STEP = {"config": {"timeout_ms": 10, "tolerable_failures": 1}, "tasks": ["t1"],
                   "events": [{"at": 0, "trigger": "periodic"}, {"at": 20, "trigger": "periodic"},
                              {"at": 20, "trigger": "periodic"}, {"at": 100, "trigger": "periodic"},
                              {"at": 200, "trigger": "periodic"}]}


@pytest.mark.parametrize("version", SUPPORTED, ids=str)
def test_the_threshold_rule_counts_the_failures_after_a_job_failure_in_the_same_step(version: Any) -> None:
    req = _req("checkpoint.coordinator", TWO_IN_ONE_STEP, version)
    resp = answer(req)
    assert ["job_failed" in s for s in resp["output"]["steps"]] == [False, False, False, True, True]
    assert failure_threshold(req, resp, version) == []
    wrong = {**resp, "output": {"steps": [{k: v for k, v in s.items() if k != "job_failed"} if i == 4 else s
                                          for i, s in enumerate(resp["output"]["steps"])]}}
    assert [v.rule for v in failure_threshold(req, wrong, version)] == ["CCR-9"]


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


class _Counting:
    """An implementation that counts the batches it is sent."""

    def __init__(self, spec: str) -> None:
        from flinkspec.impls import open_impl
        self.inner, self.batches, self.sent = open_impl(spec), 0, 0

    def answer_many(self, requests: Any) -> Any:
        self.batches += 1
        self.sent += len(requests)
        return self.inner.answer_many(requests)

    def close(self) -> None:
        self.inner.close()


def test_the_twins_of_a_batch_are_asked_in_one_batch() -> None:
    """The metamorphic rules' twins (TM-11's lower-cased units) of every answer of a batch go to the
    implementation together, not one request each; the fault they show is still caught."""
    from flinkspec.engine.check import BATCH, check_area
    impl = _Counting("python:tests.documented_faults:capital_units_rejected")
    run = check_area(impl, "faulty", "memory.taskmanager", LATEST, examples=300, seed_value=0,  # type: ignore[arg-type]
                     conformance="documented", shrink=False)
    assert "TM-11" in {r for c in run.counterexamples for r in c.rules}
    assert impl.sent > 300 + 50  # many twins were asked
    assert impl.batches <= 2 * -(-300 // BATCH) + 5  # a batch of answers, a batch of twins (and a few more to reduce)
