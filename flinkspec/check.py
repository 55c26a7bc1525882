"""The conformance check: generate requests, ask the implementation, judge, group, shrink.

For one (area, version) Hypothesis generates requests from the area's strategy; each is answered
by the implementation under test; every invariant of the area judges the answer and (at the
``flink`` conformance level) the answer is compared with the oracle's. Every requested example is
checked, and the failing ones are grouped into *divergences* (:mod:`flinkspec.divergence`: how the
answer differs from Flink's and every rule it breaks); each divergence is then shrunk to its own
minimal, plainly spelled request, so that one bug gives one counterexample and two bugs never
share one. An implementation that breaks (crash, hang, garbage) ends that (area, version) with an
infrastructure error; what was found before is kept.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import attrs
from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings

import oracle
from flinkspec import corpus
from flinkspec.capabilities import EVERYTHING, Capabilities
from flinkspec.divergence import Signature, features, signature
from flinkspec.impls import Implementation, ImplementationBroken, answer_one
from flinkspec.reduce import reduce
from oracle.versions import FlinkVersion
from properties.areas import AREAS
from properties.rules import RULES, compare, judge

Conformance = str  # "flink" | "documented"
# Shrinking budgets, in requests sent (not seconds, so that a seed gives the same report on any machine):
SHRINK_CASES = 500  # Hypothesis's shrinking of one divergence (then delta debugging takes over)
SHRINK_DIVERGENCES = 10  # the most frequent divergences Hypothesis shrinks; the others are delta-debugged only
REDUCE_CALLS = 1000  # delta debugging of one divergence: what it reached then is reported
REDUCE_FEW_CALLS = 200  # ... of each divergence after the first REDUCE_DIVERGENCES
REDUCE_DIVERGENCES = 20
SEARCH_EXAMPLES = 1000  # per (area, version): judged one by one under Hypothesis; the rest in batches
BATCH = 256


@attrs.frozen
class Counterexample:
    """One divergence of the implementation from Flink: its shrunk representative request, what
    differs, every rule it breaks and how many of the checked cases failed the same way."""

    area: str
    flink: str
    rule: str  # the first of ``rules``: the rule a one-line summary names
    rule_text: str
    request: dict[str, Any]
    expected: dict[str, Any] | None
    actual: dict[str, Any]
    difference: str
    replay: str
    rules: tuple[str, ...] = ()
    signature: str = ""  # what differs from Flink, in words (flinkspec.divergence)
    cases: int = 1  # failing cases of this divergence among those checked
    features: tuple[str, ...] = ()  # what the representative request is made of
    messages: tuple[str, ...] = ()  # what each of ``rules`` saw, in the same order

    def to_json(self) -> dict[str, Any]:
        return {**attrs.asdict(self), "rules": list(self.rules), "features": list(self.features),
                "messages": list(self.messages)}


@attrs.define
class AreaRun:
    """The outcome of checking one area at one Flink version."""

    area: str
    flink: str
    cases: int = 0
    seconds: float = 0.0
    counterexamples: list[Counterexample] = attrs.field(factory=list)
    infra_error: str | None = None
    infra_replay: str | None = None  # replays the request the implementation broke on, when one did it
    failing: int = 0  # checked cases that failed (each belongs to one counterexample's divergence)
    checked: int = 0  # generated cases sent and judged (``cases`` also counts those sent while shrinking)
    not_checked: dict[str, int] = attrs.field(factory=dict)  # why -> generated cases not sent

    @property
    def verdict(self) -> str:
        if self.counterexamples:
            return "invalid"
        return "unknown" if self.infra_error or not self.checked else "valid"  # nothing checked is no pass


class SuiteError(RuntimeError):
    """A bug in flinkspec itself (a strategy made a request the oracle rejects as malformed)."""


class _Violated(AssertionError):
    """Raised on the divergence Hypothesis is told to shrink."""


class _Abort(BaseException):
    """Leaves Hypothesis at once (it only catches Exception) when the implementation broke; its
    argument is the :class:`ImplementationBroken`."""


class _Enough(BaseException):
    """Leaves Hypothesis at once when ``--max-failures`` failing cases were seen."""


def _size(req: dict[str, Any]) -> tuple[int, int]:
    return AREAS[req["area"]].size(req), len(json.dumps(req))


def replay_command(impl_spec: str, request: dict[str, Any], strict: bool = False) -> str:
    req = {k: request[k] for k in ("area", "flink", "input")}
    flags = " --strict-messages" if strict else ""
    return f"flinkspec replay --impl {shlex.quote(impl_spec)}{flags} --request {shlex.quote(json.dumps(req))}"


Broken = list[tuple[str, str, "dict[str, Any] | None"]]
Found = tuple[Signature, Broken, dict[str, Any]]  # a divergence: its signature, the broken rules, Flink's answer


class NotChecked(Exception):
    """Flink's answer to a request holds something the implementation's protocol version cannot
    express (:meth:`flinkspec.capabilities.Capabilities.fit_answer`): the case is not checked."""


FitAnswer = Callable[[dict[str, Any], dict[str, Any]], tuple["dict[str, Any] | None", "str | None"]]


def evaluate(request: dict[str, Any], actual: dict[str, Any], version: FlinkVersion, *,
             conformance: Conformance = "flink", strict_messages: bool = False,
             unsupported: frozenset[str] = frozenset(), fit_answer: FitAnswer | None = None,
             ) -> Broken:
    """Every broken rule for one answer: ``(rule id, what was seen, oracle's answer or None)``.

    Rules in ``unsupported`` (declared so by the implementation, :mod:`flinkspec.capabilities`)
    are left out, and so is the differential rule on an answer that breaks one of them.
    ``fit_answer`` fits Flink's answer to the protocol version the implementation speaks; it
    raises :class:`NotChecked` when it cannot."""
    return _judged(request, actual, version, conformance, strict_messages, unsupported, fit_answer)[0]


def _judged(request: dict[str, Any], actual: dict[str, Any], version: FlinkVersion, conformance: Conformance,
            strict_messages: bool, unsupported: frozenset[str], fit_answer: FitAnswer | None = None,
            ) -> tuple[Broken, dict[str, Any]]:
    """:func:`evaluate`, and Flink's (the oracle's) answer to the request."""
    area = request["area"]
    expected = oracle.answer(request)
    if expected.get("error", {}).get("type") == "BadRequest":  # from a generator, or a hand-made replay
        raise SuiteError(f"the suite generated a request the oracle calls bad: {expected} for {request}")
    if fit_answer is not None:  # both answers as the implementation's protocol version can say them
        fitted, why = fit_answer(request, expected)
        if fitted is None:
            raise NotChecked(why or "Flink's answer needs a newer protocol")
        expected = fitted
        actual = fit_answer(request, actual)[0] or actual
    found: Broken = [
        (v.rule, v.message, None)
        for v in judge(area, request, actual, version, documented_only=conformance == "documented")
    ]
    err = actual.get("error")
    if isinstance(err, dict) and err.get("type") not in ("InvalidConfiguration", None):
        # the request is well-formed (the oracle answers it), so any other error is a refusal
        found.append((f"{AREAS[area].prefix}-REFUSED",
                      f"the request is valid, yet the answer is a {err.get('type')} ({_short(err.get('message'))}); "
                      f"Flink answers {_short({k: val for k, val in expected.items() if k != 'id'})}", expected))
    if conformance == "flink":
        norm = AREAS[area].normalize
        diff = compare(norm(expected), norm(actual), strict_messages=strict_messages)
        found = [(r, m, expected) for r, m, _ in found]
        if diff:
            found.append((f"{AREAS[area].prefix}-EQ", diff, expected))
    if unsupported and any(r in unsupported for r, _, _ in found):
        found = [b for b in found if b[0] not in unsupported and not b[0].endswith("-EQ")]
    return found, expected


def diverges(request: dict[str, Any], actual: dict[str, Any], version: FlinkVersion, *,
             conformance: Conformance = "flink", strict_messages: bool = False,
             unsupported: frozenset[str] = frozenset(), fit_answer: FitAnswer | None = None,
             ) -> Found | None:
    """The divergence one answer belongs to (its signature, the broken rules, Flink's answer), or
    None when it breaks no rule; :class:`NotChecked` as :func:`evaluate`."""
    broken, expected = _judged(request, actual, version, conformance, strict_messages, unsupported, fit_answer)
    if not broken:
        return None
    norm = AREAS[request["area"]].normalize  # the area's tie rule: an order Flink leaves open is no difference
    sig = signature(request, norm(actual), norm(expected), [r for r, _, _ in broken], strict_messages=strict_messages)
    return sig, broken, expected


def _short(value: object, limit: int = 200) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


@attrs.define
class _Group:
    """The failing cases of one divergence seen so far: how many, and the smallest."""

    signature: Signature
    cases: int
    request: dict[str, Any]
    actual: dict[str, Any]
    expected: dict[str, Any]
    broken: Broken
    first_drawn: int | None = None  # the search pass's example that first showed it (None: a batch case)


class Judge:
    """Sends requests to one implementation, judges each answer and groups the failures into
    divergences (:mod:`flinkspec.divergence`), keeping the smallest request of each; ``check_area``
    and the pytest property (properties/test_conformance.py) judge through it."""

    def __init__(self, impl: Implementation, area: str, version: FlinkVersion, conformance: Conformance,
                 strict_messages: bool, capabilities: Capabilities) -> None:
        self.impl, self.area, self.version = impl, area, version
        self.conformance, self.strict, self.caps = conformance, strict_messages, capabilities
        self.unsupported = capabilities.rules_unsupported(area, version)
        self.cases = 0
        self.checked = 0  # cases judged while counting (the examples asked for)
        self.failing = 0
        self.counting = True  # False while shrinking: those cases are not new failures of the run
        self.groups: dict[tuple[str, tuple[str, ...]], _Group] = {}
        self.not_checked: dict[str, int] = {}

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
        clean = {k: req[k] for k in ("area", "flink", "input")}
        group = self.groups.get(sig.key)
        if group is None:
            if not self.counting:
                return sig  # seen only while shrinking another divergence: a step of the shrinker, not a case
            self.groups[sig.key] = _Group(sig, 1, clean, actual, expected, broken)
        else:
            group.cases += self.counting
            if _size(clean) < _size(group.request):
                group.request, group.actual, group.expected, group.broken = clean, actual, expected, broken
                group.signature = sig
        self.failing += self.counting
        return sig

    def diverges(self, req: dict[str, Any], actual: dict[str, Any]) -> Found | None:
        """:func:`diverges` as this implementation is judged (its unsupported rules, its protocol's answers)."""
        return diverges(req, actual, self.version, conformance=self.conformance, strict_messages=self.strict,
                        unsupported=self.unsupported, fit_answer=self.caps.fit_answer)

    def smallest(self, request: dict[str, Any], key: tuple[str, tuple[str, ...]],
                 calls: int = REDUCE_CALLS) -> tuple[dict[str, Any], dict[str, Any], Found] | None:
        """The smallest, plainest request that still diverges with signature ``key``, delta-debugged
        from ``request`` (:mod:`flinkspec.reduce`: Hypothesis cannot shrink seeded long sequences,
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

    def answer(self, request: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """:meth:`ask`, leaving Hypothesis at once if the implementation broke."""
        try:
            return self.ask(request)
        except ImplementationBroken as exc:
            raise _Abort(exc) from exc


def check_area(impl: Implementation, impl_spec: str, area: str, version: FlinkVersion, *,
               examples: int, seed_value: int, conformance: Conformance = "flink",
               strict_messages: bool = False, progress: Callable[[AreaRun], None] | None = None,
               max_failures: int | None = None, capabilities: Capabilities = EVERYTHING) -> AreaRun:
    """Check one area at one version with ``examples`` generated requests, and report every
    divergence (:mod:`flinkspec.divergence`) with one minimal representative.

    All ``examples`` are checked (unless ``max_failures`` failing cases are seen first): up to
    :data:`SEARCH_EXAMPLES` drawn one at a time by Hypothesis, the rest from a pre-drawn corpus
    (:mod:`flinkspec.corpus`, shared by the versions that draw the same inputs) pipelined through
    the implementation in batches. Then each divergence is shrunk: for the most frequent ones the
    search pass is drawn again and Hypothesis shrinks that divergence alone, and delta debugging
    (:mod:`flinkspec.reduce`) takes what is left, down to the plainest spelling that still fails the
    same way (budgets in requests sent, so a seed gives the same report anywhere). ``capabilities``
    says what the implementation speaks and supports
    (:mod:`flinkspec.capabilities`): each generated request is fitted to it, one it cannot be sent
    is not checked (counted in ``AreaRun.not_checked`` with why), and the rules it declares
    unsupported are not held against it."""
    spec = AREAS[area]
    run = AreaRun(area, str(version))
    jg = Judge(impl, area, version, conformance, strict_messages, capabilities)
    started = time.monotonic()

    def enough() -> bool:
        return max_failures is not None and jg.failing >= max_failures

    def tick() -> None:
        if progress is not None:
            progress(attrs.evolve(run, cases=jg.cases, failing=jg.failing))

    drawn = [0]  # examples of the search pass so far

    def one_pass(focus: tuple[str, tuple[str, ...]] | None, n: int, limit: int = 0) -> None:
        """``focus`` None: judge ``n`` drawn requests, raising nothing (every failure is counted);
        else draw the same requests again and raise on the focused divergence, so that Hypothesis
        shrinks it (until ``limit`` requests were sent in all: what it has reached is kept)."""
        @settings(max_examples=n, deadline=None, database=None, verbosity=Verbosity.quiet,
                  report_multiple_bugs=False, print_blob=False,
                  phases=(Phase.explicit, Phase.generate, Phase.shrink),
                  suppress_health_check=[HealthCheck.too_slow])
        @seed(seed_value)
        @given(spec.requests(version))
        def one(request: dict[str, Any]) -> None:
            if focus is not None and jg.cases >= limit:
                raise _Enough
            sent = jg.prepare(request)
            if focus is None:
                drawn[0] += 1
            if sent is None:
                return
            req, actual = jg.answer(sent)
            sig = jg.judge(req, actual)
            if focus is None:
                if sig is not None and jg.groups[sig.key].first_drawn is None:
                    jg.groups[sig.key].first_drawn = drawn[0]
                if jg.cases % 500 == 0:
                    tick()
                if enough():
                    raise _Enough
                return
            if sig is not None and sig.key == focus:
                raise _Violated(sig.text())

        with contextlib.suppress(_Violated, _Enough):  # the smallest request of each divergence was kept
            one()

    search = min(examples, SEARCH_EXAMPLES)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Generating overly large repr")
        try:
            try:
                _batched(jg, corpus.inputs(area, version, examples - search, seed_value), enough, tick)
                one_pass(None, search)
            except _Enough:
                pass
            # Shrinking: the search pass is drawn again for each divergence it showed, and Hypothesis
            # shrinks that divergence alone (the most frequent first, each within a budget of requests).
            jg.counting = False
            shrunk = 0
            for key, group in sorted(jg.groups.items(), key=lambda kv: -kv[1].cases):
                if group.first_drawn is None or shrunk >= SHRINK_DIVERGENCES:
                    continue
                shrunk += 1
                one_pass(key, group.first_drawn, jg.cases + group.first_drawn + SHRINK_CASES)
        except _Abort as exc:
            broke = exc.args[0]
            run.infra_error = str(broke)
            if broke.request is not None and "area" in broke.request:
                run.infra_replay = replay_command(impl_spec, broke.request, strict_messages)
    found = sorted(jg.groups.values(), key=lambda g: -g.cases)
    if run.infra_error is None:
        found = [_reduce_group(g, jg, REDUCE_CALLS if i < REDUCE_DIVERGENCES else REDUCE_FEW_CALLS)
                 for i, g in enumerate(found)]
    run.counterexamples = sorted((_counterexample(g, impl_spec, strict_messages) for g in found),
                                 key=lambda c: (-c.cases, c.rules))
    run.cases, run.checked, run.failing, run.not_checked = jg.cases, jg.checked, jg.failing, dict(jg.not_checked)
    run.seconds = time.monotonic() - started
    return run


def said(broken: Broken, rules: Sequence[str]) -> tuple[str, ...]:
    """What each of ``rules`` saw on one answer (the first message of each), in their order."""
    first = {r: m for r, m, _ in reversed(broken)}
    return tuple(first.get(r, "") for r in rules)


def counterexample(request: dict[str, Any], expected: dict[str, Any] | None, actual: dict[str, Any],
                   what: str, rules: tuple[str, ...], messages: tuple[str, ...], cases: int, impl_spec: str,
                   strict: bool) -> Counterexample:
    """A divergence as reported: its representative, what differs, its rules and what each saw."""
    first = rules[0]
    return Counterexample(request["area"], request["flink"], first, RULES[first].text if first in RULES else first,
                          request, expected, actual, messages[0] if messages and messages[0] else what,
                          replay_command(impl_spec, request, strict), rules, what, cases, features(request),
                          messages)


def _counterexample(g: _Group, impl_spec: str, strict: bool) -> Counterexample:
    rules = g.signature.rules
    return counterexample(g.request, g.expected, g.actual, g.signature.what, rules, said(g.broken, rules),
                          max(g.cases, 1), impl_spec, strict)


def _batched(jg: Judge, inputs: list[dict[str, Any]], enough: Callable[[], bool], tick: Callable[[], object]) -> None:
    """Answer ``inputs`` in pipelined batches and judge every answer."""
    pending: list[dict[str, Any]] = []
    for inp in inputs:
        sent = jg.prepare({"area": jg.area, "flink": str(jg.version), "input": inp})
        if sent is not None:
            pending.append(sent)
    for start in range(0, len(pending), BATCH):
        reqs = [{"id": jg.next_id(), **r} for r in pending[start:start + BATCH]]
        try:
            answers = jg.impl.answer_many(reqs)
        except ImplementationBroken as exc:
            raise _Abort(exc) from exc
        for req, actual in zip(reqs, answers, strict=True):
            jg.judge(req, actual)
        tick()
        if enough():
            raise _Enough


def _reduce_group(g: _Group, jg: Judge, calls: int) -> _Group:
    """Delta-debug a divergence's smallest request further, keeping its signature, with at most ``calls`` requests."""
    try:
        found = jg.smallest(g.request, g.signature.key, calls)
    except ImplementationBroken:
        return g
    if found is None:
        return g
    request, actual, (sig, broken, expected) = found
    return attrs.evolve(g, signature=sig, request=request, actual=actual, expected=expected, broken=broken)




def shrink_one(found: Counterexample, impl: Implementation, impl_spec: str, version: FlinkVersion, *,
               conformance: Conformance, strict_messages: bool, capabilities: Capabilities = EVERYTHING,
               ) -> tuple[Counterexample, int]:
    """Shrink one divergence's representative found elsewhere (the Spark harness's tasks) by delta
    debugging; returns it and the number of requests sent."""
    jg = Judge(impl, found.area, version, conformance, strict_messages, capabilities)
    sig = jg.judge({"id": 0, **found.request}, found.actual)  # the divergence as the task saw it
    if sig is None:
        return found, 0
    jg.counting = False
    group = _reduce_group(jg.groups[sig.key], jg, REDUCE_CALLS)
    group.cases = found.cases
    return _counterexample(group, impl_spec, strict_messages), jg.cases


def versions_for(area: str, wanted: Sequence[FlinkVersion]) -> list[FlinkVersion]:
    return [ver for ver in wanted if ver in AREAS[area].versions]
