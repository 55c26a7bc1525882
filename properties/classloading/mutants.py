"""Class-loading mutants: bugs a reimplementation of Flink's user-code class loader plausibly has.

Each is the oracle's loader model (:class:`oracle.classloading.Loaders`) or its settings reader with
one rule changed, answered through :func:`oracle.classloading.resolve_with`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import attrs

from oracle import classloading_config as clc
from oracle.classloading import NOT_FOUND, PARENT, USER, Loaders, Side, resolve_with
from oracle.classloading import RESOLVE as AREA
from oracle.versions import FlinkVersion
from properties.mutant import PR, Mutant, Request, Response, answered_with, historical

MUTANTS: list[Mutant] = []  # this module's mutants, in the order flinkspec mutants lists them

SettingsReader = Callable[[Mapping[str, str], FlinkVersion], clc.LoaderSettings]


def _answer(loaders: type[Loaders] = Loaders, read_settings: SettingsReader = clc.settings,
            ) -> Callable[[Request, Response], Response]:
    return answered_with(lambda inp, version: resolve_with(inp, version, loaders, read_settings))


class _DotBoundary(Loaders):
    def parent_first(self, name: str) -> bool:
        return any(name == p.rstrip(".") or name.startswith(p.rstrip(".") + ".") for p in self.settings.patterns)


class _PatternIsFilter(Loaders):
    def _delegate(self, name: str) -> str:
        found = self._parent_load(name)
        if found == NOT_FOUND and self.settings.child_first and self.parent_first(name):
            return NOT_FOUND
        return found if found != NOT_FOUND else self._find_in_user_jar(name)


class _ParentResourcesFirst(Loaders):
    def resources(self, name: str) -> list[Side]:
        found = super().resources(name)
        return sorted(found, key=lambda side: side != PARENT)


class _GetResourceParentFirst(Loaders):
    def resource(self, name: str) -> Side | None:
        found = self.resources(name)
        return PARENT if PARENT in found else (found[0] if found else None)


class _JavaPackagesAllowed(Loaders):
    def _find_in_user_jar(self, name: str) -> str:
        return USER if name in self.user_classes else NOT_FOUND

    def _parent_load(self, name: str) -> str:
        found = super()._parent_load(name)
        return PARENT if found.startswith("error:") else found


def _trimmed_order(config: Mapping[str, str], version: FlinkVersion) -> clc.LoaderSettings:
    order = config.get("classloader.resolve-order")
    if order is not None:
        config = {**config, "classloader.resolve-order": order.strip().lower()}
    return clc.settings(config, version)


def _additional_replaces(config: Mapping[str, str], version: FlinkVersion) -> clc.LoaderSettings:
    read = clc.settings(config, version)
    extra = clc.settings({k: val for k, val in config.items() if k != clc.ADDITIONAL_KEY}, version)
    added = read.patterns[len(extra.patterns):]
    return attrs.evolve(read, patterns=added) if added else read


def _empty_entries_dropped(config: Mapping[str, str], version: FlinkVersion) -> clc.LoaderSettings:
    read = clc.settings(config, version)
    return attrs.evolve(read, patterns=tuple(p for p in read.patterns if p))


UNDOCUMENTED = {
    "cl-empty-dropped": "Flink documents classloader.parent-first-patterns.default/.additional as semicolon-separated "
    "lists of class name prefixes (CoreOptions, quoted by the seed article on class loading) but no document says "
    "what an empty entry ('a;;b') is, and Flink itself changed its answer in 1.15 (dropped by Guava's "
    "omitEmptyStrings up to 1.14, kept by StructuredOptionsSplitter from 1.15 as the pattern '' that matches every "
    "class): only its list parser decides.",
}


for _name, _doc, _after in (
    ("cl-dot-boundary", "A pattern matches whole packages only: 'org.xml' no longer sends 'org.xmlpull.X' to the "
     "parent (Flink's test is a plain String.startsWith).", _answer(_DotBoundary)),
    ("cl-pattern-filter", "A parent-first pattern filters: a matching class the parent lacks is not found instead "
     "of being loaded from the user jar.", _answer(_PatternIsFilter)),
    ("cl-resources-parent-first", "Child-first getResources lists the parent's resources before the user jar's.",
     _answer(_ParentResourcesFirst)),
    ("cl-get-resource-parent-first", "getResource asks the parent first (ClassLoader's own delegation) even "
     "child-first, while getResources lists the user jar's copy first.", _answer(_GetResourceParentFirst)),
    ("cl-java-allowed", "Classes of java.* packages load from the jars (no SecurityException for a prohibited "
     "package name).", _answer(_JavaPackagesAllowed)),
    ("cl-trimmed-order", "classloader.resolve-order is trimmed and lower-cased: ' child-first' is accepted.",
     _answer(read_settings=_trimmed_order)),
    ("cl-additional-replaces", "classloader.parent-first-patterns.additional replaces the default patterns "
     "instead of being appended to them.", _answer(read_settings=_additional_replaces)),
    ("cl-empty-dropped", "Empty pattern entries ('a;;b') are dropped in every version; from 1.15 Flink keeps one as "
     "the pattern '' that sends every class to the parent first.", _answer(read_settings=_empty_entries_dropped)),
):
    MUTANTS.append(Mutant(_name, AREA, _doc, after=_after, undocumented=UNDOCUMENTED.get(_name, "")))


# ---- historical mutants (:func:`properties.mutant.historical`) -----------------------------------


def _default_pattern_missing(pattern: str) -> Callable[[Mapping[str, str], FlinkVersion], clc.LoaderSettings]:
    """Settings as Flink reads them, but with ``pattern`` absent from the built-in defaults."""
    def read(config: Mapping[str, str], version: FlinkVersion) -> clc.LoaderSettings:
        settings = clc.settings(config, version)
        if clc.DEFAULT_KEY in config or "classloader.parent-first-patterns" in config:
            return settings
        return attrs.evolve(settings, patterns=tuple(p for p in settings.patterns if p != pattern))
    return read


MUTANTS.append(historical(
    8455, AREA,
    "org.apache.hadoop. is not among the default parent-first patterns: Hadoop classes bundled in a job "
    "jar are loaded child-first (ClassCastExceptions with the BucketingSink).",
    f"{PR}5313 (Flink 1.5.0)", "1.4.0 and earlier",
    after=_answer(read_settings=_default_pattern_missing("org.apache.hadoop."))))
MUTANTS.append(historical(
    clc.ROCKSDB_PARENT_FIRST, AREA,
    "org.rocksdb. is not among the default parent-first patterns: RocksDB (FRocksDB) classes bundled "
    "in a job jar are loaded child-first.",
    f"{PR}16811 (Flink 1.14.0)", "1.13 and earlier",
    after=_answer(read_settings=_default_pattern_missing("org.rocksdb."))))
