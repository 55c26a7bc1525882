"""Scenarios transcribed from Flink's own checkpointing tests, checked on every run.

``alignment_examples.json`` (``AlignedCheckpointsTest``, ``CheckpointBarrierTrackerTest``) and
``coordinator_examples.json`` (``CheckpointCoordinatorTest`` and friends): each names its test and
source, the Flink versions it holds for and the expected output derived from the test's assertions.
They run against the implementation under test (``--impl``), the oracle by default.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from oracle.versions import FlinkVersion, parse_version
from properties.under_test import Implementation, Judged, answer_one

HERE = Path(__file__).parent
FILES = {"checkpoint.alignment": "alignment_examples.json", "checkpoint.coordinator": "coordinator_examples.json"}


def _cases() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for area, name in FILES.items():
        path = HERE / name
        if path.exists():
            out += [(area, ex) for ex in json.loads(path.read_text())["examples"]]
    return out


CASES = _cases()


@pytest.mark.parametrize(("area", "example"), CASES, ids=[f"{a.split('.')[1]}-{e['name']}" for a, e in CASES])
def test_flinks_own_scenario(impl: Implementation, gate: Judged, impl_spec: str, flink_version: FlinkVersion,
                             area: str, example: dict[str, Any]) -> None:
    """The implementation reproduces the outcome Flink's own test asserts, on every version it names:
    the oracle exactly; any other implementation judged as every route judges
    (:class:`flinkspec.plugin.gate.Gate`), the oracle standing for the outcome it reproduces."""
    if flink_version not in {parse_version(x) for x in example["versions"]}:
        pytest.skip(f"{example['name']} is not a scenario of Flink {flink_version}")
    if impl_spec != "oracle":
        found = gate.judge_all(area, flink_version, [example["input"]])
        assert not found, f"{example['name']} ({example['source']}):\n" + "\n".join(found)
        return
    resp = answer_one(impl, {"id": 1, "area": area, "flink": str(flink_version), "input": example["input"]})
    want = _expected(example, flink_version)
    got = {k: resp[k] for k in ("output", "error") if k in resp}
    assert got == want, f"{example['name']} ({example['source']}): {example.get('note', '')}"


def _expected(example: dict[str, Any], version: FlinkVersion) -> dict[str, Any]:
    """``{"output": ...}`` or ``{"error": ...}``: one trace for every version, or one per group of versions."""
    if "trace" in example:
        return {"output": {"trace": example["trace"]}}
    for group in example["expected"]:
        if version in {parse_version(x) for x in group["versions"]}:
            return {k: group[k] for k in ("output", "error") if k in group}
    raise AssertionError(f"{example['name']} names no expected answer for Flink {version}")
