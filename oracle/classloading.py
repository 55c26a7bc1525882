"""Protocol area ``classloading.resolve``: which loader serves each class and resource (CL-1 ... CL-14,
declared in :data:`RULES`; CL-1 ... CL-6 are :mod:`oracle.classloading_config`'s).

A user-code class loader built as a TaskManager builds it: ``FlinkUserCodeClassLoaders.create(order,
[user jar], parent, patterns, handler, checkLeak)`` whose parent loader holds the parent jar above the
JDK (the platform class loader). The settings come from :mod:`oracle.classloading_config`.


The JDK is the one of Java 17: the classes and the non-class resources the platform class loader
finds, and the classes whose class file it does not find as a resource, as listed by
``python -m flinkspec.impls.jdklist`` (``oracle/jdk17-*.txt.gz``).
"""

from __future__ import annotations

import functools
import gzip
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import Any, Final, Literal, NotRequired, TypedDict, TypeVar

import attrs

from oracle import classloading_config as clc
from oracle.changes import Change
from oracle.classloading_config import JavaException, LoaderSettings, UnmodelledValue, settings, splitter_rule
from oracle.explain import at, because, recorded, rejected_because, tracing_active
from oracle.protocol import AreaFn, BadRequest, NotModelled, Rejected, field, string_map
from oracle.rules import Declared
from oracle.versions import FlinkVersion

RESOLVE = "classloading.resolve"  # the protocol area (docs/protocol)

# where a class or resource is found: the user jar, or the parent side (the JDK, the parent jar)
Side = Literal["user", "parent"]


class ResolveInput(TypedDict, total=False):
    """The input (docs/protocol/v1.md; v2.md: every field optional, absent means empty)."""

    config: dict[str, str]
    user_classes: list[str]  # binary names in the user jar
    parent_classes: list[str]  # ... on the parent class path
    lookups: list[str]  # binary names to load
    user_resources: list[str]  # resource names in the user jar
    parent_resources: list[str]
    resource_lookups: list[str]  # getResources lookups
    resource_lookup_one: list[str]  # protocol 3: getResource lookups
    user_jars: list[str]  # protocol 2 extension: real jars, read by the real-Flink bridge only
    parent_jars: list[str]


class ResolveOutput(TypedDict):
    """The patterns in force, where each lookup's class comes from, where each resource is found."""

    patterns: list[str]
    resolved: list[str]  # one per lookup: "user", "parent", "not_found" or "error:<ExceptionSimpleName>"
    resources: list[list[Side]]  # one per resource lookup, in getResources' order
    resource: NotRequired[list[Side | None]]  # protocol 3, only when the input has resource_lookup_one


