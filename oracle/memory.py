"""TaskManager and JobManager memory derivation: the ``memory.taskmanager`` / ``memory.jobmanager`` areas.

The public entry points mirror what Flink's ``bin/`` scripts run through ``BashJavaUtils``:

- :func:`derive_taskmanager`: ``TaskExecutorProcessUtils.processSpecFromConfig`` after (1.13-1.20)
  mapping the legacy heap keys to ``taskmanager.memory.flink.size``;
- :func:`derive_jobmanager`: ``JobManagerProcessUtils.processSpecFromConfig`` (2.x), or in 1.13-1.20
  ``processSpecFromConfigWithNewOptionToInterpretLegacyHeap`` (legacy heap keys, error prefix);
  then the JVM arguments.

Each returns the derived value (``mode``, the breakdown, ``to_output()``) or a :class:`Rejected` naming
the exception Flink throws and its message. The rules live in :mod:`oracle.memory_process` (modes,
Metaspace, Overhead), :mod:`oracle.memory_tm`, :mod:`oracle.memory_jm` and
:mod:`oracle.memory_options` (keys, defaults, parsing), on top of :mod:`oracle.memsize`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from oracle import memory_jm as jm
from oracle import memory_options
from oracle import memory_tm as tm
from oracle.changes import Change
from oracle.javanum import JavaException
from oracle.memory_jm import JobManagerMemory, JobManagerOutput
from oracle.memory_options import Configuration
from oracle.memory_tm import TaskManagerMemory, TaskManagerOutput
from oracle.protocol import AreaFn, Rejected, string_map
from oracle.versions import FlinkVersion

TASKMANAGER = "memory.taskmanager"  # the protocol area (docs/protocol)
JOBMANAGER = "memory.jobmanager"  # the protocol area (docs/protocol)


class MemoryInput(TypedDict, total=False):
    """The input of both areas: Flink keys to string values as a user writes them (absent: none)."""

    config: dict[str, str]


def derive_taskmanager(config: Mapping[str, str], version: FlinkVersion) -> TaskManagerMemory | Rejected:
    """The TaskManager memory Flink ``version`` derives from ``config`` (``-D`` strings), or why not."""
    try:
        return tm.process_spec(tm.map_legacy_heap(Configuration(config), version), version)
    except JavaException as exc:
        return Rejected(exc.simple_name, exc.message)


def derive_jobmanager(config: Mapping[str, str], version: FlinkVersion) -> JobManagerMemory | Rejected:
    """The JobManager memory Flink ``version`` derives from ``config``, or why not."""
    try:
        return jm.job_manager_memory(Configuration(config), version)
    except JavaException as exc:
        return Rejected(exc.simple_name, exc.message)


def dynamic_configs(result: TaskManagerMemory | JobManagerMemory) -> str:
    """``generateDynamicConfigsStr`` of a derived TaskManager or JobManager (``-D k=v`` pairs)."""
    if isinstance(result, TaskManagerMemory):
        return tm.dynamic_configs(result)
    return jm.dynamic_configs(result)


def taskmanager_area(payload: Mapping[str, Any], version: FlinkVersion) -> TaskManagerOutput | Rejected:
    """``memory.taskmanager``: ``{"config": {key: string}}`` -> the protocol output."""
    result = derive_taskmanager(string_map(payload, "config", "input"), version)
    return result if isinstance(result, Rejected) else result.to_output()


def jobmanager_area(payload: Mapping[str, Any], version: FlinkVersion) -> JobManagerOutput | Rejected:
    """``memory.jobmanager``: ``{"config": {key: string}}`` -> the protocol output."""
    result = derive_jobmanager(string_map(payload, "config", "input"), version)
    return result if isinstance(result, Rejected) else result.to_output()

__all__ = [
    "JobManagerMemory", "TaskManagerMemory", "derive_jobmanager", "derive_taskmanager", "dynamic_configs",
]


# the areas this module answers, by name (oracle.AREAS)
ENTRIES: dict[str, AreaFn] = {TASKMANAGER: taskmanager_area, JOBMANAGER: jobmanager_area}

# the changes of Flink's behaviour in these areas, in release order (oracle.changes)
CHANGES: dict[str, tuple[Change, ...]] = {
    TASKMANAGER: (
        tm.RESOURCE_SCALE_CHANGE,
        Change(since="1.15", what="dynamic config external-resources value quoted",
               unseen="the protocol's memory output has no dynamic configs"),
        memory_options.NETWORK_MAX_CHANGE,
        Change(since="1.20", what="MemorySize: NPE text 'text' -> 'text cannot be null', divisor message, NaN "
               "multiplication", unseen="no generated memory configuration reaches these paths"),
        memory_options.LEGACY_REMOVED,
    ),
    JOBMANAGER: (jm.JM_LEGACY_REMOVED,),
}
