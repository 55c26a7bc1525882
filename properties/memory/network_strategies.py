"""Requests for ``memory.network``: TaskManagers and a task's result partitions on and around every rule of
``NettyShuffleEnvironmentConfiguration``, ``NettyShuffleUtils`` and ``NetworkBufferPool``.

A request draws a TaskManager (a process or Flink size; sometimes the network memory pinned to an exact number of
buffers with ``network.min`` = ``network.max``, sometimes a network fraction), a segment size (the default, powers
of two from 4kb to 1mb, now and then one below 4096 or not a power of two), the buffer options (each set or unset:
buffers per channel 0-10, floating buffers per gate 0-10 and, rarely, a value that is no int, max buffers per
channel, overdraft buffers, sort-shuffle min buffers and min parallelism), and 0-4 result partitions of every
type of the release (hybrid ones from 1.16) with 1 ... 5000 subpartitions. One request in four is a fit corner: a
TaskManager of exactly N buffers and partitions whose minimums sum to exactly N, or to N + 1 (one buffer short); one
in twenty-five a bounded partition whose maximum overflows an int. Half the requests carry 0-3 input gates of 1 ...
1000 remote channels (the fit corners count them too: each streaming gate's floating minimum of 1 and its channels'
2 exclusive buffers); a gate has local channels one time in three (now and then only local ones) and names its
consumed partition's type two times in three; one request in twenty-five adds a batch gate of 499 ... 2000 remote
channels (around 1.17's threshold of 1000 required buffers); one request with gates in twenty-five sets floating
buffers per gate to 0 (a floating maximum below its minimum until 1.17, a rejected configuration after).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from oracle.memory_network import (
    BUFFERS_PER_CHANNEL,
    FLOATING_PER_GATE,
    HAS_HYBRID,
    MAX_PER_CHANNEL,
    NETWORK,
    OVERDRAFT,
    SORT_MIN_BUFFERS_KEY,
    SORT_MIN_PARALLELISM_KEY,
    partition_types,
)
from oracle.versions import FlinkVersion, pick
from properties.draws import booleans, integers, lists_of, sampled

AREA = NETWORK
SIZES = ("1g", "1g", "2g", "512m", "4g", "1728m", "8g")
SEGMENTS = ("32kb", "32kb", "4kb", "8kb", "16kb", "64kb", "1mb", "4096b")
BAD_SEGMENTS = ("2kb", "3000b", "48kb", "4095b", "4gb")
SUBPARTITIONS = (1, 2, 3, 7, 10, 64, 100, 128, 200, 500, 1000, 2048, 5000)


@st.composite
def config(draw: st.DrawFn, pinned: int | None = None) -> dict[str, str]:
    """A TaskManager's configuration; ``pinned``: exactly that many 32kb network buffers."""
    out: dict[str, str] = {draw(sampled(["taskmanager.memory.process.size", "taskmanager.memory.process.size",
                                                 "taskmanager.memory.flink.size"])): draw(sampled(SIZES))}
    if pinned is not None:
        size = f"{pinned * 32768}b"
        out.update({"taskmanager.memory.network.min": size, "taskmanager.memory.network.max": size})
        return out
    if draw(integers(0, 3)) == 0:
        out["taskmanager.memory.network.fraction"] = draw(sampled(["0.05", "0.2", "0.4"]))
    if draw(integers(0, 3)) == 0:
        out["taskmanager.memory.network.min"] = draw(sampled(["8m", "32m", "64m", "128m"]))
    if draw(integers(0, 2)) == 0:
        out["taskmanager.memory.segment-size"] = draw(sampled(
            BAD_SEGMENTS if draw(integers(0, 5)) == 0 else SEGMENTS))
    return out


def _int(draw: st.DrawFn, values: tuple[str, ...]) -> str:
    return "x1" if draw(integers(0, 40)) == 0 else draw(sampled(values))


@st.composite
def buffer_options(draw: st.DrawFn) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, values in ((BUFFERS_PER_CHANNEL.key, ("0", "1", "2", "4", "10")),
                        (FLOATING_PER_GATE.key, ("0", "1", "2", "8", "16", "100")),
                        (MAX_PER_CHANNEL.key, ("1", "5", "10", "100")),
                        (OVERDRAFT.key, ("0", "5", "10")),
                        (SORT_MIN_BUFFERS_KEY, ("1", "16", "64", "512", "2048")),
                        (SORT_MIN_PARALLELISM_KEY, ("1", "2", "100", "1000", "2147483647"))):
        if draw(integers(0, 3)) == 0:
            out[key] = _int(draw, values)
    return out


