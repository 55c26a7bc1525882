"""Protocol area ``classloading.lifecycle``: a user-code class loader used, closed and used again, and what
happens to the Throwables thrown while it loads a class (CLL-1 ... CLL-13, declared in :data:`RULES`).

The loader is the one a TaskManager builds (``TaskManagerServices.fromConfiguration`` ->
``BlobLibraryCacheManager.defaultClassLoaderFactory`` -> ``FlinkUserCodeClassLoaders.create``) over the
content of :mod:`oracle.classloading` (which loader serves a name is that module's :class:`Loaders`,
unchanged), plus planted *faults*: a class whose class file cannot be read (the read throws a given
Throwable, as the JVM throws while it defines a class) or whose static initializer throws. The handler
the factory gives the loader turns a Metaspace ``OutOfMemoryError`` into a fatal error of the
TaskManager (``TaskManagerRunner.onFatalError``).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import attrs

from oracle.changes import Change
from oracle.classloading import (
    NOT_FOUND,
    PARENT,
    PROHIBITED,
    USER,
    Loaders,
    Side,
    _jar_resources,
    _names,
    class_file,
    jdk_classes,
    name_problem,
)
from oracle.classloading_config import JavaException, LoaderSettings, UnmodelledValue, settings
from oracle.explain import ASIDE, INPUT, at, because, decided_here, recorded, rejected_because, tracing_active
from oracle.protocol import AreaFn, BadRequest, NotModelled, Rejected, field, string_map
from oracle.rules import Declared
from oracle.versions import FlinkVersion, pick

LIFECYCLE = "classloading.lifecycle"  # the protocol area (docs/protocol)

# The rules this module encodes, each declared once (properties/oracle_rules.py says what checks each).
RULES: tuple[Declared, ...] = (
    Declared("CLL-1",
             "With classloader.check-leaked-classloader true the loader is a SafetyNetWrapperClassLoader: once "
             "closed, loadClass, getResource and getResources throw IllegalStateException(\"Trying to access "
             "closed classloader. Please check if you store classloaders directly or indirectly in static fields."
             " If the stacktrace suggests that the leak occurs in a third party library and cannot be fixed "
             "immediately, you can disable this check with the configuration "
             "'classloader.check-leaked-classloader'.\") for every name, a parent-first or JDK class included, "
             "without reaching the class-loading exception handler.",
             "FlinkUserCodeClassLoaders.SafetyNetWrapperClassLoader.close / ensureInner"),
    Declared("CLL-2",
             "With the check off the loader is the FlinkUserCodeClassLoader itself, a URLClassLoader: once "
             "closed, a class it defined before is still returned (findLoadedClass); any other class and every "
             "resource is looked up as if the user jar were empty.",
             "URLClassLoader.close (URLClassPath.closeLoaders), ClassLoader.findLoadedClass"),
    Declared("CLL-3",
             "Class.forName(name, init, loader) answers from the JVM's record of what an earlier Class.forName "
             "through the same loader returned, without calling loadClass: after close it returns those classes "
             "even when the leak check is on.",
             "Class.forName, HotSpot SystemDictionary (the initiating loader's dictionary), JDK 17"),
    Declared("CLL-4",
             "Every Throwable escaping loadClassWithoutExceptionHandling, a ClassNotFoundException included, is "
             "passed to the class-loading exception handler and rethrown as it is.",
             "FlinkUserCodeClassLoader.loadClass"),
    Declared("CLL-5",
             "The superclass of a class the user-code loader defines is loaded through that loader's loadClass: "
             "an error there reaches the handler, then fails the outer class with the same Throwable, which "
             "reaches the handler again.",
             "ClassLoader.defineClass (HotSpot resolve_super_or_fail), FlinkUserCodeClassLoader.loadClass"),
    Declared("CLL-6",
             "A class file whose read throws an Error or a RuntimeException fails the lookup with that "
             "Throwable; one whose read throws an IOException is not found (ClassNotFoundException), so the "
             "search goes on as for a missing class.",
             "URLClassLoader.findClass / defineClass(name, Resource)"),
    Declared("CLL-7",
             "The handler a TaskManager builds calls the fatal error handler only if "
             "classloader.fail-on-metaspace-oom-error is true (the default) and the Throwable is a Metaspace "
             "OutOfMemoryError: of class OutOfMemoryError exactly, with a message that starts with \"Metaspace\""
             " (1.13-1.14) or contains \"metaspace\" in any case (1.15 on, FLINK-24993).",
             "BlobLibraryCacheManager.createClassLoadingExceptionHandler, ExceptionUtils."
             "isMetaspaceOutOfMemoryError"),
    Declared("CLL-8",
             "The TaskManager's fatal error handler replaces the error's message with the TaskManager's "
             "Metaspace explanation (the error then rethrown carries it) and, the error being an "
             "OutOfMemoryError, terminates the JVM.",
             "TaskManagerRunner.onFatalError, TaskManagerExceptionUtils.tryEnrichTaskManagerError"),
    Declared("CLL-9",
             "A static initializer runs outside loadClass and never reaches the handler: the first failure "
             "throws an Error as it is and wraps anything else in ExceptionInInitializerError (no message); "
             "every later initialization throws NoClassDefFoundError(\"Could not initialize class <name>\").",
             "Class.forName(name, true, loader), HotSpot InstanceKlass::initialize_impl, JDK 17"),
    Declared("CLL-10",
             "The JVM's messages: a class in a java.* package defined by any loader but the JDK's is "
             "SecurityException(\"Prohibited package name: <package>\"); class bytes that are not a class file "
             "are ClassFormatError(\"Incompatible magic value <magic> in class file <internal name>\").",
             "ClassLoader.preDefineClass, HotSpot ClassFileParser, JDK 17"),
    Declared("CLL-11",
             "The configuration is read as TaskManagerServices reads it: the parent-first patterns, the resolve "
             "order, classloader.fail-on-metaspace-oom-error, then classloader.check-leaked-classloader; the "
             "first that fails is the answer.",
             "TaskManagerServicesConfiguration.fromConfiguration, TaskManagerServices.fromConfiguration"),
    Declared("CLL-12",
             "close() of a closed loader does nothing.",
             "SafetyNetWrapperClassLoader.close, URLClassLoader.close"),
    Declared("CLL-13",
             "The loader is parallel capable (ClassLoader.isRegisteredAsParallelCapable()) except, in 1.13-1.14, "
             "with classloader.check-leaked-classloader false: ChildFirstClassLoader and "
             "FlinkUserCodeClassLoaders.ParentFirstClassLoader call registerAsParallelCapable() but their "
             "superclass FlinkUserCodeClassLoader does not (from 1.15 it does), so the JDK does not register "
             "them; the SafetyNetWrapperClassLoader, a URLClassLoader (a MutableURLClassLoader from 1.16, when "
             "FlinkUserCodeClassLoader(s) moved to org.apache.flink.util), is registered in every release.",
             "FlinkUserCodeClassLoader, ChildFirstClassLoader, FlinkUserCodeClassLoaders.ParentFirstClassLoader / "
             "SafetyNetWrapperClassLoader (static registerAsParallelCapable), ClassLoader.registerAsParallelCapable"
             " (ParallelLoaders.register: only when the superclass is registered), JDK 17"),
)


class Kind(enum.Enum):
    """What a Throwable type is, which decides how it travels (CLL-6, CLL-9)."""

    ERROR = "Error"
    RUNTIME = "RuntimeException"
    IO = "IOException"
    CHECKED = "checked exception"


# The Throwable types a fault may throw (the bridge instantiates them by these simple names).
THROWABLES: Mapping[str, Kind] = {
    **dict.fromkeys(("OutOfMemoryError", "StackOverflowError", "InternalError", "UnknownError", "LinkageError",
                     "NoClassDefFoundError", "ClassFormatError", "UnsupportedClassVersionError",
                     "IncompatibleClassChangeError", "ClassCircularityError", "VerifyError", "AbstractMethodError",
                     "NoSuchFieldError", "NoSuchMethodError", "IllegalAccessError", "InstantiationError",
                     "ExceptionInInitializerError", "AssertionError", "Error"), Kind.ERROR),
    **dict.fromkeys(("RuntimeException", "IllegalStateException", "IllegalArgumentException", "NullPointerException",
                     "SecurityException", "UnsupportedOperationException", "ClassCastException",
                     "IndexOutOfBoundsException", "ArrayIndexOutOfBoundsException", "ArithmeticException",
                     "NegativeArraySizeException", "ConcurrentModificationException"), Kind.RUNTIME),
    **dict.fromkeys(("IOException", "FileNotFoundException", "EOFException", "ZipException"), Kind.IO),
    **dict.fromkeys(("Exception", "Throwable", "ClassNotFoundException", "CloneNotSupportedException",
                     "InterruptedException"), Kind.CHECKED),
}
Stage = Literal["define", "initialize"]
MAX_MESSAGE = 1000
MAX_OPERATIONS = 10_000

LEAK_MESSAGE = ("Trying to access closed classloader. Please check if you store classloaders directly or indirectly "
                "in static fields. If the stacktrace suggests that the leak occurs in a third party library and "
                "cannot be fixed immediately, you can disable this check with the configuration "
                "'classloader.check-leaked-classloader'.")
# TaskManagerExceptionUtils.TM_METASPACE_OOM_ERROR_MESSAGE (TaskManagerOptions.JVM_METASPACE's key), 1.13-2.3
TM_METASPACE_MESSAGE = (
    "Metaspace. The metaspace out-of-memory error has occurred. This can mean two things: either the job requires a "
    "larger size of JVM metaspace to load classes or there is a class loading leak. In the first case "
    "'taskmanager.memory.jvm-metaspace.size' configuration option should be increased. If the error persists "
    "(usually in cluster after several job (re-)submissions) then there is probably a class loading leak in user "
    "code or some of its dependencies which has to be investigated and fixed. The task executor has to be "
    "shutdown...")
MANIFEST_MAGIC = 0x4D616E69  # "Mani": the first bytes of every resource entry the jars hold


def _metaspace_prefix(message: str) -> bool:
    """1.13-1.14: ``message.startsWith("Metaspace")``."""
    return message.startswith("Metaspace")


def _metaspace_anywhere(message: str) -> bool:
    """1.15 on: ``message.toLowerCase(Locale.ROOT).contains("metaspace")``; no other character lower-cases
    to one of these ASCII letters, so an ASCII case fold is exact."""
    return "metaspace" in "".join(c.lower() if "A" <= c <= "Z" else c for c in message)


METASPACE_ANYWHERE = Change(
    since="1.15", issue="FLINK-24993",
    what="a Metaspace OutOfMemoryError is one whose message contains 'metaspace' in any case, no longer one whose "
    "message starts with 'Metaspace'",
    witnesses=({"faults": [{"class": "com.acme.Boom", "side": "user", "stage": "define", "throws": "OutOfMemoryError",
                            "message": "Out of Metaspace"}],
                "operations": [{"load": "com.acme.Boom"}]},))
# ExceptionUtils.isMetaspaceOutOfMemoryError's message test (CLL-7)
METASPACE_TEST = METASPACE_ANYWHERE.table(_metaspace_prefix, _metaspace_anywhere)

PARALLEL_FLINK_LOADER = Change(
    since="1.15",
    what="FlinkUserCodeClassLoader registers as parallel capable, so ChildFirstClassLoader and ParentFirstClassLoader "
    "(the loader with classloader.check-leaked-classloader false) are parallel capable too",
    witnesses=({"config": {"classloader.check-leaked-classloader": "false"}, "operations": []},))
# whether the FlinkUserCodeClassLoader itself (child-first or parent-first) is parallel capable (CLL-13)
FLINK_LOADER_PARALLEL = PARALLEL_FLINK_LOADER.table(False, True)


@attrs.frozen
class Thrown:
    """A Throwable: its simple class name and its message (None: ``getMessage()`` is null)."""

    exception: str
    message: str | None

    def __str__(self) -> str:
        return f"error:{self.exception}" + ("" if self.message is None else f": {self.message}")

    @classmethod
    def parse(cls, outcome: str, name: str) -> Thrown:
        """The Throwable a lookup's outcome string stands for (``not_found``: ClassNotFoundException)."""
        if outcome == NOT_FOUND:
            return cls("ClassNotFoundException", name)
        exception, _, message = outcome.removeprefix("error:").partition(": ")
        return cls(exception, message if ": " in outcome else None)


