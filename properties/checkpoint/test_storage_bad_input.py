"""Bad checkpoint-storage input gets a clear BadRequest naming the field, never a crash: checked on the
implementation under test (``--impl flink`` runs it against the bridge, StorageArea.java)."""

from __future__ import annotations

from typing import Any

import pytest

import oracle
from oracle.checkpoint_storage import STORAGE
from oracle.versions import FlinkVersion
from properties.under_test import Implementation, Judged, refuses_then_answers

pytestmark = pytest.mark.flinkspec_area(STORAGE)  # a test with an area parameter checks that one

JOB = "0123456789abcdef0123456789abcdef"
BAD: list[tuple[dict[str, Any], str]] = [
    ({"checkpoint_id": 1}, "input.job_id"),
    ({"job_id": 7, "checkpoint_id": 1}, "input.job_id"),
    ({"job_id": "XYZ", "checkpoint_id": 1}, "input.job_id"),
    ({"job_id": JOB.upper(), "checkpoint_id": 1}, "input.job_id"),
    ({"job_id": JOB[:-1], "checkpoint_id": 1}, "input.job_id"),
    ({"job_id": JOB}, "input.checkpoint_id"),
    ({"job_id": JOB, "checkpoint_id": "1"}, "input.checkpoint_id"),
    ({"job_id": JOB, "checkpoint_id": 1.5}, "input.checkpoint_id"),
    ({"job_id": JOB, "checkpoint_id": -1}, "input.checkpoint_id"),
    ({"job_id": JOB, "checkpoint_id": 1 << 63}, "input.checkpoint_id"),
    ({"job_id": JOB, "checkpoint_id": 1, "config": {"state.checkpoints.dir": 5}}, "config"),
    ({"job_id": JOB, "checkpoint_id": 1, "config": None}, "config"),
    ({"job_id": JOB, "checkpoint_id": 1, "config": {"state.backend.changelog.enabled": "true"}}, "changelog"),
]


@pytest.mark.parametrize(("payload", "says"), BAD, ids=[f"{s}-{i}" for i, (_, s) in enumerate(BAD)])
@pytest.mark.flinkspec_self  # a malformed request has no Flink answer to judge an implementation by
def test_invalid_storage_input_is_a_bad_request(impl: Implementation, flink_version: FlinkVersion,
                                                payload: dict[str, Any], says: str) -> None:
    """The implementation answers a BadRequest naming the field, and stays usable."""
    ok = refuses_then_answers(impl, STORAGE, flink_version, payload, says,
                              {"job_id": JOB, "checkpoint_id": 3, "config": {}})
    assert ok.get("storage") == "JobManagerCheckpointStorage", ok


# Flink's own verdicts on inputs a reimplementation may take for malformed: they are well-formed requests
FLINKS_VERDICTS: list[dict[str, Any]] = [
    {"job_id": JOB, "checkpoint_id": 0, "config": {"state.checkpoint-storage": "filesystem"}},
    {"job_id": JOB, "checkpoint_id": 2**63 - 1, "config": {"state.checkpoints.dir": "/no/scheme"}},
    {"job_id": JOB, "checkpoint_id": 1, "config": {"state.savepoints.dir": "1x:/sp"}},
    {"job_id": JOB, "checkpoint_id": 1, "config": {"state.checkpoint-storage": "no.such.Factory"}},
]


def test_flinks_verdicts_are_answered_as_flink(gate: Judged, flink_version: FlinkVersion) -> None:
    """A filesystem storage without a directory, a directory without a scheme, a savepoint directory that is
    no path and an unknown factory class are answered as Flink answers them (rejections, not BadRequests)."""
    found = gate.judge_all(STORAGE, flink_version, FLINKS_VERDICTS)
    assert not found, "\n\n".join(found)


def test_a_filesystem_storage_without_a_directory_is_flinks_verdict(flink_version: FlinkVersion) -> None:
    """CST-5: Flink rejects it (InvalidConfiguration), naming the release's checkpoint-directory key."""
    answer = oracle.answer({"id": 1, "area": STORAGE, "flink": str(flink_version), "input": FLINKS_VERDICTS[0]})
    error = answer.get("error", {})
    assert error.get("type") == "InvalidConfiguration", answer
    assert error.get("exception") == "IllegalConfigurationException", answer
    assert "does not specify the checkpoint directory" in error.get("message", ""), answer
