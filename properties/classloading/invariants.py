"""The documented class-loading rules, as checks on any implementation's own answers.

Sources: a seed article on Flink's class-loading configuration (child-first and parent-first
resolution, parent-first patterns), the Javadoc of
``CoreOptions.CLASSLOADER_RESOLVE_ORDER`` / ``ALWAYS_PARENT_FIRST_LOADER_PATTERNS(_ADDITIONAL)``,
``ChildFirstClassLoader`` and ``java.lang.ClassLoader`` (``getResources``: "the resources of the
parent ... followed by", ``defineClass``: "SecurityException ... if name begins with java."). Each
check reads the patterns the answer itself reports, so a wrong pattern list and a wrong resolution
are told apart.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from oracle import classloading_config as clc
from oracle.classloading import RESOLVE as AREA
from oracle.classloading import class_file, jdk_classes, jdk_hidden_class_files, jdk_resources
from oracle.versions import FlinkVersion, pick
from properties.rules import Request, Response, RuleBook, Violation

BOOK = RuleBook()  # the rules this module declares, named by its areas' declarations

ART = "seed article on class loading"
JAVADOC = "CoreOptions and ChildFirstClassLoader Javadoc"
RESULTS = ("user", "parent", "not_found")
BOOK.differential(AREA, "CLR")


def _accepted(resp: Response) -> bool:
    """The answer is an output, no error: any error answer, of whatever type or shape and even next to
    an output, is a refusal."""
    return "output" in resp and resp.get("error") is None


def _output(resp: Response) -> dict[str, Any] | None:
    out = resp.get("output")
    return out if _accepted(resp) and isinstance(out, dict) else None


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


@BOOK.invariant("CLR-1", AREA, "The answer lists the patterns in force (strings), one result per class lookup "
           "('user', 'parent', 'not_found' or 'error:<Exception>') and one list per resource lookup holding only "
           "'user' and 'parent' (and, for a request with resource_lookup_one, one 'user', 'parent' or null per "
           "single lookup in resource).", "docs/protocol/v1.md classloading.resolve, docs/protocol/v3.md")
def shape(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    if not _accepted(resp):
        return []
    out = resp["output"]
    inp = req["input"]
    problems = []
    if not isinstance(out, dict):
        return [Violation("CLR-1", "the output must be an object")]
    pats, res, rsc = out.get("patterns"), out.get("resolved"), out.get("resources")
    if not _strings(pats):
        problems.append("patterns must be a list of strings")
    if not isinstance(res, list) or len(res) != len(inp.get("lookups", [])):
        problems.append("resolved must hold one result per lookup")
    elif bad := [r for r in res if not (r in RESULTS or (isinstance(r, str) and r.startswith("error:")))]:
        problems.append(f"resolved holds {bad[0]!r}")
    if not isinstance(rsc, list) or len(rsc) != len(inp.get("resource_lookups", [])):
        problems.append("resources must hold one list per resource lookup")
    elif not all(isinstance(r, list) and all(x in ("user", "parent") for x in r) for r in rsc):
        problems.append("resources may only hold 'user' and 'parent'")
    if "resource_lookup_one" in inp:
        one = out.get("resource")
        if not isinstance(one, list) or len(one) != len(inp["resource_lookup_one"]):
            problems.append("resource must hold one entry per single resource lookup")
        elif bad_one := [r for r in one if r not in ("user", "parent", None)]:
            problems.append(f"resource holds {bad_one[0]!r}")
    return [Violation("CLR-1", p) for p in problems[:1]]


def _child_first(req: Request) -> bool:
    order = req["input"].get("config", {}).get("classloader.resolve-order", "child-first")
    return clc.java_equals_ignore_case(order, "child-first")


def _lookups(req: Request, resp: Response, rule: str,
             check: Callable[[str, str, bool, tuple[str, ...], Request], str | None],
             *, odd_names: bool = False) -> list[Violation]:
    """Apply ``check(name, result, child_first, patterns, request)`` to each well-formed lookup result;
    names whose class file a jar holds as a plain resource (no documented outcome) only if ``odd_names``."""
    out = _output(resp)
    if out is None or shape(req, resp, None) or not isinstance(out.get("resolved"), list):  # type: ignore[arg-type]
        return []
    patterns = tuple(out["patterns"])
    child_first = _child_first(req)
    for name, result in zip(req["input"].get("lookups", []), out["resolved"], strict=True):
        if not odd_names and _plain_class_file(req, class_file(name)):
            continue
        problem = check(name, result, child_first, patterns, req)
        if problem:
            return [Violation(rule, f"lookup {name!r}: {problem}")]
    return []


def _user_has(req: Request, name: str) -> bool:
    return name in req["input"].get("user_classes", [])


def _parent_has(req: Request, name: str) -> bool:
    return name in jdk_classes() or name in req["input"].get("parent_classes", [])


def _prohibited(name: str) -> bool:
    return name.startswith("java.") and name not in jdk_classes()


def _plain_class_file(req: Request, entry: str) -> bool:
    inp = req["input"]
    return entry in inp.get("user_resources", []) or entry in inp.get("parent_resources", [])


def _object_shadowed(req: Request, patterns: tuple[str, ...]) -> bool:
    """The user jar holds java/lang/Object.class and no pattern sends it to the parent (CL-11)."""
    held = _user_has(req, "java.lang.Object") or "java/lang/Object.class" in req["input"].get("user_resources", [])
    return held and not any("java.lang.Object".startswith(p) for p in patterns)


@BOOK.invariant("CLR-2", AREA, "Child-first: a class in the user jar that matches no parent-first pattern is loaded "
           "from the user jar, even when the parent also has it.", f"{ART}, quoting CoreOptions: 'The default settings "
           f"indicate to load classes first from the user code jar'; {JAVADOC}")
def child_first_prefers_user(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    def check(name: str, result: str, child_first: bool, patterns: tuple[str, ...], r: Request) -> str | None:
        matched = any(name.startswith(p) for p in patterns)
        if (child_first and not matched and _user_has(r, name) and not name.startswith("java.")
                and not _object_shadowed(r, patterns) and result != "user"):
            return f"in the user jar, matches no pattern, but resolved {result!r}"
        return None
    return _lookups(req, resp, "CLR-2", check)


@BOOK.invariant("CLR-3", AREA, "A class matching a parent-first pattern (a plain prefix of its name) that the parent "
           "side has (the JDK or the parent class path) is loaded from the parent, whatever the resolve order.",
           f"{ART}, quoting CoreOptions: patterns of 'classes [that] should always be resolved through the parent "
           "ClassLoader first. A pattern is a simple prefix that is checked against the fully qualified class name'; "
           f"{JAVADOC}")
def patterns_go_to_parent(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    def check(name: str, result: str, child_first: bool, patterns: tuple[str, ...], r: Request) -> str | None:
        matched = next((p for p in patterns if name.startswith(p)), None)
        if matched is not None and _parent_has(r, name) and not _prohibited(name) and result != "parent":
            return f"matches pattern {matched!r} and the parent has it, but resolved {result!r}"
        return None
    return _lookups(req, resp, "CLR-3", check)


@BOOK.invariant("CLR-4", AREA,
                "A parent-first pattern is not a filter: a matching class the parent side lacks is still "
           "loaded from the user jar.", f"{ART} (translated): a matching class is loaded 'the parent-first way', "
           "where 'only when the parent loader cannot load the class does the child loader try to load it itself'; "
           "ClassLoader.loadClass Javadoc (findClass after the parent)")
def pattern_falls_back_to_user(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    def check(name: str, result: str, child_first: bool, patterns: tuple[str, ...], r: Request) -> str | None:
        matched = any(name.startswith(p) for p in patterns)
        if (matched and _user_has(r, name) and not _parent_has(r, name) and not name.startswith("java.")
                and not (child_first and _object_shadowed(r, patterns)) and result != "user"):
            return f"only the user jar has it, but resolved {result!r}"
        return None
    return _lookups(req, resp, "CLR-4", check)


@BOOK.invariant("CLR-5", AREA, "Parent-first: every class the parent side has is loaded from the parent; a class only "
           "the user jar has is loaded from the user jar.", f"{ART} (translated): parent-first copies the parent "
           "delegation model: 'only when the parent loader cannot load the class does the child loader try to load "
           f"it itself'; {JAVADOC}")
def parent_first_order(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    def check(name: str, result: str, child_first: bool, patterns: tuple[str, ...], r: Request) -> str | None:
        if child_first or name.startswith("java."):
            return None
        want = "parent" if _parent_has(r, name) else "user" if _user_has(r, name) else None
        return f"resolved {result!r}, expected {want!r}" if want and result != want else None
    return _lookups(req, resp, "CLR-5", check)


@BOOK.invariant("CLR-6", AREA, "A class neither jar holds and the JDK does not have is not found.",
           "ClassLoader.loadClass Javadoc (ClassNotFoundException)")
def absent_is_not_found(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    def check(name: str, result: str, child_first: bool, patterns: tuple[str, ...], r: Request) -> str | None:
        if not _user_has(r, name) and not _parent_has(r, name) and result != "not_found":
            return f"no side has it, but resolved {result!r}"
        return None
    return _lookups(req, resp, "CLR-6", check)


@BOOK.invariant("CLR-7", AREA, "Only the JDK may define classes in java.*: such a class from either jar fails with "
           "SecurityException instead of loading.", "ClassLoader.defineClass Javadoc")
def java_packages_prohibited(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    def check(name: str, result: str, child_first: bool, patterns: tuple[str, ...], r: Request) -> str | None:
        if _prohibited(name) and result in ("user", "parent"):
            return f"a class of a java.* package that is no JDK class resolved {result!r}"
        return None
    return _lookups(req, resp, "CLR-7", check)


@BOOK.invariant("CLR-8", AREA, "Asking for the same class twice on one loader gives the same result.",
           "ClassLoader.loadClass Javadoc (findLoadedClass)")
def same_answer_twice(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    seen: dict[str, str] = {}

    def check(name: str, result: str, child_first: bool, patterns: tuple[str, ...], r: Request) -> str | None:
        first = seen.setdefault(name, result)
        return f"resolved {first!r} first and {result!r} later" if first != result else None
    return _lookups(req, resp, "CLR-8", check, odd_names=True)


@BOOK.invariant("CLR-9", AREA, "The parent-first patterns in force are the version's documented defaults (unless "
           "classloader.parent-first-patterns.default is set), followed by the additional patterns.",
           "CoreOptions.ALWAYS_PARENT_FIRST_LOADER_PATTERNS(_ADDITIONAL) at each tag")
def default_patterns(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _output(resp)
    config = req["input"].get("config", {})
    if out is None or not _strings(out.get("patterns")):
        return []
    if any(k in config for k in ("classloader.parent-first-patterns.default", "classloader.parent-first-patterns")):
        return []
    defaults = list(pick(clc.DEFAULT_PATTERNS, version))
    pats = out["patterns"]
    if pats[:len(defaults)] != defaults:
        return [Violation("CLR-9", f"patterns start {pats[:len(defaults)]}, Flink {version}'s defaults are {defaults}")]
    if "classloader.parent-first-patterns.additional" not in config and len(pats) != len(defaults):
        return [Violation("CLR-9", f"no additional patterns are configured, but patterns are {pats}")]
    return []


@BOOK.invariant("CLR-10", AREA, "classloader.resolve-order accepts child-first and parent-first in any letter case, "
           "untrimmed; any other value is rejected.",
           "CoreOptions.CLASSLOADER_RESOLVE_ORDER; FlinkUserCodeClassLoaders.ResolveOrder.fromString")
def resolve_order_spellings(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    order = req["input"].get("config", {}).get("classloader.resolve-order", "child-first")
    if not _documented_order(order) and _accepted(resp):
        return [Violation("CLR-10", f"resolve order {order!r} is accepted")]
    return []  # a documented order that is rejected breaks CLR-ACCEPTED, whatever the rejection says


def _documented_order(order: str) -> bool:
    return clc.java_equals_ignore_case(order, "child-first") or clc.java_equals_ignore_case(order, "parent-first")


def _documented_config(req: Request, version: FlinkVersion) -> bool:
    """A class-loading configuration Flink's documentation calls valid: a resolve order of CLR-10, a
    boolean classloader.check-leaked-classloader, and pattern lists of plain semicolon-separated
    prefixes (no quotes: quoting is Flink's undocumented list syntax, which can fail to parse)."""
    config = req["input"].get("config", {})
    leaked = config.get("classloader.check-leaked-classloader", "true")
    patterns = [v for k, v in config.items() if k.startswith("classloader.parent-first-patterns")]
    return (_documented_order(config.get("classloader.resolve-order", "child-first"))
            and leaked.lower() in ("true", "false") and not any("'" in p or '"' in p for p in patterns))


BOOK.accepted("CLR-ACCEPTED", AREA, _documented_config,
              "whose class-loading configuration the documentation calls valid",
              "Flink docs 'Debugging Classloading' and CoreOptions: classloader.resolve-order child-first or "
              "parent-first, classloader.parent-first-patterns.* semicolon-separated prefixes, "
              "classloader.check-leaked-classloader a boolean")


@BOOK.invariant("CLR-11", AREA, "getResources lists what the user jar holds before what the parent side finds "
           "(child-first) or after it (parent-first); patterns do not apply to resources; a class's .class file "
           "is a resource of its jar.", "ChildFirstClassLoader.getResources; ClassLoader.getResources Javadoc")
def resources_order(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _output(resp)
    if out is None or shape(req, resp, version):
        return []
    inp = req["input"]
    user = set(inp.get("user_resources", [])) | {class_file(c) for c in inp.get("user_classes", [])}
    parent_jar = set(inp.get("parent_resources", [])) | {class_file(c) for c in inp.get("parent_classes", [])}
    child_first = _child_first(req)
    for name, found in zip(inp.get("resource_lookups", []), out["resources"], strict=True):
        first, second = ("user", "parent") if child_first else ("parent", "user")
        if first in found and second in found and found.index(second) < found.index(first):
            return [Violation("CLR-11", f"resource {name!r}: {found} lists {second} before {first}")]
        if (name in user) != ("user" in found):
            return [Violation("CLR-11", f"resource {name!r}: the user jar {'holds' if name in user else 'lacks'} "
                                        f"it, but the answer is {found}")]
        if name in parent_jar and "parent" not in found:
            return [Violation("CLR-11", f"resource {name!r}: the parent jar holds it, but the answer is {found}")]
    return []


def _jdk_has_resource(name: str) -> bool:
    """The JDK 17 platform class loader finds ``name`` (a class's file unless its module hides it)."""
    if name.endswith(".class"):
        binary = name[: -len(".class")].replace("/", ".")
        return binary in jdk_classes() and binary not in jdk_hidden_class_files()
    return name in jdk_resources()


@BOOK.invariant("CLR-12", AREA, "getResource finds a resource where getResources lists it first, null where it lists "
           "none: child-first the user jar's copy before the parent's (the JDK's, then the parent jar's), "
           "parent-first the parent's before the user jar's.",
           "ClassLoader.getResources Javadoc ('The search order is described in the documentation for "
           "getResource'), ClassLoader.getResource Javadoc; ChildFirstClassLoader Javadoc ('first loads from the "
           "URLs and only after that from the parent')")
def single_resource_is_the_first(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _output(resp)
    inp = req["input"]
    if out is None or "resource_lookup_one" not in inp or shape(req, resp, version):
        return []
    listed = dict(zip(inp.get("resource_lookups", []), out["resources"], strict=True))
    user = set(inp.get("user_resources", [])) | {class_file(c) for c in inp.get("user_classes", [])}
    parent_jar = set(inp.get("parent_resources", [])) | {class_file(c) for c in inp.get("parent_classes", [])}
    sides = ("user", "parent") if _child_first(req) else ("parent", "user")
    for name, found in zip(inp["resource_lookup_one"], out["resource"], strict=True):
        if name in listed and found != (listed[name][0] if listed[name] else None):
            return [Violation("CLR-12", f"resource {name!r}: getResource answers {found!r}, getResources lists "
                                        f"{listed[name]}")]
        has = {"user": name in user, "parent": name in parent_jar or _jdk_has_resource(name)}
        want = next((side for side in sides if has[side]), None)
        if found != want:
            return [Violation("CLR-12", f"resource {name!r}: getResource answers {found!r}, expected {want!r} "
                                        f"({'child' if sides[0] == 'user' else 'parent'}-first, "
                                        f"{' and '.join(s for s in sides if has[s]) or 'no side'} holding it)")]
    return []