@attrs.frozen
class Fault:
    """A planted class of one side: reading its class file (``define``) or running its static
    initializer (``initialize``) throws ``throws(message)``."""

    name: str
    side: str
    stage: Stage
    throws: str
    message: str | None

    @property
    def thrown(self) -> Thrown:
        return Thrown(self.throws, self.message)


@attrs.frozen
class FaultyLoaders(Loaders):
    """:class:`Loaders` whose jars also hold the planted faults, with the JVM's messages (CLL-6, CLL-10), and
    which records what escapes each ``loadClass`` call of the user-code loader (CLL-4, CLL-5)."""

    faults: Mapping[tuple[str, str], Fault] = attrs.field(factory=dict)
    escaped: list[str] = attrs.field(factory=list, eq=False)

    def _load(self, name: str) -> str:
        """One ``loadClass`` call of the user-code loader: the lookup's, or the JVM's for a superclass (CLL-5)."""
        found = super()._load(name)
        if found not in (USER, PARENT):
            self.escaped.append(found)
        return found

    def _define(self, name: str, side: Side) -> str | None:
        fault = self.faults.get((side, name))
        if fault is not None and fault.stage == "define":
            because("CLL-6")
            return NOT_FOUND if THROWABLES[fault.throws] is Kind.IO else str(fault.thrown)  # CLL-6
        failed = super()._define(name, side)
        if failed in (PROHIBITED, "error:ClassFormatError"):
            because("CLL-10")
        if failed == PROHIBITED:
            return f"{PROHIBITED}: Prohibited package name: {name.rpartition('.')[0]}"  # CLL-10
        if failed == "error:ClassFormatError":
            internal = name.replace(".", "/")
            return f"{failed}: Incompatible magic value {MANIFEST_MAGIC} in class file {internal}"  # CLL-10
        return failed

    def closed(self) -> FaultyLoaders:
        """The loader once its URLClassPath is closed: no user jar, no user fault (CLL-2)."""
        return attrs.evolve(self, user_classes=frozenset(), user_resources=frozenset(),
                            faults={k: f for k, f in self.faults.items() if k[0] != USER}, escaped=[])


