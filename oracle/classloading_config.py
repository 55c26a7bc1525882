"""How Flink turns a configuration into the user-code class loader's settings (CL-1 ... CL-6,
declared in :data:`oracle.classloading.RULES`).

Mirrors ``CoreOptions.getParentFirstLoaderPatterns(config)``, ``FlinkUserCodeClassLoaders
.ResolveOrder.fromString(config.get(CLASSLOADER_RESOLVE_ORDER))`` and
``config.get(CHECK_LEAKED_CLASSLOADER)``, read in that order (``TaskManagerServicesConfiguration``
computes the patterns when it reads the configuration; the resolve order is parsed later, when
``TaskManagerServices`` builds the library cache).

"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

import attrs

from oracle.changes import Change
from oracle.explain import because
from oracle.javanum import IllegalArgumentException, JavaException, java_trim
from oracle.memory_options import ConfigOption, Configuration, FallbackKey
from oracle.versions import FlinkVersion, pick, v

LOGGING = ("org.slf4j", "org.apache.log4j", "org.apache.logging", "org.apache.commons.logging", "ch.qos.logback")

ROCKSDB_PARENT_FIRST = Change(
    since="1.14", issue="FLINK-23649", what="parent-first defaults: +org.rocksdb., logging patterns moved last",
    witnesses=({"user_classes": ["org.rocksdb.RocksDB"], "parent_classes": ["org.rocksdb.RocksDB"],
                "lookups": ["org.rocksdb.RocksDB"]},))
LIST_OPTION = Change(
    since="1.15", what="parent-first option String (Guava split, no trim, empty pieces dropped) -> List (trimmed, "
    "quotes honoured, empty entries kept)",
    witnesses=({"config": {"classloader.parent-first-patterns.additional": "a.; b."}},))
YAML_LISTS = Change(since="1.19", what="YAML list syntax for list options",
                    witnesses=({"config": {"classloader.parent-first-patterns.additional": "[a., b.]"}},))
MOVED_TO_UTIL = Change(since="1.16", what="FlinkUserCodeClassLoaders moved to org.apache.flink.util",
                       unseen="same loader behaviour")

# classloader.parent-first-patterns.default, by first version (exact order as in CoreOptions)
DEFAULT_PATTERNS: Mapping[FlinkVersion, tuple[str, ...]] = {
    v("1.13"): ("java.", "scala.", "org.apache.flink.", "com.esotericsoftware.kryo", "org.apache.hadoop.",
                "javax.annotation.", *LOGGING, "org.xml", "javax.xml", "org.apache.xerces", "org.w3c"),
    ROCKSDB_PARENT_FIRST.at: ("java.", "scala.", "org.apache.flink.", "com.esotericsoftware.kryo",
                              "org.apache.hadoop.", "javax.annotation.", "org.xml", "javax.xml", "org.apache.xerces",
                              "org.w3c", "org.rocksdb.", *LOGGING),
}

DEFAULT_KEY = "classloader.parent-first-patterns.default"
ADDITIONAL_KEY = "classloader.parent-first-patterns.additional"
RESOLVE_ORDER = ConfigOption("classloader.resolve-order", "string", "child-first", "child-first")
CHECK_LEAKED = ConfigOption("classloader.check-leaked-classloader", "boolean", True, "true")
FAIL_ON_METASPACE = ConfigOption("classloader.fail-on-metaspace-oom-error", "boolean", True, "true")


class UnmodelledValue(ValueError):
    """A value the oracle does not model exactly (a YAML sequence outside the modelled subset)."""


@attrs.frozen
class LoaderSettings:
    """What ``FlinkUserCodeClassLoaders.create`` is called with."""

    child_first: bool
    patterns: tuple[str, ...]
    check_leaked: bool
    fail_on_metaspace: bool = True


def settings(config: Mapping[str, str], version: FlinkVersion, *, read_fail_on_metaspace: bool = False,
             ) -> LoaderSettings:
    """CL-1 ... CL-6; raises :class:`JavaException` where Flink throws, :class:`UnmodelledValue`.

    ``read_fail_on_metaspace``: also read ``classloader.fail-on-metaspace-oom-error``, where
    ``TaskManagerServices.fromConfiguration`` reads it (after the resolve order, before the leak check;
    as the class-loader lifecycle area models it)."""
    conf = Configuration(config)
    split = pick(SPLITTERS, version)
    defaults = pick(DEFAULT_PATTERNS, version)
    default_opt = ConfigOption(DEFAULT_KEY, "string", defaults, "", (FallbackKey("classloader.parent-first-patterns",
                                                                                  True),))
    additional_opt = ConfigOption(ADDITIONAL_KEY, "string", (), "")
    try:
        patterns = (*conf.get(default_opt, split), *conf.get(additional_opt, split))
    except JavaException:
        because(SPLITTER_RULE[split], "CL-6")
        raise
    order = conf.get(RESOLVE_ORDER)
    if java_equals_ignore_case(order, "child-first"):
        child_first = True
    elif java_equals_ignore_case(order, "parent-first"):
        child_first = False
    else:
        because("CL-5")
        raise IllegalArgumentException(f"Unknown resolve order: {order}")
    fail_on_metaspace = conf.get(FAIL_ON_METASPACE) if read_fail_on_metaspace else True
    try:
        check_leaked = conf.get(CHECK_LEAKED)
    except JavaException:
        because("CL-6")
        raise
    return LoaderSettings(child_first, tuple(patterns), check_leaked, fail_on_metaspace)


# --------------------------------------------------------------------------------------------
# CL-2 / CL-3: the two splitters


def guava_split(value: str) -> tuple[str, ...]:
    """CL-2: ``Splitter.on(';').omitEmptyStrings().split(value)``."""
    return tuple(piece for piece in value.split(";") if piece)


def _java_whitespace(ch: str) -> bool:
    """``Character.isWhitespace``: Unicode space separators except no-break spaces, and 9-13, 28-31."""
    code = ord(ch)
    if code in (0x00A0, 0x2007, 0x202F):
        return False
    return 9 <= code <= 13 or 28 <= code <= 31 or code in _SPACE_SEPARATORS


# Unicode Zs, Zl and Zp in the JDK 17 character database
_SPACE_SEPARATORS = frozenset({0x20, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x205F, 0x3000})


def _split_error(message: str) -> IllegalArgumentException:
    return IllegalArgumentException(f"Could not split string. {message}")


def escaped_split(value: str, delimiter: str = ";") -> tuple[str, ...]:
    """CL-3: ``StructuredOptionsSplitter.splitEscaped(value, delimiter)`` (tokenize, then processTokens); the
    pattern lists split at ``;``, map options (:mod:`oracle.memory_consumers`) at ``,`` and ``:``."""
    tokens: list[tuple[str, str, int]] = []  # (kind, text, position); kind in Q (quoted), U, D
    i, n = 0, len(value)
    while i < n:
        ch = value[i]
        if ch in "'\"":
            text, end = _in_quotes(value, ch, i)
            tokens.append(("Q", text, i))
            i = end
        elif ch == delimiter:
            tokens.append(("D", delimiter, i))
            i += 1
        elif _java_whitespace(ch):
            i += 1
        else:
            end = value.find(delimiter, i)
            end = n if end < 0 else end
            tokens.append(("U", java_trim(value[i:end]), i))
            i = end
    out: list[str] = []
    for k, (kind, text, _pos) in enumerate(tokens):
        nxt = tokens[k + 1] if k + 1 < len(tokens) else None
        if kind == "Q":
            if nxt is not None and nxt[0] != "D":
                raise _split_error(f"Illegal quoting at position: {nxt[2] - 1}")
            out.append(text)
        elif kind == "U":
            out.append(text)
        elif nxt is not None and nxt[0] == "D":
            out.append("")
    return tuple(out)


def _in_quotes(value: str, quote: str, start: int) -> tuple[str, int]:
    """``consumeInQuotes``: the quoted text (a doubled quote is one quote) and the index after it."""
    buf: list[str] = []
    i = start + 1
    while i < len(value):
        ch = value[i]
        if ch == quote:
            if i + 1 >= len(value) or value[i + 1] != quote:
                return "".join(buf), i + 1
            buf.append(ch)
            i += 2
            continue
        buf.append(ch)
        i += 1
    raise _split_error("Quoting was not closed properly.")


# --------------------------------------------------------------------------------------------
# CL-4: YAML list values (1.19+)

_NULL = re.compile(r"~|null|Null|NULL")
_BOOL = re.compile(r"true|True|TRUE|false|False|FALSE")
_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)")
_PLAIN_START = re.compile(r"[A-Za-z0-9_$.;/=^<+()~]")
_PLAIN_REST = re.compile(r"[A-Za-z0-9_$.;/=^<+()~ '\"!&*%?|>@-]")


def yaml_then_split(value: str) -> tuple[str, ...]:
    """CL-4: the YAML sequence's items if ``value`` is one, else :func:`escaped_split`."""
    items = _yaml_sequence(value)
    if items is None or any(item is None for item in items):  # not a list, or a null item: NPE, fallback
        because("CL-3")
        return escaped_split(value)
    return tuple(item for item in items if item is not None)  # every item: None was ruled out above


