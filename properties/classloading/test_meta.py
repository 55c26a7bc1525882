"""Meta-tests: the class-loading strategies reach the corners where implementations go wrong."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

import oracle
from oracle.classloading import jdk_classes
from oracle.versions import SUPPORTED, FlinkVersion, parse_version
from properties.classloading.strategies import requests
from properties.corpus import draw

REACH = settings(max_examples=4000, database=None, deadline=None, phases=[Phase.generate], derandomize=True,
                 suppress_health_check=list(HealthCheck))


def _out(r: dict[str, Any]) -> dict[str, Any] | None:
    return oracle.answer({"id": 0, **r}).get("output")


def _lookups_with(pred: Callable[[str, list[str], dict[str, Any]], bool]) -> Callable[[dict[str, Any]], bool]:
    """Some lookup ``name`` satisfies ``pred(name, patterns in force, input)``."""
    def check(r: dict[str, Any]) -> bool:
        out = _out(r)
        return out is not None and any(pred(n, out["patterns"], r["input"]) for n in r["input"]["lookups"])
    return check


def _resolved(result: str) -> Callable[[dict[str, Any]], bool]:
    def check(r: dict[str, Any]) -> bool:
        out = _out(r)
        return out is not None and result in out["resolved"]
    return check


PATTERN_KEYS = ("classloader.parent-first-patterns.default", "classloader.parent-first-patterns",
                "classloader.parent-first-patterns.additional")
ODD_STARTS: dict[str, Callable[[str], bool]] = {
    "a digit": str.isdigit, "'$'": lambda c: c == "$", "'.'": lambda c: c == ".",
    "a letter beyond ASCII": lambda c: c.isalpha() and not c.isascii(), "'_', '-' or '#'": lambda c: c in "_-#"}


def _odd_start(text: str) -> bool:
    return bool(text) and any(starts(text[0]) for starts in ODD_STARTS.values())


def _pattern_values(pred: Callable[[str], bool]) -> Callable[[dict[str, Any]], bool]:
    """Some pattern-list value of the config satisfies ``pred`` (and the request is answered)."""
    return lambda r: _out(r) is not None and any(pred(v) for k, v in r["input"]["config"].items() if k in PATTERN_KEYS)


def _config_value(key: str, pred: Callable[[str], bool]) -> Callable[[dict[str, Any]], bool]:
    return lambda r: key in r["input"]["config"] and pred(r["input"]["config"][key])


def _duplicate_entry(value: str) -> bool:
    entries = [e for e in value.split(";") if e.strip()]
    return len(set(entries)) < len(entries)


def _single(pred: Callable[[str, str | None, dict[str, Any]], bool]) -> Callable[[dict[str, Any]], bool]:
    """Some getResource lookup ``name``, answered ``found``, satisfies ``pred(name, found, input)``."""
    def check(r: dict[str, Any]) -> bool:
        out = _out(r)
        return out is not None and "resource" in out and any(
            pred(n, f, r["input"]) for n, f in zip(r["input"]["resource_lookup_one"], out["resource"], strict=True))
    return check


def _pattern_in_force(starts: Callable[[str], bool]) -> Callable[[dict[str, Any]], bool]:
    """Some pattern in force starts with a character ``starts`` accepts."""
    def check(r: dict[str, Any]) -> bool:
        out = _out(r)
        return out is not None and any(p[:1] and starts(p[0]) for p in out["patterns"])
    return check


def _both_jars_hold(name: str, inp: dict[str, Any]) -> bool:
    return name in inp.get("user_resources", []) and name in inp.get("parent_resources", [])


def _side(name: str, inp: dict[str, Any]) -> str:
    user, parent = name in inp["user_classes"], name in inp["parent_classes"]
    return {(True, True): "both", (True, False): "user", (False, True): "parent"}.get((user, parent), "neither")


CORNERS: dict[str, Callable[[dict[str, Any]], bool]] = {
    "a lookup equal to a pattern": _lookups_with(lambda n, pats, _i: n in pats),
    "inside a pattern without a dot boundary": _lookups_with(
        lambda n, pats, _i: any(p and not p.endswith(".") and n.startswith(p) and n != p and n[len(p)] != "."
                                for p in pats)),
    "just outside a dotted pattern": _lookups_with(
        lambda n, pats, _i: any(p.endswith(".") and n.startswith(p[:-1]) and not n.startswith(p) for p in pats)),
    "user jar only": _lookups_with(lambda n, _p, i: _side(n, i) == "user"),
    "parent jar only": _lookups_with(lambda n, _p, i: _side(n, i) == "parent"),
    "both jars, no pattern": _lookups_with(
        lambda n, pats, i: _side(n, i) == "both" and not any(n.startswith(p) for p in pats)),
    "both jars, matching a pattern": _lookups_with(
        lambda n, pats, i: _side(n, i) == "both" and any(n.startswith(p) for p in pats)),
    "neither jar, not JDK": _lookups_with(lambda n, _p, i: _side(n, i) == "neither" and n not in jdk_classes()),
    "a JDK class": _lookups_with(lambda n, _p, _i: n in jdk_classes()),
    "a nested class": _lookups_with(lambda n, _p, _i: "$" in n),
    "a unicode identifier": _lookups_with(lambda n, _p, _i: any(ord(c) > 127 for c in n)),
    "a package 8 deep": _lookups_with(lambda n, _p, _i: n.count(".") >= 8),
    "the empty pattern in force": lambda r: (o := _out(r)) is not None and "" in o["patterns"],
    "a duplicate pattern": lambda r: (o := _out(r)) is not None and len(set(o["patterns"])) < len(o["patterns"]),
    "defaults without java.": lambda r: (o := _out(r)) is not None and "java." not in o["patterns"],
    "java.* class from a jar: SecurityException": _resolved("error:SecurityException"),
    "a resource named like a class file: ClassFormatError": _resolved("error:ClassFormatError"),
    "user java.lang.Object breaks user classes": lambda r: (
        (o := _out(r)) is not None and "java.lang.Object" in r["input"]["user_classes"]
        and any(x == "error:SecurityException" and n != "java.lang.Object"
                for n, x in zip(r["input"]["lookups"], o["resolved"], strict=True))),
    "parent-first resolve order": lambda r: (
        _out(r) is not None and r["input"]["config"].get("classloader.resolve-order", "").lower() == "parent-first"),
    "a case variant of the resolve order": lambda r: (
        _out(r) is not None and r["input"]["config"].get("classloader.resolve-order") in ("Parent-First",
                                                                                        "CHILD-FIRST")),
    "an unknown resolve order": lambda r: "Unknown resolve order" in str(
        oracle.answer({"id": 0, **r}).get("error", {}).get("message")),
    "the deprecated default key": lambda r: "classloader.parent-first-patterns" in r["input"]["config"],
    "a resource in both jars": lambda r: (o := _out(r)) is not None and ["user", "parent"] in o["resources"],
    "a class file as a resource": lambda r: any(x.endswith(".class") for x in r["input"].get("resource_lookups", [])),
    "a class asked for twice": lambda r: len(set(r["input"]["lookups"])) < len(r["input"]["lookups"]),
    # the boundary shapes of every list- and string-valued input
    "an empty pattern list": _pattern_values(lambda v: v == ""),
    "a pattern list of one empty entry": _pattern_values(lambda v: v in (";", ";;")),
    "a pattern list of whitespace only": _pattern_values(lambda v: v != "" and not v.strip()),
    "a pattern list naming one pattern twice": _pattern_values(_duplicate_entry),
    "a pattern list led by punctuation": _pattern_values(lambda v: v[:1] in (";", ",", ".", "#", "-")),
    "a pattern list ending in punctuation": _pattern_values(lambda v: v[-1:] in (";", ",", ".", "#")),
    "a pattern list led by whitespace": _pattern_values(lambda v: v[:1] == " " and bool(v.strip())),
    "a pattern list ending in whitespace": _pattern_values(lambda v: v[-1:] in (" ", "\n") and bool(v.strip())),
    **{f"a pattern in force starting with {what}": _pattern_in_force(starts) for what, starts in ODD_STARTS.items()},
    "a lookup of an unusual first character inside a pattern of it": _lookups_with(
        lambda n, pats, _i: _odd_start(n) and any(p[:1] == n[:1] and n.startswith(p) for p in pats)),
    "an empty resolve order": _config_value("classloader.resolve-order", lambda v: v == ""),
    "a resolve order led by punctuation": _config_value("classloader.resolve-order", lambda v: v[:1] in ";-$"),
    "a resolve order ending in punctuation": _config_value("classloader.resolve-order", lambda v: v.endswith(";")),
    "a resolve order led by a no-break space": _config_value("classloader.resolve-order", lambda v: v[:1] == "\u00a0"),
    "an empty leak check": _config_value("classloader.check-leaked-classloader", lambda v: v == ""),
    "a padded leak check": _config_value("classloader.check-leaked-classloader", lambda v: v != v.strip()),
    "a leak check led by punctuation": _config_value("classloader.check-leaked-classloader", lambda v: v[:1] == ";"),
    "a class listed twice in the user jar": lambda r: len(set(u := r["input"]["user_classes"])) < len(u),
    "a class listed twice in the parent jar": lambda r: len(set(u := r["input"]["parent_classes"])) < len(u),
    "no class asked for": lambda r: r["input"]["lookups"] == [],
    "an empty user jar": lambda r: r["input"]["user_classes"] == [] and not r["input"].get("user_resources"),
    "a resource listed twice in the user jar": lambda r: len(set(u := r["input"].get("user_resources", []))) < len(u),
    "a resource asked for twice": lambda r: len(set(u := r["input"].get("resource_lookups", []))) < len(u),
    "a resource of an unusual first character in a jar": lambda r: any(
        _odd_start(n) for n in [*r["input"].get("user_resources", []), *r["input"].get("parent_resources", [])]),
    # protocol 3: getResource
    "getResource of a name no side holds": _single(lambda _n, f, _i: f is None),
    "getResource of a name both jars hold, child-first": _single(
        lambda n, f, i: _both_jars_hold(n, i) and f == "user"),
    "getResource of a name both jars hold, parent-first": _single(
        lambda n, f, i: _both_jars_hold(n, i) and f == "parent"),
    "getResource of a JDK resource": _single(lambda n, f, i: f == "parent" and n not in i.get("parent_resources", [])
                                             and n.replace("/", ".").removesuffix(".class") not in i["parent_classes"]),
    "getResource of a name getResources is asked too": _single(lambda n, _f, i: n in i.get("resource_lookups", [])),
    "getResource of an empty list": lambda r: r["input"].get("resource_lookup_one") == [],
}

BY_VERSION: dict[str, tuple[FlinkVersion, Callable[[dict[str, Any]], bool]]] = {
    "1.15+: a quoting error": (parse_version("1.15"), lambda r: "Could not parse value" in str(
        oracle.answer({"id": 0, **r}).get("error", {}).get("message"))),
    "1.19+: a YAML list of patterns": (parse_version("1.19"), lambda r: (o := _out(r)) is not None and any(
        val.lstrip().startswith("[") and "~" not in val for val in r["input"]["config"].values())
        and not any(p.startswith("[") for p in o["patterns"])),
    "1.19+: a YAML list with a null item falls back": (parse_version("1.19"), lambda r: (o := _out(r)) is not None
                                                       and any(p.startswith("[") for p in o["patterns"])),
    "1.13: spaces kept around patterns": (parse_version("1.13"), lambda r: (o := _out(r)) is not None and any(
        p != p.strip() for p in o["patterns"])),
}


@pytest.mark.parametrize("corner", list(CORNERS))
def test_strategy_reaches(corner: str) -> None:
    find(requests(SUPPORTED[-1]), CORNERS[corner], settings=REACH)


@pytest.mark.parametrize("corner", list(BY_VERSION))
def test_strategy_reaches_version_corner(corner: str) -> None:
    version, pred = BY_VERSION[corner]
    find(requests(version), pred, settings=REACH)


@settings(max_examples=300, database=None, deadline=None, derandomize=True)
@given(requests(SUPPORTED[-1]))
def test_most_requests_are_accepted(request: dict[str, Any]) -> None:
    """Every generated request is well-formed: the oracle answers, never with a BadRequest."""
    resp = oracle.answer({"id": 0, **request})
    assert resp.get("error", {}).get("type") != "BadRequest", resp


def test_a_majority_is_accepted() -> None:
    """Most requests get an output (not a rejected configuration), so resolution is exercised."""
    drawn = draw(st.one_of(*(requests(ver) for ver in SUPPORTED)), 600, 7)
    accepted = sum("output" in oracle.answer({"id": 0, **r}) for r in drawn)
    assert accepted >= 0.5 * len(drawn), f"{accepted} of {len(drawn)} accepted"
