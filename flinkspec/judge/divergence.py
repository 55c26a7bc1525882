"""Divergences: failing answers grouped by *how* they differ from Flink, not by which rule they break.

One bug of an implementation usually breaks several rules on the same request (a wrong managed
size breaks the sum rule, the explicit-size rule and the differential rule at once), and two bugs
may break the same rule (a fraction Flink cannot parse accepted, and a slot count Flink rejects
accepted, both "accept what Flink rejects"). A *divergence* is the set of failing answers with one
signature:

- what differs from Flink's answer (the oracle's, proven against the jars): which output fields
  (list positions folded, so the same field of another event is the same difference), or an
  output where Flink rejects (with Flink's exception and its message reduced to a template that
  keeps the configuration keys it names and drops the values), or an error where Flink answers
  (with the answer's error type, exception and message template), or another error;
- the rules the answer breaks, all of them.

Two failures with different signatures are never merged; each divergence is reported once, with
its failing-case count and one shrunk representative (see :mod:`flinkspec.engine.check`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

MAX_PATHS = 8
# output maps whose keys are data, not structure (docs/protocol/v1.md: a coordinator step's ``aborted`` maps
# checkpoint ids to reasons; docs/protocol/v2.md: recovery's ``counts`` maps record keys to counts): a
# difference anywhere in one is one difference of the map, written ``counts{}``
DATA_MAPS = ("aborted", "counts")
_QUOTED = re.compile(r"'([^']*)'|\"([^\"]*)\"")
_NUMBER = re.compile(r"(?<![A-Za-z_])-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?(?: ?(?:bytes|[kmgt]?b)\b)?")
_KEY = re.compile(r"[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)+")  # a Flink configuration key, kept in a template


@attrs.frozen
class Signature:
    """How one answer differs from Flink's: ``what`` in words, and every rule it breaks."""

    what: str
    rules: tuple[str, ...]

    @property
    def key(self) -> tuple[str, tuple[str, ...]]:
        """What tells divergences apart: where the answer departs from Flink's, or, where it does
        not (the documented level, an answer equal to Flink's that breaks a documented rule Flink
        breaks too), the rules it breaks. The rules a departing answer breaks are not part of it:
        after the first departure a sequence breaks whichever invariants the events that follow
        happen to test, so they would split one cause into many."""
        return (self.what, self.rules) if self.what in AS_FLINK else (self.what, ())

    def text(self) -> str:
        return f"{self.what}; breaks {', '.join(self.rules)}"


AS_FLINK = ("breaks documented rules", "answers as Flink does", "rejects as Flink does")


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


def differing_paths(exp: object, act: object, path: str = "output") -> list[str]:
    """Where two JSON values first differ, list positions written ``[]`` (sorted, deduplicated).

    In a list only the first departure counts: in lists of different lengths an element inserted or
    left out there (``has an extra element``, ``lacks an element``, also at the end), else the first
    differing element,
    compared in turn. A sequence (one entry per event, or a trace) that departs from Flink's differs
    in everything after that point for the same cause, so the first departure is what tells causes
    apart. Every differing key of a map counts; a map whose keys are data (:data:`DATA_MAPS`) is
    one place."""
    out: set[str] = set()
    _walk(exp, act, path, out)
    return sorted(out)


def _walk(exp: object, act: object, path: str, out: set[str]) -> None:
    if path.rsplit(".", 1)[-1] in DATA_MAPS and isinstance(exp, dict) and isinstance(act, dict):
        if exp != act:
            out.add(f"{path}{{}}")
    elif isinstance(exp, dict) and isinstance(act, dict):
        for k in exp.keys() | act.keys():
            if k not in act:
                out.add(f"{path}.{k} missing")
            elif k not in exp:
                out.add(f"{path}.{k} unexpected")
            else:
                _walk(exp[k], act[k], f"{path}.{k}", out)
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
            _walk(exp[first], act[first], f"{path}[]", out)
    elif type(exp) is not type(act) or exp != act:
        out.add(path)


def what_differs(expected: Mapping[str, Any] | None, actual: Mapping[str, Any], keys: Sequence[str] = (),
                 *, strict_messages: bool = False) -> str:
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
    paths = differing_paths(expected.get("output"), actual.get("output"))
    if not paths:
        return "answers as Flink does"
    shown = paths[:MAX_PATHS] + ([f"{len(paths) - MAX_PATHS} more"] if len(paths) > MAX_PATHS else [])
    return f"differs in {', '.join(shown)}"


def signature(request: Mapping[str, Any], actual: Mapping[str, Any], expected: Mapping[str, Any] | None,
              rules: Sequence[str], *, strict_messages: bool = False) -> Signature:
    """The signature of one failing answer; ``rules`` are every rule it breaks."""
    config = request.get("input", {}).get("config") if isinstance(request.get("input"), dict) else None
    keys = list(config) if isinstance(config, dict) else []
    return Signature(what_differs(expected, actual, keys, strict_messages=strict_messages),
                     tuple(sorted(set(rules), key=_rule_order)))


def _rule_order(rule: str) -> tuple[bool, str]:
    return rule.endswith("-EQ"), rule


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
