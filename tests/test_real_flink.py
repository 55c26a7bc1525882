"""The oracle agrees with real Flink (the jar of every supported version, through the bridge)."""

from __future__ import annotations

import pytest

from flinkspec.engine.check import check_area
from flinkspec.impls import open_impl
from oracle.versions import SUPPORTED, FlinkVersion
from properties.areas import AREAS

pytestmark = pytest.mark.flink

EXAMPLES = 150


@pytest.mark.parametrize("version", SUPPORTED, ids=str)
def test_real_flink_conforms_to_the_oracle(version: FlinkVersion) -> None:
    """Real Flink of every version answers every generated request exactly as the oracle does,
    rejections included (exception class and message compared too)."""
    impl = open_impl(f"flink:{version}")
    try:
        for area in AREAS:
            if version not in AREAS[area].versions:
                continue
            run = check_area(impl, f"flink:{version}", area, version, examples=EXAMPLES, seed_value=7,
                             strict_messages=True)
            assert run.infra_error is None, run.infra_error
            assert not run.counterexamples, [(c.rule, c.difference, c.request) for c in run.counterexamples]
    finally:
        impl.close()
