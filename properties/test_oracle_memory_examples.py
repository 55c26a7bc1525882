"""Pinned examples for ``memory.taskmanager`` / ``memory.jobmanager`` and the Java numbers under them.

Every expected value was recorded from real Flink, never from the oracle: the flink-dist jar of each
minor's newest patch (``oracle.versions.SUPPORTED``) on JDK 17, driven through flinkspec's bridge
(``flinkspec/impls/bridge/src/flinkspec/bridge/MemoryArea.java``, the ``BashJavaUtils`` path) or, for
``MemorySize``, ``generateDynamicConfigsStr`` and the JDK helpers, by calling those classes directly.
"""

from __future__ import annotations

from typing import Any

import pytest

from oracle import SUPPORTED, answer
from oracle.javanum import (
    ArithmeticException,
    IllegalArgumentException,
    JavaException,
    NumberFormatException,
    double_to_string,
    parse_float,
)
from oracle.memory import derive_jobmanager, derive_taskmanager, dynamic_configs
from oracle.memsize import MemorySize
from oracle.versions import FlinkVersion, parse_version, v

UNTIL_116 = tuple(x for x in SUPPORTED if x < v("1.17"))
SINCE_117 = tuple(x for x in SUPPORTED if x >= v("1.17"))
UNTIL_120 = tuple(x for x in SUPPORTED if x < v("2.0"))
SINCE_20 = tuple(x for x in SUPPORTED if x >= v("2.0"))
TM, JM = "taskmanager.memory.", "jobmanager.memory."
ICE = "IllegalConfigurationException"
JM_PREFIX = "JobManager memory configuration failed: "
UNITS = ("(b | bytes) / (k | kb | kibibytes) / (m | mb | mebibytes) / (g | gb | gibibytes) / "
         "(t | tb | tebibytes)")
UNKNOWN_UNIT = "Memory size unit '{}' does not match any of the recognized units: " + UNITS
NO_MODE_TM = (
    "TaskManager memory configuration failed: Either required fine-grained memory "
    "(taskmanager.memory.task.heap.size and taskmanager.memory.managed.size), or Total Flink Memory size "
    "(Key: 'taskmanager.memory.flink.size' , default: null (fallback keys: [])), or Total Process Memory "
    "size (Key: 'taskmanager.memory.process.size' , default: null (fallback keys: [])) need to be "
    "configured explicitly."
)
NO_MODE_JM = (
    "Either required fine-grained memory (jobmanager.memory.heap.size), or Total Flink Memory size "
    "(Key: 'jobmanager.memory.flink.size' , default: null (fallback keys: [])), or Total Process Memory "
    "size (Key: 'jobmanager.memory.process.size' , default: null (fallback keys: [])) need to be "
    "configured explicitly."
)
DEFAULT_1728M = {
    "framework_heap": 134217728, "task_heap": 402653174, "framework_off_heap": 134217728, "task_off_heap": 0,
    "network": 134217730, "managed": 536870920, "jvm_metaspace": 268435456, "jvm_overhead": 201326592,
    "total_flink": 1342177280, "total_process": 1811939328,
    "jvm_args": {"Xmx": 536870902, "Xms": 536870902, "MaxDirectMemorySize": 268435458,
                 "MaxMetaspaceSize": 268435456},
}
JM_1600M = {
    "heap": 1073741824, "off_heap": 134217728, "jvm_metaspace": 268435456, "jvm_overhead": 201326592,
    "total_flink": 1207959552, "total_process": 1677721600,
    "jvm_args": {"Xmx": 1073741824, "Xms": 1073741824, "MaxMetaspaceSize": 268435456},
}


def tm(config: dict[str, str], version: FlinkVersion) -> dict[str, Any]:
    return answer({"id": 1, "area": "memory.taskmanager", "flink": str(version), "input": {"config": config}})


def jm(config: dict[str, str], version: FlinkVersion) -> dict[str, Any]:
    return answer({"id": 1, "area": "memory.jobmanager", "flink": str(version), "input": {"config": config}})


