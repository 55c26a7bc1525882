"""Shapes, candidate selection and shrinking of failing requests.

A *shape* abstracts a request to what makes two counterexamples "the same bug seen twice": the
configuration keys, the kind of every event with channels renumbered by first use, the lengths of
name lists, the enumerated values (modes, statuses). Two failures of one rule with one shape are
duplicates; the smaller is kept. The driver shrinks the smallest few candidates per rule with the
delta debugging of :mod:`flinkspec.check` (``flinkspec.reduce``) and keeps one counterexample per
(rule, shape) of the shrunk requests.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import attrs

from flinkspec.check import Conformance, Counterexample, replay_command
from flinkspec.check import _reduced as _delta_debug
from flinkspec.impls import Implementation
from oracle.versions import parse_version
from properties.areas import AREAS
from properties.rules import RULES

INDEX_KEYS = ("channel", "input")
KEEP_PER_RULE = 3  # candidates a partition keeps per (area, version, rule), and shapes a report keeps


@attrs.frozen
class Failure:
    """One request on which ``rule`` broke, as a task saw it (not shrunk yet)."""

    area: str
    flink: str
    rule: str
    message: str
    request: dict[str, Any]
    actual: dict[str, Any]
    expected: dict[str, Any] | None
    size: tuple[int, int]
    shape: str

    @property
    def order(self) -> tuple[tuple[int, int], str]:
        """Smallest first; ties broken by the request's text, so every run picks the same."""
        return self.size, json.dumps(self.request, sort_keys=True)


def size(request: dict[str, Any]) -> tuple[int, int]:
    return AREAS[request["area"]].size(request), len(json.dumps(request))


def _enum(value: object) -> bool:
    return isinstance(value, str) and value.replace("_", "").isalpha() and value.upper() == value


def _event_shape(event: object, labels: dict[tuple[str, object], int]) -> str:
    if not isinstance(event, dict):
        return type(event).__name__
    parts = []
    for key in INDEX_KEYS:
        if key in event:
            parts.append(f"{key[0]}{labels.setdefault((key, event[key]), len(labels))}")
    for key in sorted(k for k in event if k not in INDEX_KEYS):
        parts.append(f"{key}={event[key]}" if _enum(event[key]) else key)
    return ":".join(parts)


def shape(request: dict[str, Any]) -> str:
    """The shape of a request (see the module docstring), as a short string."""
    inp = request.get("input", {})
    out: list[str] = []
    labels: dict[tuple[str, object], int] = {}
    for key in sorted(inp):
        value = inp[key]
        if key == "events" and isinstance(value, list):
            out.append("events=[" + " ".join(_event_shape(e, labels) for e in value) + "]")
        elif isinstance(value, dict):
            out.append(f"{key}={{{','.join(sorted(value))}}}")
        elif isinstance(value, list):
            out.append(f"{key}#{len(value)}")
        elif _enum(value) or isinstance(value, bool):
            out.append(f"{key}={value}")
        else:
            out.append(key)
    return " ".join(out)


def keep(bucket: list[Failure], failure: Failure, limit: int = KEEP_PER_RULE) -> None:
    """Add ``failure`` to the ``limit`` smallest failures of distinct shapes held in ``bucket``."""
    for i, old in enumerate(bucket):
        if old.shape == failure.shape:
            if failure.order < old.order:
                bucket[i] = failure
            break
    else:
        bucket.append(failure)
    bucket.sort(key=lambda f: f.order)
    del bucket[limit:]


def candidates(failures: Iterable[Failure], limit: int = KEEP_PER_RULE) -> dict[tuple[str, str, str], list[Failure]]:
    """Per (area, version, rule), the ``limit`` smallest failures of distinct shapes."""
    out: dict[tuple[str, str, str], list[Failure]] = {}
    for f in failures:
        keep(out.setdefault((f.area, f.flink, f.rule), []), f, limit)
    return out


def to_counterexample(f: Failure, impl_spec: str, strict_messages: bool) -> Counterexample:
    return Counterexample(f.area, f.flink, f.rule, RULES[f.rule].text if f.rule in RULES else f.rule, f.request,
                          f.expected, f.actual, f.message, replay_command(impl_spec, f.request, strict_messages))


def shrink_rule(found: list[Failure], impl: Implementation | None, impl_spec: str, *, conformance: Conformance,
                strict_messages: bool, unsupported: frozenset[str]) -> tuple[list[Counterexample], int]:
    """Shrink each candidate of one (area, version, rule) and keep one counterexample per shrunk
    shape, smallest first; also returns the number of requests shrinking sent. Without an
    implementation (``--no-shrink``) the candidates are reported as found."""
    counter = [0]
    out: dict[str, Counterexample] = {}
    for f in found:
        ce = to_counterexample(f, impl_spec, strict_messages)
        if impl is not None:
            ce = _delta_debug(ce, impl, parse_version(f.flink), counter, conformance, strict_messages, unsupported)
        key = shape(ce.request)
        if key not in out or size(ce.request) < size(out[key].request):
            out[key] = ce
    ordered = sorted(out.values(), key=lambda c: (size(c.request), json.dumps(c.request, sort_keys=True)))
    return ordered, counter[0]
