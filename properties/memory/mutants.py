"""Memory mutants: bugs a reimplementation of Flink's memory derivation plausibly has."""

from __future__ import annotations

import re

from oracle.memory import JOBMANAGER, TASKMANAGER
from oracle.memory_options import NETWORK_MAX_CHANGE
from properties.mutant import PR, Mutant, Request, Response, historical, with_config

MUTANTS: list[Mutant] = []  # this module's mutants, in the order flinkspec mutants lists them

TM, JM = "taskmanager.memory.", "jobmanager.memory."
_SIZE = re.compile(r"^\s*([0-9]+)\s*([a-zA-Z]*)\s*$")
_SI = {"k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6, "g": 10**9, "gb": 10**9, "t": 10**12, "tb": 10**12}


def _map_values(request: Request, fn: object) -> Request:
    cfg = request["input"].get("config", {})
    return with_config(request, {k: fn(k, val) for k, val in cfg.items()})  # type: ignore[operator]


def _si_units(key: str, value: str) -> str:
    m = _SIZE.match(value)
    if not key.endswith((".size", ".min", ".max")) or not m or m.group(2).lower() not in _SI:
        return value
    return str(int(m.group(1)) * _SI[m.group(2).lower()])


MUTANTS.append(Mutant(
    "memory-si-units", TASKMANAGER,
    "reads 'm', 'g' ... as powers of ten (1m = 10^6 bytes) instead of Flink's binary units",
    before=lambda r: _map_values(r, _si_units),
))


def _old_network_default(request: Request) -> Request:
    cfg = dict(request["input"].get("config", {}))
    if not any(k in cfg for k in (TM + "network.max", "taskmanager.network.memory.max")):
        cfg[TM + "network.max"] = "1g"
    return with_config(request, cfg)


MUTANTS.append(Mutant(
    "memory-network-max-1g", TASKMANAGER,
    "keeps the pre-1.17 default taskmanager.memory.network.max = 1g in every version",
    before=_old_network_default,
))


def _process_wins(request: Request) -> Request:
    cfg = dict(request["input"].get("config", {}))
    if TM + "process.size" in cfg:
        cfg.pop(TM + "flink.size", None)
    return with_config(request, cfg)


MUTANTS.append(Mutant(
    "memory-process-size-first", TASKMANAGER,
    "gives total process memory priority over total Flink memory when both are set",
    before=_process_wins,
))


def _unclamped_overhead(request: Request) -> Request:
    cfg = dict(request["input"].get("config", {}))
    cfg.setdefault(TM + "jvm-overhead.min", "0")
    cfg.setdefault(TM + "jvm-overhead.max", "8388607t")
    return with_config(request, cfg)


MUTANTS.append(Mutant(
    "memory-overhead-unclamped", TASKMANAGER,
    "derives JVM overhead from its fraction without clamping it to the default [192m, 1g] range",
    before=_unclamped_overhead,
))


def _decimal_sizes(key: str, value: str) -> str:
    m = re.fullmatch(r"\s*([0-9]+\.[0-9]+)\s*([a-zA-Z]+)\s*", value)
    if not m:
        return value
    mult = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}.get(m.group(2).lower()[:1])
    return str(int(float(m.group(1)) * mult)) if mult else value


MUTANTS.append(Mutant(
    "memory-lenient-decimal", TASKMANAGER,
    "accepts decimal sizes such as '1.5g' that Flink's MemorySize rejects",
    before=lambda r: _map_values(r, _decimal_sizes),
    undocumented="Flink documents a memory size as a number with an optional unit (MemorySize Javadoc: 'If "
    "the expression is a pure number, the value will be interpreted as bytes'; the units 1b ... 1tb of "
    "MemoryUnit) and writes whole numbers in its examples, but no document says that a fractional number "
    "such as '1.5g' is rejected: only MemorySize.parseBytes decides (it reads the leading digits, then "
    "fails on the unit '.5g').",
))


def _direct_always(request: Request, response: Response) -> Response:
    out = response.get("output")
    if isinstance(out, dict) and "MaxDirectMemorySize" not in out["jvm_args"]:
        out = {**out, "jvm_args": {**out["jvm_args"], "MaxDirectMemorySize": out["off_heap"]}}
        return {**response, "output": out}
    return response


MUTANTS.append(Mutant(
    "jm-direct-limit-always", JOBMANAGER,
    "always sets -XX:MaxDirectMemorySize for the JobManager, though Flink sets it only when "
    "jobmanager.memory.enable-jvm-direct-memory-limit is true",
    after=_direct_always,
))


def _jm_heap_includes_offheap(request: Request, response: Response) -> Response:
    out = response.get("output")
    if isinstance(out, dict):
        heap = out["heap"] + out["off_heap"]
        out = {**out, "jvm_args": {**out["jvm_args"], "Xmx": heap, "Xms": heap}}
        return {**response, "output": out}
    return response


MUTANTS.append(Mutant(
    "jm-xmx-total-flink", JOBMANAGER,
    "sets the JobManager's -Xmx/-Xms to total Flink memory (heap + off-heap) instead of the heap",
    after=_jm_heap_includes_offheap,
))


# ---- historical mutants (:func:`properties.mutant.historical`) -----------------------------------


MUTANTS.append(historical(
    NETWORK_MAX_CHANGE, TASKMANAGER,
    "taskmanager.memory.network.max defaults to 1g (a default change of FLIP-266, not a bug fix): "
    "large TaskManagers derive at most 1g of network memory.",
    f"{PR}21618 (Flink 1.17.0)", "1.10-1.16", before=_old_network_default))