def _yaml_sequence(value: str) -> list[str | None] | None:
    """The items of a single-line YAML flow sequence of scalars, None for what is no YAML list."""
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in value):
        raise UnmodelledValue("a lone surrogate")  # JSON carries it; the bridge's transport does not
    if not all(_yaml_printable(ch) for ch in value):
        return None  # the YAML reader refuses the value: not a list
    lines = [line for line in _LINE_BREAK.split(value) if not _BLANK_OR_COMMENT.fullmatch(line)]
    body = lines[0].lstrip(_BREAK_SPACE) if lines else ""
    if len(lines) > 1:  # the document's root starts where its first line does: a list only from these
        if body[:1] in ("[", "%", ".") or _maybe_sequence_root(body):
            raise UnmodelledValue("a value of several lines")
        return None
    if not body.startswith("["):
        if _maybe_sequence_root(body):
            raise UnmodelledValue(f"a value starting with {body[:1]!r}")
        return None  # a scalar, a mapping, a comment or an error: never a list
    items: list[str | None] = []
    i = 1
    while True:
        i = _skip_spaces(body, i)
        if i >= len(body):
            return None  # unclosed: a YAML error
        if body[i] == "]":
            break
        item, i = _flow_item(body, i)
        items.append(item)
        i = _skip_spaces(body, i)
        if i < len(body) and body[i] == ",":
            i += 1
        elif i < len(body) and body[i] != "]":
            raise UnmodelledValue(f"{body[i]!r} after an item of a flow sequence")
    rest = body[i + 1:].strip(_BREAK_SPACE)
    if rest and not rest.startswith("#"):
        raise UnmodelledValue("text after a flow sequence")
    return items


