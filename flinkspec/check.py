"""The conformance check: generate requests, ask the implementation, judge, shrink, collect.

For one (area, version) Hypothesis generates requests from the area's strategy; each is answered
by the implementation under test; every invariant of the area judges the answer and (at the
``flink`` conformance level) the answer is compared with the oracle's. A violation is raised as
an exception of a class per rule, so Hypothesis shrinks each broken rule to its own minimal
request; the smallest request seen for each rule is kept as the counterexample. An implementation
that breaks (crash, hang, garbage) ends that (area, version) with an infrastructure error; what was
found before is kept.
"""

from __future__ import annotations

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
from flinkspec.impls import Implementation, ImplementationBroken, answer_one
from flinkspec.reduce import reduce
from oracle.versions import FlinkVersion
from properties.areas import AREAS
from properties.rules import RULES, compare, judge

Conformance = str  # "flink" | "documented"
MAX_FOCUS_PASSES = 4
SEARCH_EXAMPLES = 1000  # per (area, version): judged one by one under Hypothesis; the rest in batches
BATCH = 256


@attrs.frozen
class Counterexample:
    """A minimal request on which the implementation breaks ``rule``."""

    area: str
    flink: str
    rule: str
    rule_text: str
    request: dict[str, Any]
    expected: dict[str, Any] | None
    actual: dict[str, Any]
    difference: str
    replay: str

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


@attrs.define
class AreaRun:
    """The outcome of checking one area at one Flink version."""

    area: str
    flink: str
    cases: int = 0
    seconds: float = 0.0
    counterexamples: list[Counterexample] = attrs.field(factory=list)
    infra_error: str | None = None

    @property
    def verdict(self) -> str:
        if self.counterexamples:
            return "invalid"
        return "unknown" if self.infra_error else "valid"


class SuiteError(RuntimeError):
    """A bug in flinkspec itself (a strategy made a request the oracle rejects as malformed)."""


class _Violated(AssertionError):
    """Base of the per-rule exception classes raised to let Hypothesis shrink each rule apart."""


class _Abort(BaseException):
    """Leaves Hypothesis at once (it only catches Exception) when the implementation broke."""


def _violation_type(rule: str) -> type[_Violated]:
    return _VIOLATION_TYPES.setdefault(rule, type(f"Violates_{rule.replace('-', '_')}", (_Violated,), {}))


_VIOLATION_TYPES: dict[str, type[_Violated]] = {}


def _size(req: dict[str, Any]) -> tuple[int, int]:
    return AREAS[req["area"]].size(req), len(json.dumps(req))


def replay_command(impl_spec: str, request: dict[str, Any], strict: bool = False) -> str:
    req = {k: request[k] for k in ("area", "flink", "input")}
    flags = " --strict-messages" if strict else ""
    return f"flinkspec replay --impl {shlex.quote(impl_spec)}{flags} --request {shlex.quote(json.dumps(req))}"


def evaluate(request: dict[str, Any], actual: dict[str, Any], version: FlinkVersion, *,
             conformance: Conformance = "flink", strict_messages: bool = False,
             unsupported: frozenset[str] = frozenset(),
             ) -> list[tuple[str, str, dict[str, Any] | None]]:
    """Every broken rule for one answer: ``(rule id, what was seen, oracle's answer or None)``.

    Rules in ``unsupported`` (declared so by the implementation, :mod:`flinkspec.capabilities`)
    are left out, and so is the differential rule on an answer that breaks one of them."""
    area = request["area"]
    found: list[tuple[str, str, dict[str, Any] | None]] = [
        (v.rule, v.message, None)
        for v in judge(area, request, actual, version, documented_only=conformance == "documented")
    ]
    if conformance == "flink":
        expected = oracle.answer(request)
        if expected.get("error", {}).get("type") == "BadRequest":  # from a generator, or a hand-made replay
            raise SuiteError(f"the suite generated a request the oracle calls bad: {expected} for {request}")
        norm = AREAS[area].normalize
        diff = compare(norm(expected), norm(actual), strict_messages=strict_messages)
        found = [(r, m, expected) for r, m, _ in found]
        if diff:
            found.append((f"{AREAS[area].prefix}-EQ", diff, expected))
    if unsupported and any(r in unsupported for r, _, _ in found):
        found = [b for b in found if b[0] not in unsupported and not b[0].endswith("-EQ")]
    return found


