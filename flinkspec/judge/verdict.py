"""Judging one answer: every rule it breaks, how it differs from Flink's, and the smallest request
that still diverges the same way.

An answer is judged by its area's invariants (at the ``documented`` conformance level only the rules
Flink documents) and, at the ``flink`` level, compared with the oracle's answer (the area's ``-EQ``
rule); a refusal of a well-formed request breaks the area's ``-REFUSED`` rule. The failing answers
are grouped into *divergences* (:mod:`flinkspec.judge.divergence`). The area's rules come in as an
:class:`AreaRules` (``properties.areas.AREAS[area]``): the invariants live with the strategies in
properties/, which judges through this module, so this layer takes them as a parameter instead of
importing them (and never judges with an empty set of rules an import order left unregistered).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Protocol

import attrs

import oracle
from flinkspec.impls import Implementation, ImplementationBroken, answer_one
from flinkspec.impls.capabilities import Capabilities
from flinkspec.judge.divergence import Cause, Signature, signature
from flinkspec.judge.reduce import reduce
from oracle.versions import FlinkVersion
from properties.compare import compare

Conformance = Literal["flink", "documented"]  # the conformance levels (docs/check.md)
REDUCE_CALLS = 1000  # delta debugging of one divergence: what it reached then is reported


class Violated(Protocol):
    """A rule broken by one answer (``properties.rules.Violation``)."""

    @property
    def rule(self) -> str: ...

    @property
    def message(self) -> str: ...


class AreaRules(Protocol):
    """What judging needs of one area (``properties.area.Area`` is one): its name, its rule
    prefix, its invariants, its tie rule for the differential (``normalize``) and a request's size."""

    @property
    def name(self) -> str: ...

    @property
    def prefix(self) -> str: ...

    @property
    def normalize(self) -> Callable[[dict[str, Any]], dict[str, Any]]: ...

    @property
    def size(self) -> Callable[[dict[str, Any]], int]: ...

    def violations(self, request: Mapping[str, Any], response: Mapping[str, Any], version: FlinkVersion, *,
                   documented_only: bool = False, expected: Mapping[str, Any] | None = None,
                   ask: Ask | None = None, strict_messages: bool = False) -> Sequence[Violated]: ...

    def twins(self, request: Mapping[str, Any], response: Mapping[str, Any], version: FlinkVersion, *,
              documented_only: bool = False) -> Sequence[Mapping[str, Any]]: ...


# the implementation's answer to one more request (a metamorphic rule's twin), None if it cannot be sent it
Ask = Callable[[Mapping[str, Any]], "Mapping[str, Any] | None"]


