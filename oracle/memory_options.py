"""The memory options and how Flink reads them from a flat ``key -> string`` configuration.

Mirrors ``Configuration.fromMap`` + ``Configuration.get/contains`` (a key "is configured" when it or
one of its fallback keys is present; a default never counts), ``ConfigurationUtils.convertValue``
(plain Java parsing of the string in every version: 2.x parses YAML only when loading
``config.yaml``, never for ``-D``/``fromMap`` values), the option definitions of
``TaskManagerOptions`` / ``JobManagerOptions`` / ``NettyShuffleEnvironmentOptions`` with their
per-version defaults, and the two readers of ``ProcessMemoryUtils`` every rule goes through:
``getMemorySizeFromConfig`` and ``getRangeFraction``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from oracle.changes import Change
from oracle.javanum import (
    IllegalArgumentException,
    JavaException,
    double_to_string,
    parse_boolean_option,
    parse_double,
    parse_float,
    parse_int,
)
from oracle.memsize import MAX_VALUE, MemorySize
from oracle.versions import FlinkVersion, pick


class IllegalConfigurationException(JavaException):
    """``org.apache.flink.configuration.IllegalConfigurationException``."""


@attrs.frozen
class FallbackKey:
    """``org.apache.flink.configuration.FallbackKey``."""

    key: str
    deprecated: bool

    def __str__(self) -> str:
        return f"{{key={self.key}, isDeprecated={'true' if self.deprecated else 'false'}}}"


_PARSERS: dict[str, Callable[[str], Any]] = {
    "memory": MemorySize.parse,
    "float": parse_float,  # Float.parseFloat; the value is then widened to double
    "double": parse_double,
    "int": parse_int,
    "boolean": parse_boolean_option,
    "string": str,
}


@attrs.frozen
class ConfigOption:
    """``ConfigOption<T>``: key, type, default (as Java prints it) and fallback keys."""

    key: str
    kind: str = attrs.field(validator=attrs.validators.in_(_PARSERS))
    default: Any = None
    default_text: str = "null"
    fallback_keys: tuple[FallbackKey, ...] = ()
    keys: tuple[str, ...] = attrs.field(init=False, eq=False, repr=False)

    @keys.default
    def _lookup_order(self) -> tuple[str, ...]:
        """The key, then the fallback keys, in the order ``Configuration`` looks them up."""
        return (self.key, *(f.key for f in self.fallback_keys))

    def __str__(self) -> str:
        """``ConfigOption.toString()``, as it appears inside Flink's error messages."""
        fallbacks = ", ".join(str(f) for f in self.fallback_keys)
        return f"Key: '{self.key}' , default: {self.default_text} (fallback keys: [{fallbacks}])"


def _memory(key: str, default: str | None = None, *deprecated: str) -> ConfigOption:
    size = None if default is None else MemorySize.parse(default)
    return ConfigOption(key, "memory", size, "null" if size is None else str(size),
                        tuple(FallbackKey(k, True) for k in deprecated))


def _fraction(key: str, default: float, text: str, *deprecated: str) -> ConfigOption:
    return ConfigOption(key, "float", default, text, tuple(FallbackKey(k, True) for k in deprecated))


TM = "taskmanager.memory."
JM = "jobmanager.memory."

# TaskManagerOptions (defaults identical in 1.13-2.3 except network.max, below)
TM_TOTAL_PROCESS = _memory(TM + "process.size")
TM_TOTAL_FLINK = _memory(TM + "flink.size")
FRAMEWORK_HEAP = _memory(TM + "framework.heap.size", "128m")
FRAMEWORK_OFF_HEAP = _memory(TM + "framework.off-heap.size", "128m")
TASK_HEAP = _memory(TM + "task.heap.size")
TASK_OFF_HEAP = _memory(TM + "task.off-heap.size", "0")
MANAGED_SIZE = _memory(TM + "managed.size", None, "taskmanager.memory.size")
MANAGED_FRACTION = _fraction(TM + "managed.fraction", parse_float("0.4"), "0.4")
NETWORK_MIN = _memory(TM + "network.min", "64m", "taskmanager.network.memory.min")
NETWORK_FRACTION = _fraction(TM + "network.fraction", parse_float("0.1"), "0.1",
                             "taskmanager.network.memory.fraction")
