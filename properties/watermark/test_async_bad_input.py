"""Bad watermark.async input gets a clear BadRequest naming the field, never a crash: checked on the
implementation under test (``--impl flink`` runs it against the bridge, AsyncArea.java)."""

from __future__ import annotations

from typing import Any

import pytest

from oracle.versions import FlinkVersion
from oracle.watermark_async import ASYNC
from properties.under_test import Implementation, Judged, refuses_then_answers

pytestmark = pytest.mark.flinkspec_area(ASYNC)  # a test with an area parameter checks that one

_R = {"kind": "record", "name": "a", "timestamp": 1}
_U = {"mode": "unordered", "capacity": 2}
BAD: list[tuple[dict[str, Any], str]] = [
    ({}, "input.mode"),
    ({"mode": "sorted", "capacity": 1, "events": []}, "input.mode"),
    ({"mode": "ordered", "events": []}, "input.capacity"),
    ({"mode": "ordered", "capacity": "2", "events": []}, "input.capacity"),
    ({"mode": "ordered", "capacity": 1001, "events": []}, "input.capacity"),
    ({**_U}, "input.events"),
    ({**_U, "events": {}}, "input.events"),
    ({**_U, "events": [1]}, "input.events[0]"),
    ({**_U, "events": [{"kind": "timeout"}]}, "input.events[0].kind"),
    ({**_U, "timeout": "5", "events": []}, "input.timeout"),
    ({**_U, "timeout": 2**62 + 1, "events": []}, "input.timeout"),
    ({**_U, "timeout": 5, "timeout_results": [1.5], "events": []}, "input.timeout_results"),
    ({**_U, "timeout": 5, "timeout_results": 3, "events": []}, "input.timeout_results"),
    ({**_U, "events": [{"kind": "advance"}]}, "input.events[0].ms"),
    ({**_U, "events": [{"kind": "advance", "ms": -1}]}, "input.events[0].ms"),
    ({**_U, "events": [{"kind": "advance", "ms": 2**62}, {"kind": "advance", "ms": 1}]}, "input.events[1]"),
    ({**_U, "events": [{"kind": "fail", "name": "a"}]}, "input.events[0].name"),
    ({**_U, "events": [_R, {"kind": "fail", "name": "a", "message": 3}]}, "input.events[1].message"),
    ({**_U, "events": [_R, {"kind": "fail", "name": "a"}, {"kind": "complete", "name": "a", "results": []}]},
     "input.events[2].name"),
    ({**_U, "events": [{"kind": "end"}, {"kind": "watermark", "timestamp": 1}]}, "input.events[1]"),
    ({**_U, "events": [{"kind": "record"}]}, "input.events[0].name"),
    ({**_U, "events": [{"kind": "record", "name": "a", "timestamp": 1.5}]}, "input.events[0].timestamp"),
    ({**_U, "events": [_R, _R]}, "input.events[1].name"),
    ({**_U, "events": [{"kind": "complete", "name": "a", "results": []}]}, "input.events[0].name"),
    ({**_U, "events": [_R, {"kind": "complete", "name": "a"}]}, "input.events[1].results"),
    ({**_U, "events": [_R, {"kind": "complete", "name": "a", "results": ["x"]}]}, "input.events[1].results"),
    ({**_U, "events": [_R, {"kind": "complete", "name": "a", "results": []},
                       {"kind": "complete", "name": "a", "results": []}]}, "input.events[2].name"),
    ({**_U, "events": [{"kind": "watermark"}]}, "input.events[0].timestamp"),
    ({**_U, "events": [{"kind": "end"}, _R]}, "input.events[1]"),
    ({"mode": "ordered", "capacity": 1, "events": [_R, {"kind": "record", "name": "b"},
                                                   {"kind": "complete", "name": "b", "results": []}]},
     "input.events[2].name"),
]


@pytest.mark.parametrize(("payload", "says"), BAD, ids=[f"{s}-{i}" for i, (_, s) in enumerate(BAD)])
@pytest.mark.flinkspec_self  # a malformed request has no Flink answer to judge an implementation by
def test_invalid_async_input_is_a_bad_request(impl: Implementation, flink_version: FlinkVersion,
                                              payload: dict[str, Any], says: str) -> None:
    """The implementation answers a BadRequest naming the field, and stays usable."""
    ok = refuses_then_answers(impl, ASYNC, flink_version, payload, says,
                              {"mode": "ordered", "capacity": 1,
                               "events": [_R, {"kind": "complete", "name": "a", "results": [3]}]})
    assert ok.get("steps") == [{"emitted": []}, {"emitted": [{"record": 3, "timestamp": 1}]}], ok


# Flink's own verdicts on inputs a reimplementation may take for malformed: they are well-formed requests
FLINKS_VERDICTS: list[dict[str, Any]] = [
    {"mode": "ordered", "capacity": 0, "events": [_R]},
    {"mode": "unordered", "capacity": -(2**31), "events": []},
    {"mode": "unordered", "capacity": 1, "events": [{"kind": "record", "name": "a"}, {"kind": "end"},
                                                    {"kind": "complete", "name": "a", "results": [1, 1]}]},
    # a timeout of 0 or below registers no timer; a timer due at once after end of input; a late completion
    {"mode": "ordered", "capacity": 1, "timeout": -5, "events": [_R, {"kind": "advance", "ms": 9}]},
    {"mode": "ordered", "capacity": 1, "timeout": 1, "events": [_R, {"kind": "end"}, {"kind": "advance", "ms": 1},
                                                                {"kind": "complete", "name": "a", "results": [2]}]},
    {"mode": "unordered", "capacity": 2, "timeout": 3, "timeout_results": [],
     "events": [_R, {"kind": "advance", "ms": 3}, {"kind": "fail", "name": "a"}]},
]


def test_flinks_verdicts_are_answered_as_flink(gate: Judged, flink_version: FlinkVersion) -> None:
    """A capacity of zero or below is Flink's IllegalArgumentException (not a BadRequest); a record without a
    timestamp gives results without one."""
    found = gate.judge_all(ASYNC, flink_version, FLINKS_VERDICTS)
    assert not found, "\n\n".join(found)