def rejected(exception: str, message: str) -> dict[str, Any]:
    return {"id": 1, "error": {"type": "InvalidConfiguration", "exception": exception, "message": message}}


# --- TaskManager ------------------------------------------------------------------------------


@pytest.mark.parametrize("version", SUPPORTED, ids=str)
def test_default_process_size_widens_float_fractions(version: FlinkVersion) -> None:
    """process.size=1728m: network is 0.1f widened to double (134217730, not 134217728), managed 0.4f,
    overhead its 192m minimum; heap args are framework+task heap, direct is off-heap + network."""
    assert tm({TM + "process.size": "1728m"}, version) == {"id": 1, "output": DEFAULT_1728M}


@pytest.mark.parametrize("version", UNTIL_116, ids=str)
def test_network_max_default_is_1g_until_116(version: FlinkVersion) -> None:
    """Until 1.16 taskmanager.memory.network.max defaults to 1g, capping a 16g process's network."""
    out = tm({TM + "process.size": "16g"}, version)["output"]
    assert (out["network"], out["task_heap"]) == (1073741824, 8160437768)


@pytest.mark.parametrize("version", SINCE_117, ids=str)
def test_network_max_default_is_unbounded_since_117(version: FlinkVersion) -> None:
    """From 1.17 network.max defaults to Long.MAX_VALUE bytes: a 16g process keeps 0.1f of Flink memory."""
    out = tm({TM + "process.size": "16g"}, version)["output"]
    assert (out["network"], out["task_heap"]) == (1583769214, 7650410378)


@pytest.mark.parametrize("version", SUPPORTED, ids=str)
def test_invalid_process_below_flink_plus_metaspace(version: FlinkVersion) -> None:
    """With both totals configured, process must hold total Flink + metaspace (note Flink's two spaces)."""
    assert tm({TM + "flink.size": "1g", TM + "process.size": "1g"}, version) == rejected(
        "IllegalConfigurationException",
        "TaskManager memory configuration failed: The configured Total Process Memory size (1024.000mb "
        "(1073741824 bytes)) is less than the sum of the derived Total Flink Memory size (1024.000mb "
        "(1073741824 bytes)) and the configured or default JVM Metaspace size  (256.000mb "
        "(268435456 bytes)).")


@pytest.mark.parametrize("version", SUPPORTED, ids=str)
def test_invalid_task_heap_alone_selects_no_mode(version: FlinkVersion) -> None:
    """Fine-grained mode needs task heap AND managed size; otherwise a total is required."""
    assert tm({TM + "task.heap.size": "512m"}, version) == rejected(ICE, NO_MODE_TM)


@pytest.mark.parametrize("version", SUPPORTED, ids=str)
def test_fine_grained_network_is_inverse_fraction(version: FlinkVersion) -> None:
    """Fine-grained: network = others * f/(1-f) in double, overhead = (Flink + metaspace) * f/(1-f)."""
    out = tm({TM + "task.heap.size": "1g", TM + "managed.size": "1g"}, version)["output"]
    assert (out["network"], out["jvm_overhead"], out["total_process"]) == (268435460, 328087785, 3280877805)


@pytest.mark.parametrize("version", SUPPORTED, ids=str)
def test_invalid_fine_grained_wins_over_totals(version: FlinkVersion) -> None:
    """Task heap + managed select the fine-grained mode even when both totals are set too."""
    cfg = {TM + "task.heap.size": "1g", TM + "managed.size": "1g", TM + "flink.size": "2g",
           TM + "process.size": "4g"}
    assert tm(cfg, version) == rejected(
        "IllegalConfigurationException",
        "TaskManager memory configuration failed: Sum of configured Framework Heap Memory (128.000mb "
        "(134217728 bytes)), Framework Off-Heap Memory (128.000mb (134217728 bytes)), Task Heap Memory "
        "(1024.000mb (1073741824 bytes)), Task Off-Heap Memory (0 bytes) and Managed Memory (1024.000mb "
        "(1073741824 bytes)) exceed configured Total Flink Memory (2.000gb (2147483648 bytes)).")


