"""Meta-tests: the consumer-weight strategy reaches the corners where implementations go wrong, and the
oracle's version rules hold on witnesses."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

import oracle
from oracle.memory_consumers import CONSUMERS, KEY
from oracle.versions import SUPPORTED, FlinkVersion, parse_version
from properties.corpus import Corner, answered_with, reaches, refused_with, search
from properties.memory.consumers_strategies import requests

SAMPLE = 3000  # requests drawn once per release below; every corner must be among them
LEGACY = parse_version("1.18")  # before 1.19: quotes and blanks are drawn


def _value(inp: dict[str, Any]) -> str:
    return str(inp["config"].get(KEY, ""))


CORNERS: dict[str, Corner] = {
    "the default weights": answered_with(lambda o, i: KEY not in i["config"] and len(i["use_cases"]) == 3),
    "all three use cases share": answered_with(lambda o, i: all(o["fractions"].get(u, "0") != "0"
                                                       for u in ("OPERATOR", "STATE_BACKEND", "PYTHON"))),
    "a state backend without managed memory left out": answered_with(
        lambda o, i: o["fractions"].get("STATE_BACKEND") == "0" and o["weights"].get("STATE_BACKEND", 0) > 0),
    "the application says its backend uses managed memory": answered_with(
        lambda o, i: i.get("state_backend_uses_managed_memory") is True and "STATE_BACKEND" in i["use_cases"]),
    "rocksdb from the configuration": answered_with(lambda o, i: "rocksdb" in str(i["config"]).lower()
                                          and o["fractions"].get("STATE_BACKEND", "0") != "0"),
    "an int total that wraps": answered_with(lambda o, i: any(f != "0" and float(f) > 1
                                                              for f in o["fractions"].values())),
    "a total that wraps to a negative sum": answered_with(lambda o, i: all(f == "0" for f in o["fractions"].values())
                                                 and sum(o["weights"].get(u, 0) for u in i["use_cases"]) > 2**31),
    "no weights for the declared use cases": answered_with(lambda o, i: i["use_cases"] and all(
        o["weights"].get(u, 0) == 0 for u in i["use_cases"])),
    "a weight of 0": answered_with(lambda o, i: 0 in o["weights"].values()),
    "a fraction with 16 decimals": answered_with(lambda o, i: any(len(f) == 18 for f in o["fractions"].values())),
    "several operators": answered_with(lambda o, i: len(i.get("operator_weights", [])) >= 3),
    "an operator of weight Integer.MAX_VALUE": answered_with(lambda o, i: 2**31 - 1 in i.get("operator_weights", [])),
    "an unknown name ignored": answered_with(lambda o, i: "FOO:" in _value(i)),
    "a name in another case ignored": answered_with(lambda o, i: "operator:" in _value(i)),
    "a + sign": answered_with(lambda o, i: ":+5" in _value(i)),
    "an Arabic-Indic digit": answered_with(lambda o, i: "\u0667" in _value(i) and 7 in o["weights"].values()),
    "the empty map": answered_with(lambda o, i: KEY in i["config"] and not o["weights"]),
    "a negative weight": refused_with("IllegalConfigurationException", "Managed memory weight should not be negative"),
    "a weight that is no int": refused_with("NumberFormatException", "For input string"),
    "an entry without a colon": lambda d: KEY in d[0]["input"]["config"] and refused_with(
        "IllegalArgumentException", "Could not parse value")(d),
    "two entries for one name": lambda d: d[1].get("error") is not None and any(
        _value(d[0]["input"]).count(f"{n}:") > 1 for n in ("OPERATOR", "PYTHON")),
    "a job configuration": lambda d: bool(d[0]["input"].get("job_config")),
}
BY_VERSION: dict[str, tuple[FlinkVersion, Corner]] = {
    "1.18: quotes honoured": (LEGACY, answered_with(lambda o, i: "'" in _value(i) and bool(o["weights"]))),
    "1.18: blanks around a colon": (LEGACY, answered_with(lambda o, i: " : " in _value(i) and bool(o["weights"]))),
    "1.18: DATAPROC read": (LEGACY, answered_with(lambda o, i: "DATAPROC:" in _value(i) and "OPERATOR:" not in _value(i)
                                         and "OPERATOR" in o["weights"])),
    "2.3: DATAPROC ignored": (SUPPORTED[-1], answered_with(lambda o, i: "DATAPROC:" in _value(i)
                                                  and "OPERATOR:" not in _value(i) and "OPERATOR" not in o["weights"])),
}


@pytest.mark.parametrize("corner", list(CORNERS))
def test_strategy_reaches(corner: str) -> None:
    assert reaches(requests, SUPPORTED[-1], SAMPLE, CORNERS[corner]), f"none of {SAMPLE} requests: {corner}"


@pytest.mark.parametrize("corner", list(BY_VERSION))
def test_strategy_reaches_version_corner(corner: str) -> None:
    version, pred = BY_VERSION[corner]
    search(requests, version, pred)


@settings(max_examples=300, database=None, deadline=None, derandomize=True)
@given(requests(SUPPORTED[-1]))
def test_every_generated_request_is_well_formed(request: dict[str, Any]) -> None:
    """The oracle answers every generated request, never with a BadRequest."""
    resp = oracle.answer({"id": 0, **request})
    assert resp.get("error", {}).get("type") != "BadRequest", resp


@settings(max_examples=300, database=None, deadline=None, derandomize=True)
@given(requests(LEGACY))
def test_every_generated_legacy_request_is_well_formed(request: dict[str, Any]) -> None:
    resp = oracle.answer({"id": 0, **request})
    assert resp.get("error", {}).get("type") != "BadRequest", resp


def _answer(version: str, **inp: Any) -> dict[str, Any]:
    return oracle.answer({"id": 0, "area": CONSUMERS, "flink": version, "input": inp})


def test_the_oracle_reads_the_taskmanagers_weights_only() -> None:
    """MCW-1: weights in the job's configuration are not read, in any release."""
    for version in ("1.13", "1.19", "2.3"):
        out = _answer(version, config={}, job_config={KEY: "OPERATOR:1"}, use_cases=["OPERATOR"])["output"]
        assert out["weights"] == {"OPERATOR": 70, "STATE_BACKEND": 70, "PYTHON": 30}


