"""The memory areas: a TaskManager's and a JobManager's memory derived from a configuration."""

from __future__ import annotations

from oracle import memory as names
from oracle.memory_options import NETWORK_MAX_DEFAULT
from oracle.memsize import MemorySize
from properties.area import Area, ExtraCorpus, OptionDefault
from properties.memory import invariants, mutants, strategies
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
        changes=names.CHANGES[name], defaults=defaults, strict_messages=True,
    )


TASKMANAGER = _memory(names.TASKMANAGER, "TM", "memorytaskmanager",
                      "a TaskManager's memory components derived from its configuration (TaskExecutorProcessUtils)",
                      OptionDefault(option="taskmanager.memory.network.max", table=NETWORK_MAX_DEFAULT,
                                    show=_network_max))
JOBMANAGER = _memory(names.JOBMANAGER, "JM", "memoryjobmanager",
                     "a JobManager's memory components derived from its configuration (JobManagerProcessUtils)")
