"""Bad consumer-weight input gets a clear BadRequest naming the field, never a crash: checked on the
implementation under test (``--impl flink`` runs it against the bridge, ConsumersArea.java)."""

from __future__ import annotations

from typing import Any

import pytest

from oracle.memory_consumers import CONSUMERS, KEY
from oracle.versions import FlinkVersion
from properties.under_test import Implementation, Judged, refuses_then_answers

pytestmark = pytest.mark.flinkspec_area(CONSUMERS)  # a test with an area parameter checks that one

BAD: list[tuple[dict[str, Any], str]] = [
    ({}, "input.use_cases"),
    ({"use_cases": "OPERATOR"}, "input.use_cases"),
    ({"use_cases": ["ROCKSDB"]}, "input.use_cases"),
    ({"use_cases": ["OPERATOR", "OPERATOR"]}, "input.use_cases"),
    ({"use_cases": ["PYTHON"], "operator_weights": [1]}, "input.operator_weights"),
    ({"use_cases": ["OPERATOR"], "operator_weights": [0]}, "input.operator_weights"),
    ({"use_cases": ["OPERATOR"], "operator_weights": [2**31]}, "input.operator_weights"),
    ({"use_cases": ["OPERATOR"], "operator_weights": [2**31 - 1, 1]}, "input.operator_weights"),
    ({"use_cases": ["OPERATOR"], "operator_weights": "1"}, "input.operator_weights"),
    ({"use_cases": [], "config": {KEY: 5}}, "config"),
    ({"use_cases": [], "config": None}, "config"),
    ({"use_cases": [], "job_config": {"state.backend": 1}}, "config"),
    ({"use_cases": [], "state_backend_uses_managed_memory": "yes"}, "state_backend_uses_managed_memory"),
]


@pytest.mark.parametrize(("payload", "says"), BAD, ids=[f"{s}-{i}" for i, (_, s) in enumerate(BAD)])
@pytest.mark.flinkspec_self  # a malformed request has no Flink answer to judge an implementation by
def test_invalid_consumers_input_is_a_bad_request(impl: Implementation, flink_version: FlinkVersion,
                                                  payload: dict[str, Any], says: str) -> None:
    """The implementation answers a BadRequest naming the field, and stays usable."""
    ok = refuses_then_answers(impl, CONSUMERS, flink_version, payload, says, {"use_cases": ["OPERATOR", "PYTHON"]})
    assert ok.get("fractions") == {"OPERATOR": "0.7", "PYTHON": "0.3"}, ok


# Flink's own verdicts on inputs a reimplementation may take for malformed: they are well-formed requests
FLINKS_VERDICTS: list[dict[str, Any]] = [
    {"config": {KEY: "OPERATOR:abc"}, "use_cases": ["OPERATOR"]},
    {"config": {KEY: "OPERATOR"}, "use_cases": ["OPERATOR"]},
    {"config": {KEY: ""}, "use_cases": ["OPERATOR"]},
    {"config": {KEY: "OPERATOR:-1"}, "use_cases": []},
    {"config": {KEY: "FOO:1,operator:2"}, "use_cases": ["OPERATOR"]},
    {"config": {"state.backend": "no.such.Factory"}, "use_cases": ["STATE_BACKEND", "PYTHON"]},
]


def test_flinks_verdicts_are_answered_as_flink(gate: Judged, flink_version: FlinkVersion) -> None:
    """A weight that is no int, an entry without a colon, the empty map, a negative weight, unknown names and a
    state backend that cannot be loaded are answered as Flink answers them (not BadRequests)."""
    found = gate.judge_all(CONSUMERS, flink_version, FLINKS_VERDICTS)
    assert not found, "\n\n".join(found)
