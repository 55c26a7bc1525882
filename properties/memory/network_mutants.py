"""Network-buffer mutants: bugs a reimplementation of Flink's network buffer accounting plausibly has.

Each answers with one function or table of :mod:`oracle.memory_network` swapped for the buggy one, for the
duration of one answer (:func:`properties.mutant.with_patches`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import oracle.memory_network as mn
from oracle.changes import FIRST
from oracle.javanum import INT_MAX
from oracle.versions import FlinkVersion
from properties.mutant import PR, Mutant, historical, with_patches

AREA = mn.NETWORK
MUTANTS: list[Mutant] = []  # this module's mutants, in the order flinkspec mutants lists them

_pool = mn.partition_pool


def _no_plus_one(subpartitions: int, kind: str, opts: Mapping[str, int], version: FlinkVersion) -> tuple[int, int]:
    """One buffer per subpartition, without the extra one."""
    minimum, maximum = _pool(subpartitions, kind, opts, version)
    return (minimum - 1, maximum) if minimum == subpartitions + 1 else (minimum, maximum)


def _no_floating(subpartitions: int, kind: str, opts: Mapping[str, int], version: FlinkVersion,
                 ) -> tuple[int, int]:
    return _pool(subpartitions, kind, {**opts, "floating_per_gate": 0}, version)


def _sort_above(subpartitions: int, kind: str, opts: Mapping[str, int], version: FlinkVersion) -> tuple[int, int]:
    """Sort-shuffle only above the min parallelism (Flink: at or above it)."""
    if subpartitions == opts["sort_min_parallelism"]:
        return _pool(subpartitions, kind, {**opts, "sort_min_parallelism": subpartitions + 1}, version)
    return _pool(subpartitions, kind, opts, version)


def _cap_2x(subpartitions: int, kind: str, opts: Mapping[str, int], version: FlinkVersion) -> tuple[int, int]:
    """A sort-shuffled pool bounded by 2 * subpartitions (Flink: 4 *)."""
    minimum, maximum = _pool(subpartitions, kind, opts, version)
    if maximum == max(minimum, 4 * subpartitions) and kind in mn.BLOCKING and maximum != INT_MAX:
        return minimum, max(minimum, 2 * subpartitions)
    return minimum, maximum


def _ceil_buffers(network_bytes: int, page: int) -> int:
    return -(-network_bytes // page)


def _strict_fit(reserved: int, minimum: int, total: int) -> bool:
    return reserved + minimum < total


_gate = mn.gate_buffers


def _floating_per_channel(remote: int, local: int, kind: str, opts: Mapping[str, int], version: FlinkVersion,
                          ) -> tuple[int, int, int]:
    """A gate's floating maximum counted per channel (Flink: per gate)."""
    minimum, maximum, per_channel = _gate(remote, local, kind, opts, version)
    return minimum, maximum * (remote + local), per_channel


def _no_exclusive(remote: int, local: int, kind: str, opts: Mapping[str, int], version: FlinkVersion,
                  ) -> tuple[int, int, int]:
    """A gate's channels request no exclusive buffers (Flink: buffers-per-channel each)."""
    minimum, maximum, _ = _gate(remote, local, kind, opts, version)
    return minimum, maximum, 0


def _local_as_remote(request: dict[str, Any]) -> dict[str, Any]:
    """A gate's local channels request exclusive buffers like its remote ones (Flink: none)."""
    inp = request.get("input")
    if not isinstance(inp, dict) or not isinstance(inp.get("gates"), list):
        return request
    gates = [{**g, "channels": g.get("channels", 0) + g.get("local", 0), "local": 0}
             if isinstance(g, dict) and isinstance(g.get("local"), int) and isinstance(g.get("channels"), int) else g
             for g in inp["gates"]]
    return {**request, "input": {**inp, "gates": gates}}


