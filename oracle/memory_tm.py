"""The TaskManager memory derivation: ``TaskExecutorFlinkMemoryUtils`` and ``TaskExecutorProcessUtils``.

What Flink's ``bin/taskmanager.sh`` computes through ``BashJavaUtils GET_TM_RESOURCE_PARAMS``:
legacy heap keys mapped to total Flink memory (1.13-1.20), the process spec, the CPU cores, the
JVM arguments and the dynamic configs. Total Flink memory splits into framework heap / off-heap,
task heap / off-heap, network and managed memory.
"""

from __future__ import annotations

from typing import TypedDict

import attrs

from oracle import memory_options as o
from oracle.changes import Change
from oracle.explain import at, because
from oracle.javanum import IllegalArgumentException, big_decimal_of, double_to_string
from oracle.memory_options import Configuration, IllegalConfigurationException, get_memory_size
from oracle.memory_process import (
    JvmArgs,
    ProcessMemoryOptions,
    ProcessMemorySpec,
    check_in_range,
    derive_with_fraction,
    derive_with_inverse_fraction,
    jvm_parameters,
    memory_process_spec,
)
from oracle.memsize import MAX_VALUE, ZERO, MemorySize
from oracle.versions import FlinkVersion, pick


class TaskManagerOutput(TypedDict):
    """The protocol's ``memory.taskmanager`` output (docs/protocol/v1.md): sizes in bytes."""

    framework_heap: int
    task_heap: int
    framework_off_heap: int
    task_off_heap: int
    network: int
    managed: int
    jvm_metaspace: int
    jvm_overhead: int
    total_flink: int
    total_process: int
    jvm_args: JvmArgs


@attrs.frozen
class TaskExecutorFlinkMemory:
    """``TaskExecutorFlinkMemory``: the six parts of total Flink memory."""

    framework_heap: MemorySize
    framework_off_heap: MemorySize
    task_heap: MemorySize
    task_off_heap: MemorySize
    network: MemorySize
    managed: MemorySize

    @property
    def jvm_heap(self) -> MemorySize:
        return self.framework_heap.add(self.task_heap)

    @property
    def jvm_direct(self) -> MemorySize:
        return self.framework_off_heap.add(self.task_off_heap).add(self.network)

    @property
    def total_flink(self) -> MemorySize:
        return (self.framework_heap.add(self.framework_off_heap).add(self.task_heap).add(self.task_off_heap)
                .add(self.network).add(self.managed))


def tm_options() -> ProcessMemoryOptions:
    """``TaskExecutorProcessUtils.TM_PROCESS_MEMORY_OPTIONS``."""
    return ProcessMemoryOptions((o.TASK_HEAP, o.MANAGED_SIZE), o.TM_TOTAL_FLINK, o.TM_TOTAL_PROCESS,
                                o.TM_METASPACE, o.TM_OVERHEAD_MIN, o.TM_OVERHEAD_MAX, o.TM_OVERHEAD_FRACTION,
                                "TM-6", "TM-8")


def _sum(*sizes: MemorySize) -> MemorySize:
    total = sizes[0]
    for size in sizes[1:]:
        total = total.add(size)
    return total


def _exceeds_total(parts: list[tuple[str, MemorySize]],
                   total_flink: MemorySize) -> IllegalConfigurationException:
    listed = ", ".join(f"{name} ({size.to_human_readable_string()})" for name, size in parts[:-1])
    last_name, last = parts[-1]
    return IllegalConfigurationException(
        f"Sum of configured {listed} and {last_name} ({last.to_human_readable_string()}) exceed configured "
        f"Total Flink Memory ({total_flink.to_human_readable_string()})."
    )


