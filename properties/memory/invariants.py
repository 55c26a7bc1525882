"""The documented memory rules, as checks on any implementation's own answers.

Sources: Flink's documentation "Set up TaskManager/JobManager Memory", a seed article that walks
through the TaskManager memory model and the code deriving it (components, what adds up to what,
which options are explicit, how fractions derive sizes and clamp), and the Javadoc of
``TaskExecutorProcessUtils`` / ``JobManagerProcessUtils``.
These checks parse sizes with their own small parser, never with the oracle's.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from oracle.memory import JOBMANAGER, TASKMANAGER
from oracle.memory_jm import JM_LEGACY_REMOVED
from oracle.memory_options import LEGACY_REMOVED
from oracle.versions import FlinkVersion, v
from properties.memory.strategies import JM, LONG_MAX, TM, UNITS, f32
from properties.rules import Request, Response, RuleBook, Violation

BOOK = RuleBook()  # the rules this module declares, named by its areas' declarations

_SIZE = re.compile(r"^\s*([0-9]+)\s*([a-zA-Z]*)\s*$")
_MULT = {u: m for m, us in UNITS.items() for u in us}
TM_PARTS = ("framework_heap", "task_heap", "framework_off_heap", "task_off_heap", "network", "managed")
TM_KEYS = (*TM_PARTS, "jvm_metaspace", "jvm_overhead", "total_flink", "total_process", "jvm_args")
JM_KEYS = ("heap", "off_heap", "jvm_metaspace", "jvm_overhead", "total_flink", "total_process", "jvm_args")

ART = "seed article on TaskManager memory"
TM_EQ = BOOK.differential(TASKMANAGER, "TM")
JM_EQ = BOOK.differential(JOBMANAGER, "JM")


def size_of(text: str | None) -> int | None:
    """A size Flink certainly parses (plain digits, a known unit), in bytes; None otherwise."""
    if text is None:
        return None
    m = _SIZE.match(text)
    if not m or not m.group(1).isascii() or m.group(2).lower() not in _MULT:
        return None
    value = int(m.group(1)) * _MULT[m.group(2).lower()]
    return value if value <= LONG_MAX else None


def fraction_of(text: str | None) -> float | None:
    """A fraction Flink certainly parses the same way (a plain decimal in [0, 1))."""
    if text is None or not re.fullmatch(r"[0-9]+(\.[0-9]+)?", text):
        return None
    x = f32(float(text))
    return x if 0 <= x < 1 else None


def _config(req: Request) -> dict[str, str]:
    return dict(req["input"]["config"])


def _refused(resp: Response) -> bool:
    """Any error answer is a refusal, whatever its type or shape, even next to an output."""
    return resp.get("error") is not None


def _accepted(resp: Response) -> bool:
    """The answer accepts the configuration: an output and no error."""
    return "output" in resp and not _refused(resp)


def _out(resp: Response) -> dict[str, Any] | None:
    """The output of an acceptance, if it is an object."""
    out = resp.get("output")
    return out if _accepted(resp) and isinstance(out, dict) else None


def _long(x: object) -> bool:
    """A JSON integer (a bool is not one, though Python's ``True == 1``)."""
    return type(x) is int


def _shape(out: dict[str, Any], keys: tuple[str, ...], jvm: set[str], optional: set[str]) -> list[str]:
    problems = [f"missing {k}" for k in keys if k not in out]
    problems += [f"unexpected key {k}" for k in out if k not in keys]
    for k in keys:
        val = out.get(k)
        if k == "jvm_args":
            if not isinstance(val, dict):
                problems.append("jvm_args is not an object")
                continue
            problems += [f"jvm_args lacks {a}" for a in jvm - optional if a not in val]
            problems += [f"jvm_args has unexpected {a}" for a in val if a not in jvm]
            vals = list(val.values())
        else:
            vals = [val]
        for x in vals:
            if not _long(x) or not 0 <= x <= LONG_MAX:
                problems.append(f"{k} = {x!r} is not a byte count in [0, 2^63-1]")
    return problems


TM_JVM = {"Xmx", "Xms", "MaxDirectMemorySize", "MaxMetaspaceSize"}


@BOOK.invariant("TM-1", TASKMANAGER, "An accepted configuration yields every component as a "
           "non-negative byte count, and the JVM arguments -Xmx, -Xms, -XX:MaxDirectMemorySize and "
           "-XX:MaxMetaspaceSize.", "docs/protocol/v1.md; TaskExecutorProcessSpec")
def tm_output_shape(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    if not _accepted(resp):
        return []
    out = resp["output"]
    if not isinstance(out, dict):
        return [Violation("TM-1", f"the output {str(out)[:100]} is not an object")]
    return [Violation("TM-1", p) for p in _shape(out, TM_KEYS, TM_JVM, set())][:1]


def _ints(out: dict[str, Any], keys: tuple[str, ...]) -> bool:
    return all(_long(out.get(k)) for k in keys)


@BOOK.invariant("TM-2", TASKMANAGER, "Total Flink memory is the sum of framework heap, task heap, "
           "framework off-heap, task off-heap, network and managed memory; total process memory is total "
           "Flink memory plus JVM metaspace plus JVM overhead.", f"{ART}: 'network buffer memory = total flink memory "
           "- framework heap/off-heap memory - task heap/off-heap memory - managed memory', 'totalFlinkMemorySize = "
           "totalProcessMemorySize - jvmMetaspaceAndOverhead'; Flink docs 'memory model'")
def tm_components_add_up(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _out(resp)
    if out is None or not _ints(out, TM_KEYS[:-1]):
        return []
    bad = []
    parts = sum(out[k] for k in TM_PARTS)
    if parts != out["total_flink"]:
        bad.append(Violation("TM-2", f"components sum to {parts}, total_flink is {out['total_flink']}"))
    proc = out["total_flink"] + out["jvm_metaspace"] + out["jvm_overhead"]
    if proc != out["total_process"]:
        bad.append(Violation("TM-2", f"total_flink + metaspace + overhead = {proc}, "
                                     f"total_process is {out['total_process']}"))
    return bad


@BOOK.invariant("TM-3", TASKMANAGER, "-Xmx and -Xms equal framework heap plus task heap; "
           "-XX:MaxDirectMemorySize equals framework off-heap plus task off-heap plus network; "
           "-XX:MaxMetaspaceSize equals JVM metaspace. Managed memory and JVM overhead are in no flag.",
           f"{ART} (translated): 'task off-heap, framework off-heap and network memory all belong to direct memory'; "
           "'jvm overhead and managed memory are not controlled by the JVM at all'; "
           "ProcessMemoryUtils.generateJvmParametersStr")
def tm_jvm_args(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _out(resp)
    if out is None or not _ints(out, TM_KEYS[:-1]) or not isinstance(out.get("jvm_args"), dict):
        return []
    jvm = out["jvm_args"]
    want = {
        "Xmx": out["framework_heap"] + out["task_heap"],
        "Xms": out["framework_heap"] + out["task_heap"],
        "MaxDirectMemorySize": out["framework_off_heap"] + out["task_off_heap"] + out["network"],
        "MaxMetaspaceSize": out["jvm_metaspace"],
    }
    return [Violation("TM-3", f"{k} = {jvm[k]}, expected {w}") for k, w in want.items()
            if _long(jvm.get(k)) and jvm[k] != w][:1]


TM_EXPLICIT = {
    "framework.heap.size": "framework_heap", "framework.off-heap.size": "framework_off_heap",
    "task.off-heap.size": "task_off_heap", "jvm-metaspace.size": "jvm_metaspace",
    "task.heap.size": "task_heap", "managed.size": "managed",
    "flink.size": "total_flink", "process.size": "total_process",
}


@BOOK.invariant("TM-4", TASKMANAGER, "A size that is configured explicitly (framework heap and "
           "off-heap, task heap and off-heap, managed, metaspace, total Flink, total process) is used "
           "exactly as configured when the configuration is accepted.", f"{ART} (translated): 'when both [size and "
           "fraction] are specified, the size takes priority'; 'you get as much as is configured'; Flink docs")
def tm_explicit_sizes_honoured(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out, cfg = _out(resp), _config(req)
    if out is None:
        return []
    bad = []
    for key, part in TM_EXPLICIT.items():
        configured = size_of(cfg.get(TM + key))
        if key == "managed.size" and TM + key not in cfg:
            configured = size_of(cfg.get("taskmanager.memory.size"))  # deprecated key of managed.size
        if configured is not None and _long(out.get(part)) and out[part] != configured:
            bad.append(Violation("TM-4", f"{TM + key} is configured as {configured} bytes but {part} = {out[part]}"))
    return bad[:1]


def _clamp(value: int, lo: int, hi: int) -> int:
    return hi if value > hi else lo if value < lo else value


def _mul(base: int, fraction: float) -> int:
    return int(Decimal(base) * Decimal(repr(fraction)))


NETWORK_MAX_DEFAULT = {v("1.13"): 1 << 30, v("1.17"): LONG_MAX}


def _network_range(cfg: dict[str, str], version: FlinkVersion) -> tuple[int, int] | None:
    from oracle.versions import pick

    lo = cfg.get(TM + "network.min", cfg.get("taskmanager.network.memory.min"))
    hi = cfg.get(TM + "network.max", cfg.get("taskmanager.network.memory.max"))
    lo_b = 64 << 20 if lo is None else size_of(lo)
    hi_b = pick(NETWORK_MAX_DEFAULT, version) if hi is None else size_of(hi)
    return None if lo_b is None or hi_b is None else (lo_b, hi_b)


def _legacy_network(cfg: dict[str, str], version: FlinkVersion) -> bool:
    net_keys = (TM + "network.min", TM + "network.max", TM + "network.fraction", "taskmanager.network.memory.min",
                "taskmanager.network.memory.max", "taskmanager.network.memory.fraction")
    return (LEGACY_REMOVED.before(version) and "taskmanager.network.numberOfBuffers" in cfg
            and not any(k in cfg for k in net_keys))


@BOOK.invariant("TM-5", TASKMANAGER, "Network memory lies within [network.min, network.max] "
           "(defaults 64m and 1g up to Flink 1.16, 64m and unlimited from 1.17), unless the legacy "
           "number of network buffers sets it.", f"{ART} (translated): 'check whether network buffer memory "
           "lies between taskmanager.memory.network.min and taskmanager.memory.network.max'; Flink docs; "
           "FLINK-30472 (1.17 default, FLIP-266)")
def tm_network_in_range(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out, cfg = _out(resp), _config(req)
    if out is None or not _long(out.get("network")) or _legacy_network(cfg, version):
        return []
    rng = _network_range(cfg, version)
    if rng is None or rng[0] <= out["network"] <= rng[1]:
        return []
    return [Violation("TM-5", f"network = {out['network']} is outside [{rng[0]}, {rng[1]}]")]


def _network_fraction(cfg: dict[str, str]) -> float | None:
    """The network fraction (its deprecated key as fallback, default 0.1), if Flink certainly reads it so."""
    return fraction_of(cfg.get(TM + "network.fraction", cfg.get("taskmanager.network.memory.fraction", "0.1")))


@BOOK.invariant("TM-12", TASKMANAGER, "When the task heap is not configured (so the network fraction is not "
           "ignored), network memory is total Flink memory times the network fraction (a Java float), truncated, "
           "then clamped to [network.min, network.max] (defaults 64m and 1g up to Flink 1.16, 64m and "
           "Long.MAX_VALUE from 1.17), unless the legacy number of network buffers sets it.",
           "Flink docs, Set up Flink's Process Memory, Capped Fractionated Components: 'If you do not explicitly "
           "configure the component memory, then Flink will use the fraction to calculate the memory size based on "
           "the total memory. The calculated value is capped by its corresponding min/max options' ('the fraction is "
           "ignored if the sizes of the total memory and its other components are defined'); "
           "taskmanager.memory.network.max: 'Network Memory size is derived to make up the configured fraction of "
           "the Total Flink Memory. If the derived size is less/greater than the configured min/max size, the "
           "min/max size will be used. By default, the max limit of Network Memory is Long.MAX_VALUE' (1.17+; "
           "'1 gb' before); " f"{ART} (translated): 'compute network buffer memory with the same logic "
           "as managed memory, the only difference being that the network fraction defaults to 0.1'")
def tm_network_fraction(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out, cfg = _out(resp), _config(req)
    if (out is None or TM + "task.heap.size" in cfg or _legacy_network(cfg, version)
            or not _ints(out, ("network", "total_flink"))):
        return []
    rng, frac = _network_range(cfg, version), _network_fraction(cfg)
    if rng is None or frac is None or rng[0] > rng[1]:
        return []
    want = _clamp(_mul(out["total_flink"], frac), *rng)
    if out["network"] != want:
        return [Violation("TM-12", f"network = {out['network']}, but clamp(trunc({out['total_flink']} x {frac}), "
                                   f"{rng[0]}, {rng[1]}) = {want}")]
    return []


def _overhead_range(cfg: dict[str, str], prefix: str) -> tuple[int, int] | None:
    lo, hi = cfg.get(prefix + "jvm-overhead.min"), cfg.get(prefix + "jvm-overhead.max")
    lo_b = 192 << 20 if lo is None else size_of(lo)
    hi_b = 1 << 30 if hi is None else size_of(hi)
    return None if lo_b is None or hi_b is None else (lo_b, hi_b)


def _overhead_check(rule: str, prefix: str, req: Request, resp: Response, only_process: bool) -> list[Violation]:
    out, cfg = _out(resp), _config(req)
    if out is None or not _long(out.get("jvm_overhead")):
        return []
    rng = _overhead_range(cfg, prefix)
    if rng is None:
        return []
    if not rng[0] <= out["jvm_overhead"] <= rng[1]:
        return [Violation(rule, f"jvm_overhead = {out['jvm_overhead']} is outside [{rng[0]}, {rng[1]}]")]
    tp = size_of(cfg.get(prefix + "process.size"))
    frac_text = cfg.get(prefix + "jvm-overhead.fraction", "0.1")
    frac = fraction_of(frac_text)
    if only_process and tp is not None and frac is not None:
        want = _clamp(_mul(tp, frac), *rng)
        if out["jvm_overhead"] != want:
            return [Violation(rule, f"with only the process size set, jvm_overhead = {out['jvm_overhead']}, "
                                    f"but clamp(trunc({tp} x {frac}), {rng[0]}, {rng[1]}) = {want}")]
    return []


def _tm_mode_process_only(cfg: dict[str, str]) -> bool:
    fine = TM + "task.heap.size" in cfg and (TM + "managed.size" in cfg or "taskmanager.memory.size" in cfg)
    legacy_heap = any(k in cfg for k in ("taskmanager.heap.size", "taskmanager.heap.mb"))
    return not fine and TM + "flink.size" not in cfg and not legacy_heap


@BOOK.invariant("TM-6", TASKMANAGER, "JVM overhead lies within [jvm-overhead.min, jvm-overhead.max]; "
           "when only the total process size is configured it is the process size times the overhead "
           "fraction (a Java float), truncated, then clamped to that range.", f"{ART} (translated): 'JVM overhead ... "
           "is a capped fractionated part of the total process memory'; Flink docs")
def tm_overhead_rule(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    return _overhead_check("TM-6", TM, req, resp, _tm_mode_process_only(_config(req)))


@BOOK.invariant("TM-7", TASKMANAGER, "Managed memory that is not configured explicitly is total "
           "Flink memory times the managed fraction (a Java float), truncated.", f"{ART} (translated): "
           "'if [managed.size] is not set, use taskmanager.memory.managed.fraction (default 0.4): total flink memory * "
           "taskmanager.memory.managed.fraction'; Flink docs")
def tm_managed_fraction(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out, cfg = _out(resp), _config(req)
    if out is None or any(k in cfg for k in (TM + "managed.size", "taskmanager.memory.size")):
        return []
    frac = fraction_of(cfg.get(TM + "managed.fraction", "0.4"))
    if frac is None or not _ints(out, ("managed", "total_flink")):
        return []
    want = _mul(out["total_flink"], frac)
    if out["managed"] != want:
        return [Violation("TM-7", f"managed = {out['managed']}, but trunc({out['total_flink']} x {frac}) = {want}")]
    return []


@BOOK.invariant("TM-8", TASKMANAGER, "A configuration that sets neither task heap and managed memory "
           "together, nor total Flink memory, nor total process memory (nor, up to 1.20, a legacy heap "
           "size) is rejected: the memory is under-determined.", f"{ART}: after the three derivation modes, 'return "
           "failBecauseRequiredOptionsNotConfigured();'; TaskExecutorProcessUtils")
def tm_underdetermined_rejected(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    cfg = _config(req)
    legacy = LEGACY_REMOVED.before(version) and any(k in cfg for k in ("taskmanager.heap.size", "taskmanager.heap.mb"))
    fine = TM + "task.heap.size" in cfg and (TM + "managed.size" in cfg or "taskmanager.memory.size" in cfg)
    if fine or legacy or TM + "flink.size" in cfg or TM + "process.size" in cfg or not _accepted(resp):
        return []
    return [Violation("TM-8", "no total or fine-grained size is configured, yet the configuration was accepted")]


@BOOK.invariant("TM-9", TASKMANAGER, "A configuration whose network or JVM-overhead min exceeds its "
           "max, or whose network or overhead fraction is outside [0, 1), is rejected.",
           f"{ART} (translated): network and JVM overhead memory are each 'a capped fractionated part' of total Flink "
           "and total process memory; RangeFraction")
def tm_inconsistent_range_rejected(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    cfg = _config(req)
    if not _accepted(resp) or _legacy_network(cfg, version):
        return []
    net, ovh = _network_range(cfg, version), _overhead_range(cfg, TM)
    if net is not None and net[0] > net[1]:
        return [Violation("TM-9", f"network min {net[0]} > max {net[1]}, yet the configuration was accepted")]
    if ovh is not None and ovh[0] > ovh[1]:
        return [Violation("TM-9", f"jvm-overhead min {ovh[0]} > max {ovh[1]}, yet the configuration was accepted")]
    for key in (TM + "network.fraction", TM + "jvm-overhead.fraction"):
        text = cfg.get(key)
        if text is not None and re.fullmatch(r"[0-9]+(\.[0-9]+)?", text) and f32(float(text)) >= 1:
            return [Violation("TM-9", f"{key} = {text} is not below 1, yet the configuration was accepted")]
    return []


@BOOK.invariant("TM-10", TASKMANAGER, "A rejection is one of the exceptions Flink's memory code throws: "
           "IllegalConfigurationException, IllegalArgumentException or its NumberFormatException (a value that "
           "does not parse) or "
           "ArithmeticException (a sum past 2^63-1, which Flink does not check first).", "TaskExecutorProcessUtils",
           documented=False, wording=True)
def tm_rejection_kind(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    return _rejection_kind("TM-10", resp)


def _rejection_kind(rule: str, resp: Response) -> list[Violation]:
    err = resp.get("error")
    if not isinstance(err, dict) or err.get("type") != "InvalidConfiguration":
        return []
    if err.get("exception") not in ("IllegalConfigurationException", "IllegalArgumentException",
                                    "NumberFormatException", "ArithmeticException"):
        return [Violation(rule, f"rejected with {err.get('exception')!r}")]
    if not isinstance(err.get("message"), str) or not err["message"]:
        return [Violation(rule, "a rejection carries no message")]
    return []


# ---- JobManager ----

JM_JVM = {"Xmx", "Xms", "MaxMetaspaceSize", "MaxDirectMemorySize"}


@BOOK.invariant("JM-1", JOBMANAGER, "An accepted configuration yields every component as a "
           "non-negative byte count and the JVM arguments; -XX:MaxDirectMemorySize appears exactly when "
           "jobmanager.memory.enable-jvm-direct-memory-limit is true.", "docs/protocol/v1.md; JobManagerProcessUtils")
def jm_output_shape(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    if not _accepted(resp):
        return []
    out = resp["output"]
    if not isinstance(out, dict):
        return [Violation("JM-1", f"the output {str(out)[:100]} is not an object")]
    problems = _shape(out, JM_KEYS, JM_JVM, {"MaxDirectMemorySize"})
    jvm = out.get("jvm_args")
    cfg_text = _config(req).get(JM + "enable-jvm-direct-memory-limit", "false").strip().lower()
    limited = cfg_text == "true"
    if isinstance(jvm, dict) and cfg_text in ("true", "false") and ("MaxDirectMemorySize" in jvm) != limited:
        problems.append("MaxDirectMemorySize present/absent contrary to enable-jvm-direct-memory-limit")
    return [Violation("JM-1", p) for p in problems][:1]


@BOOK.invariant("JM-2", JOBMANAGER, "Total Flink memory is JVM heap plus off-heap memory; total process "
           "memory adds JVM metaspace and overhead; -Xmx = -Xms = heap, MaxMetaspaceSize = metaspace, "
           "MaxDirectMemorySize (when set) = off-heap.", "Flink docs 'Set up JobManager Memory'")
def jm_components_add_up(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _out(resp)
    if out is None or not _ints(out, JM_KEYS[:-1]) or not isinstance(out.get("jvm_args"), dict):
        return []
    jvm = out["jvm_args"]
    checks = [
        ("total_flink", out["heap"] + out["off_heap"], out["total_flink"]),
        ("total_process", out["total_flink"] + out["jvm_metaspace"] + out["jvm_overhead"], out["total_process"]),
        ("Xmx", out["heap"], jvm.get("Xmx")), ("Xms", out["heap"], jvm.get("Xms")),
        ("MaxMetaspaceSize", out["jvm_metaspace"], jvm.get("MaxMetaspaceSize")),
    ]
    if "MaxDirectMemorySize" in jvm:
        checks.append(("MaxDirectMemorySize", out["off_heap"], jvm["MaxDirectMemorySize"]))
    return [Violation("JM-2", f"{name} = {got}, expected {want}") for name, want, got in checks
            if _long(got) and want != got][:1]


JM_EXPLICIT = {"heap.size": "heap", "jvm-metaspace.size": "jvm_metaspace", "flink.size": "total_flink",
               "process.size": "total_process"}


@BOOK.invariant("JM-3", JOBMANAGER, "An explicitly configured JVM heap, metaspace, total Flink or total "
           "process size is used exactly as configured when the configuration is accepted.", "Flink docs")
def jm_explicit_sizes_honoured(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out, cfg = _out(resp), _config(req)
    if out is None:
        return []
    for key, part in JM_EXPLICIT.items():
        configured = size_of(cfg.get(JM + key))
        if configured is not None and _long(out.get(part)) and out[part] != configured:
            return [Violation("JM-3", f"{JM + key} is configured as {configured} bytes but {part} = {out[part]}")]
    return []


@BOOK.invariant("JM-4", JOBMANAGER, "JVM overhead lies within [jvm-overhead.min, jvm-overhead.max]; "
           "with only the process size configured it is trunc(process x fraction) clamped to that range.",
           "Flink docs 'Set up JobManager Memory'")
def jm_overhead_rule(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    cfg = _config(req)
    legacy = JM_LEGACY_REMOVED.before(version) and any(k in cfg for k in ("jobmanager.heap.size", "jobmanager.heap.mb"))
    only_process = JM + "heap.size" not in cfg and JM + "flink.size" not in cfg and not legacy
    return _overhead_check("JM-4", JM, req, resp, only_process)


@BOOK.invariant("JM-5", JOBMANAGER, "A configuration that sets none of JVM heap, total Flink memory and "
           "total process memory (nor, up to 1.20, a legacy heap size) is rejected.", "JobManagerProcessUtils")
def jm_underdetermined_rejected(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    cfg = _config(req)
    legacy = JM_LEGACY_REMOVED.before(version) and any(k in cfg for k in ("jobmanager.heap.size", "jobmanager.heap.mb"))
    if legacy or any(JM + k in cfg for k in ("heap.size", "flink.size", "process.size")) or not _accepted(resp):
        return []
    return [Violation("JM-5", "no heap, total Flink or total process size is configured, yet it was accepted")]


@BOOK.invariant("JM-6", JOBMANAGER, "A rejection is one of the exceptions Flink's memory code throws: "
           "IllegalConfigurationException, IllegalArgumentException or its NumberFormatException (a value that "
           "does not parse) or "
           "ArithmeticException (a sum past 2^63-1, which Flink does not check first).", "JobManagerProcessUtils",
           documented=False, wording=True)
def jm_rejection_kind(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    return _rejection_kind("JM-6", resp)


# ---- both: unit spelling ----

_JAVA_TRIM = "".join(map(chr, range(33)))


def documented_size(text: object) -> int | None:
    """A size in the documented syntax, in bytes: ASCII digits, optional blanks, a unit of the documented
    list in any letter case ('Memory units are case-insensitive'), trimmed as Java trims; None otherwise."""
    if not isinstance(text, str):
        return None
    m = re.fullmatch(r"([0-9]+)[\x00-\x20]*([a-zA-Z]*)", text.strip(_JAVA_TRIM))
    if not m or m.group(2).lower() not in _MULT:
        return None
    value = int(m.group(1)) * _MULT[m.group(2).lower()]
    return value if value <= LONG_MAX else None


def lower_case_units(req: Request, resp: Response, version: FlinkVersion) -> dict[str, Any] | None:
    """The twin of a rejected configuration: every size of the documented syntax whose unit has an
    upper-case letter written with its unit in lower case (None: nothing to respell, or accepted)."""
    if not isinstance(resp.get("error"), dict):
        return None
    config = _config(req)
    respelled = {k: v.lower() if documented_size(v) is not None else v for k, v in config.items()}
    return None if respelled == config else {**req["input"], "config": respelled}


def _unit_case_rule(rule: str, req: Request, resp: Response, twin: Request, twin_resp: Response) -> list[Violation]:
    if isinstance(resp.get("error"), dict) and "output" in twin_resp and not isinstance(twin_resp.get("error"), dict):
        changed = {k: v for k, v in _config(req).items() if _config(twin).get(k) != v}
        return [Violation(rule, f"rejected, yet accepted with the units written in lower case: "
                                f"{', '.join(f'{k} = {v!r}' for k, v in changed.items())} "
                                "(memory units are case-insensitive)")]
    return []


_UNIT_CASE_TEXT = ("A memory size in the documented syntax (digits, then a unit b/bytes, k/kb/kibibytes, "
                   "m/mb/mebibytes, g/gb/gibibytes, t/tb/tebibytes in any letter case, e.g. 4G, 512MB) reads the "
                   "same whatever the letter case of its unit: a configuration is not rejected when the same "
                   "configuration with its units written in lower case is accepted.")
_UNIT_CASE_SOURCE = ("MemorySize.MemoryUnit Javadoc (the size suffixes 1b or 1bytes, 1k or 1kb or 1kibibytes, "
                     "1m or 1mb or 1mebibytes, 1g or 1gb or 1gibibytes, 1t or 1tb or 1tebibytes); Flink documents "
                     "the units as case-insensitive (MemorySize.parse: toLowerCase(Locale.US)); issue 18")


@BOOK.metamorphic("TM-11", TASKMANAGER, _UNIT_CASE_TEXT, _UNIT_CASE_SOURCE, twin=lower_case_units)
def tm_unit_case(req: Request, resp: Response, twin: Request, twin_resp: Response,
                 version: FlinkVersion) -> list[Violation]:
    return _unit_case_rule("TM-11", req, resp, twin, twin_resp)


@BOOK.metamorphic("JM-7", JOBMANAGER, _UNIT_CASE_TEXT, _UNIT_CASE_SOURCE, twin=lower_case_units)
def jm_unit_case(req: Request, resp: Response, twin: Request, twin_resp: Response,
                 version: FlinkVersion) -> list[Violation]:
    return _unit_case_rule("JM-7", req, resp, twin, twin_resp)
