"""The documented consumer-weight rules, as checks on any implementation's own answers.

Source: the description of ``taskmanager.memory.managed.consumer-weights`` in ``TaskManagerOptions`` (the same
in every release 1.13 ... 2.3): "Managed memory weights for different kinds of consumers. A slot's managed
memory is shared by all kinds of consumers it contains, proportionally to the kinds' weights and regardless of
the number of consumers from each kind. Currently supported kinds of consumers are OPERATOR (for built-in
algorithms), STATE_BACKEND (for RocksDB state backend) and PYTHON (for Python processes)", with its default
``OPERATOR:70,STATE_BACKEND:70,PYTHON:30``; and the protocol page for the answer's shape.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from oracle.javanum import INT_MAX
from oracle.memory_consumers import CONSUMERS, DEFAULT_WEIGHTS, KEY, USE_CASES
from oracle.versions import FlinkVersion
from properties.rules import Request, Response, RuleBook, Violation

BOOK = RuleBook()  # the rules this module declares, named by the area's declaration
BOOK.differential(CONSUMERS, "MMC")

OPTION_DOCS = "TaskManagerOptions.MANAGED_MEMORY_CONSUMER_WEIGHTS description"
DECIMAL = re.compile(r"0|[1-9][0-9]*(\.[0-9]*[1-9])?|0\.[0-9]*[1-9]")
# a fraction is a double: the exact quotient may differ from it by the rounding to 16 decimals and to a double
SLACK = Decimal("1e-15")


def _input(req: Request) -> Mapping[str, Any]:
    inp: Mapping[str, Any] = req.get("input", {})
    return inp


def _output(resp: Response) -> Mapping[str, Any] | None:
    if "output" not in resp or resp.get("error") is not None or not isinstance(resp["output"], Mapping):
        return None
    out: Mapping[str, Any] = resp["output"]
    return out


def _shape_problem(out: Mapping[str, Any], inp: Mapping[str, Any]) -> str | None:
    weights, fractions, ops = out.get("weights"), out.get("fractions"), out.get("operator_fractions")
    if not isinstance(weights, Mapping) or not all(
            k in USE_CASES and isinstance(w, int) and not isinstance(w, bool) and 0 <= w <= INT_MAX
            for k, w in weights.items()):
        return "weights must map use cases to ints in [0, 2147483647]"
    if not isinstance(fractions, Mapping) or set(fractions) != set(inp.get("use_cases", [])):
        return "fractions must have one entry per declared use case"
    if not isinstance(ops, list) or len(ops) != len(inp.get("operator_weights", [])):
        return "operator_fractions must have one entry per operator weight"
    if not all(isinstance(f, str) and DECIMAL.fullmatch(f) for f in (*fractions.values(), *ops)):
        return "a fraction must be a plain decimal without trailing zeros"
    return None


@BOOK.invariant("MMC-1", CONSUMERS, "The answer holds the weights read (use case -> int), one fraction per declared "
                "use case and one per operator weight, each a plain decimal.", "docs/protocol/memory-consumers.md")
def shape(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    if "output" not in resp or resp.get("error") is not None:
        return []
    out = _output(resp)
    if out is None:
        return [Violation("MMC-1", f"the output must be an object, not {resp['output']!r}")]
    problem = _shape_problem(out, _input(req))
    return [Violation("MMC-1", problem)] if problem else []


@BOOK.invariant("MMC-2", CONSUMERS, "Without the option configured the weights are its default, "
                "OPERATOR:70,STATE_BACKEND:70,PYTHON:30.", OPTION_DOCS)
def default_weights(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _output(resp)
    if out is None or KEY in _input(req).get("config", {}) or _shape_problem(out, _input(req)):
        return []
    expected = {k: int(w) for k, w in DEFAULT_WEIGHTS.items()}
    if dict(out["weights"]) != expected:
        return [Violation("MMC-2", f"weights {dict(out['weights'])} without {KEY} configured; the default is "
                          f"{expected}")]
    return []


def _sharing(out: Mapping[str, Any]) -> tuple[dict[str, Decimal], int] | None:
    """The use cases sharing the slot (a STATE_BACKEND with a weight and no managed memory left out), and the
    sum of their weights; None if the sum of every declared use case's weight does not fit an int (then a
    STATE_BACKEND's 0 may be a sum that wrapped, not a state backend without managed memory)."""
    weights, fractions = out["weights"], {k: Decimal(v) for k, v in out["fractions"].items()}
    if sum(weights.get(uc, 0) for uc in fractions) > INT_MAX:
        return None
    sharing = {uc: f for uc, f in fractions.items()
               if not (uc == "STATE_BACKEND" and f == 0 and weights.get(uc, 0) > 0)}
    total = sum(weights.get(uc, 0) for uc in sharing)
    return (sharing, total) if total <= INT_MAX else None


