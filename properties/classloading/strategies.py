"""Requests for ``classloading.resolve``: class-name sets on and around every parent-first pattern.

A request draws a handful of "seed" names first (valid binary names: nested ``$`` classes, unicode
identifiers, deep packages, JDK classes and near-JDK fakes), then the patterns in force: the version's
defaults or an override, plus additional patterns cut from the seed names (exactly a package, a prefix
with and without the trailing dot, a prefix that cuts a segment, the empty pattern). Lookups are the
seeds plus names exactly on, just inside and just outside each pattern, each placed in the user jar,
the parent jar, both or neither. Pattern strings come with the spellings each version's splitter
treats differently (whitespace, empty and duplicate entries, quotes, YAML lists from 1.19).

Every list- and string-valued input also takes its boundary shapes: a pattern list that is empty, one
empty entry (``;``, ``;;``), whitespace only, duplicates, punctuation or whitespace at either end, and
entries (and the class and resource names matching them) starting with a digit, ``$``, ``.``, ``_``,
``-``, ``#`` or a letter beyond ASCII; the resolve order and the leak check empty, padded, cased or led
by punctuation; name lists empty or holding a name twice (properties/classloading/test_meta.py).
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

from hypothesis import strategies as st

from oracle import classloading_config as clc
from oracle.classloading import RESOLVE as AREA
from oracle.classloading import ResolveInput, class_file, jdk_resources, name_problem
from oracle.classloading_config import LIST_OPTION, YAML_LISTS
from oracle.versions import FlinkVersion, pick
from properties.draws import booleans, integers, lists_of, sampled

JDK_NAMES = (
    "java.lang.String", "java.lang.Object", "java.util.List", "java.util.concurrent.ConcurrentHashMap",
    "java.util.Map$Entry", "java.sql.Connection", "javax.xml.parsers.DocumentBuilder", "javax.annotation.processing"
    ".Processor", "org.w3c.dom.Node", "org.xml.sax.Parser", "sun.misc.Unsafe", "jdk.internal.misc.Unsafe",
    "javax.net.ssl.SSLContext", "java.lang.invoke.MethodHandle", "javax.management.MBeanServer",
)
NEAR_JDK = ("java.lang.Fake", "java.Fake", "javax.Fake", "java.lang.String$Fake", "javax.xml.Fake", "jdk.Fake")
FRAMEWORK = ("org.apache.flink.api.common.JobID", "org.apache.flink.Fake", "scala.Option", "org.slf4j.Logger",
             "org.apache.log4j.Logger", "org.apache.hadoop.conf.Configuration", "com.esotericsoftware.kryo.Kryo",
             "org.rocksdb.RocksDB", "org.xmlpull.v1.XmlPullParser", "org.apache.xerces.Parser",
             "ch.qos.logback.Logger", "org.apache.commons.logging.Log", "org.apache.loggingx.Fake")

_ascii_ident = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)
_class_ident = st.from_regex(r"[A-Z][A-Za-z0-9_]{0,6}", fullmatch=True)
_unicode_ident = st.sampled_from(["ünï", "日本", "Ωmega", "ça", "_", "$", "a$", "x1", "1x", "𝔘nicode", "İd"])
_segment = st.one_of(_ascii_ident, _ascii_ident, _unicode_ident)


_PACKAGE_SIZES = st.sampled_from([2, 3, 12])
_PACKAGES = {n: st.lists(_segment, max_size=n) for n in (2, 3, 12)}
_CLASS = st.one_of(_class_ident, _unicode_ident)
_NESTED = st.lists(st.one_of(_class_ident, st.sampled_from(["1", "Inner", "$"])), max_size=2)


@st.composite
def binary_names(draw: st.DrawFn) -> str:
    """A valid binary name: a package of 0-12 segments and a class, maybe nested."""
    package = draw(_PACKAGES[draw(_PACKAGE_SIZES)])
    cls = draw(_CLASS)
    nested = draw(_NESTED)
    return ".".join([*package, "$".join([cls, *nested])])


# binary names whose first character is unusual for a Java package: patterns cut from them start so too
ODD_START = ("1x.Job", "1.Job", "$x.Job", "$.Job", "_x.Job", "-x.Job", "#x.Job", "ü.Job", "日本.Job", "Ωx.Job",
             "@x.Job", "~x.Job")


# patterns of an unusual first character on their own (no class name starts with '.')
ODD_PIECES = (".", ".x", "1", "$", "ü", "_", "-x", "#x", "日本.")


@cache
def _seed_names() -> st.SearchStrategy[str]:
    return st.one_of(binary_names(), binary_names(), st.sampled_from(JDK_NAMES), st.sampled_from(NEAR_JDK),
                     st.sampled_from(FRAMEWORK), st.sampled_from(["com.acme.Job", "com.acme.Job$Inner",
                                                                  "com.acmex.Job", "com.acme.util.Helper"]),
                     st.sampled_from(ODD_START))


def _cuts(name: str) -> list[str]:
    """Patterns cut from a name: each package with and without its dot, a cut segment, the name."""
    parts = name.split(".")
    out = []
    for i in range(1, len(parts)):
        pkg = ".".join(parts[:i])
        out += [pkg + ".", pkg]
    if len(name) > 1:
        out.append(name[:-1])
    out.append(name)
    return out


def _around(pattern: str) -> list[str]:
    """Names exactly on, just inside and just outside a pattern (no dot boundary in Flink)."""
    base = pattern.rstrip(".")
    if not base or base.startswith(".") or ".." in base:
        return []
    out = [base, base + ".Inside", base + "x.Outside", base + "$Nested"]
    if pattern.endswith("."):
        out.append(base + "X")  # shares the prefix without the dot: outside
    if len(base) > 1 and not base.endswith(".") and not base[:-1].endswith("."):
        out.append(base[:-1] + ".Cut")  # cuts the last char: outside
    out.append(base[:1].swapcase() + base[1:] + ".Case")  # prefix tests are case-sensitive
    return [n for n in out if _binary_name(n)]


def _binary_name(name: str) -> bool:
    """A name a request may carry (a pattern read with its whitespace, in releases that keep it, gives none)."""
    return name_problem(name, ".") is None


def _spell(pieces: list[str], version: FlinkVersion, draw: st.DrawFn) -> str:
    """One string for a pattern list, in a spelling the version's splitter reads back (or not)."""
    styles = ["plain", "spaced", "empties", "trailing", "empty", "empty", "duplicates", "edges"]
    if version >= LIST_OPTION.at:
        styles += ["quoted", "bad-quote"]
    if version >= YAML_LISTS.at:
        styles += ["yaml", "yaml", "yaml-null"]
    style = draw(sampled(tuple(styles)))
    if style == "spaced":
        return " ; ".join(f" {p} " for p in pieces)
    if style == "empty":  # no pattern, or one empty entry
        return draw(sampled(("", "", ";", ";;", " ", "  ", "\n")))
    if style == "duplicates":
        return ";".join([*pieces, *draw(lists_of(tuple(pieces), min_size=1, max_size=2))])
    if style == "edges":  # punctuation or whitespace at either end of the value
        return (draw(sampled(("", ";", " ", ",", ".", "#", "-"))) + ";".join(pieces)
                + draw(sampled(("", ";", " ", ",", ".", "#", "\n"))))
    if style == "empties":
        return ";".join(p for piece in pieces for p in (piece, "")) + draw(sampled(("", ";", ";;")))
    if style == "trailing":
        return ";" + ";".join(pieces) + ";"
    if style == "quoted":
        return ";".join(f"'{p}'" if i % 2 else f'"{p}"' for i, p in enumerate(pieces))
    if style == "bad-quote":
        return draw(sampled(("'a'b", "'unclosed", "\"x\"y;z", "a'b;c")))
    if style == "yaml":
        items = [p if draw(booleans()) else f"'{p}'" for p in pieces if _yaml_plain(p)]
        items += draw(sampled([[], [], ["1"], ["true"], ["0x1F"], ["''"]]))
        forms = ["[{}]", "[ {} ]", "[{},]"] if items else ["[{}]", "[ {} ]"]  # '[,]' is no YAML list Flink reads
        return draw(sampled(tuple(forms))).format(", ".join(items))
    if style == "yaml-null":
        return "[" + ", ".join([*(p for p in pieces[:1] if _yaml_plain(p)), "~"]) + "]"
    return ";".join(pieces)


