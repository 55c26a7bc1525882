"""The memory areas: a TaskManager's and a JobManager's memory derived from a configuration."""

from __future__ import annotations

from oracle import memory as names
from properties.area import Area, ExtraCorpus
from properties.memory import invariants, mutants, strategies
from properties.mutant import of_area


def _memory(name: str, prefix: str, anchor: str, description: str) -> Area:
    return Area(
        name=name, prefix=prefix, rules=invariants.BOOK, page=f"v1.md#{anchor}", description=description,
        requests=lambda ver: strategies.requests(name, ver),
        # configurations on the edges of the memory rules: derived sizes configured back, a byte off
        corpora=(ExtraCorpus(name=f"{name}.edges", requests=strategies.edge_requests(name), corpus_key=str),),
        examples="properties/test_oracle_memory_examples.py",
        mutants=of_area(mutants.MUTANTS, name), bridge="MemoryArea", config_spelling=True,
    )


TASKMANAGER = _memory(names.TASKMANAGER, "TM", "memorytaskmanager",
                      "a TaskManager's memory components derived from its configuration (TaskExecutorProcessUtils)")
JOBMANAGER = _memory(names.JOBMANAGER, "JM", "memoryjobmanager",
                     "a JobManager's memory components derived from its configuration (JobManagerProcessUtils)")
