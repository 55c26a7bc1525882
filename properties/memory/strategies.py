"""Memory configurations that reach the corners where reimplementations go wrong.

A configuration is built by construction, not filtered: first a derivation mode (which of
fine-grained / total Flink / total process keys are set, or none, or all), then sizes drawn near
every boundary where a clamp or a check switches (``boundary / fraction`` and its neighbours,
sums that exactly meet a total), then optional keys, each rendered in any spelling Flink accepts
(every unit, any case, whitespace) or in one it rejects (negative, decimal, unknown unit, past a
long).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from hypothesis import strategies as st

from oracle.memory import TASKMANAGER
from oracle.versions import SUPPORTED, FlinkVersion
from properties.draws import booleans, integers, sampled

KiB, MiB, GiB, TiB = 1 << 10, 1 << 20, 1 << 30, 1 << 40
LONG_MAX = (1 << 63) - 1

UNITS: dict[int, tuple[str, ...]] = {
    1: ("", "b", "bytes"),
    KiB: ("k", "kb", "kibibytes"),
    MiB: ("m", "mb", "mebibytes"),
    GiB: ("g", "gb", "gibibytes"),
    TiB: ("t", "tb", "tebibytes"),
}
ALL_UNIT_SPELLINGS = tuple(u for us in UNITS.values() for u in us if u)

TM = "taskmanager.memory."
JM = "jobmanager.memory."
TM_SIZE_KEYS = tuple(
    TM + k
    for k in (
        "process.size", "flink.size", "framework.heap.size", "framework.off-heap.size", "task.heap.size",
        "task.off-heap.size", "managed.size", "network.min", "network.max", "jvm-metaspace.size",
        "jvm-overhead.min", "jvm-overhead.max",
    )
)
TM_FRACTION_KEYS = (TM + "managed.fraction", TM + "network.fraction", TM + "jvm-overhead.fraction")
TM_DEPRECATED_KEYS = (
    "taskmanager.memory.size",  # managed.size
    "taskmanager.network.memory.min",
    "taskmanager.network.memory.max",
    "taskmanager.network.memory.fraction",
)
TM_LEGACY_KEYS = ("taskmanager.heap.size", "taskmanager.heap.mb", "taskmanager.network.numberOfBuffers")
JM_SIZE_KEYS = tuple(
    JM + k for k in ("process.size", "flink.size", "heap.size", "off-heap.size", "jvm-metaspace.size",
                     "jvm-overhead.min", "jvm-overhead.max")
)
JM_LEGACY_KEYS = ("jobmanager.heap.size", "jobmanager.heap.mb")

# Where clamps and checks switch: default mins/maxes and the defaults themselves.
BOUNDARIES = (32 * KiB, 64 * MiB, 128 * MiB, 192 * MiB, 256 * MiB, GiB)
FRACTIONS = (0.1, 0.4)


def f32(x: float) -> float:
    """A Java float widened to double (what Flink does with every fraction option)."""
    return float(struct.unpack("f", struct.pack("f", x))[0])


def _boundary_sizes() -> list[int]:
    """Totals where ``total * fraction`` lands exactly on (and next to) a boundary."""
    out = set()
    for b in BOUNDARIES:
        for f in FRACTIONS:
            base = int(Decimal(b) / Decimal(repr(f32(f))))
            for d in (-2, -1, 0, 1, 2):
                out.add(base + d)
            inv = int(Decimal(b) / (Decimal(repr(f32(f))) / (1 - Decimal(repr(f32(f))))))
            out.update(inv + d for d in (-1, 0, 1))
        out.update(b + d for d in (-1, 0, 1))
    # process sizes at the "metaspace + overhead exceed" edge and the 1728m / 1600m defaults
    out.update(256 * MiB + 192 * MiB + d for d in (-1, 0, 1))
    out.update((1728 * MiB, 1600 * MiB, 4 * GiB, 16 * GiB))
    return sorted(x for x in out if x >= 0)


BOUNDARY_SIZES = tuple(_boundary_sizes())

sizes = st.one_of(
    st.sampled_from(BOUNDARY_SIZES),
    st.sampled_from(BOUNDARY_SIZES),
    integers(0, 64).map(lambda n: n * 32 * MiB),
    integers(0, 4 * GiB),
    integers(0, 1 << 44),
    st.sampled_from((0, 1, LONG_MAX, LONG_MAX - 1, (8388607 * TiB), 8388608 * TiB - 1)),
)


def spell_size(value: int, style: int) -> str:
    """``value`` bytes in a spelling Flink accepts, chosen by ``style``: 0 is the plainest (bytes,
    no unit); higher styles pick a unit that divides the value, its case, and spaces."""
    units = [m for m in UNITS if value % m == 0 and value // m <= LONG_MAX]
    mult = units[-1 - (style % len(units))] if style else 1
    style //= 8
    spellings = UNITS[mult]
    unit = spellings[style % len(spellings)] if mult > 1 else ("", "b", "bytes")[style % 3]
    style //= 3
    unit = (unit, unit.upper(), unit.capitalize())[style % 3]
    style //= 3
    sep = ("", " ", "", "  ")[style % 4] if unit else ""
    style //= 4
    pad_l, pad_r = ("", " ", "\t", "")[style % 4], ("", "", " ", "\n")[(style // 4) % 4]
    return f"{pad_l}{value // mult}{sep}{unit}{pad_r}"


BAD_SIZES = (
    "", " ", "-1", "-1m", "1.5g", ".5g", "0.5g", "1.0g", "1.5 gb", "128.0m", "2.5t",
    "abc", "m", "1 mib", "12 MiB", "1g1", "1_000", "0x10",
    "9223372036854775808", "99999999999999999999b", "8388608t", "9007199254740992k", "+1m", "1e3",
    "１２m",  # full-width digits: not ASCII
    # punctuation or a no-break space at either end (Java's trim() leaves U+00A0), digits beyond ASCII
    "1m;", ";1m", "$1m", ",1m", "1m,", "#1m", "1m\u00a0", "\u00a01m", "١m",
)

_style = integers(0, 8 * 3 * 3 * 4 * 16 - 1)
good_size_text = st.builds(spell_size, sizes, _style)


def _rarely_bad(good: st.SearchStrategy[str], bad: st.SearchStrategy[str], one_in: int) -> st.SearchStrategy[str]:
    """``good`` mostly, ``bad`` about once in ``one_in`` draws (one_of cannot weight its branches)."""
    return st.builds(lambda g, b, pick: b if pick == one_in - 1 else g, good, bad, integers(0, one_in - 1))


size_text = _rarely_bad(good_size_text, st.sampled_from(BAD_SIZES), 16)
# Totals people configure: 1g ... 64g in whole mebibytes, plus every boundary size above.
def _mostly(usual: st.SearchStrategy[int], corners: st.SearchStrategy[int]) -> st.SearchStrategy[int]:
    """``usual`` three times in four, else ``corners`` (a nested one_of would flatten into equal shares)."""
    return st.builds(lambda u, c, pick: c if pick == 0 else u, usual, corners, integers(0, 3))


total_size_text = st.builds(spell_size, _mostly(integers(1024, 65536).map(lambda m: m * MiB), sizes), _style)
total_text = _rarely_bad(total_size_text, st.sampled_from(BAD_SIZES), 16)
# Parts (task heap, managed ...) people configure: 0 ... 8g in whole mebibytes, or any size above.
part_text = _rarely_bad(
    st.builds(spell_size, _mostly(integers(0, 8192).map(lambda m: m * MiB), sizes), _style),
    st.sampled_from(BAD_SIZES), 16,
)


def _text_for(key: str) -> st.SearchStrategy[str]:
    return total_text if key.endswith(("process.size", "flink.size")) else part_text

fraction_text = st.one_of(
    st.sampled_from(("0", "0.0", "0.1", "0.4", "0.5", "0.99", "0.999999", "1", "1.0", "0.01")),
    st.floats(0, 0.5).map(repr),
    st.sampled_from((" 0.1 ", "1e-1", "0.1f", "0.1d", "NaN", "Infinity", "-0.1", "-0", "1.5", "abc", "", "0,1")),
    # the edges of Float.parseFloat's syntax: a sign, a bare point, a hex float, punctuation, other digits
    st.sampled_from(("+0.1", ".1", "1.", "0x1p-3", "0X1P-2", "0.1;", "$0.1", "\u00a00.1", "٠.١", "1e", ".")),
)

int_text = st.one_of(
    integers(-2, 64).map(str),
    st.sampled_from(("", "abc", "1.5", "2147483648", " 4 ", "-2147483648")),
    # Integer.parseInt reads a sign and any Unicode decimal digit, nothing else
    st.sampled_from(("+4", "04", "-0", "٤", "２", "4;", "$4", " ", "+", "-")),
)
cores_text = st.one_of(
    st.sampled_from(("0", "0.0", "-1", "1", "1.5", "2", "1e-5", "abc", "NaN", "Infinity")),
    st.sampled_from(("", " 1 ", "+2", "0x1p1", "١")),
    st.floats(0.01, 64).map(repr),
)


TM_MODES = {
    "process": ("process.size",),
    "flink": ("flink.size",),
    "fine": ("task.heap.size", "managed.size"),
    "fine+flink": ("task.heap.size", "managed.size", "flink.size"),
    "all": ("task.heap.size", "managed.size", "flink.size", "process.size"),
    "none": (),
    "random": (),
}
JM_MODES = {
    "process": ("process.size",), "flink": ("flink.size",), "heap": ("heap.size",),
    "heap+flink": ("heap.size", "flink.size"), "all": ("heap.size", "flink.size", "process.size"),
    "none": (), "random": (),
}

# Built once: strategies made inside a composite are re-validated on every draw, which is slow.
# mostly a mode that determines the memory; "none" and "random" a fifth of the time
_tm_mode = st.sampled_from(("process", "process", "flink", "flink", "fine", "fine", "fine+flink", "all",
                            "none", "random"))
_jm_mode = st.sampled_from(("process", "process", "flink", "flink", "heap", "heap", "heap+flink", "all",
                            "none", "random"))
_tm_extra = st.lists(st.sampled_from(TM_SIZE_KEYS), unique=True, max_size=8)
_jm_extra = st.lists(st.sampled_from(JM_SIZE_KEYS), unique=True, max_size=7)
_extras_wanted = integers(0, 2).map(lambda n: n == 2)  # a third of the configs set more keys
_tm_fractions = st.lists(st.sampled_from(TM_FRACTION_KEYS), unique=True, max_size=3)
_tm_deprecated = st.lists(st.sampled_from(TM_DEPRECATED_KEYS), unique=True, max_size=2)
_tm_legacy = st.lists(st.sampled_from(TM_LEGACY_KEYS), unique=True, max_size=2)
_jm_legacy = st.lists(st.sampled_from(JM_LEGACY_KEYS), unique=True, max_size=2)
_booleans_text = st.sampled_from(("true", "false", "TRUE", "True", "yes", "1", "", " true", "false ", "tRuE", ";true"))
_rarely = integers(0, 5).map(lambda n: n == 5)  # shrinks towards False: leaves the key out


def _value_for(key: str) -> st.SearchStrategy[str]:
    if key.endswith("fraction"):
        return fraction_text
    if key.endswith(".size") or key.endswith((".min", ".max")):
        return size_text
    return int_text


def _mode_and_extras(draw: st.DrawFn, prefix: str, modes: dict[str, tuple[str, ...]],
                     mode_strategy: st.SearchStrategy[str], extras: st.SearchStrategy[list[str]],
                     random_limit: int) -> dict[str, str]:
    """The keys of a drawn derivation mode, then (always for mode "random", else a third of the
    time) up to a few more size keys of any kind."""
    mode = draw(mode_strategy)
    config = {prefix + k: draw(_text_for(k)) for k in modes[mode]}
    limit = random_limit if mode == "random" else 3
    for k in draw(extras)[:limit] if mode == "random" or draw(_extras_wanted) else ():
        config.setdefault(k, draw(size_text))
    return config


_both_totals = integers(0, 11).map(lambda n: n == 0)


@st.composite
def _consistent_totals(draw: st.DrawFn) -> dict[str, str]:
    """Both totals, consistent: total process = total Flink + the default metaspace (256m) + an overhead within its
    default range [192m, 1g]. Flink accepts and keeps both, so neither may win over the other (TM-4's witness)."""
    flink, overhead = draw(integers(1024, 16384)) * MiB, draw(integers(192, 1024)) * MiB
    return {TM + "flink.size": spell_size(flink, draw(_style)),
            TM + "process.size": spell_size(flink + 256 * MiB + overhead, draw(_style))}


@st.composite
def taskmanager_configs(draw: st.DrawFn, version: FlinkVersion) -> dict[str, str]:
    """A TaskManager memory configuration: a mode first, then everything else optional; one in twelve sets
    both totals, consistently."""
    if draw(_both_totals):
        return draw(_consistent_totals())
    config = _mode_and_extras(draw, TM, TM_MODES, _tm_mode, _tm_extra, 8)
    for k in draw(_tm_fractions) if draw(_extras_wanted) else ():
        config[k] = draw(fraction_text)
    if draw(_rarely):
        for k in draw(_tm_deprecated):
            config[k] = draw(_value_for(k))
    if draw(_rarely):
        for k in draw(_tm_legacy):
            config[k] = draw(_value_for(k))
    if draw(_rarely):
        config["taskmanager.cpu.cores"] = draw(cores_text)
    if draw(_rarely):
        config["taskmanager.numberOfTaskSlots"] = draw(int_text)
    if draw(_rarely):
        config[TM + "segment-size"] = draw(size_text)
    return config


@st.composite
def jobmanager_configs(draw: st.DrawFn, version: FlinkVersion) -> dict[str, str]:
    """A JobManager memory configuration: a mode first, then everything else optional."""
    config = _mode_and_extras(draw, JM, JM_MODES, _jm_mode, _jm_extra, 7)
    if draw(_rarely):
        config[JM + "jvm-overhead.fraction"] = draw(fraction_text)
    if draw(_rarely):
        config[JM + "enable-jvm-direct-memory-limit"] = draw(_booleans_text)
    if draw(_rarely):
        for k in draw(_jm_legacy):
            config[k] = draw(_value_for(k))
    return config


def requests(area: str, version: FlinkVersion) -> st.SearchStrategy[dict[str, Any]]:
    """Protocol requests for one memory area and version."""
    configs = taskmanager_configs(version) if area == TASKMANAGER else jobmanager_configs(version)
    return configs.map(lambda c: {"area": area, "flink": str(version), "input": {"config": c}})


versions = st.sampled_from(SUPPORTED)


# --------------------------------------------------------------------------------------------
# Configurations on the edges of the rules: a size the oracle derives, configured back exactly or one
# byte off (a range's min or max, the sum of the parts as the total, the process size), and the
# segment sizes around Flink's checks. The oracle only aims; the answers recorded are Flink's.

SEGMENT_EDGES = (4095, 4096, 4097, 8192, 12288, 2**30, 2**31 - 1, 2**31, 2**31 + 1, 2**32)
_OFF = st.sampled_from((0, 0, -1, 1))
_TM_PARTS = {"task_heap": "task.heap.size", "managed": "managed.size", "framework_heap": "framework.heap.size",
             "framework_off_heap": "framework.off-heap.size", "task_off_heap": "task.off-heap.size"}
_JM_PARTS = {"heap": "heap.size", "off_heap": "off-heap.size"}


def _derived(area: str, config: dict[str, str], version: FlinkVersion) -> dict[str, Any] | None:
    import oracle

    return oracle.answer({"id": 0, "area": area, "flink": str(version), "input": {"config": config}}).get("output")


def _b(n: int) -> str:
    return f"{max(n, 0)}b"


@st.composite
def _edge_config(draw: st.DrawFn, area: str, version: FlinkVersion) -> dict[str, str]:
    tm = area == TASKMANAGER
    config = draw(taskmanager_configs(version) if tm else jobmanager_configs(version))
    prefix, parts = (TM, _TM_PARTS) if tm else (JM, _JM_PARTS)
    out = _derived(area, config, version)
    aims = ["overhead", "process", "parts"] + (["network", "segment"] if tm else [])
    aim = draw(sampled(aims))
    if aim == "segment" or out is None:
        if tm:  # the segment size is read (and checked) for the legacy network size: buffers x segment
            config[TM + "segment-size"] = _b(draw(sampled(SEGMENT_EDGES)))
            if draw(booleans()):
                for key in [k for k in config if k.startswith(TM + "network.")]:
                    del config[key]
                config["taskmanager.network.numberOfBuffers"] = draw(sampled(("1", "2048", "32768")))
        return config
    off = draw(_OFF)
    if aim == "network":
        ends = draw(sampled([("min",), ("max",), ("min", "max")]))
        for end in ends:
            config[f"{TM}network.{end}"] = _b(out["network"] + (off if end == ends[-1] else 0))
    elif aim == "overhead":
        for end in draw(sampled([("min",), ("max",), ("min", "max")])):
            config[f"{prefix}jvm-overhead.{end}"] = _b(out["jvm_overhead"] + off)
    elif aim == "process":
        config[prefix + "flink.size"] = _b(out["total_flink"])
        config[prefix + "process.size"] = _b(out["total_process"] + off)
    else:  # every part configured, and the total: equal to their sum, or a byte off
        for name, key in parts.items():
            config[prefix + key] = _b(out[name])
        if tm:
            config[TM + "network.min"] = config[TM + "network.max"] = _b(out["network"])
        config[prefix + "flink.size"] = _b(out["total_flink"] + off)
    return config


def edge_requests(area: str) -> Callable[[FlinkVersion], st.SearchStrategy[dict[str, Any]]]:
    """Requests of ``area`` on the edges of its rules (see above), per version."""
    return lambda version: _edge_config(area, version).map(
        lambda c: {"area": area, "flink": str(version), "input": {"config": c}})
