"""Every protocol area the suite knows, in one list: :data:`AREAS` is the only registry of areas.

Each is declared once, beside its strategies and invariants (``properties/<group>/area.py``,
:class:`properties.area.Area`); every other layer iterates this list. Adding an area is writing its
files and one line here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import attrs

import oracle
from oracle.rules import Declared
from oracle.versions import FlinkVersion
from properties import oracle_rules
from properties.area import Area, ExtraCorpus
from properties.checkpoint import area as checkpoint
from properties.classloading import area as classloading
from properties.memory import area as memory
from properties.rules import (
    DIFFERENTIAL,
    Ask,
    Check,
    Request,
    Response,
    Rule,
    Violation,
    area_properties,
    refused_rule,
)
from properties.watermark import area as watermark


def registry(areas: Iterable[Area]) -> dict[str, Area]:
    """The areas by name, in the order given (the order of reports, vectors and pages); each must have
    the oracle's entry point (an ``ENTRIES`` of ``oracle/``), and every entry point an area."""
    out: dict[str, Area] = {}
    for area in areas:
        if area.name in out:
            raise ValueError(f"area {area.name} declared twice")
        if area.name not in oracle.AREAS:
            raise ValueError(f"area {area.name} has no oracle entry (no ENTRIES of oracle/ names it)")
        out[area.name] = attrs.evolve(area, defaults=tuple(attrs.evolve(d, area=area.name) for d in area.defaults))
    if undeclared := oracle.AREAS.keys() - out.keys():
        raise ValueError(f"the oracle answers {sorted(undeclared)}, which no area declares")
    return out


AREAS: dict[str, Area] = registry((
    memory.TASKMANAGER, memory.JOBMANAGER, memory.CONSUMERS, memory.NETWORK,
    watermark.VALVE, watermark.COMBINED, watermark.TIMERS, watermark.GENERATION, watermark.WINDOWS, watermark.ASYNC,
    watermark.ASSIGNER,
    watermark.JOIN, watermark.OUTPUT,
    classloading.RESOLVE, classloading.LIFECYCLE,
    checkpoint.ALIGNMENT, checkpoint.COORDINATOR, checkpoint.RECOVERY, checkpoint.STORAGE, checkpoint.SNAPSHOT,
    checkpoint.HA,
))

# the areas' extra corpora (:class:`properties.area.ExtraCorpus`), by name, each knowing its area
EXTRA_CORPORA: dict[str, ExtraCorpus] = {
    c.name: attrs.evolve(c, area=a.name) for a in AREAS.values() for c in a.corpora}


def _rules(areas: Mapping[str, Area]) -> dict[str, Rule]:
    """The documented and differential rules of ``areas``' books, then each area's ``-REFUSED`` rule,
    each with the properties that check it (its area's, and for the ``-EQ`` rule Flink's own
    scenarios pinned for the area)."""
    out: dict[str, Rule] = {}
    for book in dict.fromkeys(a.rules for a in areas.values()):  # each book once, in the areas' order
        for rule in book.rules.values():
            if rule.area not in areas:
                raise ValueError(f"rule {rule.id} is of {rule.area}, which no area declares")
            if rule.id in out:
                raise ValueError(f"rule {rule.id} declared twice")
            out[rule.id] = rule
    for area in areas.values():
        refused = refused_rule(area.name, area.prefix)
        out[refused.id] = refused
    for rid, rule in out.items():
        area = areas[rule.area]
        by = area_properties(area.machine)
        if rule.kind == DIFFERENTIAL and area.examples:
            by += (area.examples,)
        out[rid] = attrs.evolve(rule, checked_by=by)
    return out


# the rules an answer is judged by: the invariants, the -EQ and the -REFUSED rule of every area
RULES: dict[str, Rule] = _rules(AREAS)
# each oracle module that declares rules: its area, its rules and the files that encode them
ORACLE_MODULES: dict[str, tuple[str, tuple[Declared, ...], tuple[str, ...]]] = {
    module: (area.name, encoded.rules, encoded.files) for area in AREAS.values()
    for module, encoded in area.oracle.items()}
# each oracle rule: its declaration, its area and the files that encode it
DECLARED: dict[str, tuple[Declared, str, tuple[str, ...]]] = {
    d.id: (d, area, files) for area, rules, files in ORACLE_MODULES.values() for d in rules}
# the rules the oracle encodes, with what checks each
ORACLE_RULES: dict[str, Rule] = oracle_rules.oracle_rules(
    DECLARED, (c for area in AREAS.values() for encoded in area.oracle.values() for c in encoded.checked),
    {name: a.prefix for name, a in AREAS.items()})
# each area's invariants with their checks (its book's, as the book declares them)
CHECKS: dict[str, list[tuple[Rule, Check]]] = {
    name: [(area.rules.rules[rid], fn) for rid, of, fn in area.rules.checks if of == name]
    for name, area in AREAS.items()}
if RULES.keys() & ORACLE_RULES.keys():
    raise ValueError(f"rule IDs declared twice: {sorted(RULES.keys() & ORACLE_RULES.keys())}")


def all_rules() -> dict[str, Rule]:
    """The whole registry: every invariant and differential rule, then every oracle rule."""
    return {**RULES, **ORACLE_RULES}


def judge(area: str, request: Request, response: Response, version: FlinkVersion, *, documented_only: bool = False,
          expected: Response | None = None, ask: Ask | None = None, strict_messages: bool = False) -> list[Violation]:
    """Every invariant of ``area`` applied to one answer (:meth:`properties.area.Area.violations`)."""
    return AREAS[area].violations(request, response, version, documented_only=documented_only, expected=expected,
                                  ask=ask, strict_messages=strict_messages)


def judge_levels(area: str, request: Request, response: Response, version: FlinkVersion,
                 ) -> tuple[list[Violation], list[Violation]]:
    """:func:`judge` at both levels at once (``flink``, ``documented``), each invariant applied once."""
    return AREAS[area].rules.judge_levels(area, request, response, version)


def area_of_corpus(name: str) -> str:
    """The protocol area of an area's own corpus or of an :data:`EXTRA_CORPORA` entry."""
    return EXTRA_CORPORA[name].area if name in EXTRA_CORPORA else name
