"""Bad network-buffer input gets a clear BadRequest naming the field, never a crash: checked on the
implementation under test (``--impl flink`` runs it against the bridge, NetworkArea.java)."""

from __future__ import annotations

from typing import Any

import pytest

from oracle.memory_network import NETWORK
from oracle.versions import FlinkVersion
from properties.under_test import Implementation, Judged, refuses_then_answers

pytestmark = pytest.mark.flinkspec_area(NETWORK)  # a test with an area parameter checks that one

TM = {"taskmanager.memory.process.size": "1g"}
BAD: list[tuple[dict[str, Any], str]] = [
    ({"config": TM, "partitions": "PIPELINED"}, "input.partitions"),
    ({"config": TM, "partitions": [5]}, "input.partitions[0]"),
    ({"config": TM, "partitions": [{"type": "PIPELINED"}]}, "input.partitions[0]"),
    ({"config": TM, "partitions": [{"subpartitions": 0, "type": "PIPELINED"}]}, "input.partitions[0]"),
    ({"config": TM, "partitions": [{"subpartitions": 2**31, "type": "PIPELINED"}]}, "input.partitions[0]"),
    ({"config": TM, "partitions": [{"subpartitions": 3, "type": "pipelined"}]}, "input.partitions[0]"),
    ({"config": TM, "partitions": [{"subpartitions": 3}]}, "input.partitions[0]"),
    ({"config": {"taskmanager.memory.process.size": 1}}, "config"),
    ({"config": None}, "config"),
]


@pytest.mark.parametrize(("payload", "says"), BAD, ids=[f"{s}-{i}" for i, (_, s) in enumerate(BAD)])
@pytest.mark.flinkspec_self  # a malformed request has no Flink answer to judge an implementation by
def test_invalid_network_input_is_a_bad_request(impl: Implementation, flink_version: FlinkVersion,
                                                payload: dict[str, Any], says: str) -> None:
    """The implementation answers a BadRequest naming the field, and stays usable."""
    ok = refuses_then_answers(impl, NETWORK, flink_version, payload, says,
                              {"config": TM, "partitions": [{"subpartitions": 2047, "type": "PIPELINED"}]})
    assert (ok.get("network_buffers"), ok.get("available")) == (2048, 0), ok


# Flink's own verdicts on inputs a reimplementation may take for malformed: they are well-formed requests
FLINKS_VERDICTS: list[dict[str, Any]] = [
    {"config": {}},
    {"config": {**TM, "taskmanager.memory.segment-size": "3000b"}},
    {"config": {**TM, "taskmanager.network.memory.buffers-per-channel": "two"}},
    {"config": {**TM, "taskmanager.network.memory.buffers-per-channel": "0"},
     "partitions": [{"subpartitions": 100, "type": "PIPELINED_BOUNDED"}]},
    {"config": TM, "partitions": [{"subpartitions": 5000, "type": "PIPELINED"}]},
]


def test_flinks_verdicts_are_answered_as_flink(gate: Judged, flink_version: FlinkVersion) -> None:
    """No memory size, a segment size that is no power of two, an option that is no int, a bounded maximum below
    the minimum and a task that does not fit are answered as Flink answers them (not BadRequests)."""
    found = gate.judge_all(NETWORK, flink_version, FLINKS_VERDICTS)
    assert not found, "\n\n".join(found)