TM_METASPACE = _memory(TM + "jvm-metaspace.size", "256m")
TM_OVERHEAD_MIN = _memory(TM + "jvm-overhead.min", "192m")
TM_OVERHEAD_MAX = _memory(TM + "jvm-overhead.max", "1g")
TM_OVERHEAD_FRACTION = _fraction(TM + "jvm-overhead.fraction", parse_float("0.1"), "0.1")
SEGMENT_SIZE = _memory(TM + "segment-size", "32kb")
CPU_CORES = ConfigOption("taskmanager.cpu.cores", "double")
NUM_TASK_SLOTS = ConfigOption("taskmanager.numberOfTaskSlots", "int", 1, "1")

# taskmanager.memory.network.max: 1g until 1.16, MemorySize.MAX_VALUE from 1.17 (FLINK-30472, FLIP-266)
NETWORK_MAX_CHANGE = Change(
    since="1.17", issue="FLINK-30472", what="taskmanager.memory.network.max default 1g -> Long.MAX_VALUE (FLINK-30472)",
    witnesses=({"config": {"taskmanager.memory.flink.size": "16g"}},))
NETWORK_MAX_DEFAULT = NETWORK_MAX_CHANGE.table(MemorySize.parse("1g"), MAX_VALUE)


@functools.cache
def network_max(version: FlinkVersion) -> ConfigOption:
    """``TaskManagerOptions.NETWORK_MEMORY_MAX`` of ``version``."""
    default = pick(NETWORK_MAX_DEFAULT, version)
    return ConfigOption(TM + "network.max", "memory", default, str(default),
                        (FallbackKey("taskmanager.network.memory.max", True),))


# Legacy inputs, removed in 2.0: the heap keys and the network buffer count
LEGACY_REMOVED = Change(
    since="2.0", what="legacy heap keys/env, legacy numberOfBuffers, DATAPROC weight name removed",
    # the heap size, then the network buffer count
    witnesses=({"config": {"taskmanager.memory.process.size": "2g", "taskmanager.heap.size": "1g"}},
               {"config": {"taskmanager.memory.process.size": "2g", "taskmanager.network.numberOfBuffers": "100"}}))
LEGACY_INPUTS = LEGACY_REMOVED.table(True, False)


@functools.cache
def has_legacy_inputs(version: FlinkVersion) -> bool:
    """Whether ``version`` still reads the legacy heap and network-buffer keys."""
    return pick(LEGACY_INPUTS, version)


TM_LEGACY_HEAP = _memory("taskmanager.heap.size")
TM_LEGACY_HEAP_MB = ConfigOption("taskmanager.heap.mb", "int")
JM_LEGACY_HEAP = _memory("jobmanager.heap.size")
JM_LEGACY_HEAP_MB = ConfigOption("jobmanager.heap.mb", "int")
NETWORK_NUM_BUFFERS = ConfigOption("taskmanager.network.numberOfBuffers", "int", 2048, "2048")

# JobManagerOptions
JM_TOTAL_PROCESS = _memory(JM + "process.size")
JM_TOTAL_FLINK = _memory(JM + "flink.size")
JM_HEAP = _memory(JM + "heap.size")
JM_OFF_HEAP = _memory(JM + "off-heap.size", "128m")
JM_DIRECT_MEMORY_LIMIT = ConfigOption(JM + "enable-jvm-direct-memory-limit", "boolean", False, "false")
JM_METASPACE = _memory(JM + "jvm-metaspace.size", "256m")
JM_OVERHEAD_MIN = _memory(JM + "jvm-overhead.min", "192m")
JM_OVERHEAD_MAX = _memory(JM + "jvm-overhead.max", "1g")
JM_OVERHEAD_FRACTION = _fraction(JM + "jvm-overhead.fraction", parse_float("0.1"), "0.1")
JM_MIN_JVM_HEAP = MemorySize.parse("128m")  # JobManagerOptions.MIN_JVM_HEAP_SIZE: below it only warns