def _yaml_plain(piece: str) -> bool:
    try:
        return clc._plain_ok(piece) and clc._resolve_plain(piece) == piece
    except clc.UnmodelledValue:
        return False


# boundary shapes of the two string options: punctuation, a no-break space or a full-width letter at an end
_ORDERS = st.sampled_from([None, None, "child-first", "parent-first", "parent-first", "Parent-First", "CHILD-FIRST",
                           "parent-firſt", "chİld-first"])
_BAD_ORDERS = st.sampled_from([" child-first", "parent-first ", "child_first", "", "bogus"])
_ODD_ORDERS = st.sampled_from([";child-first", "child-first;", "-parent-first", "$child-first", "1parent-first",
                               "\u00a0child-first", "ｃhild-first", "tRUE"])
_ODD_LEAKS = st.sampled_from(["", " true", "false ", "tRUE", "1", ";false", "\u00a0true"])


@lru_cache(maxsize=4096)
def _pieces(cuts: tuple[str, ...]) -> st.SearchStrategy[list[str]]:
    """1-3 pattern pieces: cut from the names (three times in four) or of an unusual first character."""
    cut = st.sampled_from(cuts)
    return st.lists(st.one_of(cut, cut, cut, st.sampled_from(ODD_PIECES)), min_size=1, max_size=3)


