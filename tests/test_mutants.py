"""Suite power: every built-in mutant is caught, with a small counterexample (the historical mutants, at the
first release with their fix: tests/test_historical_mutants.py)."""

from __future__ import annotations

import pytest

from flinkspec.engine.check import check_area
from flinkspec.impls import open_impl
from flinkspec.mutants import MUTANTS
from oracle.versions import LATEST, FlinkVersion
from properties.areas import AREAS

# The most events / keys a mutant's minimal counterexample may have: its area's ``size_bar`` (the issues' bars),
# measured by the check Mutant.measured_check names.


BUILT_IN = sorted(name for name, m in MUTANTS.items() if m.first_fixed() is None)


def assert_caught_small(name: str, version: FlinkVersion, examples: int, seed_value: int) -> None:
    """`check` finds the planted bug at ``version`` and shrinks it to a request within the area's size bar."""
    mutant = MUTANTS[name]
    run = check_area(open_impl(f"mutant:{name}"), f"mutant:{name}", mutant.area, version, examples=examples,
                     seed_value=seed_value)
    assert run.counterexamples, f"mutant {name} survived {run.cases} cases at {version}"
    smallest = min(AREAS[mutant.area].size(c.request) for c in run.counterexamples)
    assert smallest <= AREAS[mutant.area].size_bar, [c.request for c in run.counterexamples]


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_mutant_is_caught_with_a_small_counterexample(name: str) -> None:
    assert_caught_small(name, *MUTANTS[name].measured_check())


def test_the_oracle_itself_passes() -> None:
    """The reference passes its own suite (a check that can fail: the mutants above prove it)."""
    impl = open_impl("oracle")
    for area in AREAS:
        run = check_area(impl, "oracle", area, LATEST, examples=200, seed_value=1)
        assert not run.counterexamples, [(c.rule, c.difference, c.request) for c in run.counterexamples]
