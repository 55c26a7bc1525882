"""The JobManager memory derivation: ``JobManagerFlinkMemoryUtils`` and ``JobManagerProcessUtils``.

What Flink's ``bin/jobmanager.sh`` computes through ``BashJavaUtils GET_JM_RESOURCE_PARAMS``. Total
Flink memory is JVM heap + off-heap memory; the fine-grained mode is a configured heap.
"""

from __future__ import annotations

from typing import TypedDict

import attrs

from oracle import memory_options as o
from oracle.changes import Change
from oracle.explain import at
from oracle.memory_options import Configuration, IllegalConfigurationException, get_memory_size
from oracle.memory_process import JvmArgs, ProcessMemoryOptions, ProcessMemorySpec, jvm_parameters, memory_process_spec
from oracle.memory_tm import assemble_dynamic_configs, legacy_heap_mapped
from oracle.memsize import MemorySize
from oracle.versions import FlinkVersion, pick

# BashJavaUtils: 1.13-1.20 call processSpecFromConfigWithNewOptionToInterpretLegacyHeap, which maps
# the legacy heap keys and prefixes errors; 2.x calls processSpecFromConfig directly (no prefix).
JM_LEGACY_REMOVED = Change(
    since="2.0", what="legacy heap keys removed; error prefix 'JobManager memory configuration failed: ' dropped "
    "(it came from the legacy-mapping entry point)",
    witnesses=({"config": {"jobmanager.memory.process.size": "100m"}},))
JM_ERROR_PREFIX = JM_LEGACY_REMOVED.table("JobManager memory configuration failed: ", None)


class JobManagerOutput(TypedDict):
    """The protocol's ``memory.jobmanager`` output (docs/protocol/v1.md): sizes in bytes."""

    heap: int
    off_heap: int
    jvm_metaspace: int
    jvm_overhead: int
    total_flink: int
    total_process: int
    jvm_args: JvmArgs


@attrs.frozen
class JobManagerFlinkMemory:
    """``JobManagerFlinkMemory``: JVM heap and off-heap memory."""

    heap: MemorySize
    off_heap: MemorySize

    @property
    def jvm_heap(self) -> MemorySize:
        return self.heap

    @property
    def jvm_direct(self) -> MemorySize:
        return self.off_heap

    @property
    def total_flink(self) -> MemorySize:
        return self.heap.add(self.off_heap)


def jm_options() -> ProcessMemoryOptions:
    """``JobManagerProcessUtils.JM_PROCESS_MEMORY_OPTIONS``."""
    return ProcessMemoryOptions((o.JM_HEAP,), o.JM_TOTAL_FLINK, o.JM_TOTAL_PROCESS, o.JM_METASPACE,
                                o.JM_OVERHEAD_MIN, o.JM_OVERHEAD_MAX, o.JM_OVERHEAD_FRACTION, "JM-4", "JM-5")


_CONSISTENT = ("Please, make the configuration consistent or configure only one option: either JVM Heap or "
               "Total Flink Memory.")


@attrs.frozen
class JobManagerFlinkMemoryRules:
    """``JobManagerFlinkMemoryUtils``."""

    def from_fine_grained(self, config: Configuration, version: FlinkVersion) -> JobManagerFlinkMemory:
        """``deriveFromRequiredFineGrainedOptions``: the configured heap; off-heap is configured, or
        the rest of a configured total Flink memory, or its default."""
        at("heap")  # the order Flink derives the parts in (oracle.explain)
        heap = get_memory_size(config, o.JM_HEAP)
        at("off_heap")
        off_heap = get_memory_size(config, o.JM_OFF_HEAP)
        if config.contains(o.JM_TOTAL_FLINK):
            total_flink = get_memory_size(config, o.JM_TOTAL_FLINK)
            if config.contains(o.JM_OFF_HEAP):
                check_heap_plus_off_heap(total_flink, heap, off_heap)
            else:
                off_heap = off_heap_as_remainder(heap, total_flink)
        return JobManagerFlinkMemory(heap, off_heap)  # a heap below 128m only warns

    def from_total_flink(self, config: Configuration, total_flink: MemorySize,
                         version: FlinkVersion) -> JobManagerFlinkMemory:
        """``deriveFromTotalFlinkMemory``: heap = total Flink - off-heap, which must be positive."""
        at("off_heap")
        off_heap = get_memory_size(config, o.JM_OFF_HEAP)
        if total_flink.bytes <= off_heap.bytes:  # compareTo(...) < 1: equality fails too
            raise IllegalConfigurationException(
                f"The configured Total Flink Memory ({total_flink.to_human_readable_string()}) is less than "
                f"the configured Off-heap Memory ({off_heap.to_human_readable_string()}).")
        at("heap")
        return JobManagerFlinkMemory(total_flink.subtract(off_heap), off_heap)