# Lines end at CR and LF; NEL, LS and PS separate tokens as a line break does, but are text inside a
# comment or a plain scalar (so a comment runs on past them). A line of separators or a comment alone,
# before or after the one line of the value, changes nothing.
_LINE_BREAK = re.compile("\r\n|[\r\n]")
_BREAK_SPACE = " \u0085\u2028\u2029"
_BLANK_OR_COMMENT = re.compile(f"[{_BREAK_SPACE}]*(#.*)?")


def _yaml_printable(ch: str) -> bool:
    """The characters the YAML reader accepts (``StreamReader.isPrintable``)."""
    code = ord(ch)
    return (code in (0x09, 0x0A, 0x0D, 0x85) or 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xD7FF
            or 0xE000 <= code <= 0xFFFD or code >= 0x10000)


def _maybe_sequence_root(body: str) -> bool:
    """Whether a document starting with ``body`` (not ``[``) may be a block sequence, an anchored or
    tagged node, or start with a tab or a BOM: the forms the oracle leaves unmodelled. A ``-`` followed
    by anything but a separator (or ``---`` by one) starts a plain scalar: never a list."""
    separators = ("", "\t", *_BREAK_SPACE)
    if body[:1] == "-":
        return body[1:2] in separators or (body.startswith("---") and body[3:4] in separators)
    return body[:1] in ("&", "!", "\t", "\ufeff")