@st.composite
def configs(draw: st.DrawFn, version: FlinkVersion, seeds: list[str]) -> dict[str, str]:
    config: dict[str, str] = {}
    which = draw(integers(0, 9))  # mostly read, two in ten refused, one in ten a boundary shape
    order = draw(_ORDERS if which < 7 else _BAD_ORDERS if which < 9 else _ODD_ORDERS)
    if order is not None:
        config["classloader.resolve-order"] = order
    cuts = [c for s in seeds for c in _cuts(s)]
    pieces = _pieces(tuple(cuts))
    if draw(integers(0, 5)) == 0:  # override the defaults (maybe dropping java.)
        keys = ["classloader.parent-first-patterns.default", "classloader.parent-first-patterns"]
        defaults = list(pick(clc.DEFAULT_PATTERNS, version))
        base = draw(sampled([[], defaults[1:], ["javax.", "org.apache.flink."], draw(pieces)]))
        for key in draw(sampled([keys[:1], keys[1:], keys])):
            config[key] = _spell(base, version, draw) if base else draw(sampled(("", ";", ";;", " ")))
    if draw(integers(0, 3)) > 0:
        config["classloader.parent-first-patterns.additional"] = _spell(draw(pieces), version, draw)
    which = draw(integers(0, 11))
    leak = draw(sampled((None, None, "true", "false", "FALSE")) if which < 10
                else st.just("nope") if which == 10 else _ODD_LEAKS)
    if leak is not None:
        config["classloader.check-leaked-classloader"] = leak
    if draw(integers(0, 9)) == 0:
        config["classloader.parent-first-patterns.unknown"] = "com."
    return config


def _patterns_for(config: dict[str, str], version: FlinkVersion) -> tuple[str, ...]:
    try:
        return clc.settings(config, version).patterns
    except (clc.JavaException, clc.UnmodelledValue):
        return ()


_JDK_FILES = ("java/lang/String.class", "javax/xml/parsers/DocumentBuilder.class",
              "META-INF/services/java.nio.file.spi.FileSystemProvider")
_RESOURCES = ("META-INF/x.txt", "META-INF/services/com.acme.Plugin", "com/acme/app.properties", "log4j2.xml",
              "a/b/c/d.bin", "java/lang/Object.class", "java/lang/Fake.class", "com/acme/Job.class",
              # names of unusual leading characters
              ".hidden", "$x.txt", "1/a.txt", "_x/y.bin", "-x.txt", "#x", "ü/ß.txt", "日本/x.txt", "~x", "@x/y")