# The rules this module encodes, each declared once (its area's declaration, properties/<group>/area.py, says
# what checks each).
RULES: tuple[Declared, ...] = (
    Declared("CL-1",
             "The parent-first patterns in force are the entries of classloader.parent-first-patterns.default "
             "(deprecated key classloader.parent-first-patterns; per-version default) followed by those of "
             "classloader.parent-first-patterns.additional, not trimmed beyond the splitter, de-duplicated or "
             "sorted.",
             "CoreOptions.getParentFirstLoaderPatterns, ALWAYS_PARENT_FIRST_LOADER_PATTERNS(_ADDITIONAL)"),
    Declared("CL-2",
             "1.13-1.14 split a pattern list with Guava's Splitter.on(';').omitEmptyStrings(): no trimming, no "
             "quoting.",
             "CoreOptions (String options) with flink-shaded Guava Splitter", until="1.15"),
    Declared("CL-3",
             "1.15-1.18 split a pattern list with StructuredOptionsSplitter.splitEscaped(value, ';'): unquoted "
             "tokens Java-trimmed, quotes with doubled-quote escapes, an inner empty piece kept as \"\", a "
             "leading one dropped, malformed quoting an error.",
             "StructuredOptionsSplitter.splitEscaped (List<String> options), 1.15.4-1.18.1 jars (and the 1.19+ "
             "fallback)", since="1.15"),
    Declared("CL-4",
             "From 1.19 a list value is first parsed as a YAML sequence (1.19-1.20 only while the configuration"
             " is standard YAML); anything else, a null item or a YAML error (a character outside YAML's "
             "printable set anywhere, a comment included) falls back to CL-3. NEL, LS and PS separate tokens "
             "like line breaks but are text inside a comment or a plain item.",
             "YamlParserUtils.convertToObject(value, List.class), GlobalConfiguration.isStandardYaml", since="1.19"),
    Declared("CL-5",
             "ResolveOrder.fromString compares with equalsIgnoreCase and does not trim: anything but "
             "child-first or parent-first is IllegalArgumentException(\"Unknown resolve order: <value>\").",
             "FlinkUserCodeClassLoaders.ResolveOrder.fromString"),
    Declared("CL-6",
             "A value that does not parse is IllegalArgumentException(\"Could not parse value '<raw>' for key "
             "'<key>'.\"), naming the option's own key even when the value came from a deprecated key.",
             "Configuration.getOptional / ConfigurationUtils.convertValue"),
    Declared("CL-7",
             "Child-first: a class the loader already defined is returned; a name starting with any pattern "
             "(plain startsWith) takes standard parent delegation; any other is looked up in the user jar "
             "first, then by standard delegation.",
             "ChildFirstClassLoader.loadClassWithoutExceptionHandling"),
    Declared("CL-8",
             "Parent-first: every name is looked up in the parent, then in the user jar; patterns play no part.",
             "FlinkUserCodeClassLoaders.ParentFirstClassLoader (a URLClassLoader)"),
    Declared("CL-9",
             "The parent side is the JDK (boot and platform loaders) first, then the parent jar.",
             "URLClassLoader over the parent jar above the JDK 17 platform class loader (ClassLoader.loadClass)"),
    Declared("CL-10",
             "No loader but the platform loader may define a class in java.*: SecurityException (\"Prohibited "
             "package name\") on either side; a jar entry a/b/C.class that is no class file is a "
             "ClassFormatError.",
             "ClassLoader.preDefineClass / defineClass, JDK 17"),
    Declared("CL-11",
             "Defining a user class resolves java.lang.Object through the user-code loader itself, so with no "
             "pattern covering it a user jar holding java/lang/Object.class fails every user class with "
             "SecurityException.",
             "ChildFirstClassLoader.loadClass on defineClass's superclass, JDK 17"),
    Declared("CL-12",
             "Only ClassNotFoundException moves the search on; any other error ends the lookup.",
             "ChildFirstClassLoader.loadClassWithoutExceptionHandling, ClassLoader.loadClass"),
    Declared("CL-13",
             "getResources lists every user-jar match, then what the parent finds (JDK, then parent jar) "
             "child-first, the parent's first parent-first; patterns do not apply, and a class's .class file is"
             " a resource of its jar.",
             "ChildFirstClassLoader.getResources, ClassLoader.getResources"),
    Declared("CL-14",
             "getResource is the first element of getResources, in both resolve orders (null when it lists none): "
             "child-first the user jar, then the parent (JDK, then parent jar); parent-first the parent, then the "
             "user jar.",
             "ChildFirstClassLoader.getResource (findResource, then super.getResource), ClassLoader.getResource"),
)

USER: Final[Side] = "user"
PARENT: Final[Side] = "parent"
NOT_FOUND: Final = "not_found"
PROHIBITED = "error:SecurityException"
OBJECT = "java.lang.Object"
MAX_NAME = 1024  # UTF-16 chars
MAX_NAMES = 100_000
_T = TypeVar("_T")


@functools.cache
def _jdk(kind: str) -> frozenset[str]:
    data = resources.files("oracle").joinpath(f"jdk17-{kind}.txt.gz").read_bytes()
    return frozenset(gzip.decompress(data).decode("utf-8").split("\n")) - {""}


def jdk_classes() -> frozenset[str]:
    """Binary names of the JDK 17 classes the platform class loader finds."""
    return _jdk("classes")


def jdk_resources() -> frozenset[str]:
    """Names of the JDK 17 non-class resources the platform class loader finds."""
    return _jdk("resources")


def jdk_hidden_class_files() -> frozenset[str]:
    """JDK 17 classes whose class file the platform loader does not find as a resource (their modules are
    defined to the application class loader; the platform loader delegates only their classes)."""
    return _jdk("hidden-class-files")


def class_file(name: str) -> str:
    """The resource name of a class's class file: ``a.b.C$D`` -> ``a/b/C$D.class``."""
    return name.replace(".", "/") + ".class"


