"""Class-loader lifecycle mutants: bugs a reimplementation of Flink's user-code class loader's lifecycle
plausibly has, each the oracle's :class:`oracle.classloading_lifecycle.UserCodeClassLoader` (or its loader
model) with one rule changed, answered through :func:`oracle.classloading_lifecycle.lifecycle_with`."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from oracle import classloading_lifecycle as cll
from oracle.changes import FIRST
from oracle.classloading import NOT_FOUND, Side
from oracle.classloading_lifecycle import LIFECYCLE as AREA
from oracle.classloading_lifecycle import FaultyLoaders, Kind, Result, Thrown, UserCodeClassLoader
from oracle.versions import FlinkVersion
from properties.mutant import PR, Mutant, Request, Response, answered_with, historical

MUTANTS: list[Mutant] = []  # this module's mutants, in the order flinkspec mutants lists them


def _answer(loader: type[UserCodeClassLoader] = UserCodeClassLoader,
            loaders: type[FaultyLoaders] = FaultyLoaders) -> Callable[[Request, Response], Response]:
    return answered_with(lambda inp, version: cll.lifecycle_with(inp, version, loader, loaders))


class _NoLeakCheck(UserCodeClassLoader):
    """The closed loader goes on loading, as if classloader.check-leaked-classloader were false."""

    def _leaked(self) -> Result | None:
        return None


class _ForgetsDefined(UserCodeClassLoader):
    """A closed loader (leak check off) forgets the classes it defined: no findLoadedClass."""

    def load_class(self, name: str) -> Result:
        if self._closed:
            self._defined.discard(name)
        return super().load_class(name)


class _ForNameChecksLeak(UserCodeClassLoader):
    """Class.forName through a closed loader fails too, even for a class the JVM already recorded."""

    def for_name(self, name: str, initialize: bool) -> Result:
        if self._closed and self._settings.check_leaked:
            return Result(str(Thrown("IllegalStateException", cll.LEAK_MESSAGE)))
        return super().for_name(name, initialize)


class _AnyOomFatal(UserCodeClassLoader):
    """Every OutOfMemoryError is a Metaspace one: the message is not looked at."""

    def __init__(self, loaders: FaultyLoaders, version: FlinkVersion) -> None:
        super().__init__(loaders, version)
        self._metaspace_test = lambda _message: True


class _PrefixOnly(UserCodeClassLoader):
    """The Metaspace test of 1.13-1.14: the message starts with 'Metaspace' (FLINK-24993 undone)."""

    def __init__(self, loaders: FaultyLoaders, version: FlinkVersion) -> None:
        super().__init__(loaders, version)
        self._metaspace_test = cll.METASPACE_TEST[FIRST]  # the test before the change


class _FatalOptionIgnored(UserCodeClassLoader):
    """classloader.fail-on-metaspace-oom-error is not read: a Metaspace OOM is always fatal."""

    def __init__(self, loaders: FaultyLoaders, version: FlinkVersion) -> None:
        super().__init__(attrs.evolve(loaders, settings=attrs.evolve(loaders.settings, fail_on_metaspace=True)),
                         version)


class _MessageKept(UserCodeClassLoader):
    """The fatal error handler leaves the error's message as it was (no TaskManager explanation)."""

    def _handle(self, escaped: Sequence[str], name: str) -> Result:
        handled = super()._handle(escaped, name)
        if not any(h["fatal"] for h in handled.handled):
            return handled
        first = Thrown.parse(escaped[0], name)
        kept = tuple({**h, "message": first.message} for h in handled.handled)
        return Result(str(first), kept)


class _HandledOnce(UserCodeClassLoader):
    """A Throwable met while loading a superclass reaches the handler once, not once per loadClass it leaves."""

    def _handle(self, escaped: Sequence[str], name: str) -> Result:
        return super()._handle(escaped[:1], name)


class _IoErrorThrown(FaultyLoaders):
    """An IOException reading a class file fails the lookup instead of being taken as a missing class."""

    def _define(self, name: str, side: Side) -> str | None:
        fault = self.faults.get((side, name))
        if fault is not None and fault.stage == "define" and cll.THROWABLES[fault.throws] is Kind.IO:
            return str(fault.thrown)
        return super()._define(name, side)


