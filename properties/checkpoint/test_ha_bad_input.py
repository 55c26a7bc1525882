"""Bad checkpoint.ha input gets a clear BadRequest naming the field, never a crash: checked on the implementation
under test (``--impl flink`` runs it against the bridge, HaArea.java)."""

from __future__ import annotations

from typing import Any

import pytest

from oracle.checkpoint_ha import HA, STORAGE
from oracle.versions import FlinkVersion
from properties.under_test import Implementation, refuses_then_answers

pytestmark = pytest.mark.flinkspec_area(HA)  # a test with an area parameter checks that one

GOOD = {"config": {"high-availability.storageDir": STORAGE}, "events": [{"add": 1}]}
BAD: list[tuple[dict[str, Any], str]] = [
    ({"config": {}}, "input.events"),
    ({"events": {}}, "input.events"),
    ({"events": [5]}, "input.events[0]"),
    ({"events": [{"add": "1"}]}, "input.events[0]"),
    ({"events": [{"add": True}]}, "input.events[0]"),
    ({"events": [{"add": 1, "retention": "KEEP"}]}, "input.events[0].retention"),
    ({"events": [{"add": 1, "extra": 2}]}, "input.events[0]"),
    ({"events": [{"get": "first"}]}, "input.events[0]"),
    ({"events": [{"counter": "prev"}]}, "input.events[0]"),
    ({"events": [{"set_count": 1.5}]}, "input.events[0]"),
    ({"events": [{"shutdown": "RUNNING"}]}, "input.events[0].shutdown"),
    ({"events": [{"recover": False}]}, "input.events[0]"),
    ({"config": {"high-availability.storageDir": 5}, "events": []}, "config"),
    ({"config": None, "events": []}, "config"),
    ({"config": {"high-availability.storageDir": "file:///tmp/x"}, "events": []}, "high-availability.storageDir"),
    ({"config": {"high-availability.storageDir": "<storagedir>"}, "events": []}, "high-availability.storageDir"),
]


@pytest.mark.parametrize(("payload", "says"), BAD, ids=[f"{s}-{i}" for i, (_, s) in enumerate(BAD)])
@pytest.mark.flinkspec_self  # a malformed request has no Flink answer to judge an implementation by
def test_invalid_ha_input_is_a_bad_request(impl: Implementation, flink_version: FlinkVersion,
                                           payload: dict[str, Any], says: str) -> None:
    """The implementation answers a BadRequest naming the field, and stays usable."""
    ok = refuses_then_answers(impl, HA, flink_version, payload, says, GOOD)
    assert ok["steps"] == [{"subsumed": [], "retained": [1]}], ok
