"""``ProcessMemoryUtils``: the three derivation modes and JVM Metaspace / Overhead, shared by the
TaskManager and the JobManager.

The Flink memory model of a process is ``total process = total Flink + JVM Metaspace + JVM
Overhead``. ``memoryProcessSpecFromConfig`` picks the first mode whose keys are configured:
explicit fine-grained memory, total Flink memory, total process memory. What differs between the
TaskManager and the JobManager (the inside of total Flink memory) is a :class:`FlinkMemoryRules`.
"""

from __future__ import annotations

from typing import Generic, NotRequired, Protocol, TypedDict, TypeVar, cast

import attrs

from oracle.explain import at, because, rejected_because
from oracle.memory_options import (
    ConfigOption,
    Configuration,
    IllegalConfigurationException,
    RangeFraction,
    get_memory_size,
    get_range_fraction,
)
from oracle.memsize import MemorySize
from oracle.versions import FlinkVersion

FINE_GRAINED, TOTAL_FLINK, TOTAL_PROCESS = "fine-grained", "total-flink", "total-process"


class JvmArgs(TypedDict):
    """The protocol's ``jvm_args`` object (bytes), in Flink's order; ``MaxDirectMemorySize`` only where Flink
    sets it (always for a TaskManager; for a JobManager with ``jobmanager.memory.enable-jvm-direct-memory-limit``)."""

    Xmx: int
    Xms: int
    MaxDirectMemorySize: NotRequired[int]
    MaxMetaspaceSize: int


class FlinkMemory(Protocol):
    """``FlinkMemory``: the inside of total Flink memory."""

    @property
    def jvm_heap(self) -> MemorySize: ...

    @property
    def jvm_direct(self) -> MemorySize: ...

    @property
    def total_flink(self) -> MemorySize: ...


FM = TypeVar("FM", bound=FlinkMemory)
FM_co = TypeVar("FM_co", bound=FlinkMemory, covariant=True)


class FlinkMemoryRules(Protocol[FM_co]):
    """``FlinkMemoryUtils``: how a process derives its Flink memory in modes 1 and 2/3."""

    def from_fine_grained(self, config: Configuration, version: FlinkVersion) -> FM_co: ...

    def from_total_flink(self, config: Configuration, total_flink: MemorySize,
                         version: FlinkVersion) -> FM_co: ...


@attrs.frozen
class ProcessMemoryOptions:
    """``ProcessMemoryOptions`` + ``JvmMetaspaceAndOverheadOptions``."""

    required_fine_grained: tuple[ConfigOption, ...]
    total_flink: ConfigOption
    total_process: ConfigOption
    metaspace: ConfigOption
    overhead_min: ConfigOption
    overhead_max: ConfigOption
    overhead_fraction: ConfigOption
    # the area's rules (oracle.explain): JVM overhead a fraction of the process size, clamped (TM-6 / JM-4),
    # and a configuration that sets no size the derivation needs (TM-8 / JM-5)
    overhead_rule: str
    underdetermined_rule: str


@attrs.frozen
class JvmMetaspaceAndOverhead:
    """``JvmMetaspaceAndOverhead``."""

    metaspace: MemorySize
    overhead: MemorySize

    @property
    def total(self) -> MemorySize:
        return self.metaspace.add(self.overhead)


@attrs.frozen
class ProcessMemorySpec(Generic[FM]):
    """``CommonProcessMemorySpec``: the Flink memory plus Metaspace and Overhead, and the mode."""

    mode: str
    flink: FM
    jvm: JvmMetaspaceAndOverhead

    @property
    def total_process(self) -> MemorySize:
        return self.flink.total_flink.add(self.jvm.metaspace).add(self.jvm.overhead)


def memory_process_spec(config: Configuration, options: ProcessMemoryOptions, rules: FlinkMemoryRules[FM],
                        version: FlinkVersion) -> ProcessMemorySpec[FM]:
    """``memoryProcessSpecFromConfig``: fine-grained > total Flink > total process, else fail."""
    if all(config.contains(o) for o in options.required_fine_grained):
        flink = rules.from_fine_grained(config, version)
        at("total_flink")
        jvm = metaspace_and_overhead_from_total_flink(config, options, flink.total_flink, version)
        return ProcessMemorySpec(FINE_GRAINED, flink, jvm)
    if config.contains(options.total_flink):
        at("total_flink")  # the order Flink derives the parts in (oracle.explain)
        total_flink = get_memory_size(config, options.total_flink)
        flink = rules.from_total_flink(config, total_flink, version)
        jvm = metaspace_and_overhead_from_total_flink(config, options, total_flink, version)
        return ProcessMemorySpec(TOTAL_FLINK, flink, jvm)
    if config.contains(options.total_process):
        at("total_process")
        total_process = get_memory_size(config, options.total_process)
        jvm = metaspace_and_overhead_from_total_process(config, options, total_process, version)
        at("total_flink")
        flink = rules.from_total_flink(config, total_process.subtract(jvm.total), version)
        return ProcessMemorySpec(TOTAL_PROCESS, flink, jvm)
    rejected_because(options.underdetermined_rule)
    raise IllegalConfigurationException(
        "Either required fine-grained memory ({}), or Total Flink Memory size ({}), or Total Process Memory "
        "size ({}) need to be configured explicitly.".format(
            " and ".join(o.key for o in options.required_fine_grained), options.total_flink,
            options.total_process)
    )