class _AlwaysParallel(UserCodeClassLoader):
    """Every loader is parallel capable: the subclasses' registerAsParallelCapable() taken to succeed in 1.13-1.14
    although their superclass FlinkUserCodeClassLoader is not registered."""

    @property
    def _flink_loader_parallel(self) -> bool:
        return True


class _NotFoundUnhandled(UserCodeClassLoader):
    """A ClassNotFoundException does not reach the handler (only Errors and unexpected exceptions do)."""

    def _handle(self, escaped: Sequence[str], name: str) -> Result:
        handled = super()._handle(escaped, name)
        return Result(NOT_FOUND, ()) if handled.result == NOT_FOUND else handled


MEASURED_AT = {"cll-always-parallel": "1.14"}  # it differs from Flink in 1.13-1.14 only (CLL-13)

UNDOCUMENTED = {
    "cll-forname-checks-leak": "The documentation says the check fails attempts at loading classes; Class.forName "
    "of a class the JVM already recorded for the loader loads nothing, and no document says whether it fails.",
    "cll-any-oom-fatal": "The documentation says a Metaspace OutOfMemoryError fails the process; it does not say "
    "that another one does not.",
    "cll-message-kept": "Neither Flink's documentation nor the seed article gives the message of the error a fatal "
    "Metaspace OutOfMemoryError is rethrown with; only TaskManagerExceptionUtils decides it.",
    "cll-handled-once": "Neither Flink's documentation nor the seed article says how often the class-loading "
    "exception handler sees one Throwable that leaves several loadClass calls.",
    "cll-always-parallel": "Flink's documentation does not say which of its class loaders are parallel capable; "
    "only the static registerAsParallelCapable() calls and the JDK's rule (the superclass must be registered) "
    "decide.",
    "cll-ioexception-thrown": "Neither Flink's documentation nor the JDK's says what an IOException thrown while "
    "URLClassLoader reads a class file becomes; only its code decides (a missing class).",
}

for _name, _doc, _after in (
    ("cll-no-leak-check", "A closed loader goes on loading classes and resources although "
     "classloader.check-leaked-classloader is true.", _answer(_NoLeakCheck)),
    ("cll-forgets-defined", "A closed loader (leak check off) no longer returns the classes it defined.",
     _answer(_ForgetsDefined)),
    ("cll-forname-checks-leak", "Class.forName through a closed loader fails even for a class the JVM already "
     "recorded for it (Flink's wrapper is never asked).", _answer(_ForNameChecksLeak)),
    ("cll-any-oom-fatal", "Every OutOfMemoryError met while loading is fatal, a heap one too.",
     _answer(_AnyOomFatal)),
    ("cll-fatal-option-ignored", "classloader.fail-on-metaspace-oom-error false is ignored.",
     _answer(_FatalOptionIgnored)),
    ("cll-message-kept", "A fatal Metaspace OOM is rethrown with its own message, not the TaskManager's "
     "explanation.", _answer(_MessageKept)),
    ("cll-handled-once", "A Throwable met while loading a superclass reaches the handler once.",
     _answer(_HandledOnce)),
    ("cll-ioexception-thrown", "An IOException reading a class file fails the lookup instead of the search going "
     "on as for a missing class.", _answer(loaders=_IoErrorThrown)),
    ("cll-not-found-unhandled", "A ClassNotFoundException never reaches the class-loading exception handler.",
     _answer(_NotFoundUnhandled)),
    ("cll-always-parallel", "The loader is parallel capable in every release, the child-first and parent-first "
     "FlinkUserCodeClassLoader of 1.13-1.14 too (their superclass not registered).", _answer(_AlwaysParallel)),
):
    MUTANTS.append(Mutant(_name, AREA, _doc, after=_after, undocumented=UNDOCUMENTED.get(_name, ""),
                          measured_at=MEASURED_AT.get(_name, "")))

MUTANTS.append(historical(
    cll.METASPACE_ANYWHERE, AREA,
    "A Metaspace OutOfMemoryError is one whose message starts with 'Metaspace': on JDKs whose message says "
    "it otherwise ('Out of Metaspace', 'metaspace') the TaskManager is not failed.",
    f"{PR}17865 (Flink 1.15.0)", "1.14 and earlier", after=_answer(_PrefixOnly),
    undocumented="The documentation names 'OutOfMemoryError: Metaspace' only; which messages are one is "
    "Flink's code (ExceptionUtils.isMetaspaceOutOfMemoryError)."))
