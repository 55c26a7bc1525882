"""The documented rules of a user-code class loader's lifecycle, as checks on any implementation's answers.

Sources: Flink's configuration reference (``CoreOptions.CHECK_LEAKED_CLASSLOADER``: "Fails attempts at
loading classes if the user classloader of a job is used after it has terminated";
``CoreOptions.FAIL_ON_USER_CLASS_LOADING_METASPACE_OOM``: "Fail Flink JVM processes if
'OutOfMemoryError: Metaspace' is thrown while trying to load a user code class"), the seed article on
class loading, and the JDK's Javadoc (``ClassLoader.loadClass``: "Invoke findLoadedClass(String) to check
if the class has already been loaded"; ``URLClassLoader.close``: "any classes or resources that are
already loaded, are still accessible").
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import attrs

from oracle import classloading_config as clc
from oracle.classloading_lifecycle import LIFECYCLE as AREA
from oracle.versions import FlinkVersion
from properties.rules import Request, Response, RuleBook, Violation

BOOK = RuleBook()  # the rules this module declares, named by the area's declaration
BOOK.differential(AREA, "CLC")

CONFIG_DOC = "Flink configuration reference (CoreOptions)"
JAVADOC = "JDK 17 Javadoc: ClassLoader.loadClass, URLClassLoader.close"
SIDES = ("user", "parent")
LOOKUPS = ("load", "for_name", "get_resource", "get_resources")


def _kind(op: object) -> str:
    """The operation's kind: the one of its keys that names one (an operation without one is a close)."""
    return next((k for k in (*LOOKUPS, "close") if isinstance(op, dict) and k in op), "close")


def _results(req: Request, resp: Response) -> list[tuple[str, str, dict[str, Any]]] | None:
    """Each operation (kind, name) with its answered entry, or None when the answer is no well-formed output
    (a refusal, or what CLC-1 reports)."""
    out = resp.get("output")
    if "error" in resp or not isinstance(out, dict) or not isinstance(out.get("results"), list):
        return None
    ops = req["input"].get("operations", [])
    entries = out["results"]
    if len(entries) != len(ops) or not all(isinstance(e, dict) for e in entries):
        return None
    kinds = [_kind(op) for op in ops]
    if any(_entry_problem(kind, e) for kind, e in zip(kinds, entries, strict=True)):
        return None  # CLC-1's to report; the other rules judge well-formed answers only
    return [(kind, str(op.get(kind, "")), e) for kind, op, e in zip(kinds, ops, entries, strict=True)]


@attrs.frozen
class _Step:
    """One operation of a well-formed answer: its index, kind, the name it looks up, its answered entry, and
    whether the loader was closed before it."""

    index: int
    kind: str
    name: str
    entry: dict[str, Any]
    closed: bool


def _read(req: Request, resp: Response, version: FlinkVersion) -> tuple[clc.LoaderSettings, list[_Step]] | None:
    """The class-loading options as Flink reads them and the answer's steps; None where Flink refuses the
    options (an error answer) or the answer is no well-formed output (CLC-1's to report)."""
    try:
        settings = clc.settings(req["input"].get("config", {}), version, read_fail_on_metaspace=True)
    except (clc.JavaException, clc.UnmodelledValue):
        return None
    results = _results(req, resp)
    if results is None:
        return None
    steps, closed = [], False
    for i, (kind, name, entry) in enumerate(results):
        steps.append(_Step(i, kind, name, entry, closed))
        closed = closed or kind == "close"
    return settings, steps


def _error(result: object) -> bool:
    return isinstance(result, str) and result.startswith("error:")


@BOOK.invariant("CLC-1", AREA, "The answer holds one result per operation, in order: for a class lookup 'user', "
                "'parent', 'not_found' or 'error:<Exception>[: message]'; for getResource one of those sides or "
                "'not_found'; for getResources a list of sides; for close 'closed'; and beside each the handled "
                "Throwables, each an exception name, a message (string or null) and whether it was fatal.",
                "docs/protocol/classloading-lifecycle.md")
