"""The memory areas: a TaskManager's and a JobManager's memory derived from a configuration."""

from __future__ import annotations

from oracle.memory import JOBMANAGER as JM
from oracle.memory import TASKMANAGER as TM
from properties.area import Area, ExtraCorpus
from properties.memory import invariants as _invariants  # noqa: F401  (declares the rules)
from properties.memory import strategies

TASKMANAGER = Area(
    name=TM, prefix="TM", page="v1.md#memorytaskmanager",
    description="a TaskManager's memory components derived from its configuration (TaskExecutorProcessUtils)",
    requests=lambda ver: strategies.requests(TM, ver),
    # configurations on the edges of the memory rules: derived sizes configured back, a byte off
    corpora=(ExtraCorpus(name=f"{TM}.edges", requests=strategies.edge_requests(TM),
                         corpus_key=str),),
    examples="properties/test_oracle_memory_examples.py",
)
JOBMANAGER = Area(
    name=JM, prefix="JM", page="v1.md#memoryjobmanager",
    description="a JobManager's memory components derived from its configuration (JobManagerProcessUtils)",
    requests=lambda ver: strategies.requests(JM, ver),
    corpora=(ExtraCorpus(name=f"{JM}.edges", requests=strategies.edge_requests(JM),
                         corpus_key=str),),
    examples="properties/test_oracle_memory_examples.py",
)