@pytest.mark.parametrize("version", SUPPORTED, ids=str)
def test_invalid_remainder_network_outside_its_range(version: FlinkVersion) -> None:
    """A network that is the rest of total Flink memory but outside [min, max] gets the generic message."""
    cfg = {TM + "flink.size": "1g", TM + "task.heap.size": "100m", TM + "network.max": "10m"}
    assert tm(cfg, version) == rejected(
        "IllegalConfigurationException",
        "TaskManager memory configuration failed: If Total Flink, Task Heap and (or) Managed Memory sizes "
        "are explicitly configured then the Network Memory size is the rest of the Total Flink memory after "
        "subtracting all other configured types of memory, but the derived Network Memory is inconsistent "
        "with its configuration.")


@pytest.mark.parametrize(("version", "max_text"), [(parse_version("1.16"), "1024.000mb (1073741824 bytes)"),
                                                  (parse_version("1.17"), "8388608.000tb (9223372036854775807 bytes)")],
                         ids=str)
def test_invalid_fraction_one_prints_java_double(version: FlinkVersion, max_text: str) -> None:
    """Fractions must be in [0, 1); the message prints ConfigOption.toString and Double.toString."""
    assert tm({TM + "process.size": "1728m", TM + "network.fraction": "1"}, version) == rejected(
        "IllegalConfigurationException",
        "TaskManager memory configuration failed: Inconsistently configured Key: "
        "'taskmanager.memory.network.fraction' , default: 0.1 (fallback keys: [{key=taskmanager.network."
        "memory.fraction, isDeprecated=true}]) (1.0) and its min (64.000mb (67108864 bytes)), "
        f"max ({max_text}) value")


@pytest.mark.parametrize("version", SUPPORTED, ids=str)
def test_invalid_overhead_range_prints_negative_zero(version: FlinkVersion) -> None:
    """min > max is checked before the fraction, and Double.toString keeps the sign of -0.0."""
    cfg = {TM + "process.size": "1728m", TM + "jvm-overhead.min": "2g", TM + "jvm-overhead.fraction": "-0.0"}
    assert tm(cfg, version) == rejected(
        ICE, "TaskManager memory configuration failed: Inconsistently configured Key: "
        "'taskmanager.memory.jvm-overhead.fraction' , default: 0.1 (fallback keys: []) (-0.0) and its min "
        "(2.000gb (2147483648 bytes)), max (1024.000mb (1073741824 bytes)) value")


@pytest.mark.parametrize("version", SUPPORTED, ids=str)
def test_fraction_accepts_java_float_syntax(version: FlinkVersion) -> None:
    """Fractions are read with Float.parseFloat: surrounding blanks and an f suffix are fine."""
    cfg = {TM + "process.size": "1728m", TM + "network.fraction": " 0.1f "}
    assert tm(cfg, version)["output"] == DEFAULT_1728M


@pytest.mark.parametrize("version", SUPPORTED, ids=str)
def test_invalid_unparsable_fraction_is_not_prefixed(version: FlinkVersion) -> None:
    """A float parse error is an IllegalArgumentException naming the main key, even for a deprecated key."""
    cfg = {TM + "process.size": "1728m", "taskmanager.network.memory.fraction": "abc"}
    assert tm(cfg, version) == rejected(
        "IllegalArgumentException",
        "Could not parse value 'abc' for key 'taskmanager.memory.network.fraction'.")


@pytest.mark.parametrize("version", SUPPORTED, ids=str)
def test_invalid_zero_cpu_cores(version: FlinkVersion) -> None:
    """CPU cores must be positive; the check runs inside processSpecFromConfig, so it is prefixed."""
    assert tm({TM + "process.size": "1728m", "taskmanager.cpu.cores": "0"}, version) == rejected(
        "IllegalConfigurationException",
        "TaskManager memory configuration failed: TaskExecutors need to be started with a positive number "
        "of CPU cores. Please configure taskmanager.cpu.cores accordingly.")


