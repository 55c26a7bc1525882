"""What an implementation declares it does not support: areas, Flink versions, rules.

An implementation that covers only part of Flink is judged on that part: what it declares is
reported as *not supported*, never as a failure, and everything else is still checked (the TCK
idea of reactive-streams-jvm). The declaration comes from a JSON file given by
``--capabilities FILE`` and/or from the implementation itself, which may answer the optional
request ``{"id": 0, "area": "capabilities", "input": {}}`` (docs/protocol.md). Both look alike::

    {"unsupported": [
        {"area": "watermark.timers", "why": "no event-time timers yet"},
        {"flink": ["1.13", "1.14"]},
        {"area": "watermark.valve", "rule": "WM-7", "why": "we flush on every idle channel"}]}

Each entry is a selector: it matches an (area, version, rule) when every field it has matches
(``area``, ``flink`` and ``rule`` take a string or a list). An entry without ``rule`` takes a whole
(area, version) out of the run; an entry with ``rule`` only stops that rule from being a failure.
A request that breaks an unsupported rule is not held against the implementation for the
differential rule (``*-EQ``) either: its difference from Flink is what the declared rule explains.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import attrs

from flinkspec.impls import Implementation, ImplementationBroken, answer_one
from oracle.versions import FlinkVersion, UnknownVersion, parse_version

FIELDS = ("area", "flink", "rule")
REQUEST = {"id": 0, "area": "capabilities", "input": {}}


class CapabilitiesError(ValueError):
    """A capabilities declaration that is not of the documented shape; the message names the field."""


def _names(value: object) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return (value,)
    return tuple(value)  # validated by the caller


@attrs.frozen
class Unsupported:
    """One declared selector; ``None`` in a field matches anything."""

    area: tuple[str, ...] | None = None
    flink: tuple[str, ...] | None = None
    rule: tuple[str, ...] | None = None
    why: str = ""
    source: str = ""

    def matches(self, area: str, version: FlinkVersion | str, rule: str | None = None) -> bool:
        return ((self.area is None or area in self.area)
                and (self.flink is None or str(version) in self.flink)
                and (rule is None or self.rule is None or rule in self.rule))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {k: list(getattr(self, k)) for k in FIELDS if getattr(self, k) is not None}
        if self.why:
            out["why"] = self.why
        out["source"] = self.source
        return out


@attrs.frozen
class Capabilities:
    """Everything an implementation declared it does not support (empty: it claims everything)."""

    unsupported: tuple[Unsupported, ...] = ()
    warnings: tuple[str, ...] = ()

    def run_unsupported(self, area: str, version: FlinkVersion | str) -> Unsupported | None:
        """The declaration that takes (area, version) out of the run, if any."""
        return next((u for u in self.unsupported if u.rule is None and u.matches(area, version)), None)

    def rules_unsupported(self, area: str, version: FlinkVersion | str) -> frozenset[str]:
        """The rules declared unsupported at (area, version)."""
        return frozenset(r for u in self.unsupported if u.rule is not None and u.matches(area, version)
                         for r in u.rule)

    def why(self, area: str, version: FlinkVersion | str, rule: str | None = None) -> str | None:
        """Why (area, version[, rule]) is not supported, or None if it is."""
        for u in self.unsupported:
            if u.matches(area, version) and (u.rule is None or (rule is not None and rule in u.rule)):
                return u.why or f"declared by {u.source}"
        return None

    def merged(self, other: Capabilities) -> Capabilities:
        return Capabilities(self.unsupported + other.unsupported, self.warnings + other.warnings)

    def to_json(self) -> list[dict[str, Any]]:
        return [u.to_json() for u in self.unsupported]


NONE = Capabilities()


def parse(data: object, source: str, *, known_areas: Iterable[str] = (), known_rules: Iterable[str] = (),
          lenient: bool = False) -> Capabilities:
    """A declaration from its JSON value. Unknown fields, versions, areas and rules are errors naming
    the field; with ``lenient`` (an implementation's own answer, which may name areas this suite
    does not know yet) an entry naming an unknown area or rule is dropped with a warning instead."""
    areas, rules = set(known_areas), set(known_rules)
    if not isinstance(data, dict) or not isinstance(data.get("unsupported"), list):
        raise CapabilitiesError(f"{source}: expected an object {{\"unsupported\": [...]}}")
    extra = set(data) - {"unsupported"}
    if extra:
        raise CapabilitiesError(f"{source}: unknown field(s) {', '.join(sorted(extra))}")
    out: list[Unsupported] = []
    warnings: list[str] = []
    for i, entry in enumerate(data["unsupported"]):
        where = f"{source}: unsupported[{i}]"
        if not isinstance(entry, dict):
            raise CapabilitiesError(f"{where} must be an object")
        unknown = set(entry) - {*FIELDS, "why"}
        if unknown:
            raise CapabilitiesError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}; "
                                    "expected area, flink, rule, why")
        if not any(k in entry for k in FIELDS):
            raise CapabilitiesError(f"{where} selects everything; give at least one of area, flink, rule")
        for k in FIELDS:
            v = entry.get(k)
            if k in entry and not (isinstance(v, str) or (isinstance(v, list) and v
                                                           and all(isinstance(x, str) for x in v))):
                raise CapabilitiesError(f"{where}.{k} must be a string or a non-empty list of strings")
        if not isinstance(entry.get("why", ""), str):
            raise CapabilitiesError(f"{where}.why must be a string")
        try:
            versions = _names(entry.get("flink"))
            if versions is not None:
                versions = tuple(str(parse_version(v)) for v in versions)
        except UnknownVersion as exc:
            raise CapabilitiesError(f"{where}.flink: {exc}") from None
        problem = _unknown(where, "area", _names(entry.get("area")), areas) or _unknown(
            where, "rule", _names(entry.get("rule")), rules)
        if problem:
            if not lenient:
                raise CapabilitiesError(problem)
            warnings.append(problem + " (entry ignored)")
            continue
        out.append(Unsupported(_names(entry.get("area")), versions, _names(entry.get("rule")),
                               entry.get("why", ""), source))
    return Capabilities(tuple(out), tuple(warnings))


def _unknown(where: str, field: str, names: Sequence[str] | None, known: set[str]) -> str | None:
    bad = [n for n in names or () if known and n not in known]
    return f"{where}.{field}: unknown {field}(s) {', '.join(bad)}" if bad else None


def _known() -> tuple[list[str], list[str]]:
    from properties.areas import AREAS
    from properties.rules import RULES

    return list(AREAS), list(RULES)


def load_file(path: str | Path) -> Capabilities:
    """The declaration in a JSON file (``--capabilities FILE``)."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as exc:
        raise CapabilitiesError(f"--capabilities {path}: cannot read it: {exc}") from None
    except ValueError as exc:
        raise CapabilitiesError(f"--capabilities {path}: not JSON: {exc}") from None
    areas, rules = _known()
    return parse(data, f"--capabilities {path}", known_areas=areas, known_rules=rules)


