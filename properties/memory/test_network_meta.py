"""Meta-tests: the network-buffer strategy reaches the corners where implementations go wrong, and the
oracle's version rules hold on witnesses."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

import oracle
from oracle.memory_network import (
    BUFFERS_PER_CHANNEL,
    FLOATING_PER_GATE,
    MAX_PER_CHANNEL,
    NETWORK,
    OVERDRAFT,
    SORT_MIN_BUFFERS_KEY,
    SORT_MIN_PARALLELISM_KEY,
    partition_types,
)
from oracle.versions import SUPPORTED, parse_version
from properties.corpus import Corner, answered_with, reaches, refused_with
from properties.memory.network_strategies import requests

SAMPLE = 3000  # requests drawn once at the newest release; every corner must be among them
INT_MAX = 2**31 - 1


def _set(key: str) -> Corner:
    return answered_with(lambda o, i: key in i["config"])


CORNERS: dict[str, Corner] = {
    "fits exactly": answered_with(lambda o, i: bool(i["partitions"]) and o["available"] == 0),
    "one buffer short": lambda d: refused_with("IOException", "Insufficient number of network buffers")(d) and (
        "required" in d[1]["error"]["message"]) and d[0]["input"]["config"].get("taskmanager.memory.network.min")
    is not None,
    "insufficient among several partitions": lambda d: refused_with("IOException", "Insufficient")(d) and len(
        d[0]["input"]["partitions"]) >= 2,
    "a sort-shuffled partition": answered_with(lambda o, i: any(
        p["type"].startswith("BLOCKING") and q["min"] != p["subpartitions"] + 1
        for p, q in zip(i["partitions"], o["partitions"], strict=True))),
    "a bounded maximum that wraps": answered_with(lambda o, i: BUFFERS_PER_CHANNEL.key in i["config"] and i["config"][
        BUFFERS_PER_CHANNEL.key] == str(INT_MAX)),
    "no partitions": answered_with(lambda o, i: not i["partitions"]),
    "four partitions": answered_with(lambda o, i: len(i["partitions"]) == 4),
    "a segment size below 4096": refused_with("IllegalConfigurationException", "Invalid configuration value for "
                                        "taskmanager.memory.segment-size"),
    "a network fraction": _set("taskmanager.memory.network.fraction"),
    "a Flink size": _set("taskmanager.memory.flink.size"),
    **{f"type {t}": answered_with(lambda o, i, t=t: any(p["type"] == t for p in i["partitions"]))  # type: ignore[misc]
       for t in partition_types(SUPPORTED[-1])},
    **{f"option {k} set": _set(k) for k in (BUFFERS_PER_CHANNEL.key, FLOATING_PER_GATE.key, MAX_PER_CHANNEL.key,
                                            OVERDRAFT.key, SORT_MIN_BUFFERS_KEY, SORT_MIN_PARALLELISM_KEY)},
}


@pytest.mark.parametrize("corner", list(CORNERS))
def test_strategy_reaches(corner: str) -> None:
    assert reaches(requests, SUPPORTED[-1], SAMPLE, CORNERS[corner]), f"none of {SAMPLE} requests: {corner}"


@pytest.mark.parametrize("version", ["1.13", "1.16", "1.17", "2.3"])
def test_an_option_that_is_no_int_is_drawn(version: str) -> None:
    """Before 2.0 such a value is Flink's IllegalArgumentException; the strategy draws it at every release."""
    assert reaches(requests, parse_version(version), SAMPLE, lambda d: "x1" in d[0]["input"]["config"].values())


@settings(max_examples=300, database=None, deadline=None, derandomize=True)
@given(requests(SUPPORTED[-1]))
def test_every_generated_request_is_well_formed(request: dict[str, Any]) -> None:
    """The oracle answers every generated request, never with a BadRequest."""
    resp = oracle.answer({"id": 0, **request})
    assert resp.get("error", {}).get("type") != "BadRequest", resp


