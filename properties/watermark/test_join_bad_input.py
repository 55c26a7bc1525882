"""Bad watermark.join input gets a clear BadRequest naming the field, never a crash: checked on the
implementation under test (``--impl flink`` runs it against the bridge, JoinArea.java)."""

from __future__ import annotations

from typing import Any

import pytest

from oracle.versions import FlinkVersion
from oracle.watermark_join import JOIN, LATE_OUTPUTS
from properties.under_test import Implementation, Judged, refuses_then_answers

pytestmark = pytest.mark.flinkspec_area(JOIN)  # a test with an area parameter checks that one

_B = {"lower_bound_ms": -1, "upper_bound_ms": 1}
_L = {"side": "left", "key": "a", "timestamp": 1, "value": 0}
BAD: list[tuple[dict[str, Any], str]] = [
    ({}, "input.lower_bound_ms"),
    ({"lower_bound_ms": "1", "upper_bound_ms": 1, "events": []}, "input.lower_bound_ms"),
    ({"lower_bound_ms": 0, "events": []}, "input.upper_bound_ms"),
    ({"lower_bound_ms": 0, "upper_bound_ms": 2**63, "events": []}, "input.upper_bound_ms"),
    ({**_B, "lower_exclusive": 1, "events": []}, "input.lower_exclusive"),
    ({**_B, "upper_exclusive": "yes", "events": []}, "input.upper_exclusive"),
    ({**_B}, "input.events"),
    ({**_B, "events": {}}, "input.events"),
    ({**_B, "events": [1]}, "input.events[0]"),
    ({**_B, "events": [{"key": "a", "timestamp": 1, "value": 0}]}, "input.events[0].side"),
    ({**_B, "events": [{**_L, "side": "middle"}]}, "input.events[0].side"),
    ({**_B, "events": [{"side": "left", "timestamp": 1, "value": 0}]}, "input.events[0].key"),
    ({**_B, "events": [{**_L, "timestamp": 1.5}]}, "input.events[0].timestamp"),
    ({**_B, "events": [{"side": "left", "key": "a", "timestamp": 1}]}, "input.events[0].value"),
    ({**_B, "events": [{"side": "left", "watermark": "5"}]}, "input.events[0].watermark"),
    ({**_B, "events": [{"side": "right", "watermark": 5}, {"side": "right", "watermark": 4}]},
     "input.events[1].watermark"),
]


@pytest.mark.parametrize(("payload", "says"), BAD, ids=[f"{s}-{i}" for i, (_, s) in enumerate(BAD)])
@pytest.mark.flinkspec_self  # a malformed request has no Flink answer to judge an implementation by
def test_invalid_join_input_is_a_bad_request(impl: Implementation, flink_version: FlinkVersion,
                                             payload: dict[str, Any], says: str) -> None:
    """The implementation answers a BadRequest naming the field, and stays usable."""
    ok = refuses_then_answers(impl, JOIN, flink_version, payload, says,
                              {**_B, "events": [_L, {"side": "right", "key": "a", "timestamp": 2, "value": 1}]})
    assert ok.get("outputs") == [[], [{"joined": {"key": "a", "left": 0, "right": 1, "left_timestamp": 1,
                                                  "right_timestamp": 2, "timestamp": 2}}]], ok


@pytest.mark.flinkspec_self
def test_late_outputs_before_1_17_are_a_bad_request(impl: Implementation, flink_version: FlinkVersion) -> None:
    """Before 1.17.0 IntervalJoined has no sideOutputLeftLateData / sideOutputRightLateData: asking for one is a
    BadRequest naming the field; from 1.17.0 a well-formed request."""
    if flink_version >= LATE_OUTPUTS.at:
        pytest.skip("the late side outputs are defined from 1.17.0")
    for name in ("left_late_output", "right_late_output"):
        refuses_then_answers(impl, JOIN, flink_version, {**_B, name: False, "events": []}, f"input.{name}",
                             {**_B, "events": []})


# Flink's own verdicts on inputs a reimplementation may take for malformed: they are well-formed requests
FLINKS_VERDICTS: list[dict[str, Any]] = [
    {"lower_bound_ms": 1, "upper_bound_ms": 0, "events": [_L]},
    {"lower_bound_ms": 0, "upper_bound_ms": 0, "lower_exclusive": True, "upper_exclusive": True, "events": [
        _L, {**_L, "side": "right"}]},
    {**_B, "events": [{**_L, "timestamp": -(2**63)}]},
    {"lower_bound_ms": -(2**63), "upper_bound_ms": 2**63 - 1, "events": [
        _L, {"side": "left", "watermark": 2**63 - 1}, {"side": "right", "watermark": 2**63 - 1},
        {**_L, "side": "right", "timestamp": 2**63 - 1}]},
]


def test_flinks_verdicts_are_answered_as_flink(gate: Judged, flink_version: FlinkVersion) -> None:
    """lower > upper is Flink's IllegalArgumentException, a record without a timestamp its FlinkException (not
    BadRequests); both bounds exclusive on one value join nothing; the widest bounds wrap."""
    found = gate.judge_all(JOIN, flink_version, FLINKS_VERDICTS)
    assert not found, "\n\n".join(found)