def asks(spec: str) -> bool:
    """Whether the implementation an ``--impl`` value names may answer the capabilities request:
    the built-in ones (oracle, real Flink, mutants) support everything and are not asked."""
    return spec.partition(":")[0] in ("cmd", "python")


def query(impl: Implementation) -> Capabilities:
    """Ask the implementation. A ``BadRequest`` (it does not know the extension) declares nothing;
    an implementation that breaks on the request is assumed to declare nothing (with a warning):
    the check itself will find out whether it is broken."""
    try:
        resp = answer_one(impl, dict(REQUEST))
    except ImplementationBroken as exc:
        return Capabilities(warnings=(f"the implementation broke on the capabilities request ({exc}); "
                                      "assuming it supports everything",))
    if "error" in resp:
        return NONE
    areas, rules = _known()
    try:
        return parse(resp["output"], "the implementation's answer to the capabilities request",
                     known_areas=areas, known_rules=rules, lenient=True)
    except CapabilitiesError as exc:
        return Capabilities(warnings=(f"{exc}; ignored",))


def resolve(spec: str, impl: Implementation | None, path: str | None) -> Capabilities:
    """The file's declaration (if any) plus what the implementation answers (if it is asked)."""
    caps = load_file(path) if path else NONE
    if impl is not None and asks(spec):
        caps = caps.merged(query(impl))
    return caps