def _copy(data: Mapping[str, str | MemorySize]) -> dict[str, str | MemorySize]:
    """``new HashMap<>(map)``: the configuration keeps its own copy of the map it is given."""
    return dict(data)


@attrs.frozen
class Configuration:
    """``Configuration.fromMap(map)``: raw strings, plus typed values a caller ``set``."""

    data: Mapping[str, str | MemorySize] = attrs.field(converter=_copy)

    def contains(self, option: ConfigOption) -> bool:
        """``Configuration.contains``: the key or a fallback key is present."""
        return any(k in self.data for k in option.keys)

    def raw(self, option: ConfigOption) -> str | MemorySize | None:
        """The stored value of the key, else of the first fallback key present."""
        return next((self.data[k] for k in option.keys if k in self.data), None)

    def get(self, option: ConfigOption, parse: Callable[[str], Any] | None = None) -> Any:
        """``Configuration.get``: the parsed value (by ``parse`` if given, else by the option's kind) or
        the default; a parse error is
        ``IllegalArgumentException("Could not parse value '<raw>' for key '<option key>'.")``."""
        raw = self.raw(option)
        if raw is None:
            return option.default
        if not isinstance(raw, str):
            return raw
        try:
            return (parse or _PARSERS[option.kind])(raw)
        except JavaException as exc:
            message = f"Could not parse value '{raw}' for key '{option.key}'."
            raise IllegalArgumentException(message, exc) from exc

    def with_value(self, option: ConfigOption, value: MemorySize) -> Configuration:
        """``new Configuration(this).set(option, value)``."""
        return Configuration({**self.data, option.key: value})


def get_memory_size(config: Configuration, option: ConfigOption) -> MemorySize:
    """``ProcessMemoryUtils.getMemorySizeFromConfig``: any failure becomes
    ``IllegalConfigurationException("Cannot read memory size from config option '<key>'.")``."""
    try:
        size: MemorySize | None = config.get(option)
        if size is None:  # Preconditions.checkNotNull
            raise JavaException("The memory option is not set and has no default value.")
    except JavaException as exc:
        raise IllegalConfigurationException(f"Cannot read memory size from config option '{option.key}'.",
                                            exc) from exc
    return size


@attrs.frozen
class RangeFraction:
    """``RangeFraction``: a fraction of some base, capped to [min, max]."""

    min_size: MemorySize
    max_size: MemorySize
    fraction: float


def get_range_fraction(min_size: MemorySize, max_size: MemorySize, option: ConfigOption,
                       config: Configuration) -> RangeFraction:
    """``ProcessMemoryUtils.getRangeFraction``: reads the (float) fraction, then requires
    ``min <= max`` and ``0 <= fraction < 1``; either failure is "Inconsistently configured ..."."""
    fraction = config.get(option)  # a parse error here is NOT wrapped (IllegalArgumentException)
    if min_size.bytes > max_size.bytes:
        cause = "min value must be less or equal to max value"
    elif not 0.0 <= fraction < 1.0:
        cause = "fraction must be in range [0, 1)"
    else:
        return RangeFraction(min_size, max_size, fraction)
    raise IllegalConfigurationException(
        f"Inconsistently configured {option} ({double_to_string(fraction)}) and its min "
        f"({min_size.to_human_readable_string()}), max ({max_size.to_human_readable_string()}) value",
        IllegalArgumentException(cause),
    )
