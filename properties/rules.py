"""The rule registry: every rule the suite checks, with a stable ID, its text and its source.

An invariant is a pure function ``check(request, response, version) -> list[Violation]``
registered with :func:`invariant` under the ID of the rule it checks. The same functions judge
answers in pytest, in ``flinkspec check`` and in the Spark harness.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from oracle.versions import FlinkVersion

Request = Mapping[str, Any]
Response = Mapping[str, Any]


@attrs.frozen
class Rule:
    """A documented rule: ``id`` like ``TM-3``; ``documented`` rules are checked at both
    conformance levels, the others (Flink's actual behaviour beyond its docs) only at ``flink``."""

    id: str
    area: str
    text: str
    source: str
    documented: bool = True
    status: str = "checked"
    flink_violates: tuple[str, ...] = ()  # versions whose real Flink breaks this documented rule


@attrs.frozen
class Violation:
    """A rule broken by one answer, with what was seen."""

    rule: str
    message: str


Check = Callable[[Request, Response, FlinkVersion], "list[Violation]"]

RULES: dict[str, Rule] = {}
CHECKS: dict[str, list[tuple[Rule, Check]]] = {}


def declare(rule: Rule) -> Rule:
    if rule.id in RULES and RULES[rule.id] != rule:
        raise ValueError(f"rule {rule.id} declared twice with different texts")
    RULES[rule.id] = rule
    return rule


def invariant(rule_id: str, area: str, text: str, source: str, *, documented: bool = True) -> Callable[[Check], Check]:
    """Register ``fn`` as the check of rule ``rule_id`` for ``area``."""
    rule = declare(Rule(rule_id, area, text, source, documented))

    def register(fn: Check) -> Check:
        CHECKS.setdefault(area, []).append((rule, fn))
        return fn

    return register


def flink_violates(rule_id: str, versions: tuple[str, ...], witness: str) -> None:
    """Record that real Flink of ``versions`` breaks documented rule ``rule_id`` (see README)."""
    rule = RULES[rule_id]
    RULES[rule_id] = attrs.evolve(rule, flink_violates=versions, status=f"checked (real Flink {', '.join(versions)} "
                                  f"breaks it: {witness}.)")


def differential_rule(area: str, prefix: str) -> Rule:
    """The rule "answers exactly as Flink does", checked by comparing with the oracle."""
    return declare(
        Rule(
            f"{prefix}-EQ",
            area,
            "The answer equals real Flink's (the oracle's) for the same request and version: "
            "every value, and for a rejection the error type (exception and message with --strict-messages).",
            "flinkspec oracle, proven against the released jars",
            documented=False,
        )
    )


def judge(area: str, request: Request, response: Response, version: FlinkVersion,
          *, documented_only: bool = False) -> list[Violation]:
    """Every invariant of ``area`` applied to one answer."""
    out: list[Violation] = []
    for rule, check in CHECKS.get(area, []):
        if documented_only and not rule.documented:
            continue
        if not documented_only and str(version) in RULES[rule.id].flink_violates:
            continue  # conformance "flink": only the rules Flink of this version keeps
        out.extend(check(request, response, version))
    return out


def compare(expected: Response, actual: Response, *, strict_messages: bool) -> str | None:
    """Why ``actual`` differs from the oracle's ``expected`` answer, or None if it does not."""
    if expected.get("output") == actual.get("output") and "output" in expected and "output" in actual:
        return None
    if "error" in expected or "error" in actual:
        exp_err, act_err = expected.get("error"), actual.get("error")
        if exp_err is None:
            return (f"Flink accepts this input (output {_short(expected.get('output'))}) "
                    f"but the answer is an error {_short(act_err)}")
        if act_err is None:
            return (f"Flink rejects this input ({_short(exp_err)}) "
                    f"but the answer is an output {_short(actual.get('output'))}")
        keys = ("type", "exception", "message") if strict_messages else ("type",)
        for k in keys:
            if exp_err.get(k) != act_err.get(k):
                return f"error {k} differs: Flink {exp_err.get(k)!r}, answer {act_err.get(k)!r}"
        return None
    return first_difference(expected.get("output"), actual.get("output"), "output")


def first_difference(exp: object, act: object, path: str) -> str | None:
    """The first path at which two JSON values differ, described, or None."""
    if isinstance(exp, dict) and isinstance(act, dict):
        for k in exp:
            if k not in act:
                return f"{path}.{k} is missing (Flink: {_short(exp[k])})"
            d = first_difference(exp[k], act[k], f"{path}.{k}")
            if d:
                return d
        extra = [k for k in act if k not in exp]
        return f"{path} has unexpected key(s) {extra}" if extra else None
    if isinstance(exp, list) and isinstance(act, list):
        for i, (e, a) in enumerate(zip(exp, act, strict=False)):
            d = first_difference(e, a, f"{path}[{i}]")
            if d:
                return d
        if len(exp) != len(act):
            return f"{path} has {len(act)} elements, Flink {len(exp)}"
        return None
    if type(exp) is not type(act) or exp != act:
        return f"{path} = {_short(act)}, Flink {_short(exp)}"
    return None


def _short(value: object, limit: int = 160) -> str:
    import json

    text = json.dumps(value, sort_keys=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."
