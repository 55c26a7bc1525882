"""Bad checkpoint.snapshot input gets a clear BadRequest naming the field, never a crash: checked on the
implementation under test (``--impl flink`` runs it against the bridge, SnapshotArea.java)."""

from __future__ import annotations

from typing import Any

import pytest

from oracle.checkpoint_snapshot import SNAPSHOT
from oracle.protocol import NOT_MODELLED
from oracle.versions import FlinkVersion
from properties.under_test import Implementation, Judged, refuses_then_answers

pytestmark = pytest.mark.flinkspec_area(SNAPSHOT)  # a test with an area parameter checks that one

_S = {"kind": "snapshot", "checkpoint": 1}
_C = {"kind": "cancel", "checkpoint": 1}
_R = {"kind": "run", "checkpoint": 1}
BAD: list[tuple[dict[str, Any], str]] = [
    ({}, "input.events"),
    ({"events": {}}, "input.events"),
    ({"events": [1]}, "input.events[0]"),
    ({"backend": 1, "events": []}, "input.backend"),
    ({"events": [{"kind": "merge"}]}, "input.events[0].kind"),
    ({"events": [{"key": "a"}]}, "input.events[0].kind"),
    ({"events": [{"kind": "put", "key": "a"}]}, "input.events[0].value"),
    ({"events": [{"kind": "put", "key": "a", "value": None}]}, "input.events[0].value"),
    ({"events": [{"kind": "put", "key": 1, "value": "x"}]}, "input.events[0].key"),
    ({"events": [{"kind": "remove"}]}, "input.events[0].key"),
    ({"events": [{"kind": "get", "key": ["a"]}]}, "input.events[0].key"),
    ({"events": [{"kind": "snapshot"}]}, "input.events[0].checkpoint"),
    ({"events": [{"kind": "snapshot", "checkpoint": "1"}]}, "input.events[0].checkpoint"),
    ({"events": [{"kind": "snapshot", "checkpoint": 2**63}]}, "input.events[0].checkpoint"),
    ({"events": [_S, _S]}, "input.events[1].checkpoint"),
    ({"events": [_R]}, "input.events[0].checkpoint"),
    ({"events": [_C]}, "input.events[0].checkpoint"),
    ({"events": [{"kind": "complete", "checkpoint": 1.5}]}, "input.events[0].checkpoint"),
    ({"events": [_S, {"kind": "restore", "checkpoint": 1}]}, "input.events[1].checkpoint"),
    ({"events": [_S, _C, _R, {"kind": "restore", "checkpoint": 1}]}, "input.events[3].checkpoint"),
    # a restore disposes the old backend, cancelling snapshot 2 (not yet run): it cannot be restored
    ({"events": [_S, _R, {"kind": "snapshot", "checkpoint": 2}, {"kind": "restore", "checkpoint": 1},
                 {"kind": "run", "checkpoint": 2}, {"kind": "restore", "checkpoint": 2}]},
     "input.events[5].checkpoint"),
]


@pytest.mark.parametrize(("payload", "says"), BAD, ids=[f"{s}-{i}" for i, (_, s) in enumerate(BAD)])
@pytest.mark.flinkspec_self  # a malformed request has no Flink answer to judge an implementation by
def test_invalid_snapshot_input_is_a_bad_request(impl: Implementation, flink_version: FlinkVersion,
                                                 payload: dict[str, Any], says: str) -> None:
    """The implementation answers a BadRequest naming the field, and stays usable."""
    ok = refuses_then_answers(impl, SNAPSHOT, flink_version, payload, says,
                              {"events": [{"kind": "put", "key": "a", "value": "x"}, _S, _R]})
    assert ok.get("steps") == [{}, {"done": False}, {"state": [["a", "x"]]}], ok


@pytest.mark.parametrize("backend", ["forst", "", "RocksDB"])
@pytest.mark.flinkspec_self  # a refusal of what the oracle does not model says nothing of Flink
def test_a_backend_other_than_hashmap_or_rocksdb_is_not_modelled(impl: Implementation, flink_version: FlinkVersion,
                                                                 backend: str) -> None:
    """The area models the hashmap and rocksdb backends only: another is refused as not modelled, naming
    input.backend."""
    ok = refuses_then_answers(impl, SNAPSHOT, flink_version, {"backend": backend, "events": []},
                              f"input.backend: {NOT_MODELLED}", {"backend": "hashmap", "events": []})
    assert ok == {"steps": []}, ok


# well-formed requests a reimplementation may take for malformed: Flink answers them
FLINKS_VERDICTS: list[dict[str, Any]] = [
    {"events": [{"kind": "complete", "checkpoint": 7}]},
    {"events": [_S, _C, _C, _R, _R]},
    {"events": [{"kind": "put", "key": "", "value": ""}, _S, _R, _R, {"kind": "restore", "checkpoint": 1},
                {"kind": "restore", "checkpoint": 1}]},
    {"events": [{"kind": "snapshot", "checkpoint": -(2**63)}, {"kind": "run", "checkpoint": -(2**63)}]},
]


def test_flinks_verdicts_are_answered_as_flink(gate: Judged, flink_version: FlinkVersion) -> None:
    """A completion of a checkpoint never taken, a cancel or run repeated, a restore repeated and the smallest
    checkpoint id are answered, not refused."""
    found = gate.judge_all(SNAPSHOT, flink_version, FLINKS_VERDICTS)
    assert not found, "\n\n".join(found)
