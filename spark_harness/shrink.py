"""Shapes, candidate selection and shrinking of failing requests.

Tasks group their failures into divergences (:mod:`flinkspec.judge.divergence`: how an answer differs
from Flink's and every rule it breaks) and count them. A *shape* abstracts a request to its
configuration keys, the kind of every event with channels renumbered by first use, the lengths of
name lists and the enumerated values (modes, statuses); per divergence the smallest failures of a
few distinct shapes are kept as candidates. The driver shrinks them with the delta debugging of
:func:`flinkspec.engine.check.shrink_one` and reports the smallest, with the divergence's case count.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import attrs

from flinkspec.engine.check import Counterexample, counterexample, shrink_one
from flinkspec.impls import Implementation
from flinkspec.impls.capabilities import EVERYTHING, Capabilities
from flinkspec.judge.divergence import Signature
from flinkspec.judge.verdict import Conformance
from oracle.versions import parse_version
from properties.areas import AREAS

INDEX_KEYS = ("channel", "input")
KEEP_PER_RULE = 3  # candidates a partition keeps per (area, version, rule), and shapes a report keeps


@attrs.frozen
class Failure:
    """A request of one divergence, as a task saw it (not shrunk yet), and how many failing cases
    of that divergence it stands for."""

    area: str
    flink: str
    signature: Signature  # the divergence (flinkspec.judge.divergence)
    messages: tuple[str, ...]  # what each rule saw
    request: dict[str, Any]
    actual: dict[str, Any]
    expected: dict[str, Any] | None
    size: tuple[int, int]
    shape: str
    cases: int = 1

    @property
    def rules(self) -> tuple[str, ...]:
        return self.signature.rules

    @property
    def key(self) -> tuple[str, str, tuple[str, str, tuple[str, ...]]]:
        """The divergence (:attr:`flinkspec.judge.divergence.Signature.key`) at this area and version."""
        return (self.area, self.flink, self.signature.key)

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
    """Add ``failure`` to the ``limit`` smallest failures of distinct shapes held in ``bucket`` (one
    divergence's), and count its cases."""
    counted = sum(f.cases for f in bucket) + failure.cases
    for i, old in enumerate(bucket):
        if old.shape == failure.shape:
            if failure.order < old.order:
                bucket[i] = failure
            break
    else:
        bucket.append(failure)
    bucket.sort(key=lambda f: f.order)
    del bucket[limit:]
    bucket[0] = attrs.evolve(bucket[0], cases=counted - sum(f.cases for f in bucket[1:]))


def candidates(failures: Iterable[Failure], limit: int = KEEP_PER_RULE
               ) -> dict[tuple[str, str, tuple[str, str, tuple[str, ...]]], list[Failure]]:
    """Per divergence (area, version, signature, rules), the ``limit`` smallest failures of distinct
    shapes; their ``cases`` add up to the divergence's failing cases."""
    out: dict[tuple[str, str, tuple[str, str, tuple[str, ...]]], list[Failure]] = {}
    for f in failures:
        keep(out.setdefault(f.key, []), f, limit)
    return out


def to_counterexample(f: Failure, impl_spec: str, strict_messages: bool, cases: int | None = None) -> Counterexample:
    return counterexample(f.request, f.expected, f.actual, f.signature, f.messages,
                          f.cases if cases is None else cases, impl_spec, strict_messages)


def shrink_divergence(found: list[Failure], impl: Implementation | None, impl_spec: str, *,
                      conformance: Conformance, strict_messages: bool, capabilities: Capabilities = EVERYTHING,
                      ) -> tuple[Counterexample, int]:
    """Shrink each candidate of one divergence and keep the smallest result, with the divergence's
    case count; also returns the number of requests shrinking sent. Without an implementation
    (``--no-shrink``) the smallest candidate is reported as found."""
    total = sum(f.cases for f in found)
    sent = 0
    best: Counterexample | None = None
    for f in found:
        ce = to_counterexample(f, impl_spec, strict_messages, total)
        if impl is not None:
            ce, n = shrink_one(ce, impl, impl_spec, parse_version(f.flink), conformance=conformance,
                               strict_messages=strict_messages, capabilities=capabilities)
            sent += n
        if best is None or size(ce.request) < size(best.request):
            best = ce
        if impl is None:
            break
    assert best is not None
    return best, sent
