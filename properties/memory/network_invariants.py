"""The documented network-buffer rules, as checks on any implementation's own answers.

Sources: Flink's documentation "Set up TaskManager Memory" (the network memory is split into buffers of
``taskmanager.memory.segment-size``), "Network memory tuning guide" (a result partition needs at least one buffer
per subpartition plus one; its pool is bounded by ``buffers-per-channel * subpartitions +
floating-buffers-per-gate``; a task fails with "Insufficient number of network buffers" when its pools' required
buffers exceed the TaskManager's; an input gate's channels have buffers-per-channel exclusive buffers each and the
gate floating-buffers-per-gate shared ones: "#buffers per channel * channels + floating buffers per gate"), the
description of ``taskmanager.network.sort-shuffle.min-buffers`` ("Minimum
number of network buffers required per blocking result partition for sort-shuffle") and the protocol page
docs/protocol/memory-network.md for the answer's shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from oracle.javanum import INT_MAX
from oracle.memory_network import BLOCKING, BOUNDED, FLOATING_AT_LEAST_ONE, GATE_SPEC, NETWORK
from oracle.versions import FlinkVersion
from properties.rules import Request, Response, RuleBook, Violation

BOOK = RuleBook()  # the rules this module declares, named by the area's declaration
BOOK.differential(NETWORK, "MNB")

TUNING = "docs/deployment/memory/network_mem_tuning.md"
SETUP = "docs/deployment/memory/mem_setup_tm.md"
FIELDS = ("network_memory", "buffer_size", "network_buffers", "required", "available")
GATE_FIELDS = ("floating_min", "floating_max", "exclusive_per_channel", "exclusive")


def _input(req: Request) -> Mapping[str, Any]:
    inp: Mapping[str, Any] = req.get("input", {})
    return inp


def _int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shape_problem(out: Mapping[str, Any], inp: Mapping[str, Any]) -> str | None:
    if not all(_int(out.get(k)) for k in FIELDS):
        return f"{', '.join(FIELDS)} must be integers"
    pools = out.get("partitions")
    if not isinstance(pools, list) or len(pools) != len(inp.get("partitions") or []):
        return "partitions must have one pool per result partition"
    if not all(isinstance(p, Mapping) and _int(p.get("min")) and _int(p.get("max")) for p in pools):
        return "a pool must have integer min and max"
    if inp.get("gates"):
        gates = out.get("gates")
        if not isinstance(gates, list) or len(gates) != len(inp["gates"]):
            return "gates must have one entry per input gate"
        if not all(isinstance(g, Mapping) and all(_int(g.get(k)) for k in GATE_FIELDS) for g in gates):
            return f"a gate must have integer {', '.join(GATE_FIELDS)}"
    return None


def _output(req: Request, resp: Response) -> Mapping[str, Any] | None:
    """The answer's output if it has the documented shape (MNB-1 judges the shape)."""
    if "output" not in resp or resp.get("error") is not None or not isinstance(resp["output"], Mapping):
        return None
    out: Mapping[str, Any] = resp["output"]
    return None if _shape_problem(out, _input(req)) else out


def _documented_buffers(req: Request, version: FlinkVersion) -> tuple[int, int] | None:
    """The buffers per channel and floating buffers per gate the documentation names (the configured ones, their
    defaults 2 and 8, fixed from 2.0), or None where a configured value is no integer."""
    config = _input(req).get("config", {})
    try:
        per_channel = int(config.get("taskmanager.network.memory.buffers-per-channel", "2"))
        floating = int(config.get("taskmanager.network.memory.floating-buffers-per-gate", "8"))
    except ValueError:
        return None
    return (2, 8) if version.major >= 2 else (per_channel, floating)


def _parts(req: Request) -> list[tuple[int, str]]:
    return [(p["subpartitions"], p["type"]) for p in _input(req).get("partitions") or []]


@BOOK.invariant("MNB-1", NETWORK, "The answer holds the network memory, the buffer size, the number of network "
                "buffers, one pool (min, max) per result partition, for input gates one entry (floating_min, "
                "floating_max, exclusive_per_channel, exclusive) per gate, what they require and what is left, all "
                "integers.", "docs/protocol/memory-network.md")
