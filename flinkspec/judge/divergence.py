"""Divergences: failing answers grouped by *how* they depart from Flink, not by which rule they break.

One bug of an implementation usually breaks several rules on the same request (a wrong managed
size breaks the sum rule, the explicit-size rule and the differential rule at once), and two bugs
may break the same rule. A *divergence* is the set of failing answers with one cause
(:attr:`Signature.key`):

- the kind of departure: the output differs from Flink's; it answers where Flink rejects (Flink's
  exception and its message reduced to a template that keeps the configuration keys it names and
  drops the values); it rejects what Flink accepts (its error type and exception); it refuses a
  valid request; it rejects differently;
- where it first departs, in the order the oracle decided the parts of Flink's answer
  (:mod:`oracle.explain`), list positions folded, with how it differs there (which kind of element
  a list lacks or has extra, which word of an enumeration it answers): never the values.

The rules that decided that part and the rules the answer breaks explain a divergence; only
answers judged without Flink's answer are told apart by them. Each divergence is reported once,
with its failing-case count and one shrunk representative (see :mod:`flinkspec.engine.check`),
and docs/check.md gives the rule as users read it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from oracle.explain import ERROR, INPUT, Explanation, Path
from properties.area import AnswerShape
from properties.areas import AREAS

MAX_PATHS = 8
_QUOTED = re.compile(r"'([^']*)'|\"([^\"]*)\"")
_NUMBER = re.compile(r"(?<![A-Za-z_])-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?(?: ?(?:bytes|[kmgt]?b)\b)?")
_KEY = re.compile(r"[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)+")  # a Flink configuration key, kept in a template


Cause = tuple[str, str, tuple[str, ...]]  # what tells divergences apart: kind, where (or the rules broken, where none)


@attrs.frozen
class Signature:
    """How one answer differs from Flink's: ``what`` in words, every rule it breaks, and its cause.

    The cause is what tells divergences apart (:attr:`key`): the kind of departure (``kind``) and the
    part of the answer it first departs at (``where``, list positions folded, with how it differs
    there). The rules that explain it (``because``: the oracle's rules that decided that part of
    Flink's answer, :mod:`oracle.explain`) are reported, not keyed; only an answer judged without
    Flink's is told apart by the rules it breaks. Never the values, nor an error message's text (an
    implementation's wording is its own), nor the rules a departing sequence happens to break after
    its first departure."""

    what: str
    rules: tuple[str, ...]
    kind: str = ""
    where: str = ""
    because: tuple[str, ...] = ()
    departure: Departure | None = attrs.field(default=None, eq=False, repr=False)

    @property
    def key(self) -> Cause:
        # a located departure is its own cause whichever rule decided that part of Flink's answer: one
        # bug meets different rules by circumstance (the aligner's and the tracker's rule for the same
        # missing snapshot, the splitter of one release or another), and the rules are what explains
        # it, not what tells it apart; an answer judged without Flink's is told apart by the rules it breaks
        if self.departure is not None:
            return (self.kind, self.where, ())
        return (self.kind or self.what, self.where, tuple(r for r in self.rules if not r.endswith(GENERIC_RULES)))

    def text(self) -> str:
        return f"{self.what}; breaks {', '.join(self.rules)}"

    @property
    def explains(self) -> tuple[str, ...]:
        """The rules that explain the divergence: the oracle's rules that decided the part of Flink's
        answer it departs from, then the rules it breaks other than the differential and refusal rules.
        An answer where Flink rejects (or a rejection where Flink answers, or another rejection) that no
        rule of the oracle decided is explained first by the differential rule it breaks: the rules its
        output breaks are symptoms of another cause (a wrong fraction on a configuration Flink rejects
        for its CPU cores is not why Flink rejects it)."""
        specific = tuple(r for r in self.rules if not r.endswith(GENERIC_RULES))
        if self.departure is not None and self.departure.kind != DIFFERS and not self.because:
            return tuple(dict.fromkeys((*(r for r in self.rules if r.endswith("-EQ")), *specific)))
        return tuple(dict.fromkeys((*self.because, *specific)))

    def difference(self) -> str:
        """Flink's answer and the implementation's where they part (empty where they do not)."""
        d = self.departure
        if d is None:
            return ""
        if d.kind == ANSWERS_WHERE_FLINK_REJECTS:
            return f"Flink rejects it ({_rejection(d.expected)}); the implementation answers {_short(d.actual)}"
        if d.kind in (REJECTS_WHAT_FLINK_ACCEPTS, REFUSES):
            return f"Flink answers {_short(d.expected, 100)}; the implementation rejects it ({_rejection(d.actual)})"
        if d.kind == REJECTS_DIFFERENTLY:
            return f"Flink rejects it ({_rejection(d.expected)}); the implementation: {_rejection(d.actual)}"
        return f"at {d.at}: Flink {_short(d.expected)}, the implementation {_short(d.actual)}"


def _rejection(error: object) -> str:
    if not isinstance(error, dict):
        return _short(error)
    words = _error_kind(error)
    return _short(f"{words}: {error['message']}" if error.get("message") else words)


def _error_kind(error: Mapping[str, Any]) -> str:
    """An error's type and exception name, those it has (``InvalidConfiguration IllegalArgumentException``)."""
    return " ".join(str(error[k]) for k in ("type", "exception") if error.get(k))


def _short(value: object, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


AS_FLINK = ("breaks documented rules", "answers as Flink does", "rejects as Flink does")
GENERIC_RULES = ("-EQ", "-REFUSED")  # rule-ID suffixes of the rules every divergence of an area breaks


def template(message: object, keys: Sequence[str] = ()) -> str:
    """An error message with the values it quotes and the numbers (and sizes) it names replaced by
    ``…`` and ``N``, keeping the configuration keys it quotes: the message of one cause, whatever
    the values were."""
    if not isinstance(message, str):
        return ""
    known = set(keys)

    def quoted(m: re.Match[str]) -> str:
        inner = m.group(1) if m.group(1) is not None else m.group(2)
        return m.group(0) if inner in known or _KEY.fullmatch(inner) else "'…'"

    text = _QUOTED.sub(quoted, message.splitlines()[0] if message else "")
    return _NUMBER.sub("N", text).replace("N (N)", "N")[:400]  # Flink prints "2gb (2147483648 bytes)", "0 bytes"


def _error_words(err: Mapping[str, Any], keys: Sequence[str], *, with_message: bool = True) -> str:
    parts = [str(err.get("type"))]
    if err.get("exception"):
        parts.append(str(err["exception"]))
    words = " ".join(parts)
    msg = template(err.get("message"), keys) if with_message else ""
    return f"{words}: {msg}" if msg else words


def differing_paths(exp: object, act: object, shape: AnswerShape, path: str = "output") -> list[str]:
    """Where two JSON values first differ, list positions written ``[]`` (sorted, deduplicated).

    In a list only the first departure counts: in lists of different lengths an element inserted or
    left out there (``has an extra element``, ``lacks an element``, also at the end), else the first
    differing element,
    compared in turn. A sequence (one entry per event, or a trace) that departs from Flink's differs
    in everything after that point for the same cause, so the first departure is what tells causes
    apart. Every differing key of a map counts; a map whose keys are data (``shape.data_maps``) is
    one place."""
    out: set[str] = set()
    _walk(exp, act, path, out, shape)
    return sorted(out)


def _walk(exp: object, act: object, path: str, out: set[str], shape: AnswerShape) -> None:
    if path.rsplit(".", 1)[-1] in shape.data_maps and isinstance(exp, dict) and isinstance(act, dict):
        if exp != act:
            out.add(f"{path}{{}}")
    elif isinstance(exp, dict) and isinstance(act, dict):
        for k in exp.keys() | act.keys():
            if k not in act:
                out.add(f"{path}.{k} missing")
            elif k not in exp:
                out.add(f"{path}.{k} unexpected")
            else:
                _walk(exp[k], act[k], f"{path}.{k}", out, shape)
    elif isinstance(exp, list) and isinstance(act, list):
        first = next((i for i, (e, a) in enumerate(zip(exp, act, strict=False)) if e != a), None)
        if first is None:
            if len(exp) != len(act):
                out.add(f"{path} {'has an extra' if len(act) > len(exp) else 'lacks an'} element")
        elif len(act) > len(exp) and act[first + 1] == exp[first]:
            out.add(f"{path} has an extra element")
        elif len(exp) > len(act) and exp[first + 1] == act[first]:
            out.add(f"{path} lacks an element")
        else:
            _walk(exp[first], act[first], f"{path}[]", out, shape)
    elif type(exp) is not type(act) or exp != act:
        out.add(path)


def what_differs(expected: Mapping[str, Any] | None, actual: Mapping[str, Any], keys: Sequence[str] = (),
                 *, shape: AnswerShape, strict_messages: bool = False) -> str:
    """The "what differs" half of a signature (``expected`` is Flink's answer, None if unknown)."""
    if expected is None:
        return "breaks documented rules"
    exp_err, act_err = expected.get("error"), actual.get("error")
    if isinstance(exp_err, dict) and act_err is None:
        return f"answers where Flink rejects ({_error_words(exp_err, keys)})"
    if isinstance(act_err, dict) and act_err.get("type") == "BadRequest":  # whatever Flink answers, it answers
        said = template(act_err.get("message"), keys)
        return "refuses a valid request as a BadRequest" + (f" ({said})" if said else "")
    if exp_err is None and isinstance(act_err, dict):
        return f"rejects what Flink accepts ({_error_words(act_err, keys)})"
    if isinstance(exp_err, dict) and isinstance(act_err, dict):
        fields = ("type", "exception", "message") if strict_messages else ("type",)
        if all(exp_err.get(f) == act_err.get(f) for f in fields):
            return "rejects as Flink does"
        return (f"rejects differently: {_error_words(act_err, keys, with_message=strict_messages)} where Flink "
                f"throws {_error_words(exp_err, keys, with_message=strict_messages)}")
    paths = differing_paths(expected.get("output"), actual.get("output"), shape)
    if not paths:
        return "answers as Flink does"
    shown = paths[:MAX_PATHS] + ([f"{len(paths) - MAX_PATHS} more"] if len(paths) > MAX_PATHS else [])
    return f"differs in {', '.join(shown)}"


_MISSING = object()  # a part of one answer the other answer has and this one lacks


def value_at(answer: object, path: Path) -> object:
    """The part of an output at ``path`` (:mod:`oracle.explain`'s paths), or :data:`_MISSING`."""
    cur = answer
    for step in path:
        if isinstance(step, int):
            if not isinstance(cur, list) or not 0 <= step < len(cur):
                return _MISSING
            cur = cur[step]
        else:
            if not isinstance(cur, dict) or step not in cur:
                return _MISSING
            cur = cur[step]
    return cur


def path_text(path: Path, *, folded: bool = False) -> str:
    """``("emitted", 3)`` as ``output.emitted[3]`` (``output.emitted[]`` folded)."""
    out = "output"
    for step in path:
        out += ("[]" if folded else f"[{step}]") if isinstance(step, int) else f".{step}"
    return out


def first_difference_path(exp: object, act: object, path: Path = ()) -> Path | None:
    """Where two JSON values first differ, in the expected answer's order (None: equal)."""
    if isinstance(exp, dict) and isinstance(act, dict):
        for k in (*exp, *(k for k in act if k not in exp)):
            if k not in exp or k not in act:
                return (*path, k)
            found = first_difference_path(exp[k], act[k], (*path, k))
            if found is not None:
                return found
        return None
    if isinstance(exp, list) and isinstance(act, list):
        for i, (e, a) in enumerate(zip(exp, act, strict=False)):
            found = first_difference_path(e, a, (*path, i))
            if found is not None:
                return found
        return None if len(exp) == len(act) else (*path, min(len(exp), len(act)))
    return None if type(exp) is type(act) and exp == act else path


@attrs.frozen
class Departure:
    """The first part of Flink's answer an answer departs from, and the rules that decided it."""

    kind: str
    where: str  # folded: what tells causes apart
    at: str  # exact: what a reader is shown
    because: tuple[str, ...]
    expected: object
    actual: object


ANSWERS_WHERE_FLINK_REJECTS = "answers where Flink rejects"
REJECTS_WHAT_FLINK_ACCEPTS = "rejects what Flink accepts"
REFUSES = "refuses a valid request as a BadRequest"
REJECTS_DIFFERENTLY = "rejects differently"
DIFFERS = "differs"


def departure(expected: Mapping[str, Any], actual: Mapping[str, Any], explanation: Explanation, *,
              shape: AnswerShape, strict_messages: bool = False) -> Departure | None:
    """Where ``actual`` first departs from Flink's ``expected`` answer, or None where it does not.

    For outputs, the parts of Flink's answer are visited in the order the oracle decided them
    (:class:`oracle.explain.Explanation`: for a sequence, event by event; for a derivation, value by
    value), so the first departure is the root of what follows; the parts no decision names are
    compared after, in the answer's own order. A rejection is explained by the rules that decided
    it (or that read the input, where none did)."""
    exp_err, act_err = expected.get("error"), actual.get("error")
    rejection = explanation.at(ERROR) or explanation.at(INPUT)
    if isinstance(exp_err, dict) and act_err is None:
        where = "error: " + _error_words(exp_err, ())
        return Departure(ANSWERS_WHERE_FLINK_REJECTS, where, "error", rejection, exp_err, actual.get("output"))
    if isinstance(act_err, dict) and act_err.get("type") == "BadRequest":
        # one cause whatever Flink's reading of the request decided: why it refuses is the implementation's own
        return Departure(REFUSES, "BadRequest", "error", (), expected.get("output", exp_err), act_err)
    if exp_err is None and isinstance(act_err, dict):
        return Departure(REJECTS_WHAT_FLINK_ACCEPTS, f"error: {_error_kind(act_err)}", "error", (),
                         expected.get("output"), act_err)
    if isinstance(exp_err, dict) and isinstance(act_err, dict):
        fields = ("type", "exception", "message") if strict_messages else ("type",)
        if all(exp_err.get(f) == act_err.get(f) for f in fields):
            return None
        where = "error: " + _error_words(exp_err, (), with_message=strict_messages)
        return Departure(REJECTS_DIFFERENTLY, where, "error", rejection, exp_err, act_err)
    exp_out, act_out = expected.get("output"), actual.get("output")
    if exp_out == act_out:
        return None
    for d in explanation.decisions:
        if d.path[:1] in (ERROR, INPUT):
            continue
        e, a = value_at(exp_out, d.path), value_at(act_out, d.path)
        if e != a:
            return Departure(DIFFERS, _where(d.path, e, a, shape), path_text(d.path), d.rules,
                             _shown(e), _shown(a))
    path = first_difference_path(exp_out, act_out) or ()
    e, a = value_at(exp_out, path), value_at(act_out, path)
    return Departure(DIFFERS, _where(path, e, a, shape), path_text(path), (), _shown(e),
                     _shown(a))


def _where(path: Path, expected: object, actual: object, shape: AnswerShape) -> str:
    """The part departed from, positions folded, and how it differs there (nothing more for a value).
    A field the area leaves out where it is empty (``shape.empty_when_absent``) is an empty one, so
    that leaving out an aborted checkpoint is one departure whether or not the step aborts others; a
    map whose keys are data
    (``shape.data_maps``) differs in an entry, never in named keys."""
    if path and path[-1] in shape.empty_when_absent:
        if expected is _MISSING and isinstance(actual, list | dict) and actual:
            expected = type(actual)()
        if actual is _MISSING and isinstance(expected, list | dict) and expected:
            actual = type(expected)()
    if path and path[-1] in shape.data_maps and isinstance(expected, dict) and isinstance(actual, dict):
        differs = _entries(expected, actual)
    else:
        differs = how(expected, actual, shape)
    return path_text(path, folded=True) + ("" if differs == "differs" else f" {differs}")


def _entries(expected: dict[str, Any], actual: dict[str, Any]) -> str:
    """How a map whose keys are data differs: it lacks an entry, has an extra one, or one's value differs."""
    if expected.keys() > actual.keys():
        return "lacks an entry"
    if actual.keys() > expected.keys():
        return "has an extra entry"
    return "differs in an entry"


def how(expected: object, actual: object, shape: AnswerShape) -> str:
    """How a part of an answer differs from Flink's, in the words that tell causes apart: which kind
    of element a list has extra or lacks (``lacks a {watermark}``, ``has an extra {status}``), which
    keys of an object differ, which word of an enumeration it answers where Flink answers another
    (``is user where Flink answers otherwise``: Flink's part is told by the rule that decided it), or
    that a value does; never the values."""
    if isinstance(expected, list) and isinstance(actual, list):
        exp, act = Counter(map(_canon, expected)), Counter(map(_canon, actual))
        extra, missing = _kinds(act - exp, actual, shape), _kinds(exp - act, expected, shape)
        if not extra and not missing:
            return "in another order"
        if not missing:
            return EXTRA + extra
        return LACKS + missing if not extra else f"has a {extra}{INSTEAD}{missing}"
    if isinstance(expected, dict) and isinstance(actual, dict):
        keys = sorted(k for k in expected.keys() | actual.keys()
                      if expected.get(k, _MISSING) != actual.get(k, _MISSING))
        return f"differs in {', '.join(keys)}"
    if expected is _MISSING or actual is _MISSING:
        return "is missing" if actual is _MISSING else "is unexpected"
    if _is_word(expected) and _is_word(actual):
        return f"is {actual} where Flink answers otherwise"  # a word of an enumeration is a kind, not a value
    return "differs"


_WORD = re.compile(r"[A-Za-z_:]{1,40}")  # a word of an enumeration: user, not_found, error:SecurityException


def _is_word(value: object) -> bool:
    return isinstance(value, str) and _WORD.fullmatch(value) is not None


EXTRA, LACKS, INSTEAD, AND = "has an extra ", "lacks a ", " where Flink has a ", " and a "


def parts(where: str) -> tuple[str, ...]:
    """The single departures a composite one (:func:`how`) is made of: ``P lacks a A and a B`` is
    ``P lacks a A`` and ``P lacks a B``, and so for extra elements; () for a single departure. One
    element where Flink has another (``has a X where Flink has a Y``) is a departure of its own:
    an implementation that emits a status where Flink emits a watermark has neither bug of one that
    emits a status too many and one that leaves a watermark out."""
    path, _, differs = where.partition(" ")
    for head in (EXTRA, LACKS):
        if differs.startswith(head):
            kinds = differs.removeprefix(head).split(AND)
            return tuple(f"{path} {head}{k}" for k in kinds) if len(kinds) > 1 else ()
    return ()


def _canon(value: object) -> str:
    return json.dumps(value, sort_keys=True)


def _kinds(which: Counter[str], values: list[Any], shape: AnswerShape) -> str:
    """The kinds of the list elements ``which`` counts: ``{key, ...}`` for an object, else the JSON type."""
    kinds = sorted({_kind(v, shape) for v in values if which[_canon(v)] > 0})
    return AND.join(kinds)


def _kind(value: object, shape: AnswerShape) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {value[k]}" if k in shape.enum_fields and _is_word(value[k]) else k
                               for k in sorted(value) if k not in shape.optional_fields) + "}"
    return {bool: "boolean", int: "number", float: "number", str: "string", list: "list"}.get(type(value), "null")


def _shown(value: object) -> object:
    return "(nothing)" if value is _MISSING else value


def signature(request: Mapping[str, Any], actual: Mapping[str, Any], expected: Mapping[str, Any] | None,
              rules: Sequence[str], *, strict_messages: bool = False,
              explanation: Explanation | None = None) -> Signature:
    """The signature of one failing answer; ``rules`` are every rule it breaks; ``explanation`` the
    oracle's for Flink's answer (None: no departure is located, the answer is told apart by
    what differs in words)."""
    config = request.get("input", {}).get("config") if isinstance(request.get("input"), dict) else None
    keys = list(config) if isinstance(config, dict) else []
    area = AREAS.get(str(request.get("area")))
    shape = area.shape if area is not None else AnswerShape()
    what = what_differs(expected, actual, keys, shape=shape, strict_messages=strict_messages)
    ordered = tuple(sorted(set(rules), key=_rule_order))
    gone = None if expected is None or explanation is None else departure(
        expected, actual, explanation, shape=shape, strict_messages=strict_messages)
    if gone is None:
        return Signature(what, ordered, what, "", ())
    if gone.kind == DIFFERS:
        what = f"differs in {gone.where}"
    return Signature(what, ordered, gone.kind, gone.where, gone.because, gone)


def _rule_order(rule: str) -> tuple[bool, str, int, str]:
    """The differential rule last, the others by prefix, then number (TM-7 before TM-12)."""
    prefix, _, number = rule.rpartition("-")
    return rule.endswith("-EQ"), prefix, int(number) if number.isdigit() else -1, number


def features(request: Mapping[str, Any]) -> tuple[str, ...]:
    """What a (shrunk) request is made of, for a reader: its configuration keys with their values,
    its event kinds, its non-empty name lists, its other fields."""
    inp = request.get("input")
    if not isinstance(inp, dict):
        return ()
    out: list[str] = []
    for key in sorted(inp):
        value = inp[key]
        if key == "config" and isinstance(value, dict):
            out += [f"{k}={val}" for k, val in sorted(value.items())]
        elif key == "events" and isinstance(value, list):
            kinds = sorted({k for e in value if isinstance(e, dict) for k in e
                            if k not in ("channel", "input", "at", "key", "checkpoint")})
            out.append(f"{len(value)} event(s): {', '.join(kinds)}" if kinds else f"{len(value)} event(s)")
        elif isinstance(value, list):
            if value:
                out.append(f"{key}: {len(value)}")
        else:
            out.append(f"{key}={value}")
    return tuple(out)
