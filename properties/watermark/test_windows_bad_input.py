"""Bad window-operator input gets a clear BadRequest naming the field, never a crash: checked on the implementation
under test (``--impl flink`` runs it against the bridge, WindowsArea.java)."""

from __future__ import annotations

from typing import Any

import pytest

from oracle.versions import FlinkVersion
from oracle.watermark_windows import LONG_MAX, LONG_MIN, WINDOWS
from properties.under_test import Implementation, Judged, refuses_then_answers

pytestmark = pytest.mark.flinkspec_area(WINDOWS)  # a test with an area parameter checks that one

_T = {"assigner": "tumbling", "size_ms": 10}
_R = {"key": "a", "timestamp": 5, "value": 1}
BAD: list[tuple[dict[str, Any], str]] = [
    ({}, "input.assigner"),
    ({"assigner": 1, "events": []}, "input.assigner"),
    ({"assigner": "hopping", "events": []}, "input.assigner"),
    ({"assigner": "tumbling", "events": []}, "input.size_ms"),
    ({"assigner": "tumbling", "size_ms": "10", "events": []}, "input.size_ms"),
    ({"assigner": "sliding", "size_ms": 10, "events": []}, "input.slide_ms"),
    ({"assigner": "session", "events": []}, "input.gap_ms"),
    ({**_T, "offset_ms": LONG_MIN, "events": []}, "input.offset_ms"),
    ({**_T, "allowed_lateness_ms": -1, "events": []}, "input.allowed_lateness_ms"),
    ({**_T, "allowed_lateness_ms": 2**63, "events": []}, "input.allowed_lateness_ms"),
    ({**_T, "late_output": "yes", "events": []}, "input.late_output"),
    (_T, "input.events"),
    ({**_T, "events": {}}, "input.events"),
    ({**_T, "events": [1]}, "input.events[0]"),
    ({**_T, "events": [{"timestamp": 1, "value": 1}]}, "input.events[0].key"),
    ({**_T, "events": [{"key": "a", "value": 1}]}, "input.events[0].timestamp"),
    ({**_T, "events": [{"key": "a", "timestamp": LONG_MIN, "value": 1}]}, "input.events[0].timestamp"),
    ({**_T, "events": [{"key": "a", "timestamp": 1}]}, "input.events[0].value"),
    ({**_T, "events": [{"watermark": 1.5}]}, "input.events[0].watermark"),
    ({**_T, "events": [{"watermark": 5}, {"watermark": 4}]}, "input.events[1].watermark"),
    ({"assigner": "sliding", "size_ms": 1001, "slide_ms": 1, "events": [_R]}, "size / slide"),
]


@pytest.mark.parametrize(("payload", "says"), BAD, ids=[f"{s}-{i}" for i, (_, s) in enumerate(BAD)])
@pytest.mark.flinkspec_self  # a malformed request has no Flink answer to judge an implementation by
def test_invalid_windows_input_is_a_bad_request(impl: Implementation, flink_version: FlinkVersion,
                                                payload: dict[str, Any], says: str) -> None:
    """The implementation answers a BadRequest naming the field, and stays usable."""
    ok = refuses_then_answers(impl, WINDOWS, flink_version, payload, says,
                              {**_T, "events": [_R, {"watermark": 9}]})
    assert ok.get("outputs") == [[], [{"fired": {"key": "a", "start": 0, "end": 10, "values": [1],
                                                 "timestamp": 9}}]], ok


# Flink's own verdicts on inputs a reimplementation may take for malformed: they are well-formed requests
FLINKS_VERDICTS: list[dict[str, Any]] = [
    {**_T, "offset_ms": 10, "events": [_R]},
    {**_T, "offset_ms": -10, "events": []},
    {"assigner": "tumbling", "size_ms": 0, "events": []},
    {"assigner": "sliding", "size_ms": 0, "slide_ms": 5, "events": []},
    {"assigner": "sliding", "size_ms": 10, "slide_ms": 5, "offset_ms": 5, "events": []},
    {"assigner": "sliding", "size_ms": 10_000_001, "slide_ms": 1, "events": [{"watermark": 1}]},
    {"assigner": "session", "gap_ms": 0, "events": [_R]},
    {"assigner": "session", "gap_ms": 5, "allowed_lateness_ms": LONG_MAX, "events": [
        {"key": "a", "timestamp": 10, "value": 1}, {"watermark": 100}, {"key": "a", "timestamp": 12, "value": 2}]},
    {**_T, "allowed_lateness_ms": LONG_MAX, "events": [_R, {"watermark": LONG_MAX}, _R]},
]


def test_flinks_verdicts_are_answered_as_flink(gate: Judged, flink_version: FlinkVersion) -> None:
    """An offset as large as the size or slide, a size, slide or gap Flink refuses (and 2.1's cap on size / slide),
    a merge that would end before the watermark and an overflowing lateness are answered as Flink answers them."""
    found = gate.judge_all(WINDOWS, flink_version, FLINKS_VERDICTS)
    assert not found, "\n\n".join(found)
