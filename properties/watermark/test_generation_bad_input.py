"""Bad watermark-generation input gets a clear BadRequest naming the field, never a crash: checked on the
implementation under test (``--impl flink`` runs it against the bridge, GenerationArea.java)."""

from __future__ import annotations

from typing import Any

import pytest

from oracle.versions import FlinkVersion
from oracle.watermark_generation import GENERATION
from properties.under_test import Implementation, Judged, refuses_then_answers

pytestmark = pytest.mark.flinkspec_area(GENERATION)  # a test with an area parameter checks that one

_P = {"kind": "periodic"}
BAD: list[tuple[dict[str, Any], str]] = [
    ({}, "input.generator"),
    ({"generator": "periodic", "events": []}, "input.generator"),
    ({"generator": 1, "events": []}, "input.generator"),
    ({"generator": "bounded", "events": []}, "input.out_of_orderness_ms"),
    ({"generator": "bounded", "out_of_orderness_ms": "5", "events": []}, "input.out_of_orderness_ms"),
    ({"generator": "bounded", "out_of_orderness_ms": 2**63, "events": []}, "input.out_of_orderness_ms"),
    ({"generator": "monotonous", "out_of_orderness_ms": 5, "events": []}, "input.out_of_orderness_ms"),
    ({"generator": "monotonous", "idle_timeout_ms": "1", "events": []}, "input.idle_timeout_ms"),
    ({"generator": "monotonous"}, "input.events"),
    ({"generator": "monotonous", "events": {}}, "input.events"),
    ({"generator": "monotonous", "events": [1]}, "input.events[0]"),
    ({"generator": "monotonous", "events": [{"kind": "tick"}]}, "input.events[0].kind"),
    ({"generator": "monotonous", "events": [{"kind": "record"}]}, "input.events[0].timestamp"),
    ({"generator": "monotonous", "events": [{"kind": "record", "timestamp": 1.5}]}, "input.events[0].timestamp"),
    ({"generator": "punctuated", "events": [{"kind": "record", "timestamp": 1, "marker": "yes"}]},
     "input.events[0].marker"),
    ({"generator": "monotonous", "events": [{"kind": "record", "timestamp": 1, "marker": True}]}, "marker"),
    ({"generator": "monotonous", "events": [_P, {"kind": "advance", "ms": -1}]}, "input.events[1].ms"),
    ({"generator": "monotonous", "events": [{"kind": "advance", "ms": 2**62}]}, "input.events"),
    ({"generator": "monotonous", "built_by": "factory", "events": []}, "input.built_by"),
    ({"generator": "monotonous", "built_by": "strategy", "idle_timeout_ms": 59_999, "events": []},
     "input.idle_timeout_ms"),
]


@pytest.mark.parametrize(("payload", "says"), BAD, ids=[f"{s}-{i}" for i, (_, s) in enumerate(BAD)])
@pytest.mark.flinkspec_self  # a malformed request has no Flink answer to judge an implementation by
def test_invalid_generation_input_is_a_bad_request(impl: Implementation, flink_version: FlinkVersion,
                                                   payload: dict[str, Any], says: str) -> None:
    """The implementation answers a BadRequest naming the field, and stays usable."""
    ok = refuses_then_answers(impl, GENERATION, flink_version, payload, says,
                              {"generator": "bounded", "out_of_orderness_ms": 2,
                               "events": [{"kind": "record", "timestamp": 10}, _P]})
    assert ok.get("outputs") == [[], [{"watermark": 7}]], ok


# Flink's own verdicts on inputs a reimplementation may take for malformed: they are well-formed requests
FLINKS_VERDICTS: list[dict[str, Any]] = [
    {"generator": "bounded", "out_of_orderness_ms": -1, "events": [_P]},
    {"generator": "monotonous", "idle_timeout_ms": 0, "events": [_P]},
    {"generator": "punctuated", "idle_timeout_ms": -(2**63), "events": []},
    {"generator": "bounded", "out_of_orderness_ms": -1, "idle_timeout_ms": 0, "events": []},
    {"generator": "monotonous", "idle_timeout_ms": 2**63 - 1, "events": [_P, {"kind": "advance", "ms": 5}, _P, _P]},
    {"generator": "bounded", "out_of_orderness_ms": -1, "built_by": "strategy", "idle_timeout_ms": 0, "events": []},
    {"generator": "bounded", "out_of_orderness_ms": -1, "built_by": "strategy", "idle_timeout_ms": 60_000,
     "events": []},
]


def test_flinks_verdicts_are_answered_as_flink(gate: Judged, flink_version: FlinkVersion) -> None:
    """A negative bound, a timeout of zero or below (the bound's rejection first; built by a strategy, the
    timeout's) and a timeout whose nanoseconds overflow are answered as Flink answers them (not BadRequests)."""
    found = gate.judge_all(GENERATION, flink_version, FLINKS_VERDICTS)
    assert not found, "\n\n".join(found)
