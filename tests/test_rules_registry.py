"""The rule registry (docs/rules.md): every rule has one ID, a source and what checks it, every rule the
oracle numbers is in it, and every rule a check or a report can name comes from it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from flinkspec.engine.check import check_area
from flinkspec.impls import open_impl
from oracle.versions import parse_version
from properties.areas import AREAS
from properties.oracle_rules import ORACLE_PREFIXES, ORACLE_RULES, PREFIX, oracle_id
from properties.rules import CHECKS, DIFFERENTIAL, INVARIANT, NOT_CHECKED, ORACLE, RULES, all_rules

ROOT = Path(__file__).resolve().parents[1]
ORACLE_ID = re.compile(r"\b(" + "|".join(sorted(ORACLE_PREFIXES, key=len, reverse=True)) + r")-[0-9]+\b")
REGISTRY = all_rules()


def _oracle_mentions() -> dict[str, set[str]]:
    """Every rule ID ``oracle/*.py`` mentions, with the files that mention it."""
    out: dict[str, set[str]] = {}
    for path in sorted((ROOT / "oracle").glob("*.py")):
        for m in ORACLE_ID.finditer(path.read_text()):
            out.setdefault(m.group(0), set()).add(path.relative_to(ROOT).as_posix())
    return out


def _scenarios() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "properties" / "checkpoint").glob("*_examples.json"):
        names |= {ex["name"] for ex in json.loads(path.read_text())["examples"]}
    return names


def _references() -> Iterator[tuple[str, str]]:
    for rule in REGISTRY.values():
        for ref in rule.checked_by:
            yield rule.id, ref


def test_ids_are_unique_and_kinds_known() -> None:
    assert not RULES.keys() & ORACLE_RULES.keys()
    assert len({i.casefold() for i in REGISTRY}) == len(REGISTRY)
    assert {r.kind for r in REGISTRY.values()} == {INVARIANT, DIFFERENTIAL, ORACLE}
    assert all(r.area in AREAS for r in REGISTRY.values())
    assert all(i.startswith(PREFIX) == (r.kind == ORACLE) for i, r in REGISTRY.items())


def test_every_rule_the_oracle_numbers_is_registered_and_back() -> None:
    mentions = _oracle_mentions()
    assert set(mentions) == {oracle_id(r) for r in ORACLE_RULES.values()}
    for oid, files in mentions.items():
        area, where = ORACLE_PREFIXES[oid.rsplit("-", 1)[0]]
        assert files <= set(where), f"{oid} is mentioned outside {where}: {files}"
        assert ORACLE_RULES[PREFIX + oid].area == area


def test_every_rule_has_a_source_and_a_check_or_a_reason() -> None:
    for rule in REGISTRY.values():
        assert rule.text.strip() and rule.source.strip(), rule.id
        if rule.checked:
            assert rule.status.startswith("checked") and rule.checked_by, rule.id
        else:
            why = rule.status.removeprefix(NOT_CHECKED)
            assert why.startswith(": ") and len(why) > 5, f"{rule.id}: {rule.status!r} says not why"


def test_every_oracle_rule_is_checked_against_flink_or_says_how_not() -> None:
    for rule in ORACLE_RULES.values():
        eq = f"{AREAS[rule.area].prefix}-EQ"
        assert eq in rule.checked_by or rule.note, f"{rule.id}: not checked by {eq} and no note says why"


def test_every_check_reference_exists() -> None:
    scenarios = _scenarios()
    for rid, ref in _references():
        if ref.startswith("scenario:"):
            assert ref.removeprefix("scenario:") in scenarios, f"{rid}: unknown {ref}"
        elif "/" in ref:
            path, _, func = ref.partition("::")
            assert (ROOT / path).is_file(), f"{rid}: no file {path}"
            assert not func or f"def {func}(" in (ROOT / path).read_text(), f"{rid}: no {ref}"
        else:
            assert ref in REGISTRY and ref != rid, f"{rid}: checked by unknown rule {ref}"


def test_every_rule_a_property_names_is_registered() -> None:
    named = {m.group(1) for path in (ROOT / "properties").rglob("*.py")
             for m in re.finditer(r"(?:Violation|flink_violates)\(\s*\"([A-Z]+-[0-9A-Z]+)\"", path.read_text())}
    assert named and named <= RULES.keys(), named - RULES.keys()
    assert all(rule.id in RULES for checks in CHECKS.values() for rule, _ in checks)
    for name, spec in AREAS.items():  # what flinkspec.judge.verdict.evaluate names on a differing answer
        assert REGISTRY[f"{spec.prefix}-EQ"].kind == DIFFERENTIAL and REGISTRY[f"{spec.prefix}-EQ"].area == name


@pytest.mark.parametrize(("mutant", "area", "flink"), [
    ("memory-network-max-1g", "memory.taskmanager", "2.3"),
    ("valve-reemit-on-active", "watermark.valve", "1.18"),
])
def test_counterexamples_name_registry_rules(mutant: str, area: str, flink: str) -> None:
    impl = open_impl(f"mutant:{mutant}")
    try:
        run = check_area(impl, f"mutant:{mutant}", area, parse_version(flink), examples=200, seed_value=7)
    finally:
        impl.close()
    assert run.counterexamples
    assert {c.rule for c in run.counterexamples} <= REGISTRY.keys()