@attrs.frozen
class Loaders:
    """A user-code loader over a user jar, its parent loader over a parent jar, and the JDK."""

    settings: LoaderSettings
    user_classes: frozenset[str]
    parent_classes: frozenset[str]
    user_resources: frozenset[str]
    parent_resources: frozenset[str]

    def load(self, name: str) -> str:
        """``loader.loadClass(name)``: where the class comes from, ``not_found`` or ``error:<Exception>``."""
        found = self._load(name)
        if tracing_active():
            because(*self._why(name, found))
        return found

    def _why(self, name: str, found: str) -> tuple[str, ...]:
        """The rules that decided where ``loadClass(name)`` found the class, the one that gave the answer
        first: CL-7 or CL-8 (which side is asked first) where the first side asked answered, then CL-9
        where that is the parent; CL-12 first where the search moved on past a side that lacked the
        class; CL-10 or CL-11 for an error, first where the first side asked failed."""
        order = "CL-7" if self.settings.child_first else "CL-8"
        user_first = self.settings.child_first and not self.parent_first(name)
        if found.startswith("error:"):
            parent = None if name in jdk_classes() else _define(name, self.parent_classes, self.parent_resources)
            from_parent = parent not in (None, NOT_FOUND) and not (
                user_first and class_file(name) in self.user_resources)
            own = from_parent or _define(name, self.user_classes, self.user_resources) is not None
            rule = "CL-10" if own else "CL-11"
            return (rule, order) if from_parent != user_first else ("CL-12", order, rule)
        if found == (USER if user_first else PARENT):
            return (order,) if user_first else (order, "CL-9")
        return ("CL-12", order) if found != PARENT else ("CL-12", order, "CL-9")

    def _load(self, name: str) -> str:
        if self.settings.child_first and not self.parent_first(name):
            found = self._find_in_user_jar(name)  # CL-7
            return found if found != NOT_FOUND else self._delegate(name)
        return self._delegate(name)  # CL-7 pattern match, CL-8

    def parent_first(self, name: str) -> bool:
        """CL-7: some pattern is a prefix of the name (``String.startsWith``, no dot boundary)."""
        return any(name.startswith(p) for p in self.settings.patterns)

    def _delegate(self, name: str) -> str:
        """``ClassLoader.loadClass``'s standard delegation: the parent loader, then the user jar."""
        found = self._parent_load(name)
        return found if found != NOT_FOUND else self._find_in_user_jar(name)

    def _parent_load(self, name: str) -> str:
        """CL-9: the parent ``URLClassLoader``: the JDK first, then the parent jar (CL-10)."""
        if name in jdk_classes():
            return PARENT
        return self._define(name, PARENT) or PARENT

    def _find_in_user_jar(self, name: str) -> str:
        """``URLClassLoader.findClass`` on the user jar: define the class (CL-10, CL-11)."""
        failed = self._define(name, USER)
        if failed:
            return failed
        if self.settings.child_first:  # the superclass, resolved through this loader (CL-11)
            superclass = self._load(OBJECT)
            if superclass != PARENT:
                return superclass
        return USER

    def _define(self, name: str, side: Side) -> str | None:
        """``findClass`` + ``defineClass`` on the jar of ``side`` (a subclass may plant faults there)."""
        if side == USER:
            return _define(name, self.user_classes, self.user_resources)
        return _define(name, self.parent_classes, self.parent_resources)

    def resource(self, name: str) -> Side | None:
        """CL-14: where ``getResource(name)`` finds ``name``: the first place ``getResources`` lists, None for
        nowhere (``ChildFirstClassLoader.getResource`` asks ``findResource`` first, then ``super.getResource``,
        which asks the parent first: the order of :meth:`resources` in both resolve orders)."""
        because("CL-14")
        found = self.resources(name)
        return found[0] if found else None

    def resources(self, name: str) -> list[Side]:
        """CL-13: where ``getResources(name)`` finds ``name``, in order."""
        because("CL-13")
        user = [USER] if name in self.user_resources else []
        parent = ([PARENT] if self._in_jdk(name) else []) + ([PARENT] if name in self.parent_resources else [])
        return user + parent if self.settings.child_first else parent + user

    @staticmethod
    def _in_jdk(name: str) -> bool:
        if name.endswith(".class"):
            binary = name[: -len(".class")].replace("/", ".")
            return binary in jdk_classes() and binary not in jdk_hidden_class_files()
        return name in jdk_resources()


def _define(name: str, classes: frozenset[str], entries: frozenset[str]) -> str | None:
    """``findClass`` + ``defineClass`` on one jar: None when the class is defined, else what happens:
    no entry ``a/b/C.class`` is not found; a ``java.*`` name is prohibited (CL-10) before the bytes are
    read; an entry that is a plain resource, not a class file, is a ``ClassFormatError``."""
    if class_file(name) not in entries:
        return NOT_FOUND
    if name.startswith("java."):
        return PROHIBITED
    return None if name in classes else "error:ClassFormatError"


# --------------------------------------------------------------------------------------------
# requests


