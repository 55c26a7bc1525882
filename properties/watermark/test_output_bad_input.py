"""Bad watermark.output input gets a clear BadRequest naming the field, never a crash: checked on the
implementation under test (``--impl flink`` runs it against the bridge, OutputArea.java)."""

from __future__ import annotations

from typing import Any

import pytest

from oracle.versions import FlinkVersion
from oracle.watermark_output import LONG_MAX, OUTPUT
from properties.under_test import Implementation, refuses_then_answers

pytestmark = pytest.mark.flinkspec_area(OUTPUT)  # a test with an area parameter checks that one

BAD: list[tuple[dict[str, Any], str]] = [
    ({}, "input.events"),
    ({"events": {}}, "input.events"),
    ({"source": "kafka", "events": []}, "input.source"),
    ({"source": 1, "events": []}, "input.source"),
    ({"events": [1]}, "input.events[0]"),
    ({"events": [{"kind": "barrier"}]}, "input.events[0].kind"),
    ({"events": [{"timestamp": 1}]}, "input.events[0].kind"),
    ({"events": [{"kind": "record"}]}, "input.events[0].timestamp"),
    ({"events": [{"kind": "record", "timestamp": "1"}]}, "input.events[0].timestamp"),
    ({"events": [{"kind": "record", "timestamp": LONG_MAX + 1}]}, "input.events[0].timestamp"),
    ({"events": [{"kind": "watermark"}]}, "input.events[0].timestamp"),
    ({"events": [{"kind": "watermark", "timestamp": 1.5}]}, "input.events[0].timestamp"),
    ({"events": [{"kind": "status", "status": "busy"}]}, "input.events[0].status"),
    ({"events": [{"kind": "status"}]}, "input.events[0].status"),
    ({"events": [{"kind": "latency"}]}, "input.events[0].marked_time"),
    ({"events": [{"kind": "end"}, {"kind": "record", "timestamp": 1}]}, "input.events"),
]


@pytest.mark.parametrize(("payload", "says"), BAD, ids=[f"{s}-{i}" for i, (_, s) in enumerate(BAD)])
@pytest.mark.flinkspec_self  # a malformed request has no Flink answer to judge an implementation by
def test_invalid_output_input_is_a_bad_request(impl: Implementation, flink_version: FlinkVersion,
                                               payload: dict[str, Any], says: str) -> None:
    """The implementation answers a BadRequest naming the field, and stays usable."""
    ok = refuses_then_answers(impl, OUTPUT, flink_version, payload, says,
                              {"events": [{"kind": "record", "timestamp": 1}, {"kind": "watermark", "timestamp": 2},
                                          {"kind": "end"}]})
    assert ok.get("outputs") == [[{"record": 1}], [{"watermark": 2}], [{"watermark": LONG_MAX}]], ok