@BOOK.invariant("MMC-3", CONSUMERS, "The kinds of consumers in a slot share its managed memory proportionally to "
                "their weights: each gets its weight over the sum of the weights of the kinds it contains (a state "
                "backend that uses no managed memory taking no part).", OPTION_DOCS)
def proportional(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _output(resp)
    if out is None or _shape_problem(out, _input(req)) or (shared := _sharing(out)) is None:
        return []
    sharing, total = shared
    for uc, got in sharing.items():
        share = Decimal(out["weights"].get(uc, 0)) / Decimal(total) if total > 0 else Decimal(0)
        if abs(got - share) > SLACK:
            return [Violation("MMC-3", f"{uc} gets {got} of the slot; its weight {out['weights'].get(uc, 0)} of "
                              f"the total {total} is {share:.17f}")]
    return []


@BOOK.invariant("MMC-4", CONSUMERS, "A kind's share does not depend on how many consumers of that kind the slot "
                "holds: its operators' fractions together are at most the OPERATOR kind's fraction.", OPTION_DOCS)
def operators_share_their_kind(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _output(resp)
    if out is None or _shape_problem(out, _input(req)) or not out["operator_fractions"]:
        return []
    total = sum(Decimal(f) for f in out["operator_fractions"])
    kind = Decimal(out["fractions"]["OPERATOR"])
    if total > kind + SLACK * max(Decimal(1), kind):  # a double's rounding is relative to its size
        return [Violation("MMC-4", f"the operators get {total} of the slot together, more than OPERATOR's {kind}")]
    return []


@BOOK.invariant("MMC-5", CONSUMERS, "STATE_BACKEND is the state backend's use of managed memory (RocksDB's): a "
                "state backend that uses none (as the application says) gets no managed memory.", OPTION_DOCS)
def backend_without_managed_memory(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _output(resp)
    inp = _input(req)
    if out is None or _shape_problem(out, inp) or inp.get("state_backend_uses_managed_memory") is not False:
        return []
    got = out["fractions"].get("STATE_BACKEND", "0")
    return [] if Decimal(got) == 0 else [Violation("MMC-5", f"STATE_BACKEND gets {got} of the slot, its state "
                                                  "backend using no managed memory")]


_ENTRY = re.compile(r"([A-Z_]+):(0|[1-9][0-9]{0,9})")


def _documented_weights(inp: Mapping[str, Any]) -> dict[str, int] | None:
    """The weights of a value that names only supported kinds, each once, as ``KIND:WEIGHT,...`` with int weights
    written plainly (the default's own spelling); None for any other value, or with a state backend configured
    (one may fail to load, which Flink decides, not the option)."""
    config, job_config = inp.get("config", {}), inp.get("job_config", {})
    if not isinstance(config, Mapping) or not isinstance(job_config, Mapping) or not isinstance(config.get(KEY), str) \
            or any(k.startswith("state.") for k in (*config, *job_config)):
        return None
    entries = [_ENTRY.fullmatch(item) for item in config[KEY].split(",")]
    if not all(entries):
        return None
    weights = {m.group(1): int(m.group(2)) for m in entries if m}
    if len(weights) != len(entries) or not set(weights) <= set(USE_CASES) or max(weights.values()) > INT_MAX:
        return None
    return weights


@BOOK.invariant("MMC-6", CONSUMERS, "A value naming supported kinds of consumers (OPERATOR, STATE_BACKEND, PYTHON), "
                "each once with a weight, as the default does (OPERATOR:70,STATE_BACKEND:70,PYTHON:30), is accepted: "
                "each kind named has the weight given (0 may be reported as no weight).", OPTION_DOCS)
def supported_kinds_are_read(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    configured = _documented_weights(_input(req))
    if configured is None:
        return []
    if "error" in resp:  # a rejection breaks it; any other error (BadRequest: not modelled) says nothing of Flink
        err = resp["error"] if isinstance(resp["error"], Mapping) else {}
        if err.get("type") != "InvalidConfiguration":
            return []
        return [Violation("MMC-6", f"{KEY} {_input(req)['config'][KEY]!r} names supported kinds only, but is "
                          f"refused ({err.get('exception')}: {err.get('message')})")]
    out = _output(resp)
    if out is None or _shape_problem(out, _input(req)):
        return []
    wrong = {kind: out["weights"].get(kind, 0) for kind, w in configured.items() if out["weights"].get(kind, 0) != w}
    return [Violation("MMC-6", f"weights {wrong} read from {KEY} {_input(req)['config'][KEY]!r}")] if wrong else []