class SuiteError(RuntimeError):
    """A bug in flinkspec itself (a strategy made a request the oracle rejects as malformed); ``reason``: why the
    oracle refuses the request, in its own words (all a hand-made request's replay needs to say)."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason or message


def _size(rules: AreaRules, req: dict[str, Any]) -> tuple[int, int]:
    return rules.size(req), len(json.dumps(req))


def replay_command(impl_spec: str, request: dict[str, Any], strict: bool = False) -> str:
    req = {k: request[k] for k in ("area", "flink", "input")}
    flags = " --strict-messages" if strict else ""
    return f"flinkspec replay --impl {shlex.quote(impl_spec)}{flags} --request {shlex.quote(json.dumps(req))}"


Broken = list[tuple[str, str, "dict[str, Any] | None"]]
Found = tuple[Signature, Broken, dict[str, Any]]  # a divergence: its signature, the broken rules, Flink's answer


class NotChecked(Exception):
    """Flink's answer to a request holds something the implementation's protocol version cannot
    express (:meth:`flinkspec.impls.capabilities.Capabilities.fit_answer`): the case is not checked."""


FitAnswer = Callable[[dict[str, Any], dict[str, Any]], tuple["dict[str, Any] | None", "str | None"]]


def evaluate(request: dict[str, Any], actual: dict[str, Any], version: FlinkVersion, rules: AreaRules, *,
             conformance: Conformance = "flink", strict_messages: bool = False,
             unsupported: frozenset[str] = frozenset(), fit_answer: FitAnswer | None = None,
             ask: Ask | None = None) -> Broken:
    """Every broken rule for one answer: ``(rule id, what was seen, oracle's answer or None)``, by
    ``rules``, the request's area's (``properties.areas.AREAS[request["area"]]``).

    Rules in ``unsupported`` (declared so by the implementation, :mod:`flinkspec.impls.capabilities`)
    are left out, and so is the differential rule on an answer that breaks one of them.
    ``fit_answer`` fits Flink's answer to the protocol version the implementation speaks; it
    raises :class:`NotChecked` when it cannot."""
    return judged(request, actual, version, rules, conformance, strict_messages, unsupported, fit_answer, ask)[0]


def as_spoken(fit_answer: FitAnswer | None, request: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    """An implementation's answer without what its protocol does not speak (compared as Flink's answer is)."""
    return answer if fit_answer is None else fit_answer(request, answer)[0] or answer


def judged(request: dict[str, Any], actual: dict[str, Any], version: FlinkVersion, rules: AreaRules,
           conformance: Conformance, strict_messages: bool, unsupported: frozenset[str],
           fit_answer: FitAnswer | None = None, ask: Ask | None = None) -> tuple[Broken, dict[str, Any]]:
    """:func:`evaluate`, and Flink's (the oracle's) answer to the request."""
    if request["area"] != rules.name:
        raise ValueError(f"a request of {request['area']} judged by the rules of {rules.name}")
    expected = oracle.answer(request)
    if expected.get("error", {}).get("type") == "BadRequest":  # from a generator, or a hand-made replay
        reason = f"the oracle refuses it ({expected['error'].get('message')})"
        raise SuiteError(f"{reason}; a generated request it refuses is a bug of the suite: {request}", reason)
    if fit_answer is not None:  # both answers as the implementation's protocol version can say them
        fitted, why = fit_answer(request, expected)
        if fitted is None:
            raise NotChecked(why or "Flink's answer needs a newer protocol")
        expected = fitted
        actual = as_spoken(fit_answer, request, actual)
    found: Broken = [
        (v.rule, v.message, None)
        for v in rules.violations(request, actual, version, documented_only=conformance == "documented",
                                  expected=expected, ask=ask, strict_messages=strict_messages)
    ]
    err = actual.get("error")
    if isinstance(err, dict) and err.get("type") not in ("InvalidConfiguration", None):
        # the request is well-formed (the oracle answers it), so any other error is a refusal
        found.append((f"{rules.prefix}-REFUSED",
                      f"the request is valid, yet the answer is a {err.get('type')} ({_short(err.get('message'))}); "
                      f"Flink answers {_short({k: val for k, val in expected.items() if k != 'id'})}", expected))
    if conformance == "flink":
        norm = rules.normalize
        diff = compare(norm(expected), norm(actual), strict_messages=strict_messages)
        found = [(r, m, expected) for r, m, _ in found]
        if diff:
            found.append((f"{rules.prefix}-EQ", diff, expected))
    if unsupported and any(r in unsupported for r, _, _ in found):
        found = [b for b in found if b[0] not in unsupported and not b[0].endswith("-EQ")]
    return found, expected


def diverges(request: dict[str, Any], actual: dict[str, Any], version: FlinkVersion, rules: AreaRules, *,
             conformance: Conformance = "flink", strict_messages: bool = False,
             unsupported: frozenset[str] = frozenset(), fit_answer: FitAnswer | None = None,
             ask: Ask | None = None) -> Found | None:
    """The divergence one answer belongs to (its signature, the broken rules, Flink's answer), or
    None when it breaks no rule; :class:`NotChecked` as :func:`evaluate`, and also where what
    explains the departure is only rules the implementation declared unsupported."""
    broken, expected = judged(request, actual, version, rules, conformance, strict_messages, unsupported,
                              fit_answer, ask)
    if not broken:
        return None
    norm = rules.normalize  # the area's tie rule: an order Flink leaves open is no difference
    explanation = oracle.explain_answer(request)[1]
    sig = signature(request, norm(as_spoken(fit_answer, request, actual)), norm(expected), [r for r, _, _ in broken],
                    strict_messages=strict_messages, explanation=explanation)
    if sig.because and unsupported.issuperset(sig.because):
        raise NotChecked(f"explained only by {', '.join(sig.because)}, declared unsupported")
    return sig, broken, expected


def _short(value: object, limit: int = 200) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


@attrs.define
class Group:
    """The failing cases of one divergence seen so far: how many, and the smallest."""

    signature: Signature
    cases: int
    request: dict[str, Any]
    actual: dict[str, Any]
    expected: dict[str, Any]
    broken: Broken
    drawn: int | None = None  # the index of the drawn input of its smallest case (None: not drawn)


class Judge:
    """Sends requests to one implementation, judges each answer and groups the failures into
    divergences (:mod:`flinkspec.judge.divergence`), keeping the smallest request of each; ``check_area``
    (:mod:`flinkspec.engine.check`) and the pytest property (properties/test_conformance.py) judge through it."""

    def __init__(self, impl: Implementation, area: AreaRules, version: FlinkVersion, conformance: Conformance,
                 strict_messages: bool, capabilities: Capabilities) -> None:
        self.impl, self.rules, self.area, self.version = impl, area, area.name, version
        self.conformance, self.strict, self.caps = conformance, strict_messages, capabilities
        self.unsupported = capabilities.rules_unsupported(self.area, version)
        self.cases = 0
        self.checked = 0  # cases judged while counting (the examples asked for)
        self.failing = 0
        self.counting = True  # False while shrinking: those cases are not new failures of the run
        self.groups: dict[Cause, Group] = {}
        self.not_checked: dict[str, int] = {}
        self._asked: dict[str, dict[str, Any]] = {}  # twins asked ahead in a batch (prefetch), by request

    def prepare(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """The request as it is sent (fitted to what the implementation speaks), or None if it cannot be."""
        fitted, why = self.caps.fit(request)
        if fitted is None:
            self.skip(why or "not checked")
        return fitted

    def skip(self, why: str) -> None:
        self.not_checked[why] = self.not_checked.get(why, 0) + 1

    def next_id(self) -> int:
        self.cases += 1
        return self.cases

    def judge(self, req: dict[str, Any], actual: dict[str, Any]) -> Signature | None:
        try:
            found = self.diverges(req, actual)
        except NotChecked as exc:
            self.skip(str(exc))
            return None
        self.checked += self.counting
        if found is None:
            return None
        sig, broken, expected = found
        actual = as_spoken(self.caps.fit_answer, req, actual)  # kept and reported as it was compared
        clean = {k: req[k] for k in ("area", "flink", "input")}
        group = self.groups.get(sig.key)
        if group is None:
            if not self.counting:
                return sig  # seen only while shrinking another divergence: a step of the shrinker, not a case
            self.groups[sig.key] = Group(sig, 1, clean, actual, expected, broken)
        else:
            group.cases += self.counting
            if _size(self.rules, clean) < _size(self.rules, group.request):
                group.request, group.actual, group.expected, group.broken = clean, actual, expected, broken
                group.signature = sig
        self.failing += self.counting
        return sig

    def diverges(self, req: dict[str, Any], actual: dict[str, Any]) -> Found | None:
        """:func:`diverges` as this implementation is judged (its unsupported rules, its protocol's answers)."""
        return diverges(req, actual, self.version, self.rules, conformance=self.conformance,
                        strict_messages=self.strict, unsupported=self.unsupported, fit_answer=self.caps.fit_answer,
                        ask=self.twin)

    def twin(self, request: Mapping[str, Any]) -> dict[str, Any] | None:
        """The implementation's answer to a metamorphic rule's twin of a request (sent, not counted as a
        checked case), or None if the implementation cannot be sent it: asked ahead by :meth:`prefetch`,
        or now."""
        ahead = self._asked.pop(_twin_key(request), None)
        if ahead is not None:
            return ahead
        fitted = self.caps.fit(dict(request))[0]
        return None if fitted is None else self.ask(fitted)[1]

    def prefetch(self, answered: Sequence[tuple[dict[str, Any], dict[str, Any]]]) -> None:
        """Ask in one batch the twins that judging these answers will ask (of the area's metamorphic rules),
        instead of one request at a time each. If the implementation breaks on them, nothing is kept: each
        twin is then asked when it is judged, and a break is reported there, as without this batch."""
        self._asked.clear()
        twins: dict[str, dict[str, Any]] = {}  # each twin as sent, by the twin the rules ask (its key)
        documented = self.conformance == "documented"
        for req, actual in answered:
            spoken = as_spoken(self.caps.fit_answer, req, actual)
            for related in self.rules.twins(req, spoken, self.version, documented_only=documented):
                fitted = self.caps.fit(dict(related))[0]
                if fitted is not None:
                    twins[_twin_key(related)] = fitted
        if not twins:
            return
        sent = [{"id": self.next_id(), **t} for t in twins.values()]
        try:
            answers = self.impl.answer_many(sent)
        except ImplementationBroken:
            return
        self._asked = dict(zip(twins, answers, strict=True))

    def smallest(self, request: dict[str, Any], key: Cause,
                 calls: int = REDUCE_CALLS) -> tuple[dict[str, Any], dict[str, Any], Found] | None:
        """The smallest, plainest request that still diverges with signature ``key``, delta-debugged
        from ``request`` (:mod:`flinkspec.judge.reduce`: Hypothesis cannot shrink seeded long sequences,
        nor respell a value plainly) with at most ``calls`` requests, with its answer; None if none
        is smaller."""
        def same(candidate: dict[str, Any]) -> tuple[dict[str, Any], Found] | None:
            if self.caps.fit(candidate)[0] != candidate:
                return None  # the implementation could not be sent it as it is
            req, actual = self.ask(candidate)
            try:
                found = self.diverges(req, actual)
            except (SuiteError, NotChecked):  # the cut made the request malformed, or not checkable
                return None
            return (actual, found) if found is not None and found[0].key == key else None

        def still_fails(candidate: dict[str, Any]) -> bool:
            return same(candidate) is not None

        smaller = reduce({k: request[k] for k in ("area", "flink", "input")}, still_fails, max_calls=calls)
        final = same(smaller)  # the final request's own answers, not the last candidate's
        return (smaller, *final) if final is not None and smaller != request else None

    def ask(self, request: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The request as sent (with an id) and the implementation's answer (ImplementationBroken if it broke)."""
        req = {"id": self.next_id(), **request}
        return req, answer_one(self.impl, req)


def _twin_key(request: Mapping[str, Any]) -> str:
    return json.dumps(request, sort_keys=True)


def said(broken: Broken, rules: Sequence[str]) -> tuple[str, ...]:
    """What each of ``rules`` saw on one answer (the first message of each), in their order."""
    first = {r: m for r, m, _ in reversed(broken)}
    return tuple(first.get(r, "") for r in rules)
