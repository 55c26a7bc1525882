"""The oracle's copies of Flink's tables equal what each version's jar holds
(``properties/recorded/flink-tables.json``, from ``python -m flinkspec.tools.flinktables --record``):
the ``CheckpointFailureReason`` enum (CC-12: names, pre-flight flags, messages) and the memory
``ConfigOption``s (key, default, fallback keys, as ``toString()`` prints them in Flink's errors)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from oracle import memory_options
from oracle.coordinator_rules import rules_for
from oracle.memory_options import ConfigOption
from oracle.versions import SUPPORTED, FlinkVersion
from properties.recordings import FLINK_TABLES as RECORDING


@cache
def _tables() -> dict[str, Any]:
    versions: dict[str, Any] = json.loads(RECORDING.read_text())["versions"]
    return versions


def _oracle_options(version: FlinkVersion) -> list[ConfigOption]:
    found = [o for o in vars(memory_options).values() if isinstance(o, ConfigOption)]
    return [*found, memory_options.network_max(version)]


@pytest.mark.parametrize("version", SUPPORTED, ids=str)
def test_checkpoint_failure_reasons_are_the_jars(version: FlinkVersion) -> None:
    mine = {name: [r.preflight, r.message] for name, r in rules_for(version).reasons.items()}
    assert mine == _tables()[str(version)]["reasons"]


@pytest.mark.parametrize("version", SUPPORTED, ids=str)
def test_memory_options_print_as_the_jars(version: FlinkVersion) -> None:
    jar = _tables()[str(version)]["options"]
    mine = {o.key: str(o) for o in _oracle_options(version) if o.key in jar}
    assert mine == {k: jar[k] for k in mine}
    # the legacy inputs the oracle reads until 1.20 (has_legacy_inputs) are gone from the 2.x jars
    absent = {o.key for o in _oracle_options(version) if o.key not in jar}
    assert absent == (set() if memory_options.has_legacy_inputs(version) else LEGACY)


LEGACY = {"taskmanager.heap.size", "taskmanager.heap.mb", "jobmanager.heap.size", "jobmanager.heap.mb",
          "taskmanager.network.numberOfBuffers"}