def _utf16_len(text: str) -> int:
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def name_problem(text: str, sep: str) -> str | None:
    """Why ``text`` is not a valid name with segments separated by ``sep``, or None."""
    if not 1 <= _utf16_len(text) <= MAX_NAME:
        return f"its length must be 1 to {MAX_NAME}"
    for ch in text:
        if ord(ch) < 0x20:
            return f"control character U+{ord(ch):04X}"
        if 0xD800 <= ord(ch) <= 0xDFFF:
            return f"unpaired surrogate U+{ord(ch):04X}"
        if ch in ("/;[" if sep == "." else "\\"):
            return f"{ch!r} is not allowed"
    for seg in text.split(sep):
        if not seg:
            return "empty segment"
        if sep == "/" and seg in (".", ".."):
            return f"segment {seg!r}"
    return None


def _names(inp: Mapping[str, Any], key: str, sep: str) -> list[str]:
    if key not in inp:
        return []
    values: list[Any] = field(inp, key, list, "input")
    if len(values) > MAX_NAMES:
        raise BadRequest(f"input.{key} has {len(values)} names; at most {MAX_NAMES}")
    kind = "binary name" if sep == "." else "resource name"
    for i, value in enumerate(values):
        if not isinstance(value, str):
            raise BadRequest(f"input.{key}[{i}] must be a string, got {type(value).__name__}")
        problem = name_problem(value, sep)
        if problem:
            raise BadRequest(f"input.{key}[{i}] = {value!r} is not a valid {kind}: {problem}")
    return values


def _jar_resources(inp: Mapping[str, Any], side: str, classes: Sequence[str]) -> frozenset[str]:
    """The entries of one jar: its resources and its classes' class files, each at most once."""
    own = _names(inp, f"{side}_resources", "/")
    files = {class_file(c) for c in classes}
    for i, res in enumerate(own):
        if res in files:
            raise BadRequest(f"input.{side}_resources[{i}] = {res!r} is the class file of a name in "
                             f"input.{side}_classes; a jar holds each entry once")
    return frozenset(own) | files


def resolve(inp: Mapping[str, Any], version: FlinkVersion) -> ResolveOutput | Rejected:
    """The patterns in force, where each lookup's class comes from, where each resource is found."""
    return resolve_with(inp, version)


def resolve_with(inp: Mapping[str, Any], version: FlinkVersion, loaders: type[Loaders] = Loaders,
                 read_settings: Callable[[Mapping[str, str], FlinkVersion], LoaderSettings] = settings,
                 ) -> ResolveOutput | Rejected:
    """:func:`resolve` with the loader model and the settings reader given (the mutants plant bugs here)."""
    user_classes = _names(inp, "user_classes", ".")
    parent_classes = _names(inp, "parent_classes", ".")
    lookups = _names(inp, "lookups", ".")
    user_resources = _jar_resources(inp, "user", user_classes)
    parent_resources = _jar_resources(inp, "parent", parent_classes)
    resource_lookups = _names(inp, "resource_lookups", "/")
    single_lookups = _names(inp, "resource_lookup_one", "/")  # protocol 3 (docs/protocol/v3.md)
    config = string_map(inp, "config", "input")
    at("patterns")  # reading the settings decides the patterns in force, or the rejection
    try:
        loader_settings = read_settings(config, version)
    except JavaException as exc:
        rejected_because(*recorded("patterns"))
        return Rejected(exc.simple_name, exc.message)
    except UnmodelledValue as exc:
        raise NotModelled("input.config", f"{exc} as a YAML list value") from None
    model = loaders(loader_settings, frozenset(user_classes), frozenset(parent_classes),
                      user_resources, parent_resources)
    because("CL-1", splitter_rule(version))
    out: ResolveOutput = {"patterns": list(loader_settings.patterns),
                          "resolved": [_at("resolved", i, model.load, name) for i, name in enumerate(lookups)],
                          "resources": [_at("resources", i, model.resources, name)
                                        for i, name in enumerate(resource_lookups)]}
    if "resource_lookup_one" in inp:  # the answer holds "resource" only where the request asks
        out["resource"] = [_at("resource", i, model.resource, name) for i, name in enumerate(single_lookups)]
    return out


def _at(part: str, i: int, answer: Callable[[str], _T], name: str) -> _T:
    """``answer(name)``, the ``i``-th entry of the answer's ``part``, its rules recorded there."""
    at(part, i)
    return answer(name)


# the areas this module answers, by name (oracle.AREAS)
ENTRIES: dict[str, AreaFn] = {RESOLVE: resolve}

# the changes of Flink's behaviour in this area, in release order (oracle.changes)
CHANGES: dict[str, tuple[Change, ...]] = {
    RESOLVE: (clc.ROCKSDB_PARENT_FIRST, clc.LIST_OPTION, clc.MOVED_TO_UTIL, clc.YAML_LISTS)}