def _answer(version: str, **inp: Any) -> dict[str, Any]:
    return oracle.answer({"id": 0, "area": NETWORK, "flink": version, "input": inp})


TM = {"taskmanager.memory.process.size": "1g"}  # 64 MB of network memory: 2048 buffers of 32 KB


def test_fit_corners() -> None:
    """NET-9: 2048 buffers hold a PIPELINED partition of 2047 subpartitions exactly, not one of 2048."""
    out = _answer("2.3", config=TM, partitions=[{"subpartitions": 2047, "type": "PIPELINED"}])["output"]
    assert (out["network_buffers"], out["required"], out["available"]) == (2048, 2048, 0)
    err = _answer("2.3", config=TM, partitions=[{"subpartitions": 2048, "type": "PIPELINED"}])["error"]
    assert err["message"].startswith("Insufficient number of network buffers: required 2049, but only 2048 available")


def test_sort_shuffle_defaults() -> None:
    """NET-5: a BLOCKING partition of 10 subpartitions is hash-shuffled (11) in 1.14, sort-shuffled (512) from 1.15."""
    part = [{"subpartitions": 10, "type": "BLOCKING"}]
    assert _answer("1.14", config=TM, partitions=part)["output"]["partitions"] == [{"min": 11, "max": INT_MAX}]
    assert _answer("1.15", config=TM, partitions=part)["output"]["partitions"] == [{"min": 512, "max": 512}]


def test_sort_shuffle_cap() -> None:
    """NET-7 (FLINK-25774): from 1.15 a sort-shuffled pool holds at most max(minimum, 4 * subpartitions)."""
    part = [{"subpartitions": 300, "type": "BLOCKING"}]
    config = {**TM, SORT_MIN_PARALLELISM_KEY: "1"}
    assert _answer("1.14", config=config, partitions=part)["output"]["partitions"] == [{"min": 64, "max": INT_MAX}]
    assert _answer("1.15", config=config, partitions=part)["output"]["partitions"] == [{"min": 512, "max": 1200}]


def test_options_fixed_from_2_0() -> None:
    """NET-4: buffers-per-channel is read until 1.20 and fixed at 2 from 2.0."""
    config = {**TM, BUFFERS_PER_CHANNEL.key: "5"}
    part = [{"subpartitions": 2, "type": "PIPELINED_BOUNDED"}]
    assert _answer("1.20", config=config, partitions=part)["output"]["partitions"] == [{"min": 3, "max": 18}]
    assert _answer("2.0", config=config, partitions=part)["output"]["partitions"] == [{"min": 3, "max": 12}]


