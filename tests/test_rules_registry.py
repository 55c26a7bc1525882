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
from properties.areas import AREAS, CHECKS, DECLARED, ORACLE_MODULES, ORACLE_RULES, RULES, all_rules
from properties.rules import DIFFERENTIAL, INVARIANT, NOT_CHECKED, ORACLE

ROOT = Path(__file__).resolve().parents[1]
PREFIXES = {d.id.rsplit("-", 1)[0] for d, _, _ in DECLARED.values()}
ORACLE_ID = re.compile(r"\b(" + "|".join(sorted(PREFIXES, key=len, reverse=True)) + r")-[0-9]+\b")
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
    assert all((i in DECLARED) == (r.kind == ORACLE) for i, r in REGISTRY.items())


def test_no_rule_id_or_text_is_declared_twice() -> None:
    """One rule, one place: an ID is declared once in the whole suite (oracle modules' RULES, invariants,
    -EQ rules), no two ID prefixes are shared between the oracle's rules and the documented ones, and no
    rule text is written twice (apart from a rule of one area that holds word for word in another)."""
    declared = [d.id for _, rules, _ in ORACLE_MODULES.values() for d in rules]
    assert len(declared) == len(set(declared)), sorted(i for i in declared if declared.count(i) > 1)
    documented_prefixes = {i.rsplit("-", 1)[0] for i in RULES}
    assert not PREFIXES & documented_prefixes, PREFIXES & documented_prefixes
    texts: dict[str, list[str]] = {}
    for rule in REGISTRY.values():
        texts.setdefault(" ".join(rule.text.split()).casefold(), []).append(rule.id)
    twice = {t: ids for t, ids in texts.items() if len(ids) > 1 and len({REGISTRY[i].area for i in ids}) == 1}
    assert not twice, twice


def test_invariants_name_their_rule_ids_literally() -> None:
    """``grep WM-5`` finds the check of WM-5: every invariant's ID is written out where it is registered."""
    sources = "".join(path.read_text() for path in (ROOT / "properties").rglob("*.py"))
    missing = [i for i, r in RULES.items()  # -REFUSED: the protocol's one rule, for every area by its prefix
               if r.kind == INVARIANT and not i.endswith("-REFUSED") and f'"{i}"' not in sources]
    assert not missing, missing


def test_every_rule_the_oracle_numbers_is_registered_and_back() -> None:
    mentions = _oracle_mentions()
    assert set(mentions) == set(ORACLE_RULES)
    for oid, files in mentions.items():
        _, area, where = DECLARED[oid]
        assert files <= set(where), f"{oid} is mentioned outside {where}: {files}"
        assert ORACLE_RULES[oid].area == area


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


def test_the_area_pages_are_the_registrys(tmp_path: Path) -> None:
    """docs/protocol/areas/ is what `flinkspec rules --markdown` writes from the registry, page for page."""
    from flinkspec.reports.rule_pages import write_pages

    written = write_pages(all_rules(), tmp_path)
    docs = ROOT / "docs" / "protocol" / "areas"
    assert sorted(p.name for p in docs.glob("*.md")) == sorted(p.name for p in written)
    for path in written:
        assert (docs / path.name).read_text() == path.read_text(), (
            f"docs/protocol/areas/{path.name} is stale: run `flinkspec rules --markdown docs/protocol/areas`")