@st.composite
def inputs(draw: st.DrawFn, version: FlinkVersion) -> ResolveInput:
    seeds = draw(st.lists(_seed_names(), min_size=1, max_size=4, unique=True))
    config = draw(configs(version, seeds))
    patterns = _patterns_for(config, version)
    near = [n for p in patterns if p and any(s.startswith(p[:3]) for s in seeds) for n in _around(p)]
    names = list(dict.fromkeys(seeds + draw(lists_of(tuple(near), max_size=4)) if near else seeds))
    if draw(integers(0, 7)) == 0:
        names.append("java.lang.Object")  # with java. not parent-first, every user class fails
    user: list[str] = []
    parent: list[str] = []
    for name in names:
        side = draw(sampled(("user", "parent", "both", "neither")))
        if side in ("user", "both"):
            user.append(name)
        if side in ("parent", "both"):
            parent.append(name)
    if user and draw(integers(0, 5)) == 5:
        user.append(user[0])  # a class listed twice in a jar: it holds it once
    if parent and draw(integers(0, 5)) == 5:
        parent.append(parent[-1])
    lookups = draw(st.permutations(names))
    if draw(integers(0, 4)) == 0:
        lookups = [*lookups, *lookups[:2]]  # a class asked for twice
    elif draw(integers(0, 9)) == 9:
        lookups = []  # no class asked for
    res_pool = [*_RESOURCES, *(class_file(n) for n in names), *sorted(jdk_resources())[:3]]
    res_names = draw(lists_of(tuple(res_pool), max_size=4, unique=True))
    user_files = {class_file(n) for n in user}
    parent_files = {class_file(n) for n in parent}
    user_res = [r for r in res_names if r not in user_files and draw(booleans())]
    parent_res = [r for r in res_names if r not in parent_files and draw(booleans())]
    if user_res and draw(integers(0, 5)) == 5:
        user_res.append(user_res[0])  # a resource listed twice
    if res_names and draw(integers(0, 5)) == 5:
        res_names = [*res_names, res_names[0]]  # a resource asked for twice
    out: ResolveInput = {"config": config, "user_classes": user, "parent_classes": parent, "lookups": lookups}
    if res_names:
        out |= {"user_resources": user_res, "parent_resources": parent_res, "resource_lookups": res_names}
    if draw(integers(0, 3)) > 0:  # protocol 3: getResource, mostly of names getResources is asked too
        singles = draw(lists_of(tuple(res_names or res_pool), max_size=3))
        out["resource_lookup_one"] = singles + draw(lists_of((*res_pool, *_JDK_FILES), max_size=1))
    return out


def requests(version: FlinkVersion) -> st.SearchStrategy[dict[str, Any]]:
    """Protocol requests for ``classloading.resolve`` and ``version``."""
    return inputs(version).map(lambda i: {"area": AREA, "flink": str(version), "input": i})


def name_count(request: dict[str, Any]) -> int:
    """How many distinct class names a request mentions (the size of a counterexample)."""
    inp = request["input"]
    return len({*inp.get("user_classes", []), *inp.get("parent_classes", []), *inp.get("lookups", [])})


def corpus_key(version: FlinkVersion) -> object:
    """Versions whose splitters and defaults agree draw the same requests."""
    return (pick(clc.SPLITTERS, version).__name__, pick(clc.DEFAULT_PATTERNS, version))


# --------------------------------------------------------------------------------------------
# Configuration values, fuzzed: the readers of the three options (CL-2 ... CL-6) on their own

# pieces a pattern-list value is glued together from: delimiters, quotes in every position, doubled
# quotes, and the characters on both sides of Java's trim() (<= U+0020) and isWhitespace() tables
_VALUE_PIECES = (
    "com.acme.", "org.x", "a", "a b", "ü.", "日本.", "x$", ";", ";", ";;", "'", '"', "''", '""', "'a;b'", '"a;b"',
    "'it''s'", '"say ""hi"""', "' q '", " ", " ", "  ", "\t", "\u000b", "\u000c", "\u0001", "\u0000", "\u001c",
    "\u001f", "\u0008", "\u000e", "\u001b", "\u001d", "\u007f",
    "\u0085", "\u00a0", "\u1680", "\u2000", "\u2003", "\u2007", "\u200a", "\u200b", "\u2028",
    "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff", "#", "[", "]", ",", "-", "- ", "~", "\n", "\r\n", " # c",
)
# flow-sequence items of YAML's core schema: plain scalars it resolves to ints, booleans, nulls (and
# strings that only look like them), quoted scalars
_YAML_ITEMS = (
    "com.acme.", "a b", "x;y", "ünï", "a'b", 'a"b', "a#b", "a #b", "x~", "$x", "=x", "(x)", "^x", "+x", "/x", "<x",
    "1", "+7", "007", "-0", "0o17", "0o8", "0x1F", "0xff", "0xG", "12_3", "1.5", ".inf",
    "true", "True", "TRUE", "tRUE", "false", "FALSE", "yes", "on", "null", "~", "Null", "NULL", "nULL",
    "''", "'x'", "'it''s'", "' sp '", "'a,b'", "'[x]'", '""', '"x"', '"a,b"', '"1"',
    "a\u3000b", "\u00a0x", "x\u00ad", "a\u0085b", "-x", "--x",
    # forms the oracle does not model (it refuses them): Flink's answers are recorded all the same
    "a:b", "a: b", "{a: 1}", "*x", "&a x", "!!str 1", "@x", "`x", "|x", ">x", "%x", "?x", "1.5e3", "'a\\b'", '"a\\tb"',
)
_SPACES = st.sampled_from(["", "", " ", "  ", "\u2028"])