@attrs.frozen
class TaskExecutorFlinkMemoryRules:
    """``TaskExecutorFlinkMemoryUtils`` (for one Flink version)."""

    def from_fine_grained(self, config: Configuration, version: FlinkVersion) -> TaskExecutorFlinkMemory:
        """``deriveFromRequiredFineGrainedOptions``: task heap and managed are given; network is
        the rest of a configured total Flink memory, else an inverse fraction of the others."""
        at("task_heap")  # the order Flink derives the parts in (oracle.explain)
        task_heap = get_memory_size(config, o.TASK_HEAP)
        at("managed")
        managed = get_memory_size(config, o.MANAGED_SIZE)
        fh, foh, toh = _framework_and_task_off_heap(config)
        at("network")
        without_network = _sum(fh, foh, task_heap, toh, managed)
        if config.contains(o.TM_TOTAL_FLINK):
            total_flink = get_memory_size(config, o.TM_TOTAL_FLINK)
            if without_network.bytes > total_flink.bytes:
                raise _exceeds_total(_heap_parts(fh, foh, task_heap, toh, managed), total_flink)
            network = total_flink.subtract(without_network)
            check_network_remainder(config, network, version)
        elif uses_legacy_network(config, version):
            network = legacy_network_size(config)
        else:
            network = derive_with_inverse_fraction(without_network, network_range(config, version), version)
        flink = TaskExecutorFlinkMemory(fh, foh, task_heap, toh, network, managed)
        check_total_flink(config, flink)
        return flink

    def from_total_flink(self, config: Configuration, total_flink: MemorySize,
                         version: FlinkVersion) -> TaskExecutorFlinkMemory:
        """``deriveFromTotalFlinkMemory``: with a configured task heap, network is the rest;
        otherwise network is a fraction and task heap the rest."""
        fh, foh, toh = _framework_and_task_off_heap(config)
        if config.contains(o.TASK_HEAP):
            at("task_heap")
            task_heap = get_memory_size(config, o.TASK_HEAP)
            at("managed")
            managed = managed_size(config, total_flink, version)
            at("network")
            without_network = _sum(fh, foh, task_heap, toh, managed)
            if without_network.bytes > total_flink.bytes:
                raise _exceeds_total(_heap_parts(fh, foh, task_heap, toh, managed), total_flink)
            network = total_flink.subtract(without_network)
            check_network_remainder(config, network, version)
        else:
            at("managed")
            managed = managed_size(config, total_flink, version)
            at("network")
            if uses_legacy_network(config, version):
                network = legacy_network_size(config)
            else:
                because("TM-12")
                network = derive_with_fraction(total_flink, network_range(config, version), version)
            without_task_heap = _sum(fh, foh, toh, managed, network)
            if without_task_heap.bytes > total_flink.bytes:
                parts = [("Framework Heap Memory", fh), ("Framework Off-Heap Memory", foh),
                         ("Task Off-Heap Memory", toh), ("Managed Memory", managed),
                         ("Network Memory", network)]
                raise _exceeds_total(parts, total_flink)
            at("task_heap")
            because("TM-2")  # the rest of total Flink memory
            task_heap = total_flink.subtract(without_task_heap)
        flink = TaskExecutorFlinkMemory(fh, foh, task_heap, toh, network, managed)
        check_total_flink(config, flink)
        return flink


def _framework_and_task_off_heap(config: Configuration) -> tuple[MemorySize, MemorySize, MemorySize]:
    """Framework heap, framework off-heap and task off-heap memory: configured, else their defaults."""
    at("framework_heap")
    fh = get_memory_size(config, o.FRAMEWORK_HEAP)
    at("framework_off_heap")
    foh = get_memory_size(config, o.FRAMEWORK_OFF_HEAP)
    at("task_off_heap")
    return fh, foh, get_memory_size(config, o.TASK_OFF_HEAP)


def _heap_parts(fh: MemorySize, foh: MemorySize, th: MemorySize, toh: MemorySize,
                managed: MemorySize) -> list[tuple[str, MemorySize]]:
    return [("Framework Heap Memory", fh), ("Framework Off-Heap Memory", foh), ("Task Heap Memory", th),
            ("Task Off-Heap Memory", toh), ("Managed Memory", managed)]


