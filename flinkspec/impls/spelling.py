"""How a configuration value is written: the plain spelling of each kind of option, and a value respelled
plainly with the meaning Flink gives it (feature ``config.spelling``, docs/protocol/v2.md).

Protocol 1 sends config values "exactly as a user writes them", so an implementation is held to every
spelling Flink reads: ``" 1 GB"``, ``"Parent-First"``, ``"0.1f"``, ``"[a, 'b']"``. One that models only the
plain spellings declares the feature ``config.spelling`` unsupported; it is then sent each value respelled
plainly (``"1g"``, ``"parent-first"``, ``"0.1"``, ``"a;b"``) where Flink of the request's version reads the
value, and the case is not checked where it does not: Flink's answer then quotes the value as written
(``Could not parse value ' 1 mib' for key ...``), which no plain request repeats, and what it would
say about a plain value is not what it says about this one.

A value is **plain** when it is written in its kind's plain grammar (:data:`GRAMMAR`), or when Flink refuses
it and nothing in it is a spelling matter (no whitespace; no upper case where Flink reads letters in any
case; for a pattern list no quote, empty entry or YAML list): ``"1.5g"``, ``"-1m"``, ``"bogus"`` stay as
they are, the implementation must refuse them as Flink does. Keys no area reads are never respelled.

A plain value means the same in every release (a pattern list is its ``;``-separated entries in the
Guava splitter of 1.13-1.14, the escaped splitter of 1.15-1.18 and the YAML-first reader of 1.19+;
tests/test_config_spelling.py holds it), and a respelled value reads as the original did, so the
answer to the respelled request is the answer to the original (the same test holds it of the oracle on
the generated requests, and against real Flink).

Everything here reads the oracle's own readers (:mod:`oracle.memory_options`, :mod:`oracle.memsize`,
:mod:`oracle.javanum`, :mod:`oracle.classloading_config`): what Flink reads a value as is what the oracle,
proven against the jars, reads it as.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Mapping
from typing import Any, Literal

from oracle import classloading_config as clc
from oracle import memory_options as mo
from oracle.javanum import JavaException, parse_boolean_option, parse_double, parse_float, parse_int
from oracle.memsize import ORDERED_UNITS, parse_bytes
from oracle.versions import LATEST, FlinkVersion, pick

Kind = Literal["size", "float", "double", "int", "boolean", "resolve-order", "patterns"]

_UNIT_NAMES = "|".join(name for unit in ORDERED_UNITS for name in unit.units)
# the plain spelling of each kind; a pattern list's is :func:`plain_patterns`
GRAMMAR: Mapping[Kind, re.Pattern[str]] = {
    "size": re.compile(rf"(0|[1-9][0-9]*)({_UNIT_NAMES})?"),
    "float": re.compile(r"-?[0-9]+(\.[0-9]+)?"),
    "double": re.compile(r"-?[0-9]+(\.[0-9]+)?"),
    "int": re.compile(r"-?(0|[1-9][0-9]*)"),
    "boolean": re.compile(r"true|false"),
    "resolve-order": re.compile(r"child-first|parent-first"),
}
# kinds whose letters Flink reads in any case (a unit, a boolean, the resolve order, an exponent or suffix)
CASELESS: frozenset[Kind] = frozenset({"size", "float", "double", "boolean", "resolve-order"})
# A pattern list's first entry may not start the value as YAML would read it specially from 1.19 (a
# flow sequence, a block sequence or document marker, an anchor, a tag): the oracle reads those only in
# part (oracle.classloading_config.UnmodelledValue), and a plain value must mean the same everywhere.
_YAML_STARTS = ("[", "-", "&", "!")
_QUOTES = "'\""
_OPTION_KINDS: Mapping[str, Kind] = {"memory": "size", "float": "float", "double": "double", "int": "int",
                                     "boolean": "boolean"}


class Refused(Exception):
    """Flink refuses the value (its reader throws)."""


class Unread(Exception):
    """The oracle does not model how Flink reads the value (a YAML form it leaves out)."""


@functools.cache
def kinds() -> Mapping[str, Kind]:
    """Every config key the areas read, with its kind: the memory options of ``TaskManagerOptions``,
    ``JobManagerOptions`` and ``NettyShuffleEnvironmentOptions`` with their deprecated keys, and the three
    class-loading options."""
    options = [o for o in vars(mo).values() if isinstance(o, mo.ConfigOption)] + [mo.network_max(LATEST)]
    out: dict[str, Kind] = {key: _OPTION_KINDS[o.kind] for o in options for key in o.keys}
    out.update({clc.DEFAULT_KEY: "patterns", "classloader.parent-first-patterns": "patterns",
                clc.ADDITIONAL_KEY: "patterns", clc.RESOLVE_ORDER.key: "resolve-order",
                clc.CHECK_LEAKED.key: "boolean"})
    return out


# ------------------------------------------------------------------------------------------------
# pattern lists


def _plain_char(ch: str) -> bool:
    """A char a plain pattern may hold: no whitespace (Java's trim and isWhitespace, Unicode's), no
    quote, no ``;``, nothing the YAML reader refuses or treats specially (C1 controls, the BOM)."""
    code = ord(ch)
    return not (code <= 0x20 or ch.isspace() or ch in _QUOTES or ch == ";" or 0x7F <= code <= 0x9F
                or 0xD800 <= code <= 0xDFFF or code in (0xFEFF, 0xFFFE, 0xFFFF))


def plain_entry(entry: str) -> bool:
    return bool(entry) and all(_plain_char(ch) for ch in entry)


def plain_patterns(value: str) -> bool:
    """The empty string (no pattern), or the patterns joined by ``;``, each plain (:func:`plain_entry`),
    the first not starting with ``[``, ``-``, ``&`` or ``!``."""
    return value == "" or (not value.startswith(_YAML_STARTS) and all(plain_entry(e) for e in value.split(";")))


def _pattern_variant(value: str) -> bool:
    """Whether a pattern list Flink refuses has anything of spelling in it."""
    return (any(ord(ch) <= 0x20 or ch.isspace() or ch in _QUOTES for ch in value) or value.startswith(_YAML_STARTS)
            or "" in value.split(";"))


# ------------------------------------------------------------------------------------------------
# reading a value as Flink does


def _same(a: float, b: float) -> bool:
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def _decimal(x: float, parse: Callable[[str], float]) -> str | None:
    """The shortest plain decimal Java parses to ``x`` (None for NaN and the infinities)."""
    if not math.isfinite(x):
        return None
    for places in range(0, 400):
        text = f"{x:.{places}f}"
        if _same(parse(text), x):
            if "." in text:
                text = text.rstrip("0").rstrip(".")
            return text
    return None  # pragma: no cover  (every finite double has an exact decimal of fewer places)


def _size_spelling(n: int) -> str:
    for unit in reversed(ORDERED_UNITS[1:]):
        if n and n % unit.multiplier == 0:
            return f"{n // unit.multiplier}{unit.units[0]}"
    return str(n)


def read(kind: Kind, value: str, version: FlinkVersion) -> str:
    """``value`` as Flink of ``version`` reads it, spelled plainly; :class:`Refused` if Flink refuses
    it, :class:`Unread` if the oracle does not model it."""
    try:
        if kind == "size":
            return _size_spelling(parse_bytes(value))
        if kind in ("float", "double"):
            text = _decimal(*((parse_float(value), parse_float) if kind == "float" else
                              (parse_double(value), parse_double)))
            if text is None:
                raise Unread(f"{value!r} reads as a number no decimal spells")
            return text
        if kind == "int":
            return str(parse_int(value))
        if kind == "boolean":
            return "true" if parse_boolean_option(value) else "false"
        if kind == "resolve-order":
            for word in ("child-first", "parent-first"):
                if clc.java_equals_ignore_case(value, word):
                    return word
            raise Refused(value)
        entries = pick(clc.SPLITTERS, version)(value)
    except JavaException as exc:
        raise Refused(value) from exc
    except clc.UnmodelledValue as exc:
        raise Unread(str(exc)) from exc
    joined = ";".join(entries)
    if not (all(plain_entry(e) for e in entries) and plain_patterns(joined)):
        raise Unread(f"{value!r} reads as patterns {list(entries)} that no plain list spells")
    return joined


def plain(kind: Kind, value: str, version: FlinkVersion) -> bool:
    """Whether ``value`` is plain: in its kind's grammar, or refused by Flink with nothing of spelling in it."""
    if plain_patterns(value) if kind == "patterns" else GRAMMAR[kind].fullmatch(value):
        return True
    try:
        read(kind, value, version)
    except Refused:
        if kind == "patterns":
            return not _pattern_variant(value)
        return not any(ord(ch) <= 0x20 or ch.isspace() or (kind in CASELESS and ch.isupper()) for ch in value)
    except Unread:
        return False
    return False


def respelled(config: Mapping[str, Any], version: FlinkVersion) -> dict[str, Any] | None:
    """``config`` with every value that is not plain respelled plainly, as Flink of ``version`` reads it;
    None when one has no plain spelling with its meaning (Flink refuses it, or reads it as something no
    plain value says). Keys the areas do not read, and values that are no strings, stay as they are."""
    out = dict(config)
    for key, value in config.items():
        kind = kinds().get(key)
        if kind is None or not isinstance(value, str) or plain(kind, value, version):
            continue
        try:
            out[key] = read(kind, value, version)
        except (Refused, Unread):
            return None
    return out


def odd_keys(config: Mapping[str, Any], version: FlinkVersion) -> list[str]:
    """The keys of ``config`` whose values are not plain."""
    return [key for key, value in config.items()
            if (kind := kinds().get(key)) is not None and isinstance(value, str) and not plain(kind, value, version)]
