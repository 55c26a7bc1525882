"""Historical mutants (flink-NNNNN): each names its Flink issue and fix, and is caught after the fix."""

from __future__ import annotations

import re

import pytest

from flinkspec.engine.check import check_area
from flinkspec.impls import open_impl
from flinkspec.mutants import MUTANTS

HISTORICAL = sorted(name for name in MUTANTS if name.startswith("flink-"))


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
    """Flink with the fix is what the oracle answers; the buggy behaviour must be told apart."""
    m = MUTANTS[name]
    version = m.first_fixed()
    assert version is not None, m.fixed_by
    run = check_area(open_impl(f"mutant:{name}"), f"mutant:{name}", m.area, version, examples=500, seed_value=0)
    assert run.counterexamples, f"{name} survived {run.cases} cases at {version}"