def managed_size(config: Configuration, total_flink: MemorySize, version: FlinkVersion) -> MemorySize:
    """``deriveManagedMemoryAbsoluteOrWithFraction``: the configured size, else a fraction of
    total Flink memory within [0, Long.MAX_VALUE]."""
    if config.contains(o.MANAGED_SIZE):
        return get_memory_size(config, o.MANAGED_SIZE)
    because("TM-7")
    rng = o.get_range_fraction(ZERO, MAX_VALUE, o.MANAGED_FRACTION, config)
    return derive_with_fraction(total_flink, rng, version)


def network_range(config: Configuration, version: FlinkVersion) -> o.RangeFraction:
    """``getNetworkMemoryRangeFraction``: read min, max (version default), then the fraction."""
    min_size = get_memory_size(config, o.NETWORK_MIN)
    max_size = get_memory_size(config, o.network_max(version))
    return o.get_range_fraction(min_size, max_size, o.NETWORK_FRACTION, config)


def uses_legacy_network(config: Configuration, version: FlinkVersion) -> bool:
    """``isUsingLegacyNetworkConfigs`` (1.13-1.20): no network min/max/fraction, but a buffer count."""
    if not o.has_legacy_inputs(version):
        return False
    network_options = (o.NETWORK_MIN, o.network_max(version), o.NETWORK_FRACTION)
    configured = any(config.contains(opt) for opt in network_options)
    return not configured and config.contains(o.NETWORK_NUM_BUFFERS)


def legacy_network_size(config: Configuration) -> MemorySize:
    """``getNetworkMemorySizeWithLegacyConfig``: ``numberOfBuffers * segment size``."""
    buffers = config.get(o.NETWORK_NUM_BUFFERS)
    return MemorySize(buffers * page_size(config))


def page_size(config: Configuration) -> int:
    """``ConfigurationParserUtils.getPageSize``: an int, at least 4096, a power of two."""
    size: int = config.get(o.SEGMENT_SIZE).bytes
    if size > 2**31 - 1:  # MathUtils.checkedDownCast
        raise IllegalArgumentException(f"Cannot downcast long value {size} to integer.")
    key = o.SEGMENT_SIZE.key
    if size < 4096:
        raise IllegalConfigurationException(
            f"Invalid configuration value for {key} : {size} - Minimum memory segment size is 4096")
    if size & (size - 1):
        raise IllegalConfigurationException(
            f"Invalid configuration value for {key} : {size} - Memory segment size must be a power of 2.")
    return size


def check_network_remainder(config: Configuration, network: MemorySize, version: FlinkVersion) -> None:
    """``sanityCheckNetworkMemoryWithExplicitlySetTotalFlinkAndHeapMemory``: a remainder network
    must match its configuration; every IllegalConfigurationException gets one generic message."""
    try:
        if uses_legacy_network(config, version):
            legacy = legacy_network_size(config)
            if legacy != network:
                raise IllegalConfigurationException(
                    f"Derived Network Memory size ({network.to_human_readable_string()}) does not match "
                    f"configured Network Memory size ({legacy.to_human_readable_string()}).")
        else:
            check_in_range("Network Memory", network, network_range(config, version))
    except IllegalConfigurationException as exc:
        raise IllegalConfigurationException(
            "If Total Flink, Task Heap and (or) Managed Memory sizes are explicitly configured then the "
            "Network Memory size is the rest of the Total Flink memory after subtracting all other "
            "configured types of memory, but the derived Network Memory is inconsistent with its "
            "configuration.", exc) from exc