def check_area(impl: Implementation, impl_spec: str, area: str, version: FlinkVersion, *,
               examples: int, seed_value: int, conformance: Conformance = "flink",
               strict_messages: bool = False, progress: Callable[[AreaRun], None] | None = None,
               unsupported: frozenset[str] = frozenset()) -> AreaRun:
    """Check one area at one version with ``examples`` generated requests.

    Up to :data:`SEARCH_EXAMPLES` of them are drawn and judged one at a time by Hypothesis, which
    shrinks what fails; the rest come from a pre-drawn corpus (:mod:`flinkspec.corpus`, shared
    by the versions that draw the same inputs), pipelined through the implementation in batches;
    what fails there is delta-debugged. Every counterexample ends minimal either way."""
    spec = AREAS[area]
    run = AreaRun(area, str(version))
    best: dict[str, Counterexample] = {}
    counter = [0]
    started = time.monotonic()

    def record(req: dict[str, Any], actual: dict[str, Any], rule: str, message: str,
               expected: dict[str, Any] | None) -> None:
        old = best.get(rule)
        if old is not None and _size(old.request) <= _size(req):
            return
        clean = {k: req[k] for k in ("area", "flink", "input")}
        best[rule] = Counterexample(
            area, str(version), rule, RULES[rule].text if rule in RULES else rule, clean, expected,
            actual, message, replay_command(impl_spec, clean, strict_messages),
        )

    raised: set[str] = set()

    def one_pass(focus: set[str] | None, n: int) -> None:
        @settings(max_examples=n, deadline=None, database=None, verbosity=Verbosity.quiet,
                  report_multiple_bugs=True, print_blob=False,
                  phases=(Phase.explicit, Phase.generate, Phase.shrink),
                  suppress_health_check=[HealthCheck.too_slow])
        @seed(seed_value + len(raised))
        @given(spec.requests(version))
        def one(request: dict[str, Any]) -> None:
            counter[0] += 1
            req = {"id": counter[0], **request}
            try:
                actual = answer_one(impl, req)
            except ImplementationBroken as exc:
                raise _Abort(str(exc)) from exc
            broken = evaluate(req, actual, version, conformance=conformance, strict_messages=strict_messages,
                              unsupported=unsupported)
            for rule, message, expected in broken:
                record(req, actual, rule, message, expected)
            if progress is not None and counter[0] % 500 == 0:
                run.cases = counter[0]
                progress(run)
            focused = [b for b in broken if focus is None or b[0] in focus]
            if focused:
                rule, message, _ = focused[0]
                raised.add(rule)
                raise _violation_type(rule)(f"{rule}: {message}")

        try:
            one()
        except _Violated:
            pass  # every violation was recorded as it happened
        except BaseExceptionGroup as group:
            _, rest = group.split(_Violated)
            if rest is not None:
                raise rest from None

    search = min(examples, SEARCH_EXAMPLES)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Generating overly large repr")
        try:
            _batched(impl, area, version, corpus.inputs(area, version, examples - search, seed_value), counter,
                     lambda req, actual: [record(req, actual, *b) for b in evaluate(
                         req, actual, version, conformance=conformance, strict_messages=strict_messages,
                         unsupported=unsupported)],
                     lambda: progress(attrs.evolve(run, cases=counter[0])) if progress else None)
            # Hypothesis shrinks the rule it is told about; a rule only seen beside another one gets
            # a focused pass of its own so that each broken rule ends with its own minimal request.
            one_pass(None, search)
            for _ in range(MAX_FOCUS_PASSES):
                pending = set(best) - raised
                if not pending:
                    break
                one_pass(pending, search)
        except _Abort as exc:
            run.infra_error = str(exc)
    if run.infra_error is None:
        for rule, found in list(best.items()):
            best[rule] = _reduced(found, impl, version, counter, conformance, strict_messages, unsupported)
    run.cases = counter[0]
    run.seconds = time.monotonic() - started
    run.counterexamples = sorted(best.values(), key=lambda c: (c.rule.endswith("-EQ"), c.rule))
    return run


def _batched(impl: Implementation, area: str, version: FlinkVersion, inputs: list[dict[str, Any]],
             counter: list[int], judge_one: Callable[[dict[str, Any], dict[str, Any]], object],
             tick: Callable[[], object]) -> None:
    """Answer ``inputs`` in pipelined batches and judge every answer."""
    for start in range(0, len(inputs), BATCH):
        reqs = []
        for inp in inputs[start:start + BATCH]:
            counter[0] += 1
            reqs.append({"id": counter[0], "area": area, "flink": str(version), "input": inp})
        try:
            answers = impl.answer_many(reqs)
        except ImplementationBroken as exc:
            raise _Abort(str(exc)) from exc
        for req, actual in zip(reqs, answers, strict=True):
            judge_one(req, actual)
        tick()


def _reduced(found: Counterexample, impl: Implementation, version: FlinkVersion, counter: list[int],
             conformance: Conformance, strict_messages: bool,
             unsupported: frozenset[str] = frozenset()) -> Counterexample:
    """Delta-debug a counterexample further (Hypothesis cannot shrink seeded long sequences)."""
    last: dict[str, Any] = {}

    def still_fails(candidate: dict[str, Any]) -> bool:
        counter[0] += 1
        req = {"id": counter[0], **candidate}
        actual = answer_one(impl, req)
        try:
            broken = evaluate(req, actual, version, conformance=conformance, strict_messages=strict_messages,
                              unsupported=unsupported)
        except SuiteError:  # the cut made the request malformed (a field pointing past the events): no smaller
            return False
        for rule, message, expected in broken:
            if rule == found.rule:
                last.update(actual=actual, message=message, expected=expected)
                return True
        return False

    try:
        smaller = reduce(found.request, still_fails)
    except ImplementationBroken:
        return found
    if smaller == found.request or not last or _size(smaller) >= _size(found.request):
        return found
    still_fails(smaller)  # the answers of the final request, not of the last candidate tried
    return attrs.evolve(found, request=smaller, actual=last["actual"], difference=last["message"],
                        expected=last["expected"],
                        replay=replay_command(_impl_of(found.replay), smaller, strict_messages))


def _impl_of(replay: str) -> str:
    return shlex.split(replay)[3]


def versions_for(area: str, wanted: Sequence[FlinkVersion]) -> list[FlinkVersion]:
    return [ver for ver in wanted if ver in AREAS[area].versions]
