"""The generic conformance property: for every area and version, every generated request gets
an answer that keeps every rule of the area and (at level ``flink``) equals real Flink's."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flinkspec.check import evaluate
from flinkspec.impls import answer_one
from oracle.versions import FlinkVersion
from properties.areas import AREAS


@pytest.mark.parametrize("area", list(AREAS))
@given(data=st.data())
def test_answers_keep_every_rule_of_the_area(impl, area: str, flink_version: FlinkVersion, conformance: str,
                                              strict_messages: bool, data: st.DataObject) -> None:
    """Every answer keeps the area's invariants and agrees with the oracle."""
    if flink_version not in AREAS[area].versions:
        pytest.skip(f"{area} is not defined for Flink {flink_version}")
    request = {"id": 1, **data.draw(AREAS[area].requests(flink_version), label="request")}
    actual = answer_one(impl, request)
    broken = evaluate(request, actual, flink_version, conformance=conformance, strict_messages=strict_messages)
    assert not broken, "\n".join(f"{rule}: {msg}" for rule, msg, _ in broken)