@pytest.mark.parametrize("version", SUPPORTED, ids=str)
def test_invalid_nan_cpu_cores_fails_in_bigdecimal(version: FlinkVersion) -> None:
    """NaN passes `cores <= 0` but CPUResource's BigDecimal.valueOf(NaN) throws NumberFormatException."""
    assert tm({TM + "process.size": "1728m", "taskmanager.cpu.cores": "NaN"}, version) == rejected(
        "NumberFormatException",
        'Character N is neither a decimal digit number, decimal point, nor "e" notation exponential mark.')


@pytest.mark.parametrize("version", SINCE_117, ids=str)
def test_largest_total_flink_memory(version: FlinkVersion) -> None:
    """8388607t is the largest whole-tebibyte size; it derives without overflowing a long."""
    out = tm({TM + "flink.size": "8388607t"}, version)["output"]
    assert (out["task_heap"], out["network"], out["managed"], out["total_process"]) == (
        4611685399683669804, 922337107478208517, 3689348429912834255, 9223370938685325312)


@pytest.mark.parametrize("version", SUPPORTED, ids=str)
def test_invalid_size_overflowing_a_long(version: FlinkVersion) -> None:
    """A size that does not fit a long cannot be read; the parse error itself is not in the message."""
    assert tm({TM + "process.size": "8388608t"}, version) == rejected(
        "IllegalConfigurationException", "TaskManager memory configuration failed: Cannot read memory size "
        "from config option 'taskmanager.memory.process.size'.")


@pytest.mark.parametrize("version", UNTIL_120, ids=str)
def test_legacy_number_of_buffers_sets_network_until_120(version: FlinkVersion) -> None:
    """Without network min/max/fraction, 1.x takes network = numberOfBuffers * 32kb segments."""
    out = tm({TM + "process.size": "1728m", "taskmanager.network.numberOfBuffers": "1000"}, version)["output"]
    assert (out["network"], out["task_heap"]) == (32768000, 504102904)


@pytest.mark.parametrize("version", SINCE_20, ids=str)
def test_legacy_number_of_buffers_ignored_since_20(version: FlinkVersion) -> None:
    """2.0 removed the legacy network path: the buffer count changes nothing."""
    cfg = {TM + "process.size": "1728m", "taskmanager.network.numberOfBuffers": "1000"}
    assert tm(cfg, version)["output"] == DEFAULT_1728M


@pytest.mark.parametrize("version", UNTIL_120, ids=str)
def test_legacy_heap_size_is_total_flink_until_120(version: FlinkVersion) -> None:
    """bin/ scripts map taskmanager.heap.size to total Flink memory in 1.x."""
    out = tm({"taskmanager.heap.size": "1g"}, version)["output"]
    assert (out["total_flink"], out["network"], out["total_process"]) == (1073741824, 107374184, 1543503872)


@pytest.mark.parametrize("version", SINCE_20, ids=str)
def test_invalid_legacy_heap_size_ignored_since_20(version: FlinkVersion) -> None:
    """2.0 removed the legacy heap keys: taskmanager.heap.size alone selects no mode."""
    assert tm({"taskmanager.heap.size": "1g"}, version) == rejected(ICE, NO_MODE_TM)


@pytest.mark.parametrize("version", UNTIL_120, ids=str)
def test_invalid_negative_legacy_heap_mb(version: FlinkVersion) -> None:
    """A negative taskmanager.heap.mb fails the legacy mapping, with its own prefix."""
    assert tm({"taskmanager.heap.mb": "-5"}, version) == rejected(
        "IllegalConfigurationException", "TaskManager failed to map legacy JVM heap option to the new one: "
        "Configured total process memory size (-5MB) must not be less than 0.")


# --- JobManager -------------------------------------------------------------------------------


@pytest.mark.parametrize("version", SUPPORTED, ids=str)
def test_jobmanager_process_size(version: FlinkVersion) -> None:
    """JM: heap = total Flink - off-heap (128m); no MaxDirectMemorySize unless the limit is enabled."""
    assert jm({JM + "process.size": "1600m"}, version) == {"id": 1, "output": JM_1600M}


