"""Scenarios transcribed from Flink's own checkpointing tests: pinned data, and Flink's answer to each.

``alignment_examples.json`` (``AlignedCheckpointsTest``, ``CheckpointBarrierTrackerTest``) and
``coordinator_examples.json`` (``CheckpointCoordinatorTest`` and friends), beside this module: each
example names its test and source, the Flink versions it holds for and the expected output derived
from the test's assertions. ``properties/checkpoint/test_examples.py`` holds the implementation under
test to them on every run; ``flinkspec.tools.vectors`` exports them as conformance test vectors.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from oracle.alignment import ALIGNMENT
from oracle.coordinator import COORDINATOR
from oracle.versions import FlinkVersion, parse_version

HERE = Path(__file__).parent
FILES = {ALIGNMENT: "alignment_examples.json", COORDINATOR: "coordinator_examples.json"}


def examples(area: str) -> list[dict[str, Any]]:
    """The pinned examples of ``area`` (a key of :data:`FILES`), in file order."""
    out: list[dict[str, Any]] = json.loads((HERE / FILES[area]).read_text())["examples"]
    return out


def expected(example: dict[str, Any], version: FlinkVersion) -> dict[str, Any]:
    """Flink's answer to ``example`` at ``version``: ``{"output": ...}`` or ``{"error": ...}``; one
    trace for every version, or one answer per group of versions. A ``ValueError`` if it names none."""
    if "trace" in example:
        return {"output": {"trace": example["trace"]}}
    for group in example["expected"]:
        if version in {parse_version(x) for x in group["versions"]}:
            return {k: group[k] for k in ("output", "error") if k in group}
    raise ValueError(f"{example['name']} names no expected answer for Flink {version}")