UNDOCUMENTED = {
    "net-sort-above-min-parallelism": "The description of sort-shuffle.min-parallelism says sort-shuffle is used "
    "for partitions of that many subpartitions or more, but what a partition of exactly that many requires is "
    "decided by NettyShuffleUtils only; no documented rule judges a blocking partition's minimum.",
    "net-exact-fit-refused": "The documented rule it breaks, MNB-5 (a task fails for want of buffers only when "
    "it requires more than are available), reads the required and available counts from Flink's message: a wording "
    "rule, judged only with --strict-messages, so the documented level without messages cannot tell a refused "
    "exact fit from a task one buffer short.",
    "net-sort-cap-2x": "That a sort-shuffled pool is bounded by 4 * subpartitions (FLINK-25774) is written in no "
    "documentation, only in NettyShuffleUtils.",
    "net-gate-no-batch-threshold": "It follows the documentation (each channel buffers-per-channel exclusive "
    "buffers, MNB-8): that from 1.17 a batch gate requires at most 1000 buffers, its channels' exclusive buffers "
    "dropping to stay below that, is decided by InputGateSpecUtils only.",
}

for _name, _doc, _patches in (
    ("net-no-plus-one", "A result partition requires one buffer per subpartition (Flink: plus one).",
     ((mn, "partition_pool", _no_plus_one),)),
    ("net-bounded-no-floating", "A bounded pool's maximum is subpartitions * buffers-per-channel, without the "
     "floating buffers per gate.", ((mn, "partition_pool", _no_floating),)),
    ("net-sort-above-min-parallelism", "A blocking partition is sort-shuffled only with more subpartitions than "
     "sort-shuffle.min-parallelism (Flink: at least as many).", ((mn, "partition_pool", _sort_above),)),
    ("net-sort-cap-2x", "A sort-shuffled pool holds at most max(minimum, 2 * subpartitions) buffers (Flink: 4 *).",
     ((mn, "partition_pool", _cap_2x),)),
    ("net-buffers-round-up", "The number of network buffers is the network memory over the buffer size rounded up"
     " (Flink: down).", ((mn, "network_buffers", _ceil_buffers),)),
    ("net-gate-floating-per-channel", "An input gate's floating buffers are floating-buffers-per-gate per channel"
     " (Flink: per gate).", ((mn, "gate_buffers", _floating_per_channel),)),
    ("net-gate-no-exclusive", "An input gate's channels take no exclusive buffers from the TaskManager's (Flink: "
     "buffers-per-channel each).", ((mn, "gate_buffers", _no_exclusive),)),
    ("net-exact-fit-refused", "A pool that would take the last free network buffer is refused (Flink creates a "
     "pool that fits exactly).", ((mn, "fits", _strict_fit),)),
    ("net-gate-no-batch-threshold", "A gate consuming a batch (blocking or PIPELINED_APPROXIMATE) partition requires"
     " channels * buffers-per-channel + 1 buffers however many that is (Flink from 1.17: at most 1000, the "
     "channels' exclusive buffers dropping to stay below).",
     ((mn, "STREAM_GATE", frozenset(mn.TYPES + mn.HYBRID_TYPES)),)),
):
    MUTANTS.append(Mutant(_name, AREA, _doc, after=with_patches(*_patches), undocumented=UNDOCUMENTED.get(_name, "")))

MUTANTS.append(Mutant("net-gate-local-exclusive", AREA, "A gate's local channels request buffers-per-channel "
                      "exclusive buffers each, like its remote ones (Flink: a local channel requests none).",
                      before=_local_as_remote))

MUTANTS.append(historical(
    mn.SORT_SHUFFLE_CAP, AREA,
    "A sort-shuffled result partition's pool is unbounded (Integer.MAX_VALUE buffers), as before FLINK-25774 "
    "bounded it by max(minimum, 4 * subpartitions).",
    f"{PR}18470 (Flink 1.15.0)", "1.13-1.14",
    after=with_patches((mn, "SORT_CAPPED", {FIRST: False})),
    undocumented="No documentation bounds a sort-shuffled partition's pool: FLINK-25774's bound of 4 * "
    "subpartitions is only in NettyShuffleUtils (an empirical value from TPC-DS runs, its pull request says)."))
