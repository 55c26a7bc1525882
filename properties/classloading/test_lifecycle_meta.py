"""Meta-tests: the class-loader lifecycle strategies reach the corners where implementations go wrong."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings

import oracle
from oracle.classloading import jdk_classes
from oracle.classloading_lifecycle import THROWABLES, Kind
from oracle.versions import SUPPORTED, FlinkVersion, parse_version
from properties.classloading.lifecycle_strategies import requests
from properties.corpus import Drawn, reaches

LEAK = "error:IllegalStateException: Trying to access closed classloader"
Step = tuple[dict[str, Any], dict[str, Any], bool]  # operation, its result, whether the loader was closed before it


def _steps(d: Drawn) -> Iterator[Step]:
    r, answer = d
    out = answer.get("output")
    if out is None:
        return
    closed = False
    for op, res in zip(r["input"]["operations"], out["results"], strict=True):
        yield op, res, closed
        closed = closed or "close" in op


def _some(pred: Callable[[dict[str, Any], dict[str, Any], bool, dict[str, Any]], bool]) -> Callable[[Drawn], bool]:
    def check(d: Drawn) -> bool:
        return any(pred(op, res, closed, d[0]["input"]) for op, res, closed in _steps(d))
    return check


def _leak_check(inp: dict[str, Any]) -> bool:
    return str(inp["config"].get("classloader.check-leaked-classloader", "true")).lower() != "false"


def _name(op: dict[str, Any]) -> str:
    return str(op.get("load") or op.get("for_name") or "")


def _patterns(inp: dict[str, Any]) -> tuple[str, ...]:
    from oracle import classloading_config as clc
    return clc.settings(inp["config"], SUPPORTED[-1], read_fail_on_metaspace=True).patterns


CORNERS: dict[str, Callable[[Drawn], bool]] = {
    "load after close, leak check on": _some(lambda op, res, closed, i: "load" in op and closed
                                             and str(res["result"]).startswith(LEAK)),
    "a parent-first class after close, leak check on": _some(
        lambda op, res, closed, i: closed and _name(op) != "" and str(res["result"]).startswith(LEAK)
        and any(_name(op).startswith(p) for p in _patterns(i))),
    "a JDK class after close, leak check on": _some(
        lambda op, res, closed, i: closed and _name(op) in jdk_classes() and str(res["result"]).startswith(LEAK)),
    "a resource after close, leak check on": _some(
        lambda op, res, closed, i: closed and ("get_resource" in op or "get_resources" in op)
        and str(res["result"]).startswith(LEAK)),
    "a user class loaded before close, again after, check off": _some(
        lambda op, res, closed, i: closed and not _leak_check(i) and res["result"] == "user"),
    "a user class not found after close, check off": _some(
        lambda op, res, closed, i: closed and not _leak_check(i) and _name(op) in i["user_classes"]
        and res["result"] in ("parent", "not_found")),
    "Class.forName after close answers from the JVM's record": _some(
        lambda op, res, closed, i: closed and _leak_check(i) and "for_name" in op and res["result"] in ("user",
                                                                                                   "parent")),
    "resources after close, check off, user side gone": _some(
        lambda op, res, closed, i: closed and not _leak_check(i) and "get_resources" in op
        and res["result"] == ["parent"]),
    "close twice": lambda d: sum("close" in op for op in d[0]["input"]["operations"]) == 2
    and any(True for _ in _steps(d)),
    "a fatal Metaspace OOM": _some(lambda op, res, closed, i: any(h["fatal"] for h in res["handled"])),
    "a Metaspace OOM not fatal (option off)": _some(
        lambda op, res, closed, i: i["config"].get("classloader.fail-on-metaspace-oom-error", "").lower() == "false"
        and any(h["exception"] == "OutOfMemoryError" and h["message"] == "Metaspace" for h in res["handled"])),
    "an OOM whose message is no Metaspace one": _some(
        lambda op, res, closed, i: any(h["exception"] == "OutOfMemoryError" and not h["fatal"]
                                       and h["message"] == "Java heap space" for h in res["handled"])),
    "an OOM without a message": _some(
        lambda op, res, closed, i: any(h["exception"] == "OutOfMemoryError" and h["message"] is None
                                       for h in res["handled"])),
    "a ClassNotFoundException through the handler": _some(
        lambda op, res, closed, i: res["result"] == "not_found" and bool(res["handled"])),
    "an IOException reading a class file: not found": _some(
        lambda op, res, closed, i: res["result"] == "not_found" and any(
            f["class"] == _name(op) and f["throws"] in ("IOException", "EOFException", "FileNotFoundException")
            for f in i["faults"])),
    "an IOException on the user side, found in the parent": _some(
        lambda op, res, closed, i: res["result"] == "parent" and any(
            f["class"] == _name(op) and f["side"] == "user" and THROWABLES[f["throws"]].name == "IO"
            for f in i["faults"])),
    "one Throwable through the handler twice (superclass)": _some(lambda op, res, closed, i: len(res["handled"]) == 2),
    "a static initializer throwing an Error": _some(
        lambda op, res, closed, i: op.get("initialize") is True and not res["handled"]
        and any(f["class"] == _name(op) and f["stage"] == "initialize" and THROWABLES[f["throws"]].name == "ERROR"
                for f in i["faults"]) and str(res["result"]).startswith("error:")),
    "ExceptionInInitializerError": _some(
        lambda op, res, closed, i: res["result"] == "error:ExceptionInInitializerError"),
    "Could not initialize class": _some(
        lambda op, res, closed, i: str(res["result"]).startswith("error:NoClassDefFoundError: Could not initialize")),
    "a parent-side fault": _some(lambda op, res, closed, i: bool(res["handled"]) and any(
        f["class"] == _name(op) and f["side"] == "parent" for f in i["faults"])),
    "a ClassFormatError of a resource named like a class": _some(
        lambda op, res, closed, i: str(res["result"]).startswith("error:ClassFormatError: Incompatible magic")),
    "a SecurityException (a java.* class in a jar)": _some(
        lambda op, res, closed, i: str(res["result"]).startswith("error:SecurityException: Prohibited package")),
    "parent-first resolve order": _some(lambda op, res, closed, i: i["config"].get(
        "classloader.resolve-order", "").lower() == "parent-first"),
    "a rejected configuration": lambda d: "error" in d[1],
}
# every kind of Throwable (what decides how one travels: CLL-6, CLL-9) planted at each stage it can be thrown at
for _kind in Kind:
    for _stage in ("define", "initialize"):
        if _stage == "define" and _kind is Kind.CHECKED:
            continue
        CORNERS[f"{_kind.value} at {_stage}"] = (lambda k, st: lambda d: any(
            THROWABLES[f["throws"]] is k and f["stage"] == st for f in d[0]["input"]["faults"]))(_kind, _stage)

def _only_1_15(message: object) -> bool:
    """A message only 1.15's Metaspace test accepts: 'metaspace' in any case, not at the start as 'Metaspace'."""
    return isinstance(message, str) and "metaspace" in message.lower() and not message.startswith("Metaspace")


