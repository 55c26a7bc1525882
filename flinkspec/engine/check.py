"""The conformance check: generate requests, ask the implementation, judge, group, shrink.

For one (area, version) requests are drawn from the area's Hypothesis strategy; each is answered
by the implementation under test; every invariant of the area judges the answer and (at the
``flink`` conformance level) the answer is compared with the oracle's. Every requested example is
checked, and the failing ones are grouped into *divergences* (:mod:`flinkspec.judge.divergence`: how the
answer differs from Flink's and every rule it breaks); each divergence is then shrunk to its own
minimal, plainly spelled request, so that one bug gives one counterexample and two bugs never
share one. An implementation that breaks (crash, hang, garbage) ends that (area, version) with an
infrastructure error; what was found before is kept.
"""

from __future__ import annotations

import contextlib
import json
import time
import warnings
from collections.abc import Callable, Collection, Sequence
from typing import Any

import attrs

from flinkspec.impls import Implementation, ImplementationBroken
from flinkspec.impls.capabilities import EVERYTHING, Capabilities
from flinkspec.judge.divergence import Cause, Signature, features, parts
from flinkspec.judge.verdict import REDUCE_CALLS, Conformance, Group, Judge, replay_command, said
from oracle.versions import FlinkVersion
from properties import bulk, corpus
from properties.areas import AREAS, ORACLE_RULES, RULES

# Shrinking budgets, in requests sent (not seconds, so that a seed gives the same report on any machine):
SHRINK_CASES = 500  # Hypothesis's shrinking of one divergence (then delta debugging takes over)
SHRINK_STALL = 100  # ... which ends early after this many requests without a smaller failing one
SHRINK_DIVERGENCES = 10  # the most frequent divergences Hypothesis shrinks; the others are delta-debugged only
REDUCE_FEW_CALLS = 200  # ... of each divergence after the first REDUCE_DIVERGENCES
REDUCE_DIVERGENCES = 20
BATCH = 256


@attrs.frozen(kw_only=True)
class Counterexample:
    """One divergence of the implementation from Flink: its shrunk representative request, where it
    departs from Flink's answer and the rules that explain it, every rule it breaks and how many of
    the checked cases failed the same way (at every release it was seen at)."""

    area: str
    flink: str  # the release of the representative
    rule: str  # the rule a one-line summary names: the first that explains it, else the first broken
    rule_text: str
    request: dict[str, Any]
    expected: dict[str, Any] | None
    actual: dict[str, Any]
    difference: str  # expected vs actual where the answer departs, in words
    replay: str
    rules: tuple[str, ...] = ()  # every rule the representative's answer breaks
    signature: str = ""  # what differs from Flink, in words (flinkspec.judge.divergence)
    cases: int = 1  # failing cases of this divergence among those checked
    features: tuple[str, ...] = ()  # what the representative request is made of
    messages: tuple[str, ...] = ()  # what each of ``rules`` saw, in the same order
    explained_by: tuple[str, ...] = ()  # the oracle's and the documented rules that explain the departure
    cause: Cause = ("", "", ())  # what tells divergences apart (Signature.key)
    releases: tuple[str, ...] = ()  # every release it was seen at (the representative's first)

    @property
    def seen_at(self) -> tuple[str, ...]:
        """Every release it was seen at: :attr:`releases`, else the representative's."""
        return self.releases or (self.flink,)

    def to_json(self) -> dict[str, Any]:
        return {**attrs.asdict(self), "rules": list(self.rules), "features": list(self.features),
                "messages": list(self.messages), "explained_by": list(self.explained_by),
                "cause": [self.cause[0], self.cause[1], list(self.cause[2])],
                "releases": list(self.seen_at)}


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


class _Abort(BaseException):
    """Leaves Hypothesis at once (it only catches Exception) when the implementation broke; its
    argument is the :class:`ImplementationBroken`."""


class _Enough(BaseException):
    """Leaves Hypothesis at once when ``--max-failures`` failing cases were seen."""


