"""The rule registry: every rule the suite checks, with a stable ID, its text and its source.

An invariant is a pure function ``check(request, response, version) -> list[Violation]``
declared in a :class:`RuleBook` under the ID of the rule it checks. The same functions judge
answers in pytest, in ``flinkspec check`` and in the Spark harness. :data:`properties.areas.RULES`
holds every book's invariants and each area's differential ``<PREFIX>-EQ`` rule (what reports
name); the rules the oracle encodes (``CC-3`` ...) are in :mod:`properties.oracle_rules`, and
:func:`properties.areas.all_rules` is both (docs/rules.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs

from oracle.changes import Change
from oracle.versions import FlinkVersion, Releases, v

Request = Mapping[str, Any]
Response = Mapping[str, Any]


def output_steps(resp: Response, key: str = "steps") -> list[Any] | None:
    """An accepted answer's ``output.steps`` list (the areas that answer one step per event; ``key``: the list's
    name where it is another, ``outputs``), else None."""
    out = resp.get("output") if resp.get("error") is None else None
    if not isinstance(out, Mapping) or not isinstance(out.get(key), list):
        return None
    steps: list[Any] = out[key]
    return steps


INVARIANT, DIFFERENTIAL, ORACLE = "invariant", "differential", "oracle"
NOT_CHECKED = "not checked"  # a status that starts so says why after a colon

# The properties that judge every answer of an area by its invariants and its -EQ rule: the generic
# conformance property, real Flink of every version (check_area judges both), and the area's
# stateful machine where it has one (:attr:`properties.area.Area.machine`).
CONFORMANCE = "properties/test_conformance.py::test_answers_keep_every_rule_of_the_area"
REAL_FLINK = "tests/test_real_flink.py::test_real_flink_conforms_to_the_oracle"


def area_properties(machine: str | None) -> tuple[str, ...]:
    """The properties that apply every invariant and the ``-EQ`` rule of an area with ``machine``."""
    return (CONFORMANCE, REAL_FLINK) + ((machine,) if machine else ())


@attrs.frozen
class Rule:
    """A documented rule: ``id`` like ``TM-3``; ``documented`` rules are checked at both
    conformance levels, the others (Flink's actual behaviour beyond its docs) only at ``flink``.

    ``kind`` is ``invariant`` (a check of its own), ``differential`` (``<PREFIX>-EQ``: equal to
    real Flink's answer) or ``oracle`` (a rule the oracle encodes, checked through other rules);
    ``checked_by`` names what checks it: rule IDs, ``path::test`` properties and ``scenario:NAME``
    (a Flink test transcribed in ``properties/checkpoint/*_examples.json``). ``status`` is
    ``checked ...`` or ``not checked: <why>``; ``note`` says what a check leaves out."""

    id: str
    area: str
    text: str
    source: str
    documented: bool = True
    status: str = "checked"
    broken_in: Releases | None = None  # the releases whose real Flink breaks it (a documented rule)
    wording: bool = False  # it reads exception names or messages: judged only with --strict-messages
    kind: str = INVARIANT
    checked_by: tuple[str, ...] = ()
    note: str = ""

    @property
    def checked(self) -> bool:
        return not self.status.startswith(NOT_CHECKED)

    @property
    def flink_violates(self) -> tuple[str, ...]:
        """The releases whose real Flink breaks it, named as ``--flink`` names them (JSON and reports)."""
        return tuple(str(r) for r in self.broken_in.members) if self.broken_in is not None else ()

    def broken_at(self, version: FlinkVersion) -> bool:
        """Whether real Flink ``version`` breaks this rule."""
        return self.broken_in is not None and version in self.broken_in


@attrs.frozen
class Violation:
    """A rule broken by one answer, with what was seen."""

    rule: str
    message: str


Check = Callable[[Request, Response, FlinkVersion], "list[Violation]"]
# A metamorphic rule relates two answers of the same implementation: ``twin(request, response,
# version)`` is the input of a request that must be answered alike (None: the rule has nothing to
# say), and ``relation(request, response, twin_request, twin_response, version)`` judges the pair.
Twin = Callable[[Request, Response, FlinkVersion], "dict[str, Any] | None"]
Relation = Callable[[Request, Response, Request, Response, FlinkVersion], "list[Violation]"]
Ask = Callable[[Request], "Response | None"]  # the implementation's answer to one more request (None: cannot be sent)

@attrs.define(eq=False)
class RuleBook:
    """The rules one module of invariants declares, with their checks: the areas' declarations name
    their book (:attr:`properties.area.Area.rules`), and :mod:`properties.areas` joins the books of
    every area into the registry. Nothing is registered anywhere else: a book is filled as its module
    is read (its decorators), and read through the areas that name it."""

    rules: dict[str, Rule] = attrs.field(factory=dict)
    checks: list[tuple[str, str, Check]] = attrs.field(factory=list)  # (rule ID, area, check)
    relations: list[tuple[str, str, Twin, Relation]] = attrs.field(factory=list)  # (rule ID, area, twin, relation)

    def declare(self, rule: Rule) -> Rule:
        if rule.id in self.rules and self.rules[rule.id] != rule:
            raise ValueError(f"rule {rule.id} declared twice with different texts")
        self.rules[rule.id] = rule
        return rule

    def invariant(self, rule_id: str, area: str, text: str, source: str, *, documented: bool = True,
                  wording: bool = False) -> Callable[[Check], Check]:
        """Make ``fn`` the check of rule ``rule_id`` for ``area``; a ``wording`` rule reads the
        exception names or messages of rejections, which only ``--strict-messages`` compares."""
        self.declare(Rule(rule_id, area, text, source, documented, wording=wording))

        def register(fn: Check) -> Check:
            self.checks.append((rule_id, area, fn))
            return fn

        return register

    def metamorphic(self, rule_id: str, area: str, text: str, source: str, *, twin: Twin,
                    documented: bool = True) -> Callable[[Relation], Relation]:
        """Make ``fn`` the relation of rule ``rule_id``: the implementation is asked the request
        ``twin`` makes of each answer (a respelling the rule says means the same), and ``fn`` judges
        the two answers. Judged only where the implementation can be asked again (not on recorded
        answers)."""
        self.declare(Rule(rule_id, area, text, source, documented))

        def register(fn: Relation) -> Relation:
            self.relations.append((rule_id, area, twin, fn))
            return fn

        return register

    def flink_violates(self, rule_id: str, witness: str, *, since: str = "1.13", until: str | None = None,
                       before: Change | None = None) -> None:
        """Record that real Flink breaks documented rule ``rule_id`` in the releases from ``since`` up
        to, not including, ``until`` (a fix's first release; None: still broken in the newest), see
        docs/documented-rules.md. ``before``: broken until that change of the area's table (and, for a
        regression's fix, from the release that brought the regression)."""
        if before is not None:
            since, until = before.regressed or since, before.since
        broken = Releases(v(since), v(until) if until else None)
        self.rules[rule_id] = attrs.evolve(self.rules[rule_id], broken_in=broken,
                                           status=f"checked (real Flink breaks it in {broken}: {witness}.)")

    def differential(self, area: str, prefix: str) -> Rule:
        """The rule "answers exactly as Flink does", checked by comparing with the oracle."""
        return self.declare(Rule(
            f"{prefix}-EQ", area,
            "The answer equals real Flink's (the oracle's) for the same request and version: "
            "every value, and for a rejection the error type (exception and message with --strict-messages).",
            "flinkspec oracle, proven against the released jars", documented=False, kind=DIFFERENTIAL))

    def accepted(self, rule_id: str, area: str, accepts: Callable[[Request, FlinkVersion], bool], condition: str,
                 source: str) -> Rule:
        """The documented rule "a request the documented rules accept is answered": ``accepts(request,
        version)`` says whether Flink's documentation calls the request valid (``condition`` in
        words). A rejection (``InvalidConfiguration``) of such a request breaks it whatever its
        message says: an implementation's wording is its own, so no documented rule reads it."""

        @self.invariant(rule_id, area, f"A request {condition} is answered with an output: a rejection of it, "
                        "whatever it says, breaks the documented rules.", source)
        def check(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
            err = resp.get("error")
            if isinstance(err, dict) and err.get("type") == "InvalidConfiguration" and accepts(req, version):
                return [Violation(rule_id, f"rejected ({err.get('exception') or 'no exception named'}), although "
                                           "the documented rules accept this request")]
            return []

        return self.rules[rule_id]

    def judge(self, area: str, request: Request, response: Response, version: FlinkVersion,
              *, documented_only: bool = False, expected: Response | None = None, ask: Ask | None = None,
              strict_messages: bool = False) -> list[Violation]:
        """Every invariant of ``area`` in this book applied to one answer.

        At the ``flink`` level (``documented_only`` false) a documented rule that real Flink of
        ``version`` breaks is judged only where Flink's own answer (``expected``, the oracle's) keeps
        it on this request: there it names what the answer breaks, and it can never fail an answer
        equal to Flink's. ``ask`` answers the twins of the area's metamorphic rules
        (:meth:`metamorphic`); without it they are not judged. Rules that read the wording of a
        rejection are judged only with ``strict_messages``. At the ``flink`` level an answer equal to
        ``expected`` breaks no invariant by that rule (each one is judged on it only where Flink's answer
        keeps it), so its invariants are not applied again: only its metamorphic rules are judged."""
        out: list[Violation] = []
        flinks_own = not documented_only and expected is not None and response == expected
        for rule_id, rule_area, check in () if flinks_own else self.checks:
            rule = self.rules[rule_id]
            if rule_area != area or (documented_only and not rule.documented) or (rule.wording and not strict_messages):
                continue
            if not documented_only and _flink_breaks_it_here(rule, check, request, version, expected):
                continue
            out.extend(check(request, response, version))
        if ask is None:
            return out
        for relation, twin_request in self._twins(area, request, response, version, documented_only):
            twin_response = ask(twin_request)
            if twin_response is not None:
                out.extend(relation(request, response, twin_request, twin_response, version))
        return out

    def twins(self, area: str, request: Request, response: Response, version: FlinkVersion, *,
              documented_only: bool = False) -> list[Request]:
        """The requests :meth:`judge` asks, given ``ask``, about one answer (the twins of its metamorphic
        rules): a caller judging many answers asks them all in one batch first."""
        return [twin for _, twin in self._twins(area, request, response, version, documented_only)]

    def _twins(self, area: str, request: Request, response: Response, version: FlinkVersion,
               documented_only: bool) -> Iterator[tuple[Relation, Request]]:
        for rule_id, rule_area, twin, relation in self.relations:
            rule = self.rules[rule_id]
            if rule_area != area or (not rule.documented and documented_only) or (
                    not documented_only and rule.broken_at(version)):
                continue
            related = twin(request, response, version)
            if related is None or related == request.get("input"):
                continue
            yield relation, {k: request[k] for k in ("area", "flink") if k in request} | {"input": related}


    def judge_levels(self, area: str, request: Request, response: Response, version: FlinkVersion,
                     ) -> tuple[list[Violation], list[Violation]]:
        """:meth:`judge` at both levels (``flink``, then ``documented``), without ``expected``, ``ask`` or
        ``strict_messages``, each invariant applied once."""
        flink: list[Violation] = []
        documented: list[Violation] = []
        for rule_id, rule_area, check in self.checks:
            rule = self.rules[rule_id]
            at_flink = not _flink_breaks_it_here(rule, check, request, version, None)
            if rule_area != area or rule.wording or not (at_flink or rule.documented):
                continue
            found = check(request, response, version)
            flink.extend(found if at_flink else ())
            documented.extend(found if rule.documented else ())
        return flink, documented


def _flink_breaks_it_here(rule: Rule, check: Check, request: Request, version: FlinkVersion,
                          expected: Response | None) -> bool:
    """At the ``flink`` level, ``rule`` is not judged: Flink of ``version`` breaks it, and (when Flink's
    answer ``expected`` is known) breaks it on this request too."""
    return rule.broken_at(version) and (expected is None or bool(check(request, expected, version)))


def refused_rule(area: str, prefix: str) -> Rule:
    """The protocol's rule "a well-formed request is answered": an output, or Flink's own rejection
    (``InvalidConfiguration``), never a ``BadRequest``; checked at both levels by the check engine,
    which knows a request is well-formed when the oracle answers it."""
    return Rule(
        f"{prefix}-REFUSED", area,
        "A well-formed request is answered: with an output, or with Flink's own rejection "
        "(InvalidConfiguration), never refused as a BadRequest.",
        "docs/protocol/v1.md 'Envelope': BadRequest is for an unknown version or area or an input of the "
        "wrong shape",
        kind=INVARIANT,
    )
