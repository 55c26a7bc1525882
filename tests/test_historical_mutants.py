"""Historical mutants (flink-NNNNN): each names its Flink issue and fix, and is caught at the first release
with the fix, with a counterexample within its area's size bar (tests/test_mutants.py)."""

from __future__ import annotations

import re

import pytest

from flinkspec.mutants import MUTANTS
from tests.test_mutants import BUILT_IN, assert_caught_small

HISTORICAL = sorted(name for name in MUTANTS if name.startswith("flink-"))


def test_the_historical_mutants_are_those_with_a_fix() -> None:
    assert sorted(set(MUTANTS) - set(BUILT_IN)) == HISTORICAL


def test_there_are_at_least_ten() -> None:
    assert len(HISTORICAL) >= 10, HISTORICAL


@pytest.mark.parametrize("name", HISTORICAL)
def test_metadata_names_the_issue_and_the_fix(name: str) -> None:
    m = MUTANTS[name]
    number = name.removeprefix("flink-")
    assert m.ticket == f"https://issues.apache.org/jira/browse/FLINK-{number}"
    assert re.match(r"https://github\.com/apache/flink/(pull/\d+|commit/[0-9a-f]{7,40}) \(Flink \d+\.\d+", m.fixed_by)
    assert m.affected and m.doc


@pytest.mark.parametrize("name", HISTORICAL)
def test_caught_at_the_first_version_with_the_fix(name: str) -> None:
    """Flink with the fix is what the oracle answers; the buggy behaviour must be told apart, plainly."""
    version = MUTANTS[name].first_fixed()
    assert version is not None, MUTANTS[name].fixed_by
    assert_caught_small(name, version, examples=500, seed_value=0)