def _fail_on(i: dict[str, Any]) -> bool:
    return str(i["config"].get("classloader.fail-on-metaspace-oom-error", "true")).lower() == "true"


BY_VERSION: dict[str, tuple[FlinkVersion, Callable[[Drawn], bool]]] = {
    "1.15+: a message with 'metaspace' elsewhere is fatal": (parse_version("1.15"), _some(
        lambda op, res, closed, i: any(h["fatal"] and _only_1_15(h["message"]) for h in res["handled"]))),
    "1.13: a message with 'metaspace' elsewhere is not fatal": (parse_version("1.13"), _some(
        lambda op, res, closed, i: _fail_on(i) and any(
            h["exception"] == "OutOfMemoryError" and not h["fatal"] and _only_1_15(h["message"])
            for h in res["handled"]))),
}


SAMPLE = 3000  # requests drawn once at the newest release; every corner must be among them
VERSION_SAMPLE = 800  # and at the releases of a version corner


@pytest.mark.parametrize("corner", list(CORNERS))
def test_strategy_reaches(corner: str) -> None:
    assert reaches(requests, SUPPORTED[-1], SAMPLE, CORNERS[corner]), f"none of {SAMPLE} requests: {corner}"


@pytest.mark.parametrize("corner", list(BY_VERSION))
def test_strategy_reaches_version_corner(corner: str) -> None:
    version, pred = BY_VERSION[corner]
    assert reaches(requests, version, VERSION_SAMPLE, pred), f"none of {VERSION_SAMPLE} at {version}: {corner}"


@settings(max_examples=300, database=None, deadline=None, derandomize=True)
@given(requests(SUPPORTED[-1]))
def test_every_generated_request_is_well_formed(request: dict[str, Any]) -> None:
    """The oracle answers every generated request, never with a BadRequest."""
    resp = oracle.answer({"id": 0, **request})
    assert resp.get("error", {}).get("type") != "BadRequest", resp