def metaspace_and_overhead_from_total_process(config: Configuration, options: ProcessMemoryOptions,
                                              total_process: MemorySize,
                                              version: FlinkVersion) -> JvmMetaspaceAndOverhead:
    """``deriveJvmMetaspaceAndOverheadWithTotalProcessMemory``: Overhead is a fraction of the
    total process memory; Metaspace + Overhead must fit in it."""
    at("jvm_metaspace")
    metaspace = get_memory_size(config, options.metaspace)
    at("jvm_overhead")
    because(options.overhead_rule)
    overhead = derive_with_fraction(total_process, overhead_range(config, options), version)
    jvm = JvmMetaspaceAndOverhead(metaspace, overhead)
    if jvm.total.bytes > total_process.bytes:
        raise IllegalConfigurationException(
            f"Sum of configured JVM Metaspace ({metaspace.to_human_readable_string()}) and JVM Overhead "
            f"({overhead.to_human_readable_string()}) exceed configured Total Process Memory "
            f"({total_process.to_human_readable_string()})."
        )
    return jvm


def metaspace_and_overhead_from_total_flink(config: Configuration, options: ProcessMemoryOptions,
                                            total_flink: MemorySize,
                                            version: FlinkVersion) -> JvmMetaspaceAndOverhead:
    """``deriveJvmMetaspaceAndOverheadFromTotalFlinkMemory``: with a configured total process
    memory the Overhead is what is left of it, otherwise an inverse fraction of Flink + Metaspace."""
    at("jvm_metaspace")
    metaspace = get_memory_size(config, options.metaspace)
    at("jvm_overhead")
    flink_and_metaspace = total_flink.add(metaspace)
    if config.contains(options.total_process):
        overhead = overhead_as_remainder(config, options, total_flink, version)
        return JvmMetaspaceAndOverhead(metaspace, overhead)
    overhead = derive_with_inverse_fraction(flink_and_metaspace, overhead_range(config, options), version)
    flink_and_metaspace.add(overhead)  # sanityCheckTotalProcessMemory adds them up (may overflow)
    return JvmMetaspaceAndOverhead(metaspace, overhead)


def overhead_as_remainder(config: Configuration, options: ProcessMemoryOptions, total_flink: MemorySize,
                          version: FlinkVersion) -> MemorySize:
    """``deriveJvmOverheadFromTotalFlinkMemoryAndOtherComponents`` + ``sanityCheckJvmOverhead``."""
    total_process = get_memory_size(config, options.total_process)
    metaspace = get_memory_size(config, options.metaspace)
    flink_and_metaspace = total_flink.add(metaspace)
    if total_process.bytes < flink_and_metaspace.bytes:
        tp, tf = total_process.to_human_readable_string(), total_flink.to_human_readable_string()
        raise IllegalConfigurationException(
            f"The configured Total Process Memory size ({tp}) is less than the sum of the derived Total "
            f"Flink Memory size ({tf}) and the configured or default JVM Metaspace size  "
            f"({metaspace.to_human_readable_string()})."
        )
    overhead = total_process.subtract(flink_and_metaspace)
    check_in_range("JVM Overhead", overhead, overhead_range(config, options))
    # a configured fraction that disagrees only logs (the product is computed, it cannot fail)
    return overhead


def overhead_range(config: Configuration, options: ProcessMemoryOptions) -> RangeFraction:
    """``getJvmOverheadRangeFraction``: read min, max, then the fraction."""
    min_size = get_memory_size(config, options.overhead_min)
    max_size = get_memory_size(config, options.overhead_max)
    return get_range_fraction(min_size, max_size, options.overhead_fraction, config)


def check_in_range(what: str, size: MemorySize, rng: RangeFraction) -> None:
    """A derived remainder must lie within its configured [min, max]."""
    if size.bytes > rng.max_size.bytes or size.bytes < rng.min_size.bytes:
        raise IllegalConfigurationException(
            f"Derived {what} size ({size.to_human_readable_string()}) is not in configured {what} range "
            f"[{rng.min_size.to_human_readable_string()}, {rng.max_size.to_human_readable_string()}]."
        )


def derive_with_fraction(base: MemorySize, rng: RangeFraction, version: FlinkVersion) -> MemorySize:
    """``deriveWithFraction``: ``base * fraction``, capped to [min, max] (max tested first)."""
    return cap_to_min_max(base.multiply(rng.fraction, version), rng)


def derive_with_inverse_fraction(base: MemorySize, rng: RangeFraction, version: FlinkVersion) -> MemorySize:
    """``deriveWithInverseFraction``: ``base * f / (1 - f)`` (in double), capped to [min, max]."""
    return cap_to_min_max(base.multiply(rng.fraction / (1.0 - rng.fraction), version), rng)


def cap_to_min_max(relative: MemorySize, rng: RangeFraction) -> MemorySize:
    """``capToMinMax``."""
    if relative.bytes > rng.max_size.bytes:
        return rng.max_size
    if relative.bytes < rng.min_size.bytes:
        return rng.min_size
    return relative


def jvm_parameters(spec: ProcessMemorySpec[FM], direct_memory_limit: bool) -> JvmArgs:
    """``ProcessMemoryUtils.generateJvmParametersStr``, as the protocol's ``jvm_args`` object."""
    heap = spec.flink.jvm_heap.bytes
    args = {"Xmx": heap, "Xms": heap}
    if direct_memory_limit:
        args["MaxDirectMemorySize"] = spec.flink.jvm_direct.bytes
    args["MaxMetaspaceSize"] = spec.jvm.metaspace.bytes
    return cast(JvmArgs, args)  # built key by key: Flink's order puts the optional key before the last one