@st.composite
def _yaml_value(draw: st.DrawFn) -> str:
    items = draw(lists_of(_YAML_ITEMS, max_size=4))
    seps = [draw(sampled([",", ", ", " ,", ",  "])) for _ in items[1:]]
    body = items[0] if items else ""
    for sep, item in zip(seps, items[1:], strict=True):
        body += sep + item
    body = draw(_SPACES) + body + draw(sampled(["", "", ",", " ", ", "]))
    tail = draw(sampled(["", "", "", " ", " # note", "#x", " x", ";b", "\n", "\n# c", "\u2028"]))
    head = draw(sampled(["", "", "", " ", "  ", "\n", "# c\n", "\u0085", "--- "]))
    return head + "[" + body + "]" + tail


@st.composite
def _pieces_value(draw: st.DrawFn) -> str:
    return "".join(draw(lists_of(_VALUE_PIECES, max_size=10)))


@st.composite
def _mangled(draw: st.DrawFn, base: st.SearchStrategy[str]) -> str:
    """A value with one piece spliced in somewhere: just off what the reader accepts."""
    value = draw(base)
    at = draw(integers(0, len(value)))
    return value[:at] + draw(sampled(_VALUE_PIECES)) + value[at:]


# characters whose Java case mapping meets an ASCII letter (or nearly does)
_FOLD_NEAR = {"i": ("\u0131", "\u0130", "\u00ec"), "s": ("\u017f", "\u0161"), "k": ("\u212a", "\u0137"),
              "e": ("\u00e9",), "f": ("\ufb00",), "t": ("\u0163",), "r": ("\u0155",)}


@st.composite
def _word_variant(draw: st.DrawFn, word: str) -> str:
    """``word`` with each letter kept, case-swapped or replaced by a character its case folding meets."""
    out = []
    for ch in word:
        how = draw(sampled(["keep"] * 10 + ["swap", "swap", "fold"]))
        if how == "swap":
            ch = ch.swapcase()
        elif how == "fold" and ch.lower() in _FOLD_NEAR:
            ch = draw(sampled(_FOLD_NEAR[ch.lower()]))
        out.append(ch)
    pad = st.sampled_from(["", "", "", "", " ", "\t", "\u2003"])
    return draw(pad) + "".join(out) + draw(pad)


def _word_values(*words: str) -> st.SearchStrategy[str]:
    return st.one_of(*(_word_variant(w) for w in words), st.sampled_from(["", "1", "yes", "-", words[0][:-1]]))


@st.composite
def value_inputs(draw: st.DrawFn, version: FlinkVersion) -> ResolveInput:
    """A configuration of the three options with fuzzed values, and a few lookups: the readers' edges."""
    lists = [_pieces_value(), _mangled(_pieces_value())]
    if version >= YAML_LISTS.at:
        lists += [_yaml_value(), _yaml_value(), _mangled(_yaml_value())]
    config: dict[str, str] = {}
    keys = ["classloader.parent-first-patterns.default", "classloader.parent-first-patterns",
            "classloader.parent-first-patterns.additional"]
    for key in draw(lists_of(keys, min_size=1, max_size=3, unique=True)):
        config[key] = draw(st.one_of(*lists))
    if draw(integers(0, 2)) == 0:
        config["classloader.resolve-order"] = draw(_word_values("child-first", "parent-first"))
    if draw(integers(0, 2)) == 0:
        config["classloader.check-leaked-classloader"] = draw(_word_values("true", "false"))
    lookups = draw(lists_of(["com.acme.Job", "org.x.Y", "a.B", "java.lang.String", "Top"],
                            max_size=2, unique=True))
    return {"config": config, "user_classes": lookups, "parent_classes": lookups[:1], "lookups": lookups}


def value_requests(version: FlinkVersion) -> st.SearchStrategy[dict[str, Any]]:
    """Requests that exercise the configuration readers (some hold YAML values the oracle does not
    model: it refuses them with a BadRequest, which ``flinkspec record`` notes)."""
    return value_inputs(version).map(lambda i: {"area": AREA, "flink": str(version), "input": i})


def value_corpus_key(version: FlinkVersion) -> object:
    """The value fuzz depends only on whether the version reads YAML lists."""
    return version >= YAML_LISTS.at
