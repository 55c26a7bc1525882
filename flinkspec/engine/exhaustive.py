"""``flinkspec exhaustive``: every short event sequence, the oracle against an implementation.

    flinkspec exhaustive --impl flink --flink all                 # 1x5, 2x5 and 3x4, as the issue asks
    flinkspec exhaustive --impl flink:2.3 --shape 2x5 --shape 3x4 --timestamps MIN,0,1,2,MAX

For each shape ``WxE`` every sequence of at most E events is sent, on each of the area's base inputs
(:class:`properties.area.Exhaustive`): for the valve, W channels and an event is a watermark with one of
the timestamps or an IDLE / ACTIVE status on one channel; other areas say what W and their events are
(``flinkspec exhaustive --help``). Sequences go in order of length, so the first difference reported for a
shape is a shortest one. A sequence the oracle refuses as a bad request (a name used twice, a watermark
going back ...) is not an input of the area: it is counted apart and not sent; so is one carrying a feature the
implementation does not speak (its capabilities, :meth:`flinkspec.impls.capabilities.Capabilities.fit`: e.g. an
async timeout to one that does not declare ``watermark.async.timeouts``).
"""

from __future__ import annotations

import itertools
import json
import sys
import time
from collections.abc import Iterator
from typing import Any

import attrs

import oracle
from flinkspec.impls import Implementation
from flinkspec.impls.capabilities import Capabilities
from properties.areas import AREAS

NAMED = {"MIN": -(1 << 63), "MAX": (1 << 63) - 1}
BATCH = 4096


@attrs.frozen
class Shape:
    channels: int
    events: int

    @classmethod
    def parse(cls, text: str) -> Shape:
        c, _, e = text.lower().partition("x")
        if not (c.isdigit() and e.isdigit() and int(c) >= 1):
            raise ValueError(f"shape {text!r} must be WxEVENTS, e.g. 2x5 (W: the area's width, see --help)")
        return cls(int(c), int(e))


def parse_timestamps(text: str) -> list[int]:
    out = []
    for t in text.split(","):
        t = t.strip()
        try:
            out.append(NAMED[t.upper()] if t.upper() in NAMED else int(t))
        except ValueError:
            raise ValueError(f"timestamp {t!r} is neither an integer nor MIN/MAX") from None
    return out


EXHAUSTIVE = tuple(name for name, area in AREAS.items() if area.exhaustive is not None)  # the areas it enumerates


def default_shapes(area: str) -> tuple[str, ...]:
    how = AREAS[area].exhaustive
    assert how is not None, area
    return how.shapes


def shapes_help() -> str:
    """What W of a shape WxE is in each area, and its default shapes (the command's help)."""
    return "; ".join(f"{name}: W = {how.width} (default {', '.join(how.shapes)})" for name in EXHAUSTIVE
                     if (how := AREAS[name].exhaustive) is not None)


def sequences(area: str, shape: Shape, timestamps: list[int]) -> Iterator[dict[str, Any]]:
    """Every input of ``shape``: for each of the area's base inputs, every sequence of at most ``shape.events``
    of the letters it takes, shortest first."""
    how = AREAS[area].exhaustive
    if how is None:
        raise ValueError(f"{area} has no exhaustive enumeration; areas that have one: {', '.join(EXHAUSTIVE)}")
    alphabet = how.alphabet(shape.channels, timestamps)
    # the bases that take the same letters, together (one group where every base takes every letter)
    groups: list[tuple[list[Any], list[dict[str, Any]]]] = []
    for base in how.bases(shape.channels):
        letters = [a for a in alphabet if how.takes(base, a)]
        group = next((g for g in groups if g[0] == letters), None)
        if group is None:
            groups.append((letters, [base]))
        else:
            group[1].append(base)
    for length in range(shape.events + 1):
        for letters, bases in groups:
            for word in itertools.product(letters, repeat=length):
                events = how.events(word)
                for base in bases:
                    yield {**base, "events": events}


@attrs.define
class Outcome:
    version: str
    shape: Shape
    sequences: int = 0
    not_inputs: int = 0  # sequences the oracle refuses as bad requests: not sent
    not_spoken: int = 0  # inputs with a feature the implementation does not speak: not sent
    seconds: float = 0.0
    differences: list[dict[str, Any]] = attrs.field(factory=list)


def run(impl: Implementation, area: str, version: str, shape: Shape, timestamps: list[int],
        keep: int = 5, capabilities: Capabilities | None = None) -> Outcome:
    """Compare every sequence of ``shape`` (as ``capabilities`` lets it be sent, if given: the answers compared as
    the implementation can give them); keep the first ``keep`` differences."""
    outcome = Outcome(version, shape)
    started = time.monotonic()
    norm = AREAS[area].normalize
    batch: list[tuple[dict[str, Any], dict[str, Any]]] = []

    def flush() -> None:
        answers = impl.answer_many([req for req, _ in batch])
        for (req, expected), actual in zip(batch, answers, strict=True):
            if capabilities is not None:
                actual = capabilities.fit_answer(req, actual)[0] or actual
            if norm(expected) != norm(actual) and len(outcome.differences) < keep:
                outcome.differences.append({"request": {k: req[k] for k in ("area", "flink", "input")},
                                            "expected": expected, "actual": actual})
        outcome.sequences += len(batch)
        batch.clear()

    for n, inp in enumerate(sequences(area, shape, timestamps)):
        req = {"id": n, "area": area, "flink": version, "input": inp}
        expected = oracle.answer(req)
        if expected.get("error", {}).get("type") == "BadRequest":
            outcome.not_inputs += 1
            continue
        if capabilities is not None:
            fitted = _fitted(capabilities, req, expected)
            if fitted is None:
                outcome.not_spoken += 1
                continue
            req, expected = fitted
        batch.append((req, expected))
        if len(batch) >= BATCH:
            flush()
    if batch:
        flush()
    outcome.seconds = time.monotonic() - started
    return outcome


def _fitted(caps: Capabilities, req: dict[str, Any], expected: dict[str, Any]
            ) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The request as it can be sent and the answer expected of this implementation, or None: not sent."""
    sent, _why = caps.fit(req)
    if sent is None:
        return None
    answer, _why = caps.fit_answer(sent, expected if sent is req else oracle.answer(sent))
    return None if answer is None else (sent, answer)


def report_line(area: str, o: Outcome) -> str:
    diff = f"{len(o.differences)}+ difference(s)" if o.differences else "no difference"
    apart = ([f"{o.not_inputs} bad requests not sent"] if o.not_inputs else []) \
        + ([f"{o.not_spoken} with a feature the implementation does not speak"] if o.not_spoken else [])
    refused = f" ({'; '.join(apart)})" if apart else ""
    return (f"{area} Flink {o.version} {o.shape.channels}x{o.shape.events}: {o.sequences} sequences{refused} in "
            f"{o.seconds:.1f} s, {diff}")


def print_outcome(area: str, o: Outcome) -> None:
    print(report_line(area, o), flush=True)
    for d in o.differences:
        print("  " + json.dumps(d), file=sys.stderr)