@pytest.mark.parametrize("version", SUPPORTED, ids=str)
def test_jobmanager_direct_memory_limit(version: FlinkVersion) -> None:
    """enable-jvm-direct-memory-limit adds -XX:MaxDirectMemorySize = off-heap."""
    cfg = {JM + "process.size": "1600m", JM + "enable-jvm-direct-memory-limit": "true"}
    assert jm(cfg, version)["output"]["jvm_args"] == {
        "Xmx": 1073741824, "Xms": 1073741824, "MaxDirectMemorySize": 134217728, "MaxMetaspaceSize": 268435456}


@pytest.mark.parametrize(("version", "prefix"),
                         [(x, JM_PREFIX) for x in UNTIL_120] + [(x, "") for x in SINCE_20], ids=str)
def test_invalid_jobmanager_flink_memory_below_off_heap(version: FlinkVersion, prefix: str) -> None:
    """Total Flink memory must exceed off-heap; 1.x scripts prefix JM errors, 2.x do not."""
    assert jm({JM + "process.size": "500m"}, version) == rejected(
        ICE, f"{prefix}The configured Total Flink Memory (52.000mb (54525952 bytes)) "
        "is less than the configured Off-heap Memory (128.000mb (134217728 bytes)).")


@pytest.mark.parametrize("version", SUPPORTED, ids=str)
def test_invalid_jobmanager_flink_memory_equal_to_off_heap(version: FlinkVersion) -> None:
    """compareTo(...) < 1: total Flink memory equal to off-heap is rejected too."""
    prefix = JM_PREFIX if version < v("2.0") else ""
    assert jm({JM + "flink.size": "128m"}, version) == rejected(
        ICE, f"{prefix}The configured Total Flink Memory (128.000mb (134217728 bytes)) "
        "is less than the configured Off-heap Memory (128.000mb (134217728 bytes)).")


@pytest.mark.parametrize("version", SUPPORTED, ids=str)
def test_jobmanager_heap_equal_to_total_flink_leaves_no_off_heap(version: FlinkVersion) -> None:
    """Heap + total Flink without an explicit off-heap: off-heap is the rest, here 0."""
    out = jm({JM + "heap.size": "1g", JM + "flink.size": "1g"}, version)["output"]
    assert (out["off_heap"], out["total_process"]) == (0, 1543503872)


@pytest.mark.parametrize("version", UNTIL_120, ids=str)
def test_legacy_jobmanager_heap_mb_until_120(version: FlinkVersion) -> None:
    """jobmanager.heap.mb is the JVM heap in 1.x (processSpecFromConfigWithNewOptionToInterpretLegacyHeap)."""
    out = jm({"jobmanager.heap.mb": "1024"}, version)["output"]
    assert (out["heap"], out["total_process"]) == (1073741824, 1677721600)


@pytest.mark.parametrize("version", SINCE_20, ids=str)
def test_invalid_legacy_jobmanager_heap_mb_ignored_since_20(version: FlinkVersion) -> None:
    """2.x ignores jobmanager.heap.mb: no mode is configured."""
    assert jm({"jobmanager.heap.mb": "1024"}, version) == rejected(ICE, NO_MODE_JM)


# --- dynamic configs, modes ---------------------------------------------------------------------


@pytest.mark.parametrize(("version", "cores"), [(parse_version("1.13"), "2.123456789"),
                                               (parse_version("2.3"), "2.12345678")], ids=str)