def _answer(jg: Judge, request: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """:meth:`Judge.ask`, leaving Hypothesis at once if the implementation broke."""
    try:
        return jg.ask(request)
    except ImplementationBroken as exc:
        raise _Abort(exc) from exc


def check_area(impl: Implementation, impl_spec: str, area: str, version: FlinkVersion, *,
               examples: int, seed_value: int, conformance: Conformance = "flink",
               strict_messages: bool = False, progress: Callable[[AreaRun], None] | None = None,
               max_failures: int | None = None, capabilities: Capabilities = EVERYTHING,
               shrink: bool = True) -> AreaRun:
    """Check one area at one version with ``examples`` generated requests, and report every
    divergence (:mod:`flinkspec.judge.divergence`) with one minimal representative.

    All ``examples`` are checked (unless ``max_failures`` failing cases are seen first): drawn from
    the area's strategy in bulk, without the search engine's per-example cost (:mod:`properties.corpus`,
    shared by the versions that draw the same inputs), and pipelined through the implementation in
    batches. Then each divergence is shrunk: Hypothesis's shrinker takes the most frequent ones, each
    alone, from the recorded choices of its smallest case (:func:`properties.bulk.shrink`), and delta debugging
    (:mod:`flinkspec.judge.reduce`) takes what is left, down to the plainest spelling that still fails the
    same way (budgets in requests sent, so a seed gives the same report anywhere). ``capabilities``
    says what the implementation speaks and supports
    (:mod:`flinkspec.impls.capabilities`): each generated request is fitted to it, one it cannot be sent
    is not checked (counted in ``AreaRun.not_checked`` with why), and the rules it declares
    unsupported are not held against it. ``shrink`` False reports each divergence by its smallest case
    as drawn (whether an implementation is caught, not how small its counterexample is)."""
    run = AreaRun(area, str(version))
    jg = Judge(impl, AREAS[area], version, conformance, strict_messages, capabilities)
    started = time.monotonic()

    def enough() -> bool:
        return max_failures is not None and jg.failing >= max_failures

    def tick() -> None:
        if progress is not None:
            progress(attrs.evolve(run, cases=jg.cases, failing=jg.failing))

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Generating overly large repr")
        try:
            with contextlib.suppress(_Enough):
                _batched(jg, corpus.inputs(area, version, examples, seed_value), enough, tick)
            # Shrinking: Hypothesis shrinks each of the most frequent divergences alone, from the choices
            # that drew its smallest case (each within a budget of requests).
            jg.counting = False
            frequent = sorted(jg.groups.items(), key=lambda kv: -kv[1].cases)[:SHRINK_DIVERGENCES] if shrink else []
            for key, group in frequent:
                if group.drawn is not None:
                    _shrink(jg, key, corpus.choices(area, version, seed_value, group.drawn),
                            jg.cases + SHRINK_CASES)
        except _Abort as exc:
            broke = exc.args[0]
            run.infra_error = str(broke)
            if broke.request is not None and "area" in broke.request:
                run.infra_replay = replay_command(impl_spec, broke.request, strict_messages)
    found = sorted(jg.groups.values(), key=lambda g: -g.cases)
    if run.infra_error is None and shrink:
        found = [_reduce_group(g, jg, REDUCE_CALLS if i < REDUCE_DIVERGENCES else REDUCE_FEW_CALLS)
                 for i, g in enumerate(found)]
    run.counterexamples = sorted(dissolve([_counterexample(g, impl_spec, strict_messages) for g in found]),
                                 key=lambda c: (-c.cases, c.rules))
    run.cases, run.checked, run.failing, run.not_checked = jg.cases, jg.checked, jg.failing, dict(jg.not_checked)
    run.seconds = time.monotonic() - started
    return run


def counterexample(request: dict[str, Any], expected: dict[str, Any] | None, actual: dict[str, Any],
                   sig: Signature, messages: tuple[str, ...], cases: int, impl_spec: str,
                   strict: bool) -> Counterexample:
    """A divergence as reported: its representative, where it departs and why, its rules and what each saw."""
    explained = sig.explains
    first = (explained or sig.rules or ("",))[0]
    return Counterexample(area=request["area"], flink=request["flink"], rule=first,
                          rule_text=rule_text(first), request=request, expected=expected, actual=actual,
                          difference=sig.difference() or (messages[0] if messages and messages[0] else sig.what),
                          replay=replay_command(impl_spec, request, strict), rules=sig.rules, signature=sig.what,
                          cases=cases, features=features(request), messages=messages, explained_by=explained,
                          cause=sig.key, releases=(request["flink"],))


def rule_text(rule_id: str) -> str:
    """A rule's text, from the whole registry (oracle rules included)."""
    found = RULES.get(rule_id) or ORACLE_RULES.get(rule_id)
    return found.text if found is not None else rule_id


def _counterexample(g: Group, impl_spec: str, strict: bool) -> Counterexample:
    rules = g.signature.rules
    return counterexample(g.request, g.expected, g.actual, g.signature, said(g.broken, rules),
                          max(g.cases, 1), impl_spec, strict)


def _request(jg: Judge, inp: dict[str, Any]) -> dict[str, Any]:
    """The request of one drawn input, to the area and release ``jg`` judges."""
    return {"area": jg.area, "flink": str(jg.version), "input": inp}


def _batched(jg: Judge, inputs: list[dict[str, Any]], enough: Callable[[], bool], tick: Callable[[], object]) -> None:
    """Answer ``inputs`` in pipelined batches and judge every answer (each divergence remembers the index
    of the drawn input of its smallest case: :attr:`Group.drawn`)."""
    pending: list[tuple[int, dict[str, Any]]] = []
    for index, inp in enumerate(inputs):
        sent = jg.prepare(_request(jg, inp))
        if sent is not None:
            pending.append((index, sent))

    def judged(index: int, req: dict[str, Any], actual: dict[str, Any]) -> None:
        sig = jg.judge(req, actual)
        if sig is not None and jg.groups[sig.key].request["input"] is req["input"]:  # its smallest so far
            jg.groups[sig.key].drawn = index

    for start in range(0, len(pending), BATCH):
        indices = [i for i, _ in pending[start:start + BATCH]]
        reqs = [{"id": jg.next_id(), **r} for _, r in pending[start:start + BATCH]]
        try:
            answers = jg.impl.answer_many(reqs)
        except ImplementationBroken as exc:
            for index, req, actual in zip(indices, reqs, exc.answered, strict=False):  # the answers before the break
                judged(index, req, actual)
            raise _Abort(exc) from exc
        jg.prefetch(list(zip(reqs, answers, strict=True)))
        for index, req, actual in zip(indices, reqs, answers, strict=True):
            judged(index, req, actual)
        tick()
        if enough():
            raise _Enough


def _shrink(jg: Judge, key: Cause, choices: tuple[Any, ...], limit: int) -> None:
    """Hypothesis shrinks the divergence ``key`` from the input ``choices`` draw, until ``limit`` requests
    were sent in all or :data:`SHRINK_STALL` in a row found nothing smaller (every failing value the
    shrinker tries is smaller than the last); the judge keeps the smallest failing request it sees
    (:meth:`Judge.judge`)."""
    progress = [jg.cases]  # requests sent when the last smaller failing one was found

    def fails(inp: dict[str, Any]) -> bool:
        if jg.cases >= min(limit, progress[0] + SHRINK_STALL):
            raise _Enough
        sent = jg.prepare(_request(jg, inp))
        if sent is None:
            return False
        req, actual = _answer(jg, sent)
        sig = jg.judge(req, actual)
        if sig is None or sig.key != key:
            return False
        progress[0] = jg.cases
        return True

    with contextlib.suppress(_Enough):
        bulk.shrink(corpus.input_strategy(jg.area, jg.version), choices, fails)


def _reduce_group(g: Group, jg: Judge, calls: int) -> Group:
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
    jg = Judge(impl, AREAS[found.area], version, conformance, strict_messages, capabilities)
    sig = jg.judge({"id": 0, **found.request}, found.actual)  # the divergence as the task saw it
    if sig is None:
        return found, 0
    jg.counting = False
    group = _reduce_group(jg.groups[sig.key], jg, REDUCE_CALLS)
    group.cases = found.cases
    return _counterexample(group, impl_spec, strict_messages), jg.cases


def divergences(runs: Sequence[AreaRun]) -> list[Counterexample]:
    """Every distinct divergence of a check: the counterexamples of all its runs, one per cause
    (area and :attr:`Counterexample.cause`) whatever release it was seen at, with the cases of every
    release added up, the releases listed, and the smallest representative (the newest release's
    among equals); most failing cases first."""
    by_cause: dict[tuple[str, Cause], list[Counterexample]] = {}
    for run in runs:
        for c in run.counterexamples:
            by_cause.setdefault((c.area, c.cause), []).append(c)
    merged = []
    for seen in by_cause.values():
        best = min(seen, key=lambda c: (_size(c.request), -_release_rank(c.flink)))
        releases = sorted({r for c in seen for r in c.seen_at}, key=_release_rank)
        merged.append(attrs.evolve(best, cases=sum(c.cases for c in seen),
                                   releases=(best.flink, *(r for r in releases if r != best.flink))))
    return sorted(dissolve(merged), key=lambda c: (-c.cases, c.area, c.rules))


def made_of(c: Counterexample, known: Collection[tuple[str, Cause]]) -> tuple[tuple[str, Cause], ...]:
    """The known causes (area and cause) a composite divergence ``c`` is made of (it lacks, or has
    extra, two kinds of element: :func:`flinkspec.judge.divergence.parts`), when every one of them is
    known; else ()."""
    kind, where, _ = c.cause
    found = tuple((c.area, (kind, part, ())) for part in parts(where))
    return found if found and all(k in known for k in found) else ()


def dissolve(found: Sequence[Counterexample]) -> list[Counterexample]:
    """``found`` with each composite divergence whose every part is a divergence of its own counted
    under those (its cases and releases added to theirs) instead of opening a divergence of its own."""
    by_key = {(c.area, c.cause): c for c in found}
    for c in found:
        for key in made_of(c, by_key):
            part = by_key[key]
            more = tuple(r for r in c.seen_at if r not in part.seen_at)
            by_key[key] = attrs.evolve(part, cases=part.cases + c.cases, releases=(*part.seen_at, *more))
    return [by_key[(c.area, c.cause)] for c in found if not made_of(c, by_key)]


def _size(request: dict[str, Any]) -> tuple[int, int]:
    return AREAS[request["area"]].size(request), len(json.dumps(request))


def _release_rank(flink: str) -> int:
    from oracle.versions import RELEASES, UnknownVersion, parse_version

    try:
        return RELEASES.index(parse_version(flink))
    except (UnknownVersion, ValueError):
        return -1


def versions_for(area: str, wanted: Sequence[FlinkVersion]) -> list[FlinkVersion]:
    return [ver for ver in wanted if ver in AREAS[area].versions]