def _skip_spaces(text: str, i: int) -> int:
    while i < len(text) and text[i] in _BREAK_SPACE:
        i += 1
    return i


def _flow_item(body: str, i: int) -> tuple[str | None, int]:
    ch = body[i]
    if ch == "'":
        end = i + 1
        buf: list[str] = []
        while end < len(body):
            if body[end] == "'":
                if body[end + 1:end + 2] != "'":
                    return "".join(buf), end + 1
                end += 1
            buf.append(body[end])
            end += 1
        raise UnmodelledValue("an unclosed single-quoted item")
    if ch == '"':
        end = body.find('"', i + 1)
        if end < 0 or "\\" in body[i:end]:
            raise UnmodelledValue("a double-quoted item with escapes or unclosed")
        return body[i + 1:end], end + 1
    end = i
    while end < len(body) and body[end] not in ",]":
        end += 1
    text = body[i:end].rstrip(" ")
    if not _plain_ok(text):
        raise UnmodelledValue(f"the flow item {text!r}")
    return _resolve_plain(text), end


def _plain_ok(text: str) -> bool:
    if not text:
        return False
    if text[0] == "-":  # '-' then a non-space char starts a plain scalar (ScannerImpl.checkPlain): "-x", "--x"
        if len(text) < 2 or text[1] == " ":
            return False
    elif not (_PLAIN_START.fullmatch(text[0]) or _unicode_ok(text[0])):
        return False
    return all(_PLAIN_REST.fullmatch(c) or _unicode_ok(c) for c in text[1:])


def _unicode_ok(ch: str) -> bool:
    """A character beyond ASCII a plain scalar may hold: YAML-printable (line breaks are split off), not the BOM."""
    return ord(ch) > 0x7F and _yaml_printable(ch) and ch != "\ufeff"


def _resolve_plain(text: str) -> str | None:
    """The core schema's reading of a plain scalar, printed back as ``YamlParserUtils.toYAMLString``."""
    if _NULL.fullmatch(text):
        return None
    if _BOOL.fullmatch(text):
        return text.lower()
    if _INT.fullmatch(text):
        if text.startswith("0o"):
            return str(int(text[2:], 8))
        if text.startswith("0x"):
            return str(int(text[2:], 16))
        return str(int(text, 10))
    if _FLOAT.fullmatch(text):
        raise UnmodelledValue(f"the float item {text!r}")
    return text


SPLITTERS: Mapping[FlinkVersion, Callable[[str], tuple[str, ...]]] = {
    v("1.13"): guava_split,
    LIST_OPTION.at: escaped_split,
    YAML_LISTS.at: yaml_then_split,
}
SPLITTER_RULE: Mapping[Callable[[str], tuple[str, ...]], str] = {
    guava_split: "CL-2", escaped_split: "CL-3", yaml_then_split: "CL-4"}


def splitter_rule(version: FlinkVersion) -> str:
    """The rule by which ``version`` splits a pattern list (CL-2, CL-3 or CL-4)."""
    return SPLITTER_RULE[pick(SPLITTERS, version)]

# --------------------------------------------------------------------------------------------
# CL-5: String.equalsIgnoreCase against an ASCII word

# chars outside ASCII whose simple case mapping (as String.regionMatches(true, ...) applies it) meets an
# ASCII letter: dotless i, dotted capital I, long s, Kelvin sign
_FOLDS = {"\u0131": "i", "\u0130": "i", "\u017f": "s", "\u212a": "k"}


def java_equals_ignore_case(text: str, word: str) -> bool:
    """``text.equalsIgnoreCase(word)`` for an ASCII ``word``."""
    if len(text) != len(word):
        return False
    return all(a == b or _FOLDS.get(a, a if ord(a) > 0x7F else a.lower()) == b.lower()
               for a, b in zip(text, word, strict=True))


__all__ = ["JavaException", "LoaderSettings", "UnmodelledValue", "settings", "splitter_rule"]