GATE_CORNERS: dict[str, Corner] = {
    "a gate that fits exactly": answered_with(lambda o, i: bool(i.get("gates")) and o["available"] == 0),
    "a gate one buffer short": lambda d: bool(d[0]["input"].get("gates")) and refused_with(
        "IOException", "Insufficient number of network buffers")(d) and d[0]["input"]["config"].get(
        "taskmanager.memory.network.min") is not None,
    "three gates": answered_with(lambda o, i: len(i.get("gates") or []) == 3),
    "gates and partitions": answered_with(lambda o, i: bool(i.get("gates")) and bool(i["partitions"])),
    "a gate with local channels": answered_with(lambda o, i: any(g.get("local") for g in i.get("gates") or [])),
    "a gate with only local channels": answered_with(lambda o, i: any(
        g.get("local") and not g["channels"] for g in i.get("gates") or [])),
    "a gate naming its type": answered_with(lambda o, i: any("type" in g for g in i.get("gates") or [])),
    **{f"gates with option {k} set": answered_with(lambda o, i, k=k: bool(i.get("gates")) and k in i["config"])  # type: ignore[misc]
       for k in (BUFFERS_PER_CHANNEL.key, FLOATING_PER_GATE.key)},
    **{f"gates with option {k} unset": answered_with(lambda o, i, k=k: bool(i.get("gates")) and k not in i["config"])  # type: ignore[misc]
       for k in (BUFFERS_PER_CHANNEL.key, FLOATING_PER_GATE.key)},
}
# where each release line's gates differ (NET-13 ... NET-16)
GATE_RELEASE_CORNERS: dict[str, dict[str, Corner]] = {
    "1.13.6": {"a remote channel asking 0 exclusive buffers": refused_with(
        "IllegalArgumentException", "Number of buffers to request must be larger than 0.")},
    "1.16.3": {"a gate's floating maximum below its minimum": lambda d: bool(d[0]["input"].get("gates")) and
               refused_with("IllegalArgumentException",
                            "Maximum number of memory segments (0) should not be smaller than minimum (1)")(d)},
    SUPPORTED[-1].__str__(): {
        "a batch gate at its threshold (exclusive buffers dropped)": answered_with(lambda o, i: any(
            g["exclusive_per_channel"] < 2 and g["floating_min"] > 1 for g in o.get("gates") or [])),
        "a batch gate with no exclusive buffers": answered_with(lambda o, i: any(
            g["exclusive_per_channel"] == 0 and g["floating_min"] == 1000 for g in o.get("gates") or []))},
}


@pytest.mark.parametrize("corner", list(GATE_CORNERS))
@pytest.mark.parametrize("version", ["1.13.6", "1.16.3", str(SUPPORTED[-1])])
def test_strategy_reaches_gate_corners(corner: str, version: str) -> None:
    assert reaches(requests, parse_version(version), SAMPLE, GATE_CORNERS[corner]), (
        f"none of {SAMPLE} requests at {version}: {corner}")


@pytest.mark.parametrize(("version", "corner"), [(v, c) for v, cs in GATE_RELEASE_CORNERS.items() for c in cs])
def test_strategy_reaches_release_gate_corners(version: str, corner: str) -> None:
    assert reaches(requests, parse_version(version), SAMPLE, GATE_RELEASE_CORNERS[version][corner]), (
        f"none of {SAMPLE} requests at {version}: {corner}")


def test_gate_corners() -> None:
    """NET-13, NET-14: after a partition of 200 subpartitions (201), two gates of 100 remote channels take 1 floating
    and 200 exclusive buffers each; with 400 buffers the first gate's 100th channel finds 0 left."""
    part = [{"subpartitions": 200, "type": "PIPELINED_BOUNDED"}]
    out = _answer("1.16", config=TM, partitions=part, gates=[{"channels": 100}] * 2)["output"]
    assert out["gates"] == [{"floating_min": 1, "floating_max": 8, "exclusive_per_channel": 2, "exclusive": 200}] * 2
    assert (out["required"], out["available"]) == (603, 1445)
    pinned = {**TM, "taskmanager.memory.network.min": f"{400 * 32768}b",
              "taskmanager.memory.network.max": f"{400 * 32768}b"}
    err = _answer("1.16", config=pinned, partitions=part, gates=[{"channels": 100}])["error"]
    assert err["message"].startswith("Insufficient number of network buffers: required 2, but only 0 available")
    floating = _answer("1.14", config={**TM, FLOATING_PER_GATE.key: "0"}, gates=[{"channels": 1}])["error"]
    assert floating["message"] == "Maximum number of memory segments (0) should not be smaller than minimum (1)."


