"""The memory areas: a TaskManager's and a JobManager's memory derived from a configuration, and how a slot's
managed memory is shared by its kinds of consumers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from oracle import memory as names
from oracle import memory_consumers as consumers_oracle
from oracle import memory_network as network_oracle
from oracle.memory_options import NETWORK_MAX_DEFAULT
from oracle.memsize import MemorySize
from properties.area import AnswerShape, Area, Checked, ExtraCorpus, OptionDefault, OracleRules, checked
from properties.features import Feature, Request, input_of
from properties.memory import (
    consumers_invariants,
    consumers_mutants,
    consumers_strategies,
    invariants,
    mutants,
    network_invariants,
    network_mutants,
    network_strategies,
    strategies,
)
from properties.mutant import of_area


def _network_max(size: MemorySize) -> str:
    return "Long.MAX_VALUE bytes" if size.bytes == 2**63 - 1 else size.to_human_readable_string()


def _memory(name: str, prefix: str, anchor: str, description: str, *defaults: OptionDefault) -> Area:
    return Area(
        name=name, prefix=prefix, rules=invariants.BOOK, page=f"v1.md#{anchor}", description=description,
        requests=lambda ver: strategies.requests(name, ver),
        # configurations on the edges of the memory rules: derived sizes configured back, a byte off
        corpora=(ExtraCorpus(name=f"{name}.edges", requests=strategies.edge_requests(name), corpus_key=str),),
        examples="properties/test_oracle_memory_examples.py",
        mutants=of_area(mutants.MUTANTS, name), bridge="MemoryArea", config_spelling=True,
        changes=names.CHANGES[name], defaults=defaults, strict_messages=True, size_bar=3,
    )


TASKMANAGER = _memory(names.TASKMANAGER, "TM", "memorytaskmanager",
                      "a TaskManager's memory components derived from its configuration (TaskExecutorProcessUtils)",
                      OptionDefault(option="taskmanager.memory.network.max", table=NETWORK_MAX_DEFAULT,
                                    show=_network_max))
JOBMANAGER = _memory(names.JOBMANAGER, "JM", "memoryjobmanager",
                     "a JobManager's memory components derived from its configuration (JobManagerProcessUtils)")

MCW_BAD = "properties/memory/test_consumers_bad_input.py::"
_META = "properties/memory/test_consumers_meta.py::"
# what checks each rule of the oracle's consumer weights
_CONSUMERS_CHECKED: tuple[Checked, ...] = (
    checked("MCW-1", "MMC-2", f"{_META}test_the_oracle_reads_the_taskmanagers_weights_only"),
    checked("MCW-2", note="the map's spelling (quotes, blanks, malformed entries): MMC-EQ"),
    checked("MCW-3", "MMC-6", f"{_META}test_dataproc_is_read_until_2_0"),
    checked("MCW-4", note="Flink's exceptions for a bad weight: MMC-EQ with --strict-messages"),
    checked("MCW-5", "MMC-5"),
    checked("MCW-6", "MMC-3", f"{_META}test_an_int_total_wraps"),
    checked("MCW-7", "MMC-4"),
)

CONSUMERS = Area(
    size_bar=4,
    name=consumers_oracle.CONSUMERS, prefix="MMC", rules=consumers_invariants.BOOK, protocol=4,
    page="memory-consumers.md",
    description="the managed-memory consumer weights a TaskManager reads and the fraction of a slot's managed "
    "memory each use case and operator gets (ManagedMemoryUtils)",
    requests=consumers_strategies.requests, corpus_key=consumers_strategies.corpus_key,
    size=lambda req: len(req["input"].get("config", {})) + len(req["input"].get("job_config", {}))
    + len(req["input"].get("use_cases", [])) + len(req["input"].get("operator_weights", [])),
    oracle={"memory_consumers": OracleRules(rules=consumers_oracle.RULES,
                                            files=("oracle/memory_consumers.py", "oracle/classloading_config.py"),
                                            checked=_CONSUMERS_CHECKED)},
    mutants=tuple(consumers_mutants.MUTANTS), bridge="ConsumersArea",
    changes=consumers_oracle.CHANGES[consumers_oracle.CONSUMERS], strict_messages=True,
    shape=AnswerShape(data_maps=()),
)

_NET_META = "properties/memory/test_network_meta.py::"
# what checks each rule of the oracle's network buffers
_NETWORK_CHECKED: tuple[Checked, ...] = (
    checked("NET-1", note="the TaskManager's memory derivation: memory.taskmanager's rules, MNB-EQ here"),
    checked("NET-2", "MNB-2", note="the segment size's checks: MNB-EQ with --strict-messages"),
    checked("NET-3", "MNB-2"),
    checked("NET-4", "MNB-6", f"{_NET_META}test_options_fixed_from_2_0"),
    checked("NET-5", f"{_NET_META}test_sort_shuffle_defaults"),
    checked("NET-6", "MNB-3"),
    checked("NET-7", "MNB-6", f"{_NET_META}test_sort_shuffle_cap"),
    checked("NET-8", "MNB-7", f"{_NET_META}test_1_13_checks_the_fit_before_the_maximum"),
    checked("NET-9", "MNB-4", "MNB-5", f"{_NET_META}test_fit_corners"),
    checked("NET-10", note="Flink's exception for floating buffers below 1: MNB-EQ with --strict-messages"),
    checked("NET-11", note="Flink's exceptions for an option that is no int: MNB-EQ with --strict-messages"),
    checked("NET-12", "MNB-4"),
    checked("NET-13", "MNB-4", "MNB-8", f"{_NET_META}test_gate_corners"),
    checked("NET-14", "MNB-4", "MNB-5", "MNB-8", f"{_NET_META}test_gate_corners", f"{_NET_META}test_gate_releases"),
    checked("NET-15", "MNB-4", "MNB-7", "MNB-8", f"{_NET_META}test_gate_spec"),
    checked("NET-16", f"{_NET_META}test_gate_spec",
            note="InputGateSpecUtils' exceptions: MNB-EQ with --strict-messages"),
    checked("NET-17", "MNB-3", f"{_NET_META}test_hybrid_partitions"),
)

def _listed(req: Request, key: str) -> list[Mapping[str, Any]]:
    items = input_of(req).get(key)
    return [i for i in items if isinstance(i, Mapping)] if isinstance(items, list) else []


def _gates_beyond_first_cut(req: Request) -> bool:
    """Input gates as the area's first cut could not take them: at a release other than 1.14-1.16, with local
    channels, no remote one, or a consumed partition type."""
    gates = _listed(req, "gates")
    flink = str(req.get("flink") or "")
    return bool(gates) and (not flink.startswith(("1.14", "1.15", "1.16")) or any(
        g.get("local") or g.get("channels") == 0 or "type" in g for g in gates))


NETWORK = Area(
    size_bar=4,
    name=network_oracle.NETWORK, prefix="MNB", rules=network_invariants.BOOK, protocol=4,
    page="memory-network.md",
    description="a TaskManager's network buffers, the buffer pools of a task's result partitions and its input "
    "gates' buffers, or Flink's "
    "'Insufficient number of network buffers' (NettyShuffleEnvironmentConfiguration, NettyShuffleUtils, "
    "NetworkBufferPool)",
    requests=network_strategies.requests, corpus_key=network_strategies.corpus_key,
    size=lambda req: (len(req["input"].get("config", {})) + len(req["input"].get("partitions", []))
                      + len(req["input"].get("gates", []))),
    oracle={"memory_network": OracleRules(rules=network_oracle.RULES,
                                          files=("oracle/memory_network.py",), checked=_NETWORK_CHECKED)},
    mutants=tuple(network_mutants.MUTANTS), bridge="NetworkArea",
    changes=network_oracle.CHANGES[network_oracle.NETWORK], strict_messages=True,
    shape=AnswerShape(data_maps=()),
    features=(Feature(f"{network_oracle.NETWORK}.gates", 4, network_oracle.NETWORK,
                      "input gates at every release (1.13, 1.17+), with local channels or a consumed partition type",
                      _gates_beyond_first_cut),
              Feature(f"{network_oracle.NETWORK}.hybrid", 4, network_oracle.NETWORK,
                      "HYBRID_FULL and HYBRID_SELECTIVE result partitions and input gates (1.16+)",
                      lambda req: any(str(i.get("type", "")).startswith("HYBRID")
                                      for key in ("partitions", "gates") for i in _listed(req, key)))),
)
