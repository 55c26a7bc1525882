"""The memory areas: a TaskManager's and a JobManager's memory derived from a configuration."""

from __future__ import annotations

from properties.area import Area, ExtraCorpus
from properties.memory import invariants as _invariants  # noqa: F401  (declares the rules)
from properties.memory import strategies

TASKMANAGER = Area(
    name="memory.taskmanager", prefix="TM", page="v1.md#memorytaskmanager",
    description="a TaskManager's memory components derived from its configuration (TaskExecutorProcessUtils)",
    requests=lambda ver: strategies.requests("memory.taskmanager", ver),
    # configurations on the edges of the memory rules: derived sizes configured back, a byte off
    corpora=(ExtraCorpus(name="memory.taskmanager.edges", requests=strategies.edge_requests("memory.taskmanager"),
                         corpus_key=str),),
    examples="properties/test_oracle_memory_examples.py",
)
JOBMANAGER = Area(
    name="memory.jobmanager", prefix="JM", page="v1.md#memoryjobmanager",
    description="a JobManager's memory components derived from its configuration (JobManagerProcessUtils)",
    requests=lambda ver: strategies.requests("memory.jobmanager", ver),
    corpora=(ExtraCorpus(name="memory.jobmanager.edges", requests=strategies.edge_requests("memory.jobmanager"),
                         corpus_key=str),),
    examples="properties/test_oracle_memory_examples.py",
)