def check_total_flink(config: Configuration, flink: TaskExecutorFlinkMemory) -> None:
    """``sanityCheckTotalFlinkMemory``: the parts add up to a configured total Flink memory."""
    if not config.contains(o.TM_TOTAL_FLINK):
        return
    configured = get_memory_size(config, o.TM_TOTAL_FLINK)
    derived = flink.total_flink
    if configured != derived:
        parts = ", ".join(f"{name} ({size.to_human_readable_string()})" for name, size in (
            ("Framework Heap Memory", flink.framework_heap),
            ("Framework Off-Heap Memory", flink.framework_off_heap),
            ("Task Heap Memory", flink.task_heap), ("Task Off-Heap Memory", flink.task_off_heap),
            ("Network Memory", flink.network), ("Managed Memory", flink.managed)))
        raise IllegalConfigurationException(
            f"Configured and Derived Flink internal memory sizes (total {derived.to_human_readable_string()})"
            f" do not add up to the configured Total Flink Memory size "
            f"({configured.to_human_readable_string()}). "
            f"Configured and Derived Flink internal memory sizes are: {parts}.")


@attrs.frozen
class TaskManagerMemory:
    """``TaskExecutorProcessSpec``: the derived TaskManager memory, CPU cores and slots."""

    spec: ProcessMemorySpec[TaskExecutorFlinkMemory]
    cpu_cores: float
    num_slots: int

    @property
    def mode(self) -> str:
        return self.spec.mode

    def to_output(self) -> TaskManagerOutput:
        """The protocol's ``memory.taskmanager`` output."""
        f, jvm = self.spec.flink, self.spec.jvm
        return {
            "framework_heap": f.framework_heap.bytes, "task_heap": f.task_heap.bytes,
            "framework_off_heap": f.framework_off_heap.bytes, "task_off_heap": f.task_off_heap.bytes,
            "network": f.network.bytes, "managed": f.managed.bytes,
            "jvm_metaspace": jvm.metaspace.bytes, "jvm_overhead": jvm.overhead.bytes,
            "total_flink": f.total_flink.bytes, "total_process": self.spec.total_process.bytes,
            "jvm_args": jvm_parameters(self.spec, True),
        }


def map_legacy_heap(config: Configuration, version: FlinkVersion) -> Configuration:
    """``getConfigurationMapLegacyTaskManagerHeapSizeToConfigOption(config, TOTAL_FLINK_MEMORY)``
    (1.13-1.20, what the scripts do): ``taskmanager.heap.size`` / ``.mb`` become total Flink memory."""
    if not o.has_legacy_inputs(version):
        return config
    try:
        return legacy_heap_mapped(config, o.TM_TOTAL_FLINK, o.TM_LEGACY_HEAP, o.TM_LEGACY_HEAP_MB)
    except IllegalConfigurationException as exc:
        raise IllegalConfigurationException(
            f"TaskManager failed to map legacy JVM heap option to the new one: {exc.message}", exc) from exc


def legacy_heap_mapped(config: Configuration, target: o.ConfigOption, heap: o.ConfigOption,
                       heap_mb: o.ConfigOption) -> Configuration:
    """``MemoryBackwardsCompatibilityUtils.getConfWithLegacyHeapSizeMappedToNewConfigOption``
    (the ``FLINK_*_HEAP`` environment variables are not modelled: the bridge runs without them)."""
    if config.contains(target):
        return config
    if config.contains(heap):
        return config.with_value(target, get_memory_size(config, heap))
    if not config.contains(heap_mb):
        return config
    mebibytes = config.get(heap_mb)
    if mebibytes < 0:
        raise IllegalConfigurationException(
            f"Configured total process memory size ({mebibytes}MB) must not be less than 0.")
    return config.with_value(target, MemorySize.of_mebibytes(mebibytes))


# Resource(name, BigDecimal value): from 1.14 the value is cut to 8 decimals (RoundingMode.DOWN)
RESOURCE_SCALE_CHANGE = Change(since="1.14", what="CPU cores cut to 8 decimals (Resource value scale)",
                               unseen="the protocol's memory output has no CPU cores")
RESOURCE_SCALE: dict[FlinkVersion, int | None] = RESOURCE_SCALE_CHANGE.table(None, 8)


