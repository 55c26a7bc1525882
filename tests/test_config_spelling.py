"""Configuration spelling as a declarable feature (issue 26, item 5b): an implementation that reads only
plain spellings declares ``config.spelling`` unsupported, and is then sent each value respelled plainly
where Flink reads it, the rest not checked, never failed (docs/protocol/v2.md, :mod:`flinkspec.impls.spelling`).

Holds: (a) a plain value means the same in every release, and an odd one is respelled into a plain one;
(b) a respelled request gets the answer the original gets, from the oracle (on the generated requests of
every version) and from real Flink; (c) the declaration parses, and ``flinkspec check`` of an engine that
refuses odd spellings is valid with it (the not-checked cases counted) and invalid without it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import oracle
from flinkspec.impls import features as feat
from flinkspec.impls import spelling
from flinkspec.impls.capabilities import Capabilities, CapabilitiesError, parse
from flinkspec.impls.features import CURRENT
from oracle import classloading_config as clc
from oracle.versions import SUPPORTED, parse_version, pick
from properties import corpus

ROOT = Path(__file__).resolve().parents[1]
FEATURE = feat.BY_NAME["config.spelling"]
PLAIN_ONLY = Capabilities(protocol=CURRENT, unsupported_features=("config.spelling",))
AREAS = ("memory.taskmanager", "memory.jobmanager", "classloading.resolve")
SPLITTERS = sorted({pick(clc.SPLITTERS, ver) for ver in SUPPORTED}, key=lambda f: f.__name__)


def req(area: str, config: dict[str, str], flink: str = "2.3") -> dict[str, Any]:
    inp: dict[str, Any] = {"config": config}
    if area == "classloading.resolve":
        inp |= {"user_classes": ["a.B"], "parent_classes": [], "lookups": ["a.B"], "user_resources": [],
                "parent_resources": [], "resource_lookups": []}
    return {"area": area, "flink": flink, "input": inp}


# ---- (a) plain values ---------------------------------------------------------------------------------

# entries of every leading character a class-name prefix can have: digits, '$', '.', '_', unicode, '#'
_entry = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=6).filter(
    spelling.plain_entry)


@settings(max_examples=400, deadline=None)
@given(st.lists(_entry, max_size=4))
def test_a_plain_pattern_list_means_its_entries_in_every_release(entries: list[str]) -> None:
    """Guava's splitter (1.13-1.14), the escaped one (1.15-1.18) and the YAML-first reader (1.19+) all
    read a plain list as its ``;``-separated entries."""
    value = ";".join(entries)
    if not spelling.plain_patterns(value):
        return  # a first entry starting as YAML would read it specially
    for split in SPLITTERS:
        assert list(split(value)) == entries, split.__name__


@pytest.mark.parametrize(("kind", "value", "flink", "plain"), [
    ("size", " 1 GB", "2.3", "1g"), ("size", "1Gb", "2.3", "1g"), ("size", "\t1728m", "1.13", "1728m"),
    ("size", "007m", "2.3", "7m"), ("size", "1073741824 bytes", "2.3", "1g"),
    ("float", "0.1f", "2.3", "0.1"), ("float", "1e-1", "2.3", "0.1"), ("float", " 0.4 ", "2.3", "0.4"),
    ("float", "1E0", "2.3", "1"), ("double", "+2", "2.3", "2"), ("int", "+4", "2.3", "4"),
    ("boolean", "TRUE", "2.3", "true"), ("boolean", "False", "2.3", "false"),
    ("resolve-order", "Parent-First", "2.3", "parent-first"), ("resolve-order", "CHILD-FIRST", "2.3", "child-first"),
    ("resolve-order", "parent-firſt", "2.3", "parent-first"),
    ("patterns", " a ; b ", "1.15", "a;b"), ("patterns", "a;;b;", "1.13", "a;b"),
    ("patterns", "'a';\"b\"", "1.18", "a;b"),
    ("patterns", "[a, 'b']", "1.19", "a;b"), ("patterns", "[]", "2.3", ""), ("patterns", ";", "1.15", ""),
])
def test_an_odd_value_is_respelled_as_flink_reads_it(kind: spelling.Kind, value: str, flink: str, plain: str) -> None:
    version = parse_version(flink)
    assert not spelling.plain(kind, value, version)
    assert spelling.read(kind, value, version) == plain and spelling.plain(kind, plain, version)


@pytest.mark.parametrize(("kind", "value", "flink"), [
    ("size", "1.5 gb", "2.3"), ("size", " abc", "2.3"), ("size", "1 MiB", "2.3"), ("float", "NaN", "2.3"),
    ("float", " abc ", "2.3"), ("int", " 4 ", "2.3"), ("boolean", " true", "2.3"),
    ("resolve-order", " child-first", "2.3"), ("resolve-order", "CHILD_FIRST", "2.3"),
    ("patterns", " a ", "1.13"), ("patterns", "a;;b", "1.15"), ("patterns", "'a;b'", "1.15"),
    ("patterns", "'a", "1.15"),
    ("patterns", "[a, 'b']", "1.18"), ("patterns", "[a, ~]", "2.3"), ("patterns", "[' a']", "2.3"),
])
def test_an_odd_value_flink_refuses_or_reads_unplainly_has_no_plain_spelling(kind: spelling.Kind, value: str,
                                                                              flink: str) -> None:
    version = parse_version(flink)
    assert not spelling.plain(kind, value, version)
    with pytest.raises((spelling.Refused, spelling.Unread)):
        spelling.read(kind, value, version)


@pytest.mark.parametrize(("kind", "value"), [
    ("size", "1.5g"), ("size", "-1m"), ("size", "abc"), ("size", "１２m"), ("size", "99999999999999999999b"),
    ("float", "abc"), ("float", "0,1"), ("float", ""), ("int", "1.5"), ("int", "ABC"), ("boolean", "yes"),
    ("resolve-order", "bogus"), ("resolve-order", ""), ("resolve-order", "child_first"),
    ("patterns", ""), ("patterns", "a;a"), ("patterns", "$x;1a;.b;ü.;日本.;#c"),
])
def test_what_has_nothing_of_spelling_is_plain(kind: spelling.Kind, value: str) -> None:
    """Values Flink refuses whatever the spelling rules (a decimal size, a negative one, an unknown word)
    and the boundary contents of a pattern list (empty, duplicates, unusual leading characters) stay as
    they are: the implementation must answer them as Flink does."""
    for version in SUPPORTED:
        assert spelling.plain(kind, value, version), version


def test_the_feature_is_of_protocol_1_and_spoken_unless_declared_unsupported() -> None:
    using = req("memory.taskmanager", {"taskmanager.memory.process.size": " 2 GB", "taskmanager.memory.foo": " x"})
    assert FEATURE.version == 1 and FEATURE.used(using)
    assert Capabilities().fit(using) == (using, None)
    assert PLAIN_ONLY.fit(using) == (req("memory.taskmanager", {"taskmanager.memory.process.size": "2g",
                                                                "taskmanager.memory.foo": " x"}), None)
    refused = req("memory.taskmanager", {"taskmanager.memory.process.size": "2 GiB"})
    assert PLAIN_ONLY.fit(refused) == (None, FEATURE.need())
    assert FEATURE.need().startswith("needs feature config.spelling (")
    plain = req("classloading.resolve", {"classloader.resolve-order": "bogus",
                                         "classloader.parent-first-patterns.additional": "1a;$b;.c"}, "1.13")
    assert not FEATURE.used(plain) and PLAIN_ONLY.fit(plain)[0] is plain


# ---- (b) the answer stays the same --------------------------------------------------------------------


def _respelled_pairs(area: str, per_version: int, seed: int, versions: Any = SUPPORTED) -> list[tuple[Any, Any]]:
    pairs = []
    for version in versions:
        for inp in corpus.inputs(area, version, per_version, seed):
            original = {"area": area, "flink": str(version), "input": inp}
            sent, _ = PLAIN_ONLY.fit(original)
            if sent is not None and sent is not original:
                pairs.append((original, sent))
    return pairs


@pytest.mark.parametrize("area", AREAS)
def test_the_oracle_answers_a_respelled_request_as_the_original(area: str) -> None:
    """On 120 generated requests per version: every respelled request is plain and gets the original's
    answer from the oracle, messages included."""
    pairs = _respelled_pairs(area, 120, 3)
    assert len(pairs) >= 100, len(pairs)
    for original, sent in pairs:
        assert not FEATURE.used(sent), sent
        assert oracle.answer({"id": 1, **sent}) == oracle.answer({"id": 1, **original}), (original, sent)


@pytest.mark.flink
@pytest.mark.parametrize("area", AREAS)
def test_real_flink_answers_a_respelled_request_as_the_original(area: str) -> None:
    """Real Flink of three releases (one per pattern-list reader) gives a respelled request the original's
    answer (the value compared as the check compares it, the exception's type and message included)."""
    from flinkspec.impls import open_impl
    from properties.areas import AREAS as AREA_RULES

    impl = open_impl("flink", timeout=300)
    norm = AREA_RULES[area].normalize
    try:
        pairs = _respelled_pairs(area, 40, 5, [parse_version(x) for x in ("1.13", "1.16", "2.3")])
        originals = impl.answer_many([{"id": i, **o} for i, (o, _) in enumerate(pairs, 1)])
        sent = impl.answer_many([{"id": i, **s} for i, (_, s) in enumerate(pairs, 1)])
        for (original, respelled), a, b in zip(pairs, originals, sent, strict=True):
            assert norm(a) == norm(b), (original, respelled, a, b)
    finally:
        impl.close()


# ---- (c) the declaration and the check ----------------------------------------------------------------


def test_the_declaration_parses() -> None:
    caps = parse({"protocol": 2, "unsupported": [{"feature": "config.spelling", "why": "plain only"},
                                                 {"area": "watermark.timers"}]}, "caps.json")
    assert caps.unsupported_features == ("config.spelling",) and len(caps.unsupported) == 1
    assert not caps.speaks.speaks("config.spelling") and "config.spelling" in caps.speaks.to_json()["not_spoken"]
    assert caps.run_unsupported("memory.taskmanager", "2.3") is None  # a feature entry takes no area out
    assert caps.merged(Capabilities()).unsupported_features == ("config.spelling",)
    lenient = parse({"unsupported": [{"feature": "config.nope"}]}, "answer", lenient=True)
    assert lenient.unsupported_features == () and "config.nope" in lenient.warnings[0]


@pytest.mark.parametrize(("entry", "says"), [
    ({"feature": "config.nope"}, "unsupported[0].feature: unknown feature config.nope"),
    ({"feature": "config.spelling", "area": "memory.taskmanager"}, "a feature entry names the feature only"),
    ({"feature": []}, "unsupported[0].feature must be a string or a non-empty list of strings"),
    ({"feature": "config.spelling", "why": 3}, "unsupported[0].why must be a string"),
])
def test_a_bad_feature_entry_names_the_field(entry: dict[str, Any], says: str) -> None:
    with pytest.raises(CapabilitiesError) as info:
        parse({"unsupported": [entry]}, "caps.json")
    assert says in str(info.value)


def _check(impl: str, report: Path, flink: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    res = subprocess.run([sys.executable, "-m", "flinkspec.cli", "check", "--impl", impl, "--area", ",".join(AREAS),
                          "--flink", flink, "--examples", "60", "--report", str(report)],
                         capture_output=True, text=True, timeout=900, cwd=ROOT)
    return res, json.loads((report / "report.json").read_text())


def test_an_engine_of_plain_spellings_that_declares_it_is_valid(tmp_path: Path) -> None:
    res, report = _check("python:tests.plain_spelling_impl:answer", tmp_path, "1.13,1.16,2.3")
    assert res.returncode == 0, res.stderr
    assert report["verdict"] == "valid" and report["not_checked_cases"] > 0
    assert "config.spelling" in report["speaks"]["not_spoken"]
    for run in report["runs"]:
        assert run["checked"] > 0 and set(run["not_checked"]) <= {FEATURE.need()}, run
    assert "not checked (needs feature config.spelling" in res.stderr


def test_without_the_declaration_it_is_invalid(tmp_path: Path) -> None:
    res, report = _check("python:tests.plain_spelling_impl:answer_undeclared", tmp_path, "2.3")
    assert res.returncode == 1, res.stderr
    assert report["verdict"] == "invalid" and report["not_checked_cases"] == 0
    assert {r["area"] for r in report["runs"] if r["verdict"] == "invalid"} == set(AREAS)
