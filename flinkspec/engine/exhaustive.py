"""``flinkspec exhaustive``: every short event sequence, the oracle against an implementation.

    flinkspec exhaustive --impl flink --flink all                 # 1x5, 2x5 and 3x4, as the issue asks
    flinkspec exhaustive --impl flink:2.3 --shape 2x5 --shape 3x4 --timestamps MIN,0,1,2,MAX

For each shape ``CxE`` every sequence of at most E events over C channels is sent, where an event is
a watermark with one of the timestamps or an IDLE / ACTIVE status on one channel. Sequences go in
order of length, so the first difference reported for a shape is a shortest one.
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
            raise ValueError(f"shape {text!r} must be CHANNELSxEVENTS, e.g. 2x5")
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


def sequences(area: str, shape: Shape, timestamps: list[int]) -> Iterator[dict[str, Any]]:
    how = AREAS[area].exhaustive
    if how is None:
        raise ValueError(f"{area} has no exhaustive enumeration; areas that have one: {', '.join(EXHAUSTIVE)}")
    index, count = how.index, how.count
    alphabet: list[dict[str, Any]] = [{index: c, "watermark": t} for c in range(shape.channels) for t in timestamps]
    alphabet += [{index: c, "status": s} for c in range(shape.channels) for s in ("IDLE", "ACTIVE")]
    for length in range(shape.events + 1):
        for events in itertools.product(alphabet, repeat=length):
            yield {count: shape.channels, "events": list(events)}


@attrs.define
class Outcome:
    version: str
    shape: Shape
    sequences: int = 0
    seconds: float = 0.0
    differences: list[dict[str, Any]] = attrs.field(factory=list)


def run(impl: Implementation, area: str, version: str, shape: Shape, timestamps: list[int],
        keep: int = 5) -> Outcome:
    """Compare every sequence of ``shape``; keep the first ``keep`` differences."""
    outcome = Outcome(version, shape)
    started = time.monotonic()
    norm = AREAS[area].normalize
    batch: list[dict[str, Any]] = []

    def flush() -> None:
        answers = impl.answer_many(batch)
        for req, actual in zip(batch, answers, strict=True):
            expected = oracle.answer(req)
            if norm(expected) != norm(actual) and len(outcome.differences) < keep:
                outcome.differences.append({"request": {k: req[k] for k in ("area", "flink", "input")},
                                            "expected": expected, "actual": actual})
        outcome.sequences += len(batch)
        batch.clear()

    for n, inp in enumerate(sequences(area, shape, timestamps)):
        batch.append({"id": n, "area": area, "flink": version, "input": inp})
        if len(batch) >= BATCH:
            flush()
    if batch:
        flush()
    outcome.seconds = time.monotonic() - started
    return outcome


def report_line(area: str, o: Outcome) -> str:
    diff = f"{len(o.differences)}+ difference(s)" if o.differences else "no difference"
    return (f"{area} Flink {o.version} {o.shape.channels}x{o.shape.events}: {o.sequences} sequences in "
            f"{o.seconds:.1f} s, {diff}")


def print_outcome(area: str, o: Outcome) -> None:
    print(report_line(area, o), flush=True)
    for d in o.differences:
        print("  " + json.dumps(d), file=sys.stderr)