def check_heap_plus_off_heap(total_flink: MemorySize, heap: MemorySize, off_heap: MemorySize) -> None:
    """``sanityCheckTotalFlinkMemory``: configured heap + off-heap must equal total Flink memory."""
    if heap.add(off_heap).bytes != total_flink.bytes:
        raise IllegalConfigurationException(
            f"Sum of the configured JVM Heap Memory ({heap.to_human_readable_string()}) and the configured "
            f"Off-heap Memory ({off_heap.to_human_readable_string()}) does not match the configured Total "
            f"Flink Memory ({total_flink.to_human_readable_string()}). {_CONSISTENT}")


def off_heap_as_remainder(heap: MemorySize, total_flink: MemorySize) -> MemorySize:
    """``deriveOffHeapMemory``: off-heap = total Flink - heap."""
    if total_flink.bytes < heap.bytes:
        raise IllegalConfigurationException(
            f"The configured JVM Heap Memory ({heap.to_human_readable_string()}) exceeds the configured "
            f"Total Flink Memory ({total_flink.to_human_readable_string()}). {_CONSISTENT}")
    return total_flink.subtract(heap)


@attrs.frozen
class JobManagerMemory:
    """``JobManagerProcessSpec`` plus the direct-memory-limit switch of the JVM arguments."""

    spec: ProcessMemorySpec[JobManagerFlinkMemory]
    direct_memory_limit: bool

    @property
    def mode(self) -> str:
        return self.spec.mode

    def to_output(self) -> JobManagerOutput:
        """The protocol's ``memory.jobmanager`` output."""
        f, jvm = self.spec.flink, self.spec.jvm
        return {
            "heap": f.heap.bytes, "off_heap": f.off_heap.bytes,
            "jvm_metaspace": jvm.metaspace.bytes, "jvm_overhead": jvm.overhead.bytes,
            "total_flink": f.total_flink.bytes, "total_process": self.spec.total_process.bytes,
            "jvm_args": jvm_parameters(self.spec, self.direct_memory_limit),
        }


def process_spec(config: Configuration, version: FlinkVersion) -> ProcessMemorySpec[JobManagerFlinkMemory]:
    """What ``BashJavaUtils.getJmResourceParams`` derives in ``version`` (see JM_ERROR_PREFIX)."""
    prefix = pick(JM_ERROR_PREFIX, version)
    if prefix is None:
        return memory_process_spec(config, jm_options(), JobManagerFlinkMemoryRules(), version)
    try:
        mapped = legacy_heap_mapped(config, o.JM_HEAP, o.JM_LEGACY_HEAP, o.JM_LEGACY_HEAP_MB)
        return memory_process_spec(mapped, jm_options(), JobManagerFlinkMemoryRules(), version)
    except IllegalConfigurationException as exc:
        raise IllegalConfigurationException(prefix + exc.message, exc) from exc


def job_manager_memory(config: Configuration, version: FlinkVersion) -> JobManagerMemory:
    """The spec, then ``generateJvmParametersStr(spec, config)`` reading the direct-memory switch."""
    spec = process_spec(config, version)
    return JobManagerMemory(spec, config.get(o.JM_DIRECT_MEMORY_LIMIT))


def dynamic_configs(jm: JobManagerMemory) -> str:
    """``JobManagerProcessUtils.generateDynamicConfigsStr``."""
    f, jvm = jm.spec.flink, jm.spec.jvm
    return assemble_dynamic_configs([
        (o.JM_HEAP.key, f"{f.heap.bytes}b"),
        (o.JM_OFF_HEAP.key, f"{f.off_heap.bytes}b"),
        (o.JM_METASPACE.key, f"{jvm.metaspace.bytes}b"),
        (o.JM_OVERHEAD_MIN.key, f"{jvm.overhead.bytes}b"),
        (o.JM_OVERHEAD_MAX.key, f"{jvm.overhead.bytes}b"),
    ])