def shape(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = resp.get("output")
    if "error" in resp or "output" not in resp:
        return []
    if not isinstance(out, dict) or not isinstance(out.get("results"), list):
        return [Violation("CLC-1", "the output must be an object with a list results")]
    ops = req["input"].get("operations", [])
    if len(out["results"]) != len(ops):
        return [Violation("CLC-1", f"{len(out['results'])} results for {len(ops)} operations")]
    for i, (op, entry) in enumerate(zip(ops, out["results"], strict=True)):
        kind = _kind(op)
        problem = _entry_problem(kind, entry) if isinstance(entry, dict) else "each result must be an object"
        if problem:
            return [Violation("CLC-1", f"results[{i}] ({kind}): {problem}")]
    return []


def _entry_problem(kind: str, entry: dict[str, Any]) -> str | None:
    result, handled = entry.get("result"), entry.get("handled")
    if not isinstance(handled, list) or not all(
            isinstance(h, dict) and isinstance(h.get("exception"), str) and isinstance(h.get("fatal"), bool)
            and (h.get("message") is None or isinstance(h.get("message"), str)) for h in handled):
        return f"handled must be a list of {{exception, message, fatal}}, got {handled!r}"
    if kind == "close":
        return None if result == "closed" else f"close gives 'closed', not {result!r}"
    if kind == "get_resources":
        ok = _error(result) or (isinstance(result, list) and all(r in SIDES for r in result))
    else:
        ok = _error(result) or result in (*SIDES, "not_found")
    return None if ok else f"{result!r} is no result of {kind}"


def _open_loads(steps: list[_Step], settings: clc.LoaderSettings) -> Iterator[_Step]:
    """The loadClass calls that reach the loader itself: all but those a closed loader's leak check refuses."""
    return (s for s in steps if s.kind == "load" and not (s.closed and settings.check_leaked))


@BOOK.invariant("CLC-2", AREA, "With classloader.check-leaked-classloader true (the default), a class or resource "
                "looked up through the loader (loadClass, getResource, getResources) after it is closed fails.",
                CONFIG_DOC + ": classloader.check-leaked-classloader")
def closed_fails(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    read = _read(req, resp, version)
    if read is None or not read[0].check_leaked:
        return []
    for s in read[1]:
        if s.closed and s.kind not in ("close", "for_name") and not _error(s.entry.get("result")):
            return [Violation("CLC-2", f"operations[{s.index}] {s.kind} {s.name!r} after close answered "
                                       f"{s.entry.get('result')!r}, not a failure")]
    return []


@BOOK.invariant("CLC-3", AREA, "The class-loading exception handler makes a Throwable fatal only if "
                "classloader.fail-on-metaspace-oom-error is true (the default) and it is an OutOfMemoryError, "
                "and it makes fatal every 'OutOfMemoryError: Metaspace' (a message starting 'Metaspace') then.",
                CONFIG_DOC + ": classloader.fail-on-metaspace-oom-error")
def metaspace_fatal(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    read = _read(req, resp, version)
    if read is None:
        return []
    settings, steps = read
    for s in steps:
        i = s.index
        for h in s.entry.get("handled", []):
            oom = h.get("exception") == "OutOfMemoryError"
            must = settings.fail_on_metaspace and oom and str(h.get("message") or "").startswith("Metaspace")
            may = settings.fail_on_metaspace and oom
            if h.get("fatal") and not may:
                return [Violation("CLC-3", f"results[{i}]: {h.get('exception')}({h.get('message')!r}) was made "
                                           f"fatal with fail-on-metaspace-oom-error {settings.fail_on_metaspace}")]
            if must and not h.get("fatal"):
                return [Violation("CLC-3", f"results[{i}]: OutOfMemoryError({h.get('message')!r}) was not made "
                                           "fatal")]
    return []


@BOOK.invariant("CLC-4", AREA, "A class loadClass returned once is returned again for the same name: before the "
                "loader is closed, and after it with the leak check off (the JDK's loader finds the loaded class "
                "first, and a closed URLClassLoader keeps what it already loaded).", JAVADOC)
def loaded_stays(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    read = _read(req, resp, version)
    if read is None:
        return []
    settings, steps = read
    loaded: dict[str, str] = {}
    for s in _open_loads(steps, settings):
        result = s.entry.get("result")
        if s.name in loaded and result != loaded[s.name]:
            return [Violation("CLC-4", f"operations[{s.index}] load {s.name!r} answered {result!r}; an earlier "
                                       f"load answered {loaded[s.name]!r}")]
        if result in SIDES:
            loaded.setdefault(s.name, str(result))
    return []


@BOOK.invariant("CLC-5", AREA, "The class-loading exception handler sees every Throwable a loadClass of the open "
                "loader throws (a ClassNotFoundException too) and the call rethrows it: a load that fails has "
                "handled Throwables, the last of the exception the load failed with.",
                "seed article on class loading (FlinkUserCodeClassLoader.loadClass)")
def handler_sees_every_throwable(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    read = _read(req, resp, version)
    if read is None:
        return []
    for s in _open_loads(read[1], read[0]):
        result = s.entry.get("result")
        if result in SIDES:
            continue
        thrown = "ClassNotFoundException" if result == "not_found" else str(result).removeprefix("error:")
        handled = s.entry.get("handled") or [{}]
        if not thrown.startswith(str(handled[-1].get("exception"))) or handled == [{}]:
            return [Violation("CLC-5", f"operations[{s.index}] load {s.name!r} failed with {result!r}; the "
                                       f"handler saw {s.entry.get('handled')!r}")]
    return []
