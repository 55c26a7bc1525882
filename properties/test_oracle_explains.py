"""The oracle's explanations (:mod:`oracle.explain`): explaining an answer never changes it, and the
requests the suite generates make every instrumented module name each rule it declares.

The judge keys a divergence by the first rule the oracle recorded for the part of Flink's answer an
implementation departs from (:mod:`flinkspec.judge.divergence`), so a rule no generated request
records can never explain a divergence: the second test finds, for each declared rule, a generated
request that records it, or the rule is listed in :data:`UNRECORDED` with why.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

import oracle
from oracle.explain import tracing_active
from oracle.rules import Declared
from oracle.versions import FlinkVersion, parse_version
from properties.areas import AREAS, EXTRA_CORPORA, ORACLE_MODULES

# the releases on either side of the version tables' steps: 1.13's legacy handlers, 1.14.0's failure
# manager (before 1.14.3), 1.17.0's valve (SWV-11), 1.19's subpartitions, 2.2's flush (FLINK-38454)
VERSIONS = tuple(parse_version(x) for x in ("1.13", "1.14.0", "1.17.0", "1.19", "2.2"))

# modules that do not say yet which rule decided what (oracle.explain), with why
NOT_INSTRUMENTED: dict[str, str] = {}
# rules of instrumented modules that no generated request records, with why
UNRECORDED: dict[str, str] = {}

pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr")

REACH = settings(max_examples=3000, database=None, deadline=None, phases=[Phase.generate], derandomize=True,
                 suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("version", VERSIONS, ids=str)
@pytest.mark.parametrize("area", sorted(AREAS))
@given(data=st.data())
def test_explaining_an_answer_never_changes_it(area: str, version: FlinkVersion, data: st.DataObject) -> None:
    """``explain_answer`` answers exactly as ``answer`` does, and leaves nothing traced behind."""
    request = data.draw(AREAS[area].requests(version), label="request")
    explained, _ = oracle.explain_answer(request)
    assert not tracing_active()
    assert oracle.answer(request) == explained


def _requests(area: str, version: FlinkVersion) -> st.SearchStrategy[dict[str, Any]]:
    """The area's requests, and those of the extra corpora that fuzz a part of it on their own."""
    extra = [c.requests(version) for c in EXTRA_CORPORA.values() if c.area == area]
    return st.one_of(AREAS[area].requests(version), *extra)


TRACED: list[tuple[str, str, Declared]] = [
    (module, area, rule)
    for module, (area, rules, _files) in ORACLE_MODULES.items() if module not in NOT_INSTRUMENTED
    for rule in rules if rule.id not in UNRECORDED
]


@pytest.mark.parametrize(("module", "area", "rule"), TRACED, ids=[r.id for _, _, r in TRACED])
def test_generated_requests_make_the_oracle_name_every_rule(module: str, area: str, rule: Declared) -> None:
    """Some generated request of the rule's area, at a release the rule holds in, records the rule."""
    version = max(ver for ver in VERSIONS if ver in rule.releases)
    find(_requests(area, version), lambda r: rule.id in oracle.explain_answer(r)[1].rules, settings=REACH)


def test_every_declared_rule_is_traced_or_unrecorded_with_why() -> None:
    """The lists of exceptions name only declared rules and modules."""
    declared = {r.id for _area, rules, _files in ORACLE_MODULES.values() for r in rules}
    assert set(UNRECORDED) <= declared
    assert set(NOT_INSTRUMENTED) <= set(ORACLE_MODULES)
    assert all(why for why in (*UNRECORDED.values(), *NOT_INSTRUMENTED.values()))


def _first_rules(area: str, inp: dict[str, Any], flink: str = "2.3") -> dict[tuple[str | int, ...], str]:
    """The first rule recorded for each part of the answer (what the judge keys a divergence by)."""
    explanation = oracle.explain_answer({"area": area, "flink": flink, "input": inp})[1]
    return {d.path: d.rules[0] for d in explanation.decisions if d.rules}


def test_a_trace_entry_is_explained_first_by_the_rule_that_added_it_whatever_came_before() -> None:
    """A subsumed checkpoint's abort is AL-3's, also after events that added no entry (an ignored
    cancel marker, an obsolete barrier): their rules land after it."""
    subsumed = [{"channel": 0, "barrier": 2}, {"channel": 1, "barrier": 3}]
    before = [{"channel": 1, "cancel": 1}, {"channel": 1, "barrier": 1}]
    for events in (subsumed, [subsumed[0], *before, subsumed[1]]):
        first = _first_rules("checkpoint.alignment", {"mode": "exactly_once", "channels": 2, "events": events})
        assert first[("trace", 0, "abort", 0)] == first[("trace", 0, "abort", 1)] == "AL-3"


def test_a_coordinator_step_field_is_explained_by_its_own_decision() -> None:
    """A duplicate acknowledgement is CC-6's even when a timer expired another checkpoint in the
    same step (CC-9 explains the abort, not the ack)."""
    inp = {"config": {"max_concurrent": 2, "timeout_ms": 10}, "tasks": ["a", "b"],
           "events": [{"at": 0, "trigger": "checkpoint"}, {"at": 5, "trigger": "checkpoint"},
                      {"at": 6, "ack": "a", "checkpoint": 2}, {"at": 12, "ack": "a", "checkpoint": 2}]}
    first = _first_rules("checkpoint.coordinator", inp)
    assert first[("steps", 3, "aborted")] == "CC-9"
    assert first[("steps", 3, "ack")] == "CC-6"