def test_dataproc_is_read_until_2_0() -> None:
    """MCW-3: DATAPROC is OPERATOR's and STATE_BACKEND's weight until 1.20, where their names are absent."""
    config = {KEY: "DATAPROC:5,STATE_BACKEND:3"}
    assert _answer("1.20", config=config, use_cases=[])["output"]["weights"] == {"OPERATOR": 5, "STATE_BACKEND": 3}
    assert _answer("2.0", config=config, use_cases=[])["output"]["weights"] == {"STATE_BACKEND": 3}


def test_an_int_total_wraps() -> None:
    """MCW-6: the total weight is an int: 2 x Integer.MAX_VALUE + 3 wraps to 1, and each share is its weight."""
    config = {KEY: "OPERATOR:2147483647,PYTHON:2147483647,STATE_BACKEND:3"}
    out = _answer("2.3", config=config, use_cases=["OPERATOR", "PYTHON", "STATE_BACKEND"],
                  state_backend_uses_managed_memory=True)["output"]
    assert out["fractions"] == {"OPERATOR": "2147483647", "STATE_BACKEND": "3", "PYTHON": "2147483647"}


def test_the_state_backend_comes_from_the_job_from_1_19() -> None:
    """MCW-5: a job's rocksdb gives STATE_BACKEND managed memory from 1.19 on, not before."""
    inp: dict[str, Any] = {"config": {}, "job_config": {"state.backend": "rocksdb"},
                           "use_cases": ["OPERATOR", "STATE_BACKEND"]}
    assert _answer("1.18", **inp)["output"]["fractions"] == {"OPERATOR": "1", "STATE_BACKEND": "0"}
    assert _answer("1.19", **inp)["output"]["fractions"] == {"OPERATOR": "0.5", "STATE_BACKEND": "0.5"}