def test_gate_releases() -> None:
    """NET-13, NET-14: every gate's floating pool comes before any channel's exclusive buffers (the second gate's
    pool takes the last buffer, then the first gate's channel finds none); 1.13 refuses a request of 0 exclusive
    buffers, 1.14 on request none; local channels take none."""
    two = f"{2 * 32768}b"
    pinned = {**TM, "taskmanager.memory.network.min": two, "taskmanager.memory.network.max": two}
    for version in ("1.13", "1.16", "2.3"):
        err = _answer(version, config=pinned, gates=[{"channels": 1}] * 2)["error"]
        assert err["message"].startswith("Insufficient number of network buffers: required 2, but only 0 available")
    zero = {**TM, BUFFERS_PER_CHANNEL.key: "0"}
    assert _answer("1.13", config=zero, gates=[{"channels": 1}])["error"]["message"] == (
        "Number of buffers to request must be larger than 0.")
    assert _answer("1.14", config=zero, gates=[{"channels": 1}])["output"]["required"] == 1
    assert _answer("1.13", config=zero, gates=[{"channels": 0, "local": 3}])["output"]["required"] == 1
    local = _answer("1.16", config=TM, gates=[{"channels": 2, "local": 5}])["output"]["gates"]
    assert local == [{"floating_min": 1, "floating_max": 8, "exclusive_per_channel": 2, "exclusive": 4}]


def test_gate_spec() -> None:
    """NET-15, NET-16: from 1.17 a batch gate requires at most 1000 buffers (local channels count), a streaming one
    channels * 2 + 1; a required count that wraps below 1 is InputGateSpecUtils' IllegalArgumentException."""
    batch = _answer("1.17", config=TM, gates=[{"channels": 600, "type": "BLOCKING"},
                                              {"channels": 1, "local": 999, "type": "PIPELINED_APPROXIMATE"}])
    assert batch["output"]["gates"] == [
        {"floating_min": 400, "floating_max": 608, "exclusive_per_channel": 1, "exclusive": 600},
        {"floating_min": 1000, "floating_max": 2008, "exclusive_per_channel": 0, "exclusive": 0}]
    stream = _answer("2.3", config=TM, gates=[{"channels": 600, "type": "PIPELINED"}])["output"]["gates"]
    assert stream == [{"floating_min": 1, "floating_max": 8, "exclusive_per_channel": 2, "exclusive": 1200}]
    wraps = _answer("1.17", config={**TM, BUFFERS_PER_CHANNEL.key: str(INT_MAX)}, gates=[{"channels": 2}])["error"]
    assert (wraps["exception"], wraps["message"]) == ("IllegalArgumentException", "Require at least 1 buffer per gate.")
    assert _answer("1.16", config=TM, gates=[{"channels": 600, "type": "BLOCKING"}])["output"]["gates"][0][
        "exclusive"] == 1200


def test_hybrid_partitions() -> None:
    """NET-17: hybrid partitions from 1.16, pooled as PIPELINED ones; before 1.16 no such type."""
    part = [{"subpartitions": 4, "type": "HYBRID_FULL"}, {"subpartitions": 9, "type": "HYBRID_SELECTIVE"}]
    for version in ("1.16", "1.20", "2.3"):
        assert _answer(version, config=TM, partitions=part)["output"]["partitions"] == [
            {"min": 5, "max": INT_MAX}, {"min": 10, "max": INT_MAX}]
    assert _answer("1.15", config=TM, partitions=part)["error"]["type"] == "BadRequest"


def test_1_13_checks_the_fit_before_the_maximum() -> None:
    """NET-8, NET-9: 1.13's NetworkBufferPool refuses a pool that does not fit before LocalBufferPool sees its
    maximum below its minimum (real Flink 1.13.6, flinkspec check --flink all --examples 20000 --seed 2026)."""
    config = {**TM, BUFFERS_PER_CHANNEL.key: "0"}
    big = _answer("1.13", config=config, partitions=[{"subpartitions": 5000, "type": "PIPELINED_BOUNDED"}])["error"]
    assert big["message"].startswith("Insufficient number of network buffers: required 5001, but only 2048 available")
    small = _answer("1.13", config=config, partitions=[{"subpartitions": 100, "type": "PIPELINED_BOUNDED"}])["error"]
    assert small["message"] == "Maximum number of memory segments (8) should not be smaller than minimum (101)."