def cpu_cores(config: Configuration, version: FlinkVersion) -> float:
    """``getCpuCoresWithFallback(config, -1)``: ``taskmanager.cpu.cores``, else the slot count;
    it must be positive; ``new CPUResource`` then rejects NaN and infinity (``BigDecimal.valueOf``)
    and, from 1.14, keeps 8 decimals. Returns ``getCpuCores().getValue().doubleValue()``."""
    cores = config.get(o.CPU_CORES) if config.contains(o.CPU_CORES) else float(config.get(o.NUM_TASK_SLOTS))
    if cores <= 0.0:
        raise IllegalConfigurationException(
            f"TaskExecutors need to be started with a positive number of CPU cores. Please configure "
            f"{o.CPU_CORES.key} accordingly.")
    value = big_decimal_of(cores)
    scale = pick(RESOURCE_SCALE, version)
    return value.double_value() if scale is None else value.set_scale_down(scale).double_value()


def process_spec(config: Configuration, version: FlinkVersion) -> TaskManagerMemory:
    """``TaskExecutorProcessUtils.processSpecFromConfig``: IllegalConfigurationExceptions get the
    prefix "TaskManager memory configuration failed: "; other exceptions pass unchanged."""
    try:
        spec = memory_process_spec(config, tm_options(), TaskExecutorFlinkMemoryRules(), version)
        cores = cpu_cores(config, version)
        slots = config.get(o.NUM_TASK_SLOTS)
    except IllegalConfigurationException as exc:
        raise IllegalConfigurationException(f"TaskManager memory configuration failed: {exc.message}",
                                            exc) from exc
    return TaskManagerMemory(spec, cores, slots)


def dynamic_configs(tm: TaskManagerMemory) -> str:
    """``TaskExecutorProcessUtils.generateDynamicConfigsStr`` (no external resources): ``-D k=v``
    pairs in ``java.util.HashMap`` iteration order."""
    f, jvm = tm.spec.flink, tm.spec.jvm
    entries = [
        (o.CPU_CORES.key, double_to_string(tm.cpu_cores)),
        (o.FRAMEWORK_HEAP.key, f"{f.framework_heap.bytes}b"),
        (o.FRAMEWORK_OFF_HEAP.key, f"{f.framework_off_heap.bytes}b"),
        (o.TASK_HEAP.key, f"{f.task_heap.bytes}b"),
        (o.TASK_OFF_HEAP.key, f"{f.task_off_heap.bytes}b"),
        (o.NETWORK_MIN.key, f"{f.network.bytes}b"),
        (o.TM + "network.max", f"{f.network.bytes}b"),
        (o.MANAGED_SIZE.key, f"{f.managed.bytes}b"),
        (o.TM_METASPACE.key, f"{jvm.metaspace.bytes}b"),
        (o.TM_OVERHEAD_MIN.key, f"{jvm.overhead.bytes}b"),
        (o.TM_OVERHEAD_MAX.key, f"{jvm.overhead.bytes}b"),
        (o.NUM_TASK_SLOTS.key, str(tm.num_slots)),
        ("external-resources", "none"),
    ]
    return assemble_dynamic_configs(entries)


def assemble_dynamic_configs(entries: list[tuple[str, str]]) -> str:
    """``ConfigurationUtils.assembleDynamicConfigsStr`` over a ``HashMap`` filled in this order."""
    return " ".join(f"-D {k}={val}" for k, val in java_hash_map_order(entries))


def java_hash_map_order(entries: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Iteration order of a ``java.util.HashMap`` (default capacity) after these puts: by bucket
    ``(h ^ h >>> 16) & (capacity - 1)``, then insertion order; capacity doubles past 0.75 load."""
    capacity = 16
    while len(entries) > capacity * 3 // 4:
        capacity *= 2

    def bucket(key: str) -> int:
        h = java_string_hash(key)
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(entries, key=lambda kv: bucket(kv[0]))  # sorted() is stable: insertion order


def java_string_hash(text: str) -> int:
    """``String.hashCode`` as an unsigned 32-bit int (over UTF-16 code units)."""
    h = 0
    data = text.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + int.from_bytes(data[i:i + 2], "big")) & 0xFFFFFFFF
    return h