def test_dynamic_configs_in_hashmap_order(version: FlinkVersion, cores: str) -> None:
    """generateDynamicConfigsStr: HashMap order, sizes in bytes with a 'b'; CPU keeps 8 decimals from 1.14."""
    cfg = {TM + "process.size": "1728m", "taskmanager.cpu.cores": "2.123456789"}
    result = derive_taskmanager(cfg, version)
    assert dynamic_configs(result) == (  # type: ignore[arg-type]
        f"-D taskmanager.memory.network.min=134217730b -D taskmanager.cpu.cores={cores} "
        "-D taskmanager.memory.task.off-heap.size=0b -D taskmanager.memory.jvm-metaspace.size=268435456b "
        "-D external-resources=none -D taskmanager.memory.jvm-overhead.min=201326592b "
        "-D taskmanager.memory.framework.off-heap.size=134217728b "
        "-D taskmanager.memory.network.max=134217730b "
        "-D taskmanager.memory.framework.heap.size=134217728b -D taskmanager.memory.managed.size=536870920b "
        "-D taskmanager.memory.task.heap.size=402653174b -D taskmanager.numberOfTaskSlots=1 "
        "-D taskmanager.memory.jvm-overhead.max=201326592b")


def test_jobmanager_dynamic_configs_in_hashmap_order() -> None:
    """JobManagerProcessUtils.generateDynamicConfigsStr: five sizes in HashMap order."""
    assert dynamic_configs(derive_jobmanager({JM + "process.size": "1600m"}, parse_version("2.3"))) == (  # type: ignore[arg-type]
        "-D jobmanager.memory.off-heap.size=134217728b -D jobmanager.memory.jvm-overhead.min=201326592b "
        "-D jobmanager.memory.jvm-metaspace.size=268435456b -D jobmanager.memory.heap.size=1073741824b "
        "-D jobmanager.memory.jvm-overhead.max=201326592b")


def test_derivation_reports_its_mode() -> None:
    """The result names the mode that applied: fine-grained, total Flink or total process."""
    modes = [derive_taskmanager(cfg, parse_version("2.3")).mode for cfg in (  # type: ignore[union-attr]
        {TM + "task.heap.size": "1g", TM + "managed.size": "1g"},
        {TM + "flink.size": "2g"},
        {TM + "process.size": "4g"})]
    assert modes == ["fine-grained", "total-flink", "total-process"]


# --- MemorySize and Java numbers ---------------------------------------------------------------


@pytest.mark.parametrize(("text", "nbytes", "string", "human"), [
    ("1728m", 1811939328, "1728 mb", "1.688gb (1811939328 bytes)"),
    (" 64 MB ", 67108864, "64 mb", "64.000mb (67108864 bytes)"),
    ("1 kibibytes", 1024, "1 kb", "1024 bytes"),
    ("0", 0, "0 bytes", "0 bytes"),
    ("1t", 1099511627776, "1099511627776 bytes", "1024.000gb (1099511627776 bytes)"),
    ("1536", 1536, "1536 bytes", "1.500kb (1536 bytes)"),
    ("1088", 1088, "1088 bytes", "1.063kb (1088 bytes)"),
    ("1025", 1025, "1025 bytes", "1.001kb (1025 bytes)"),
    ("9223372036854775807", 9223372036854775807, "9223372036854775807 bytes",
     "8388608.000tb (9223372036854775807 bytes)"),
    ("8388607t", 9223370937343148032, "9223370937343148032 bytes",
     "8388607.000tb (9223370937343148032 bytes)"),
])
def test_memory_size_parse_and_print(text: str, nbytes: int, string: str, human: str) -> None:
    """MemorySize: any unit spelling and blanks; toString falls back to bytes when every unit divides;
    toHumanReadableString uses a strict '>' and Java's HALF_UP %.3f (1088 bytes -> 1.063kb)."""
    size = MemorySize.parse(text)
    assert (size.bytes, str(size), size.to_human_readable_string()) == (nbytes, string, human)