@attrs.frozen
class Result:
    """What one operation gave: ``result`` and the Throwables the handler received while it ran."""

    result: str | Sequence[str]
    handled: tuple[dict[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"result": self.result, "handled": list(self.handled)}


class UserCodeClassLoader:
    """The loader a TaskManager builds, as a small state machine: each method is one operation."""

    def __init__(self, loaders: FaultyLoaders, version: FlinkVersion) -> None:
        self._loaders = loaders
        self._settings: LoaderSettings = loaders.settings
        self._metaspace_test: Callable[[str], bool] = pick(METASPACE_TEST, version)
        self._version = version
        self._closed = False
        self._defined: set[str] = set()  # classes the FlinkUserCodeClassLoader defined (findLoadedClass)
        self._for_name: dict[str, str] = {}  # the JVM's record for the SafetyNetWrapperClassLoader (CLL-3)
        self._initialized: dict[tuple[str, str], bool] = {}  # (side, name) -> initializer succeeded

    def _leaked(self) -> Result | None:
        """CLL-1: the SafetyNetWrapperClassLoader of a closed loader refuses to load (when the check is on)."""
        if self._closed and self._settings.check_leaked:
            because("CLL-1")
            return Result(str(Thrown("IllegalStateException", LEAK_MESSAGE)))
        return None

    def load_class(self, name: str) -> Result:
        """``loader.loadClass(name)``."""
        if (leaked := self._leaked()) is not None:
            return leaked
        if name in self._defined:
            because("CLL-2")  # findLoadedClass, closed or not
            return Result(USER)
        loaders = self._loaders.closed() if self._closed else self._loaders
        if self._closed:
            because("CLL-2")
        loaders.escaped.clear()
        found = loaders.load(name)
        if found == USER:
            self._defined.add(name)
        if found in (USER, PARENT):
            return Result(found)
        return self._handle(loaders.escaped, name)

    def for_name(self, name: str, initialize: bool) -> Result:
        """``Class.forName(name, initialize, loader)``."""
        if self._settings.check_leaked and name in self._for_name:
            because("CLL-3")
            side = self._for_name[name]  # no loadClass call, closed or not
        else:
            loaded = self.load_class(name)
            if loaded.result not in (USER, PARENT):
                return loaded
            side = str(loaded.result)
            self._for_name[name] = side
        return self._initialize(side, name) if initialize else Result(side)

    def _initialize(self, side: str, name: str) -> Result:
        """CLL-9: the class's static initializer, run once."""
        fault = self._loaders.faults.get((side, name))
        if fault is None or fault.stage != "initialize":
            return Result(side)
        because("CLL-9")
        if (side, name) in self._initialized:
            return Result(str(Thrown("NoClassDefFoundError", f"Could not initialize class {name}")))
        self._initialized[(side, name)] = False
        if THROWABLES[fault.throws] is Kind.ERROR:
            return Result(str(fault.thrown))
        return Result(str(Thrown("ExceptionInInitializerError", None)))

    def _handle(self, escaped: Sequence[str], name: str) -> Result:
        """CLL-4, CLL-5, CLL-7, CLL-8: each escape of one Throwable passes the handler, which may make it
        fatal and so change its message."""
        assert escaped and len(set(escaped)) == 1, escaped  # one Throwable, through one or two loadClass calls
        thrown = Thrown.parse(escaped[0], name)
        handled = []
        for _ in escaped:
            fatal = (self._settings.fail_on_metaspace and thrown.exception == "OutOfMemoryError"
                     and thrown.message is not None and self._metaspace_test(thrown.message))
            handled.append({"exception": thrown.exception, "message": thrown.message, "fatal": fatal})
            if fatal:
                thrown = Thrown(thrown.exception, TM_METASPACE_MESSAGE)
        return Result(NOT_FOUND if escaped[0] == NOT_FOUND else str(thrown), tuple(handled))

    def get_resource(self, name: str) -> Result:
        """``loader.getResource(name)``: the first of :meth:`get_resources` (or not found)."""
        found = self.get_resources(name)
        if isinstance(found.result, str):
            return found
        return Result(found.result[0] if found.result else NOT_FOUND)

    def get_resources(self, name: str) -> Result:
        """``loader.getResources(name)``: where each URL comes from, in order."""
        if (leaked := self._leaked()) is not None:
            return leaked
        loaders = self._loaders.closed() if self._closed else self._loaders
        if self._closed:
            because("CLL-2")
        return Result(loaders.resources(name))

    def close(self) -> Result:
        """``loader.close()`` (CLL-12: again is nothing)."""
        if self._closed:
            because("CLL-12")
        self._closed = True
        return Result("closed")

    def parallel_capable(self) -> bool:
        """``loader.isRegisteredAsParallelCapable()`` (CLL-13): the SafetyNetWrapperClassLoader always, the
        FlinkUserCodeClassLoader itself from 1.15 on."""
        because("CLL-13")
        return self._settings.check_leaked or self._flink_loader_parallel

    @property
    def _flink_loader_parallel(self) -> bool:
        return pick(FLINK_LOADER_PARALLEL, self._version)


# --------------------------------------------------------------------------------------------
# requests


def _faults(inp: Mapping[str, Any], entries: Mapping[str, frozenset[str]]) -> dict[tuple[str, str], Fault]:
    raw: list[Any] = field(inp, "faults", list, "input") if "faults" in inp else []
    out: dict[tuple[str, str], Fault] = {}
    for i, item in enumerate(raw):
        where = f"input.faults[{i}]"
        name = field(item, "class", str, where)
        problem = name_problem(name, ".")
        if problem:
            raise BadRequest(f"{where}.class = {name!r} is not a valid binary name: {problem}")
        side = field(item, "side", str, where)
        stage = field(item, "stage", str, where)
        throws = field(item, "throws", str, where)
        message = item.get("message")
        if side not in (USER, PARENT):
            raise BadRequest(f"{where}.side must be 'user' or 'parent', got {side!r}")
        if stage not in ("define", "initialize"):
            raise BadRequest(f"{where}.stage must be 'define' or 'initialize', got {stage!r}")
        if throws not in THROWABLES:
            raise BadRequest(f"{where}.throws = {throws!r} is none of {', '.join(THROWABLES)}")
        if stage == "define" and THROWABLES[throws] is Kind.CHECKED:
            raise BadRequest(f"{where}: reading a class file throws no {throws} (a checked exception other than "
                             "an IOException); only a static initializer can")
        if message is not None and not isinstance(message, str):
            raise BadRequest(f"{where}.message must be a string or null, got {type(message).__name__}")
        if message is not None and (len(message) > MAX_MESSAGE or any(0xD800 <= ord(c) <= 0xDFFF for c in message)):
            raise BadRequest(f"{where}.message must be at most {MAX_MESSAGE} chars with no lone surrogate")
        if (side, name) in out or class_file(name) in entries[side]:
            raise BadRequest(f"{where}.class = {name!r} is already an entry of the {side} jar")
        out[(side, name)] = Fault(name, side, stage, throws, message)
    initializers = [f for f in out.values() if f.stage == "initialize"]
    java = sorted(n for side in (USER, PARENT) for n in entries[side] if n.startswith("java/") and n.endswith(".class"))
    java += sorted(f.name for f in out.values() if f.name.startswith("java."))
    if initializers and java:
        raise BadRequest(f"input.faults: a class whose initializer throws needs content without java.* classes "
                         f"(the JVM resolves the Throwable's class through the loader), got {java[0]!r}")
    return out


def _operations(inp: Mapping[str, Any]) -> list[tuple[str, str, bool]]:
    raw: list[Any] = field(inp, "operations", list, "input")
    if len(raw) > MAX_OPERATIONS:
        raise BadRequest(f"input.operations has {len(raw)} entries; at most {MAX_OPERATIONS}")
    out = []
    for i, op in enumerate(raw):
        where = f"input.operations[{i}]"
        if not isinstance(op, Mapping):
            raise BadRequest(f"{where} must be an object")
        kinds = [k for k in ("load", "for_name", "get_resource", "get_resources", "close") if k in op]
        extra = set(op) - {*kinds, "initialize"}
        if len(kinds) != 1 or extra or ("initialize" in op and kinds != ["for_name"]):
            raise BadRequest(f"{where} must have exactly one of load, for_name (with an optional initialize), "
                             f"get_resource, get_resources, close; got keys {sorted(op)}")
        kind = kinds[0]
        if kind == "close":
            if op["close"] is not True:
                raise BadRequest(f"{where}.close must be true")
            out.append((kind, "", False))
            continue
        name = field(op, kind, str, where)
        sep = "/" if kind.startswith("get_") else "."
        problem = name_problem(name, sep)
        if problem:
            raise BadRequest(f"{where}.{kind} = {name!r} is not a valid {'resource' if sep == '/' else 'binary'} "
                             f"name: {problem}")
        initialize = field(op, "initialize", bool, where) if "initialize" in op else False
        if initialize and name in jdk_classes():
            raise BadRequest(f"{where}: initializing the JDK class {name!r} is not modelled")
        out.append((kind, name, initialize))
    return out


def _explain(i: int, result: Result) -> None:
    """The rules of operation ``i``'s answer: each Throwable the handler received by CLL-4/CLL-5 (and
    CLL-7/CLL-8 for an OutOfMemoryError), then the result by the operation's own rules (CLL-8 first where it
    replaced the message)."""
    for j, handled in enumerate(result.handled):
        at("results", i, "handled", j)
        if handled["exception"] == "OutOfMemoryError":
            because("CLL-7", *(("CLL-8",) if handled["fatal"] else ()))
        because("CLL-5" if j else "CLL-4")
    fatal = any(h["fatal"] for h in result.handled)
    at("results", i, "result")
    because(*(("CLL-8",) if fatal else ()), *recorded(*ASIDE, i), *(("CLL-4",) if result.handled else ()))


def lifecycle(inp: Mapping[str, Any], version: FlinkVersion) -> dict[str, Any] | Rejected:
    """What each operation on the loader gives, and what its class-loading exception handler received."""
    return lifecycle_with(inp, version)


def lifecycle_with(inp: Mapping[str, Any], version: FlinkVersion,
                   loader_type: type[UserCodeClassLoader] = UserCodeClassLoader,
                   loaders_type: type[FaultyLoaders] = FaultyLoaders) -> dict[str, Any] | Rejected:
    """:func:`lifecycle` with the loader and its jars' model given (a mutant's subclasses)."""
    user_classes = _names(inp, "user_classes", ".")
    parent_classes = _names(inp, "parent_classes", ".")
    user_resources = _jar_resources(inp, "user", user_classes)
    parent_resources = _jar_resources(inp, "parent", parent_classes)
    faults = _faults(inp, {USER: user_resources, PARENT: parent_resources})
    operations = _operations(inp)
    config = string_map(inp, "config", "input")
    at(*INPUT)
    because("CLL-11")
    try:
        loader_settings = settings(config, version, read_fail_on_metaspace=True)
    except JavaException as exc:
        rejected_because(*decided_here())
        return Rejected(exc.simple_name, exc.message)
    except UnmodelledValue as exc:
        raise NotModelled("input.config", f"{exc} as a YAML list value") from None
    planted = {side: frozenset(class_file(f.name) for f in faults.values() if f.side == side)
               for side in (USER, PARENT)}
    initializers = {side: frozenset(f.name for f in faults.values() if f.side == side and f.stage == "initialize")
                    for side in (USER, PARENT)}
    loaders = loaders_type(loader_settings, frozenset(user_classes) | initializers[USER],
                            frozenset(parent_classes) | initializers[PARENT], user_resources | planted[USER],
                            parent_resources | planted[PARENT], faults)
    loader = loader_type(loaders, version)
    results = []
    for i, (kind, name, initialize) in enumerate(operations):
        at(*ASIDE, i)  # the operation's rules, until its handled Throwables are known (_explain)
        if kind == "load":
            results.append(loader.load_class(name))
        elif kind == "for_name":
            results.append(loader.for_name(name, initialize))
        elif kind == "get_resource":
            results.append(loader.get_resource(name))
        elif kind == "get_resources":
            results.append(loader.get_resources(name))
        else:
            results.append(loader.close())
        if tracing_active():
            _explain(i, results[-1])
    at("parallel_capable")
    return {"results": [r.to_json() for r in results], "parallel_capable": loader.parallel_capable()}


ENTRIES: dict[str, AreaFn] = {LIFECYCLE: lifecycle}
CHANGES: dict[str, tuple[Change, ...]] = {LIFECYCLE: (METASPACE_ANYWHERE, PARALLEL_FLINK_LOADER)}
