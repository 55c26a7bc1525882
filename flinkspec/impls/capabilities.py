"""What an implementation declares it does not support: areas, Flink versions, rules.

An implementation that covers only part of Flink is judged on that part: what it declares is
reported as *not supported*, never as a failure, and everything else is still checked (the TCK
idea of reactive-streams-jvm). The declaration comes from a JSON file given by
``--capabilities FILE`` and/or from the implementation itself, which may answer the optional
request ``{"id": 0, "area": "capabilities", "input": {}}`` (docs/protocol/v2.md). Both look alike::

    {"unsupported": [
        {"area": "watermark.timers", "why": "no event-time timers yet"},
        {"flink": ["1.13", "1.14"]},
        {"area": "watermark.valve", "rule": "WM-7", "why": "we flush on every idle channel"}]}

Each entry is a selector: it matches an (area, version, rule) when every field it has matches
(``area``, ``flink`` and ``rule`` take a string or a list). An entry without ``rule`` takes a whole
(area, version) out of the run; an entry with ``rule`` only stops that rule from being a failure.
A request that breaks an unsupported rule is not held against the implementation for the
differential rule (``*-EQ``) either: its difference from Flink is what the declared rule explains.

The same object says which protocol version the implementation speaks (docs/protocol/v2.md)::

    {"protocol": 1, "features": ["watermark.timers.namespace"],
     "unmodelled_keys": ["taskmanager.heap.size"], "unsupported": [...]}

``protocol`` (default 1: docs/protocol/v1.md as it was first written) and ``features`` (registered in
:mod:`flinkspec.impls.features`, spoken beyond that version) decide what may be sent: :meth:`Capabilities.fit`
strips an undeclared feature from a request where the request stays meaningful without it, else the
request is not checked ("needs protocol 2 feature ..."), never failed. A request whose config uses one
of the ``unmodelled_keys`` is not checked either. An implementation that does not answer the
capabilities request speaks protocol 1 with no extra feature; the built-in ones speak everything.

An ``unsupported`` entry may instead name a feature its protocol version has but it does not model,
``{"feature": "config.spelling", "why": "we read plain values only"}``: that feature is then taken out of
each request as for one it does not speak (``config.spelling``: every value respelled plainly), or the
request is not checked.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import attrs

from flinkspec.impls import Implementation, ImplementationBroken, answer_one
from flinkspec.impls import features as feat
from oracle.versions import FlinkVersion, UnknownVersion, parse_version

FIELDS = ("area", "flink", "rule")
TOP_FIELDS = ("unsupported", "protocol", "features", "unmodelled_keys")
REQUEST = {"id": 0, "area": "capabilities", "input": {}}


class CapabilitiesError(ValueError):
    """A capabilities declaration that is not of the documented shape; the message names the field."""


def _names(value: str | list[str] | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return (value,)
    return tuple(value)  # validated by the caller


def _selects(declared: tuple[str, ...], version: FlinkVersion | str) -> bool:
    """Whether a declared ``flink`` selector names ``version``: ``"1.15"`` names every 1.15 patch,
    ``"1.15.1"`` that release only."""
    if isinstance(version, str):
        try:
            version = parse_version(version)
        except UnknownVersion:
            return version in declared
    return bool({version.line, version.release} & set(declared))


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
                and (self.flink is None or _selects(self.flink, version))
                and (rule is None or self.rule is None or rule in self.rule))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {k: list(getattr(self, k)) for k in FIELDS if getattr(self, k) is not None}
        if self.why:
            out["why"] = self.why
        out["source"] = self.source
        return out


@attrs.frozen
class Speaks:
    """What an implementation speaks: a protocol version, the features it declared beyond it, and
    the config keys it does not model. ``to_json`` is the report's view, with the registered
    features it is therefore not sent."""

    protocol: int = 1
    features: tuple[str, ...] = ()
    unmodelled_keys: tuple[str, ...] = ()
    unsupported_features: tuple[str, ...] = ()

    def speaks(self, name: str) -> bool:
        """Whether the feature ``name`` (:mod:`flinkspec.impls.features`) may be sent: one of the version it
        speaks or declared beyond it, and not declared unsupported."""
        f = feat.BY_NAME.get(name)
        if name in self.unsupported_features:
            return False
        return name in self.features or (f is not None and f.version <= self.protocol)

    def not_spoken(self) -> tuple[str, ...]:
        return tuple(name for name in feat.BY_NAME if not self.speaks(name))

    def to_json(self) -> dict[str, Any]:
        return {"protocol": self.protocol, "features": list(self.features),
                "unmodelled_keys": list(self.unmodelled_keys), "unsupported_features": list(self.unsupported_features),
                "not_spoken": list(self.not_spoken())}


@attrs.frozen
class Capabilities:
    """What an implementation speaks (default: protocol 1, nothing more) and what it declared it
    does not support (empty: it claims everything it speaks)."""

    unsupported: tuple[Unsupported, ...] = ()
    warnings: tuple[str, ...] = ()
    protocol: int = 1
    features: tuple[str, ...] = ()
    unmodelled_keys: tuple[str, ...] = ()
    unsupported_features: tuple[str, ...] = ()  # declared by ``{"feature": ...}`` entries of ``unsupported``

    @property
    def speaks(self) -> Speaks:
        return Speaks(self.protocol, self.features, self.unmodelled_keys, self.unsupported_features)

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

    def run_skipped(self, area: str, version: FlinkVersion | str) -> str | None:
        """Why (area, version) is not run at all (declared unsupported, or an area the protocol version
        it speaks lacks), else None."""
        return self.why(area, version) or self.area_needs(area)

    def area_needs(self, area: str) -> str | None:
        """Why no request of ``area`` can be sent to this implementation (an area added after the
        protocol version it speaks, not declared as a feature), else None. An area neither in
        protocol 1 nor registered counts as one of the newest version."""
        if area in feat.V1_AREAS:
            return None
        f = feat.area_feature(area)
        if f is None:
            return None if self.protocol >= feat.CURRENT else f"needs protocol {feat.CURRENT} area {area}"
        return None if self.speaks.speaks(f.name) else f.need()

    def fit(self, request: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
        """The request to send this implementation and None, or None and why it cannot be sent.

        Features it does not speak (undeclared, or declared unsupported) that can be taken out are
        stripped (a new request; ``request`` is never changed; returned as it is when nothing is
        stripped); one that cannot be taken out of this request, an area it does not speak, or a
        config key it does not model (left after stripping) makes the request not checked. The
        oracle judges the request as sent."""
        area = request.get("area") if isinstance(request, dict) else None
        if not isinstance(area, str):
            return request, None
        why = self.area_needs(area)
        if why is not None:
            return None, why
        speaks = self.speaks
        out = request
        for f in feat.for_area(area):
            if speaks.speaks(f.name) or not f.used(out):
                continue
            stripped = f.strip(out) if f.strip is not None else None
            if stripped is None:
                return None, f.need()
            out = stripped
        inp = out.get("input")
        config = inp.get("config") if isinstance(inp, dict) else None
        if isinstance(config, dict):
            key = next((k for k in config if k in self.unmodelled_keys), None)
            if key is not None:
                return None, f"needs config key {key}"
        return out, None

    def fit_answer(self, request: dict[str, Any], answer: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
        """An answer (Flink's, the oracle's or the implementation's) as this implementation can give
        it: without the additions to answers it does not speak (``was_pending``, and what only a
        request feature it does not speak asks for, ``resource``), or None and why the case is not
        checked (an addition that cannot be dropped, e.g. alignment's ``fail``).
        Compare the fitted expected answer with the fitted actual one."""
        out = answer.get("output") if isinstance(answer, dict) else None
        area = request.get("area") if isinstance(request, dict) else None
        if not isinstance(out, dict):
            return answer, None
        speaks = self.speaks
        for f in feat.answer_features(area) if isinstance(area, str) else ():
            if speaks.speaks(f.name) or not f.shown(out):
                continue
            if f.drop is None:
                return None, f.need()
            out = f.drop(out)
        for g in feat.for_area(area) if isinstance(area, str) else ():
            if g.unanswer is not None and not speaks.speaks(g.name):
                out = g.unanswer(out)
        return ({**answer, "output": out} if out is not answer["output"] else answer), None

    def merged(self, other: Capabilities) -> Capabilities:
        """Both declarations: every unsupported entry, the higher protocol, every feature and key."""
        return Capabilities(self.unsupported + other.unsupported, self.warnings + other.warnings,
                            max(self.protocol, other.protocol),
                            tuple(dict.fromkeys(self.features + other.features)),
                            tuple(dict.fromkeys(self.unmodelled_keys + other.unmodelled_keys)),
                            tuple(dict.fromkeys(self.unsupported_features + other.unsupported_features)))

    def to_json(self) -> list[dict[str, Any]]:
        """The unsupported entries (the shape reports have always had; :attr:`speaks` has the rest)."""
        return [u.to_json() for u in self.unsupported]


NONE = Capabilities()  # an implementation that does not answer: protocol 1, nothing declared
EVERYTHING = Capabilities(protocol=feat.CURRENT)  # the built-in implementations


def parse(data: object, source: str, *, known_areas: Iterable[str] = (), known_rules: Iterable[str] = (),
          lenient: bool = False) -> Capabilities:
    """A declaration from its JSON value; every field is optional. Unknown fields, versions, areas,
    rules, features and protocol versions are errors naming the field; with ``lenient`` (an
    implementation's own answer: it may be newer than this suite) an entry naming an unknown area or
    rule is dropped with a warning instead, and so is an unknown feature, and a protocol newer than
    the suite's counts as the suite's."""
    if not isinstance(data, dict):
        raise CapabilitiesError(f'{source}: expected an object {{"protocol": N, "features": [...], '
                                '"unmodelled_keys": [...], "unsupported": [...]}} (every field optional)')
    extra = set(data) - set(TOP_FIELDS)
    if extra:
        raise CapabilitiesError(f"{source}: unknown field(s) {', '.join(sorted(extra))}; "
                                f"expected {', '.join(TOP_FIELDS)}")
    warnings: list[str] = []
    unsupported = _unsupported(data.get("unsupported", []), source, set(known_areas), set(known_rules),
                               lenient, warnings)
    unsupported_features = _unsupported_features(data.get("unsupported", []), source, lenient, warnings)
    protocol = _protocol(data.get("protocol", 1), source, lenient, warnings)
    features = _strings(data.get("features", []), f"{source}: features")
    unknown = [f for f in features if f not in feat.BY_NAME]
    if unknown:
        problem = (f"{source}: features: unknown feature(s) {', '.join(unknown)}; "
                   f"known: {', '.join(feat.BY_NAME)}")
        if not lenient:
            raise CapabilitiesError(problem)
        warnings.append(problem + " (ignored)")
    keys = _strings(data.get("unmodelled_keys", []), f"{source}: unmodelled_keys")
    return Capabilities(unsupported, tuple(warnings), protocol,
                        tuple(dict.fromkeys(f for f in features if f in feat.BY_NAME)), tuple(dict.fromkeys(keys)),
                        unsupported_features)


def _protocol(value: object, source: str, lenient: bool, warnings: list[str]) -> int:
    """The declared protocol version: an integer from 1; one newer than the suite's is an error in a
    file and the suite's own version (with a warning) in an implementation's answer."""
    if type(value) is not int or value < 1:
        raise CapabilitiesError(f"{source}: protocol must be an integer >= 1, got {json.dumps(value)}")
    if value > feat.CURRENT:
        problem = f"{source}: protocol {value} is newer than this suite's protocol {feat.CURRENT}"
        if not lenient:
            raise CapabilitiesError(problem)
        warnings.append(problem + f" (taken as {feat.CURRENT})")
        return feat.CURRENT
    return value


def _strings(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(x, str) and x for x in value):
        raise CapabilitiesError(f"{where} must be a list of non-empty strings")
    return tuple(value)


def _unsupported(entries: object, source: str, areas: set[str], rules: set[str], lenient: bool,
                 warnings: list[str]) -> tuple[Unsupported, ...]:
    """The ``unsupported`` selectors (see the module docstring)."""
    if not isinstance(entries, list):
        raise CapabilitiesError(f"{source}: unsupported must be a list")
    out: list[Unsupported] = []
    for i, entry in enumerate(entries):
        where = f"{source}: unsupported[{i}]"
        if not isinstance(entry, dict):
            raise CapabilitiesError(f"{where} must be an object")
        if "feature" in entry:
            continue  # _unsupported_features
        unknown = set(entry) - {*FIELDS, "why"}
        if unknown:
            raise CapabilitiesError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}; "
                                    "expected area, flink, rule, why (or feature, why)")
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
            for name in versions or ():
                parse_version(name)  # validated; kept as written: "1.15" selects every 1.15 patch
            if versions is not None:
                versions = tuple(name.strip() for name in versions)
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
    return tuple(out)


def _unsupported_features(entries: list[Any], source: str, lenient: bool, warnings: list[str]) -> tuple[str, ...]:
    """The features named by ``{"feature": NAME or [NAMES], "why": ...}`` entries of ``unsupported``: the
    implementation does not speak them although its protocol version has them (``config.spelling``)."""
    out: list[str] = []
    for i, entry in enumerate(entries):
        if not (isinstance(entry, dict) and "feature" in entry):
            continue
        where = f"{source}: unsupported[{i}]"
        extra = set(entry) - {"feature", "why"}
        if extra:
            raise CapabilitiesError(f"{where}: a feature entry names the feature only; unknown field(s) "
                                    f"{', '.join(sorted(extra))} (expected feature, why)")
        names, why = entry["feature"], entry.get("why", "")
        if not (isinstance(names, str)
                or (isinstance(names, list) and names and all(isinstance(x, str) for x in names))):
            raise CapabilitiesError(f"{where}.feature must be a string or a non-empty list of strings")
        if not isinstance(why, str):
            raise CapabilitiesError(f"{where}.why must be a string")
        for name in _names(names) or ():
            if name in feat.BY_NAME:
                out.append(name)
                continue
            problem = f"{where}.feature: unknown feature {name}; known: {', '.join(feat.BY_NAME)}"
            if not lenient:
                raise CapabilitiesError(problem)
            warnings.append(problem + " (ignored)")
    return tuple(dict.fromkeys(out))


def _unknown(where: str, field: str, names: Sequence[str] | None, known: set[str]) -> str | None:
    bad = [n for n in names or () if known and n not in known]
    return f"{where}.{field}: unknown {field}(s) {', '.join(bad)}" if bad else None


def load_file(path: str | Path, *, known_areas: Iterable[str], known_rules: Iterable[str]) -> Capabilities:
    """The declaration in a JSON file (``--capabilities FILE``); the areas and rules it may name are
    the suite's (``properties.areas.AREAS``, every rule of ``properties.areas.all_rules()``)."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as exc:
        raise CapabilitiesError(f"--capabilities {path}: cannot read it: {exc}") from None
    except ValueError as exc:
        raise CapabilitiesError(f"--capabilities {path}: not JSON: {exc}") from None
    return parse(data, f"--capabilities {path}", known_areas=known_areas, known_rules=known_rules)


def asks(spec: str) -> bool:
    """Whether the implementation an ``--impl`` value names may answer the capabilities request:
    the built-in ones (oracle, real Flink, mutants) speak everything and are not asked."""
    return spec.partition(":")[0] in ("cmd", "python")


def query(impl: Implementation, *, known_areas: Iterable[str], known_rules: Iterable[str]) -> Capabilities:
    """Ask the implementation. An error answer (``BadRequest``: it does not know the extension)
    declares nothing: protocol 1, no extra feature, everything of it supported. An implementation
    that breaks on the request, or answers something of the wrong shape, is taken the same way (with
    a warning): the check itself will find out whether it is broken."""
    try:
        resp = answer_one(impl, dict(REQUEST))
    except ImplementationBroken as exc:
        return Capabilities(warnings=(f"the implementation broke on the capabilities request ({exc}); "
                                      "assuming it speaks protocol 1 and supports all of it",))
    if "error" in resp:
        return NONE
    try:
        return parse(resp["output"], "the implementation's answer to the capabilities request",
                     known_areas=known_areas, known_rules=known_rules, lenient=True)
    except CapabilitiesError as exc:
        return Capabilities(warnings=(f"{exc}; ignored (taken as protocol 1)",))


def resolve(spec: str, impl: Implementation | None, path: str | None, *, known_areas: Iterable[str],
            known_rules: Iterable[str]) -> Capabilities:
    """The file's declaration (if any) plus what the implementation answers (if it is asked); the
    built-in implementations speak every feature. ``known_areas`` and ``known_rules`` are what a
    declaration may name (the suite's ``properties.areas.AREAS`` and every rule ``flinkspec rules`` lists,
    ``properties.areas.all_rules()``: invariants, ``-EQ``/``-REFUSED`` rules and the oracle's rules)."""
    caps = load_file(path, known_areas=known_areas, known_rules=known_rules) if path else NONE
    if not asks(spec):
        return caps.merged(EVERYTHING)
    if impl is not None:
        caps = caps.merged(query(impl, known_areas=known_areas, known_rules=known_rules))
    return caps
