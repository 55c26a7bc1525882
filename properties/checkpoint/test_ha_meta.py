"""Meta-tests of ``checkpoint.ha``: the oracle answers as real Flink did (pinned answers of the bridge,
HaArea.java, at 1.13.6, 1.14.6, 1.15.0, 1.17.0 and 2.3.0), and the strategy reaches the corners where
implementations go wrong."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

import oracle
from oracle.checkpoint_ha import HA, STORAGE
from oracle.versions import RELEASES, SUPPORTED
from properties.checkpoint.ha import requests
from properties.corpus import Corner, answered_with, reaches, refused_with

PINNED = json.loads((Path(__file__).parent / "ha_pinned.json").read_text())
SAMPLE = 2000


@pytest.mark.parametrize("pin", PINNED, ids=[f"{p['flink']}-{i}" for i, p in enumerate(PINNED)])
def test_the_oracle_answers_flinks_pinned_requests(pin: dict[str, Any]) -> None:
    """HA-1 ... HA-8: each answer real Flink gave (recorded from the bridge) is the oracle's."""
    got = oracle.answer({"id": 0, "area": HA, "flink": pin["flink"], "input": pin["input"]})
    want = {k: pin[k] for k in ("output", "error") if k in pin}
    assert {k: got[k] for k in ("output", "error") if k in got} == want


def _steps(pred: Callable[[dict[str, Any], dict[str, Any]], bool]) -> Corner:
    return answered_with(lambda out, inp: any(pred(e, s) for e, s in zip(inp["events"], out["steps"], strict=False)))


CORNERS: dict[str, Corner] = {
    "a subsumption": _steps(lambda e, s: bool(s.get("subsumed"))),
    "a subsumed checkpoint kept by the cleaner (a lower id added)": answered_with(
        lambda out, inp: any(f"<checkpoints>/chk-{i}/_metadata" in out["files"]
                             and sum(e.get("add") == i for e in inp["events"]) == 1
                             for s in out["steps"] for i in s.get("subsumed", []))),
    "a duplicate id": _steps(lambda e, s: s.get("error", {}).get("exception") == "AlreadyExistException"),
    "a negative id": _steps(lambda e, s: "add" in e and e["add"] < 0),
    "an add after shutdown": _steps(lambda e, s: "shutdown" in str(s.get("error", {}).get("message"))),
    "a recovery of checkpoints": _steps(lambda e, s: bool(s.get("recovered"))),
    "a recovery of none after a terminal shutdown": _steps(lambda e, s: s.get("recovered") == []),
    "a counter overflow": _steps(lambda e, s: "overflow" in str(s.get("error", {}).get("message"))),
    "a counter not started": _steps(lambda e, s: s.get("error", {}).get("message") == "not started"),
    "a checkpoint kept on cancellation": answered_with(
        lambda out, inp: {"shutdown": "CANCELED"} in inp["events"] and any("chk-" in f for f in out["files"])),
    "handles in ZooKeeper": answered_with(lambda out, inp: bool(out["handles"])),
    "a nested storage directory": answered_with(lambda out, inp: any(f.startswith(f"{STORAGE}/a/b/")
                                                                     for f in out["files"])),
    "an empty root": answered_with(lambda out, inp: inp["config"].get("high-availability.zookeeper.path.root") == ""),
    "no storage directory": refused_with("IllegalConfigurationException", "Configuration is missing"),
    "a retained count that does not parse": refused_with("IllegalArgumentException", "Could not parse value"),
    "a retained count below 1": answered_with(
        lambda out, inp: inp["config"].get("state.checkpoints.num-retained") in ("0", "-1")),
}


@pytest.mark.parametrize("corner", list(CORNERS))
def test_strategy_reaches(corner: str) -> None:
    assert reaches(requests, SUPPORTED[-1], SAMPLE, CORNERS[corner]), f"none of {SAMPLE} requests: {corner}"


@settings(max_examples=300, database=None, deadline=None, derandomize=True)
@given(requests(SUPPORTED[-1]))
def test_every_generated_request_is_well_formed(request: dict[str, Any]) -> None:
    """The oracle answers every generated request, never with a BadRequest."""
    resp = oracle.answer({"id": 0, **request})
    assert resp.get("error", {}).get("type") != "BadRequest", resp


def test_every_release_is_modelled() -> None:
    """1.13-1.16 ship ZooKeeper and Curator in lib/flink-shaded-zookeeper, which the bridge runs with."""
    from properties.areas import AREAS

    assert AREAS[HA].versions == RELEASES