@pytest.mark.parametrize(("text", "exception", "message"), [
    ("1.5g", IllegalArgumentException, UNKNOWN_UNIT.format(".5g")),
    ("-1", NumberFormatException, "text does not start with a number"),
    ("8388608t", IllegalArgumentException,
     "The value '8388608t' cannot be re represented as 64bit number of bytes (numeric overflow)."),
    ("9223372036854775808", IllegalArgumentException,
     "The value '9223372036854775808' cannot be re represented as 64bit number (numeric overflow)."),
    ("   ", IllegalArgumentException, "argument is an empty- or whitespace-only string"),
    ("128 mib", IllegalArgumentException, UNKNOWN_UNIT.format("mib")),
])
def test_invalid_memory_size_texts(text: str, exception: type[JavaException], message: str) -> None:
    """MemorySize.parse rejects signs, decimals ("1.5g" is 1 with the unit ".5g"), unknown units and
    values beyond a long, with Flink's texts (the doubled "re re" is Flink's)."""
    with pytest.raises(exception) as info:
        MemorySize.parse(text)
    assert (type(info.value), info.value.message) == (exception, message)


def test_memory_size_multiply_truncates_the_bigdecimal_product() -> None:
    """multiply(0.1f): BigDecimal of Double.toString(0.10000000149011612) times the bytes, truncated."""
    assert MemorySize.parse("1728m").multiply(parse_float("0.1"), parse_version("1.13")).bytes == 181193935


@pytest.mark.parametrize(("version", "exception", "message"), [
    (parse_version("1.13"), "IllegalArgumentException", "multiplier must be >= 0"),
    (parse_version("2.3"), "NumberFormatException",
     'Character N is neither a decimal digit number, decimal point, nor "e" notation exponential mark.'),
])
def test_invalid_multiply_by_nan(version: FlinkVersion, exception: str, message: str) -> None:
    """multiply(NaN): Preconditions reject NaN until 1.19; from 1.20 BigDecimal.valueOf(NaN) throws."""
    with pytest.raises(JavaException) as info:
        MemorySize.parse("1m").multiply(float("nan"), version)
    assert (info.value.simple_name, info.value.message) == (exception, message)


@pytest.mark.parametrize(("version", "message"), [(parse_version("1.13"), "divisor must be >= 0"),
                                                  (parse_version("2.3"), "divisor must be != 0")], ids=str)
def test_invalid_negative_divisor(version: FlinkVersion, message: str) -> None:
    """divide(-1) is rejected; the message changed in 1.20 (the check did not)."""
    with pytest.raises(IllegalArgumentException) as info:
        MemorySize.parse("1b").divide(-1, version)
    assert info.value.message == message


@pytest.mark.parametrize("version", [parse_version("1.13"), parse_version("2.3")], ids=str)
def test_divide_truncates_and_zero_divides_by_zero(version: FlinkVersion) -> None:
    """``bytes / by`` (ldiv, 2.3 jar): 10b / 3 = 3b; ``by >= 0`` lets 0 through to ArithmeticException."""
    assert MemorySize.parse("10b").divide(3, version).bytes == 3
    assert MemorySize.parse("10b").divide(1, version).bytes == 10
    with pytest.raises(ArithmeticException) as info:
        MemorySize.parse("1b").divide(0, version)
    assert info.value.message == "/ by zero"


@pytest.mark.parametrize(("value", "text"), [
    (parse_float("0.1"), "0.10000000149011612"),
    (1.0, "1.0"),
    (1e-5, "1.0E-5"),
    (2.82879384806159e17, "2.82879384806159008E17"),
    (1e23, "9.999999999999999E22"),
])
def test_double_to_string_is_jdk17s(value: float, text: str) -> None:
    """Double.toString of JDK 17, including its non-shortest outputs (JDK-4511638)."""
    assert double_to_string(value) == text


@pytest.mark.parametrize("text", [" 0.1 ", "1e-1", "0.1f", "0x1.99999ap-4"])
def test_parse_float_accepts_java_syntax(text: str) -> None:
    """Float.parseFloat: blanks, exponents, type suffixes and hex floats all give 0.1f."""
    assert parse_float(text) == 0.10000000149011612


@pytest.mark.parametrize("text", ["nan", "inf", "1_0", "", "0x1p", "1e"])
def test_invalid_parse_float_texts(text: str) -> None:
    """Float.parseFloat rejects Python spellings, underscores and incomplete exponents."""
    with pytest.raises(NumberFormatException):
        parse_float(text)
