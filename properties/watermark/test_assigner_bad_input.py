"""Bad watermark.assigner input gets a clear BadRequest naming the field, never a crash: checked on the
implementation under test (``--impl flink`` runs it against the bridge, AssignerArea.java)."""

from __future__ import annotations

from typing import Any

import pytest

from oracle.versions import FlinkVersion
from oracle.watermark_assigner import ASSIGNER, LONG_MAX, MAX_CLOCK_MS
from properties.under_test import Implementation, Judged, refuses_then_answers

pytestmark = pytest.mark.flinkspec_area(ASSIGNER)  # a test with an area parameter checks that one

_M = {"generator": "monotonous", "auto_watermark_interval_ms": 10}
_R = {"kind": "record", "timestamp": 1}
BAD: list[tuple[dict[str, Any], str]] = [
    ({}, "input.generator"),
    ({"generator": "sorted", "auto_watermark_interval_ms": 1, "events": []}, "input.generator"),
    ({"generator": "bounded", "auto_watermark_interval_ms": 1, "events": []}, "input.out_of_orderness_ms"),
    ({**_M, "out_of_orderness_ms": 3, "events": []}, "input.out_of_orderness_ms"),
    ({**_M, "built_by": "strategy", "events": []}, "input.built_by"),
    ({"generator": "monotonous", "events": []}, "input.auto_watermark_interval_ms"),
    ({**_M, "auto_watermark_interval_ms": "10", "events": []}, "input.auto_watermark_interval_ms"),
    ({**_M, "auto_watermark_interval_ms": MAX_CLOCK_MS + 1, "events": []}, "input.auto_watermark_interval_ms"),
    ({**_M, "emit_progressive": 1, "events": []}, "input.emit_progressive"),
    ({**_M, "idle_timeout_ms": 1.5, "events": []}, "input.idle_timeout_ms"),
    ({**_M}, "input.events"),
    ({**_M, "events": {}}, "input.events"),
    ({**_M, "events": [1]}, "input.events[0]"),
    ({**_M, "events": [{"kind": "periodic"}]}, "input.events[0].kind"),
    ({**_M, "events": [{"kind": "record"}]}, "input.events[0].timestamp"),
    ({**_M, "events": [{"kind": "record", "timestamp": "1"}]}, "input.events[0].timestamp"),
    ({**_M, "events": [{"kind": "record", "timestamp": LONG_MAX + 1}]}, "input.events[0].timestamp"),
    ({**_M, "events": [{**_R, "marker": True}]}, "input.events"),
    ({**_M, "events": [{**_R, "marker": "yes"}]}, "input.events[0].marker"),
    ({**_M, "events": [{"kind": "watermark"}]}, "input.events[0].timestamp"),
    ({**_M, "events": [{"kind": "status", "status": "busy"}]}, "input.events[0].status"),
    ({**_M, "events": [{"kind": "advance", "ms": -1}]}, "input.events[0].ms"),
    ({**_M, "events": [{"kind": "advance", "ms": MAX_CLOCK_MS}, {"kind": "advance", "ms": 1}]}, "input.events"),
    ({**_M, "events": [{"kind": "end_of_input"}, _R]}, "input.events"),
]


@pytest.mark.parametrize(("payload", "says"), BAD, ids=[f"{s}-{i}" for i, (_, s) in enumerate(BAD)])
@pytest.mark.flinkspec_self  # a malformed request has no Flink answer to judge an implementation by
def test_invalid_assigner_input_is_a_bad_request(impl: Implementation, flink_version: FlinkVersion,
                                                 payload: dict[str, Any], says: str) -> None:
    """The implementation answers a BadRequest naming the field, and stays usable."""
    ok = refuses_then_answers(impl, ASSIGNER, flink_version, payload, says,
                              {**_M, "events": [_R, {"kind": "advance", "ms": 10}, {"kind": "end_of_input"}]})
    assert ok.get("outputs") == [[{"record": 1}], [{"watermark": 0}], []], ok


# Flink's own verdicts on inputs a reimplementation may take for malformed: they are well-formed requests
FLINKS_VERDICTS: list[dict[str, Any]] = [
    {**_M, "auto_watermark_interval_ms": -1, "events": [_R]},
    {"generator": "bounded", "out_of_orderness_ms": -5, "auto_watermark_interval_ms": 0, "events": []},
    {"generator": "bounded", "out_of_orderness_ms": -5, "auto_watermark_interval_ms": 0, "emit_progressive": False,
     "events": [_R]},
    {**_M, "idle_timeout_ms": 0, "events": []},
    {**_M, "events": [{"kind": "record", "timestamp": None}, {"kind": "watermark", "timestamp": LONG_MAX}]},
]


def test_flinks_verdicts_are_answered_as_flink(gate: Judged, flink_version: FlinkVersion) -> None:
    """A negative interval (ExecutionConfig), bound or timeout is Flink's IllegalArgumentException (not a
    BadRequest), the bound only where the generator is built; a record without a timestamp is Long.MIN_VALUE's."""
    found = gate.judge_all(ASSIGNER, flink_version, FLINKS_VERDICTS)
    assert not found, "\n\n".join(found)