def shape(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    if "output" not in resp or resp.get("error") is not None:
        return []
    out = resp["output"]
    if not isinstance(out, Mapping):
        return [Violation("MNB-1", f"the output must be an object, not {out!r}")]
    problem = _shape_problem(out, _input(req))
    return [Violation("MNB-1", problem)] if problem else []


@BOOK.invariant("MNB-2", NETWORK, "The network memory is divided into network buffers of the segment size: their "
                "number is the network memory over the buffer size, rounded down.", SETUP)
def buffers_of_network_memory(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _output(req, resp)
    if out is None or out["buffer_size"] <= 0:
        return []
    expected = out["network_memory"] // out["buffer_size"]
    if out["network_buffers"] != expected:
        return [Violation("MNB-2", f"{out['network_buffers']} network buffers of {out['buffer_size']} bytes in "
                          f"{out['network_memory']} bytes of network memory; expected {expected}")]
    return []


@BOOK.invariant("MNB-3", NETWORK, "A result partition that is not sort-shuffled requires one buffer per "
                "subpartition plus one.", TUNING)
def required_per_subpartition(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _output(req, resp)
    if out is None:
        return []
    for i, ((n, kind), pool) in enumerate(zip(_parts(req), out["partitions"], strict=False)):
        if kind not in BLOCKING and pool["min"] != n + 1:
            return [Violation("MNB-3", f"partition {i} ({kind}, {n} subpartitions) requires {pool['min']} "
                              f"buffers, not {n + 1}")]
    return []


@BOOK.invariant("MNB-4", NETWORK, "The task's pools are created when the buffers they require together are no more"
                " than the TaskManager's network buffers: what they require is the sum of their minimums (and of "
                "its input gates' exclusive buffers), and what is left is the rest.", TUNING)
def required_and_left(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _output(req, resp)
    if out is None:
        return []
    required = sum(p["min"] for p in out["partitions"])
    required += sum(g["floating_min"] + g["exclusive"] for g in out.get("gates") or [])
    if out["required"] != required or out["available"] != out["network_buffers"] - required:
        return [Violation("MNB-4", f"required {out['required']} and available {out['available']}: the pools' "
                          f"minimums and the gates' exclusive buffers sum to {required} of "
                          f"{out['network_buffers']}")]
    if required > out["network_buffers"]:
        return [Violation("MNB-4", f"the pools require {required} buffers, more than the TaskManager's "
                          f"{out['network_buffers']}, yet the task was answered")]
    return []


@BOOK.invariant("MNB-5", NETWORK, "When the task's pools do not fit, the task fails with \"Insufficient number of "
                "network buffers: required <n>, but only <m> available\", m less than n.", TUNING, wording=True)
def insufficient(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    err = resp.get("error")
    if not isinstance(err, Mapping) or err.get("type") != "Rejected":
        return []
    message = str(err.get("message", ""))
    if not message.startswith("Insufficient number of network buffers: required "):
        return []
    words = message.split()
    try:
        required, available = int(words[6].rstrip(",")), int(words[9])
    except (IndexError, ValueError):
        return [Violation("MNB-5", f"the message does not say what is required and available: {message!r}")]
    if available >= required:
        return [Violation("MNB-5", f"{required} required and {available} available, yet rejected")]
    return []


@BOOK.invariant("MNB-6", NETWORK, "A bounded (pipelined bounded) partition's pool holds at most buffers-per-"
                "channel * subpartitions + floating-buffers-per-gate buffers, and at least what it requires.",
                TUNING)
def bounded_max(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _output(req, resp)
    if out is None:
        return []
    documented = _documented_buffers(req, version)
    if documented is None:
        return []
    per_channel, floating = documented
    for i, ((n, kind), pool) in enumerate(zip(_parts(req), out["partitions"], strict=False)):
        bound = n * per_channel + floating
        if kind in BOUNDED and bound <= INT_MAX and pool["max"] != max(bound, pool["min"]):
            return [Violation("MNB-6", f"partition {i} ({kind}, {n} subpartitions) holds at most {pool['max']}; "
                              f"{per_channel} * {n} + {floating} = {bound}, its minimum {pool['min']}")]
    return []


@BOOK.invariant("MNB-7", NETWORK, "A pool's maximum is never below its minimum: a pool is created holding at "
                "least the buffers it requires.", "NetworkBufferPool.createBufferPool javadoc", wording=True)
def max_not_below_min(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    err = resp.get("error")
    if isinstance(err, Mapping) and str(err.get("message", "")).startswith("Maximum number of memory segments ("):
        return [Violation("MNB-7", f"a pool whose maximum is below its minimum is refused: {err.get('message')}")]
    out = _output(req, resp)
    if out is None:
        return []
    for i, pool in enumerate(out["partitions"]):
        if pool["max"] < pool["min"]:
            return [Violation("MNB-7", f"partition {i}'s pool: max {pool['max']} < min {pool['min']}")]
    for i, gate in enumerate(out.get("gates") or []):
        if gate["floating_max"] < gate["floating_min"]:
            return [Violation("MNB-7", f"gate {i}'s floating pool: max {gate['floating_max']} < min "
                              f"{gate['floating_min']}")]
    return []


BOOK.flink_violates("MNB-7", "1.13 computes a bounded partition's maximum as buffers-per-channel * subpartitions "
                    "+ floating-buffers-per-gate without raising it to the minimum, and LocalBufferPool then "
                    "refuses the pool (IllegalArgumentException) when it is below subpartitions + 1; until 1.17 an "
                    "input gate's floating pool (minimum 1, maximum floating-buffers-per-gate) is refused the same "
                    "way when floating-buffers-per-gate is 0, until 1.17 rejects that configuration (NET-10)",
                    since="1.13", until=str(FLOATING_AT_LEAST_ONE.since))


@BOOK.invariant("MNB-8", NETWORK, "An input gate's channels each have buffers-per-channel exclusive buffers and the "
                "gate floating-buffers-per-gate floating ones: it holds at most #buffers per channel * channels + "
                "floating buffers per gate.", TUNING)
def gate_buffers(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _output(req, resp)
    if out is None or not out.get("gates"):
        return []
    documented = _documented_buffers(req, version)
    if documented is None:
        return []
    per_channel, floating = documented
    for i, (gate, g) in enumerate(zip(_input(req)["gates"], out["gates"], strict=False)):
        n = gate["channels"]
        if (g["exclusive_per_channel"], g["exclusive"], g["floating_max"]) != (per_channel, n * per_channel,
                                                                                floating):
            return [Violation("MNB-8", f"gate {i} ({n} channels): {g['exclusive']} exclusive buffers "
                              f"({g['exclusive_per_channel']} per channel), {g['floating_max']} floating at most; "
                              f"expected {per_channel} * {n} and {floating}")]
    return []


BOOK.flink_violates("MNB-8", "from 1.17 InputGateSpecUtils caps a gate that consumes a batch partition (blocking or "
                    "PIPELINED_APPROXIMATE) at 1000 required buffers: a BLOCKING gate of 600 remote channels gets 1 "
                    "exclusive buffer per channel (not 2) and a floating pool of 400 ... 608 (not 1 ... 8), one of "
                    "2000 channels none and 1000 ... 4008 (NET-15)", since=str(GATE_SPEC.since))