def _partition(n: int, kind: str) -> dict[str, Any]:
    return {"subpartitions": n, "type": kind}


CHANNELS = (1, 2, 3, 10, 100, 128, 500, 1000)
BATCH_GATE_TYPES = ("BLOCKING", "BLOCKING_PERSISTENT", "PIPELINED_APPROXIMATE")
LOCAL = (0, 1, 2, 10, 100, 999)


@st.composite
def _gate(draw: st.DrawFn, version: FlinkVersion, streaming: bool) -> dict[str, Any]:
    """A gate of remote channels, sometimes local ones too (or only), and two times in three a consumed type; a
    ``streaming`` one (the fit corners) consumes a PIPELINED_BOUNDED partition and has no local channels."""
    gate: dict[str, Any] = {"channels": draw(sampled(CHANNELS))}
    if streaming:
        return gate
    if draw(integers(0, 2)) == 0:
        gate["local"] = draw(sampled(LOCAL[1:]))
        if draw(integers(0, 4)) == 0:
            gate["channels"] = 0
    if draw(integers(0, 2)):
        gate["type"] = draw(sampled(partition_types(version)))
    return gate


def _gates(draw: st.DrawFn, version: FlinkVersion, streaming: bool = False) -> list[dict[str, Any]]:
    """0-3 gates, half the time."""
    if draw(booleans()):
        return []
    return draw(st.lists(_gate(version, streaming), max_size=3))


@st.composite
def inputs(draw: st.DrawFn, version: FlinkVersion) -> dict[str, Any]:
    corner = draw(integers(0, 24))
    gates = _gates(draw, version, streaming=corner < 6)
    out: dict[str, Any]
    if corner < 6:  # fits exactly, or one buffer short: PIPELINED partitions need subpartitions + 1 each,
        # a gate 1 floating buffer and 2 exclusive ones per channel (the defaults)
        parts = draw(lists_of(SUBPARTITIONS, min_size=0 if gates else 1, max_size=3))
        total = sum(n + 1 for n in parts) + sum(1 + 2 * g["channels"] for g in gates) - draw(sampled([0, 0, 1]))
        kinds = ("PIPELINED", "PIPELINED_BOUNDED", "PIPELINED_APPROXIMATE")
        out = {"config": draw(config(pinned=max(total, 1))),
               "partitions": [_partition(n, draw(sampled(kinds))) for n in parts]}
        if gates:
            out["gates"] = gates
        return out
    if corner == 6:  # subpartitions * buffers-per-channel + floating overflows an int
        return {"config": {"taskmanager.memory.process.size": "1g", BUFFERS_PER_CHANNEL.key: "2147483647",
                           FLOATING_PER_GATE.key: draw(sampled(["1", "8"]))},
                "partitions": [_partition(draw(sampled([2, 3, 100])), "PIPELINED_BOUNDED")]}
    cfg = {**draw(config()), **draw(buffer_options())}
    if corner == 8:  # a batch gate around 1.17's threshold of 1000 required buffers
        gates = [*gates, {"channels": draw(sampled((499, 500, 600, 1000, 2000))),
                          "type": draw(sampled(BATCH_GATE_TYPES))}]
    if gates and corner == 7:  # a gate's floating pool whose maximum is below its minimum of 1
        cfg[FLOATING_PER_GATE.key] = "0"
    drawn = draw(st.lists(st.tuples(st.sampled_from(SUBPARTITIONS), st.sampled_from(partition_types(version))),
                          max_size=4))
    out = {"config": cfg, "partitions": [_partition(n, k) for n, k in drawn]}
    if gates:
        out["gates"] = gates
    return out


def corpus_key(version: FlinkVersion) -> object:
    """The releases with hybrid partition types (1.16+) draw their own requests; the others share theirs."""
    return pick(HAS_HYBRID, version)


def requests(version: FlinkVersion) -> st.SearchStrategy[dict[str, Any]]:
    """Protocol requests for ``memory.network`` and ``version``."""
    return inputs(version).map(lambda i: {"area": AREA, "flink": str(version), "input": i})

