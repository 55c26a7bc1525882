"""What ``flinkspec exhaustive`` enumerates for the watermark operators beyond the valve: every short event
sequence of the generators, the window operator, the async operator, the timestamps-and-watermarks operator and the
interval join (:class:`properties.area.Exhaustive`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from properties.area import Exhaustive

GENERATION = Exhaustive(
    width="milliseconds: the bound and the idle timeout (the clock advances by W or W + 1)",
    bases=lambda w: [{"generator": "bounded", "out_of_orderness_ms": w, "idle_timeout_ms": w},
                     {"generator": "monotonous", "idle_timeout_ms": w},
                     {"generator": "bounded", "out_of_orderness_ms": w}],
    alphabet=lambda w, timestamps: [{"kind": "record", "timestamp": t} for t in timestamps]
    + [{"kind": "periodic"}, {"kind": "advance", "ms": w}, {"kind": "advance", "ms": w + 1}],
    shapes=("1x5", "2x5"))

WINDOWS = Exhaustive(
    width="keys",
    bases=lambda _w: [{"assigner": "tumbling", "size_ms": 2, "allowed_lateness_ms": 1, "late_output": True},
                      {"assigner": "sliding", "size_ms": 2, "slide_ms": 1, "allowed_lateness_ms": 1,
                       "late_output": True},
                      {"assigner": "session", "gap_ms": 1, "allowed_lateness_ms": 1, "late_output": True}],
    alphabet=lambda w, timestamps: [{"key": "abc"[k], "timestamp": t, "value": 1} for k in range(w)
                                    for t in timestamps] + [{"watermark": t} for t in timestamps],
    shapes=("1x4", "2x3"))


def _async_events(letters: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records named r0, r1 ... in order, each with its number as timestamp; ``complete`` and ``fail`` letters name
    one by number (naming a record not yet in the queue is a bad request, not sent)."""
    out: list[dict[str, Any]] = []
    records = 0
    for letter in letters:
        if letter["kind"] == "record":
            out.append({"kind": "record", "name": f"r{records}", "timestamp": records})
            records += 1
        elif letter["kind"] == "complete":
            out.append({"kind": "complete", "name": f"r{letter['record']}", "results": [letter["record"]]})
        elif letter["kind"] == "fail":
            out.append({"kind": "fail", "name": f"r{letter['record']}"})
        else:
            out.append({k: v for k, v in letter.items() if k != "timed"})
    return out


ASYNC_TIMEOUT = 2  # ms: the timed bases' timeout; the clock advances by 1 (not due yet) or by the timeout itself


def _async_alphabet(w: int, timestamps: Sequence[int]) -> list[dict[str, Any]]:
    """A record, the completion of each of the first W + 1, the failure of each of the first W, a watermark at each
    timestamp (the middle one marked: the only one the timed bases take), the end, an advance of 1 ms and one of
    the timeout."""
    middle = timestamps[len(timestamps) // 2] if timestamps else None
    return [{"kind": "record"}] + [{"kind": "complete", "record": r} for r in range(w + 1)] \
        + [{"kind": "fail", "record": r} for r in range(w)] \
        + [{"kind": "watermark", "timestamp": t, "timed": t == middle} for t in timestamps] + [{"kind": "end"}] \
        + [{"kind": "advance", "ms": ms} for ms in (1, ASYNC_TIMEOUT)]


def _async_takes(base: dict[str, Any], letter: dict[str, Any]) -> bool:
    """The bases without a timeout take no failure and no advance (feature watermark.async.timeouts: their
    sequences are the requests of an implementation without it); the timed ones take a watermark at one
    timestamp only (a watermark meets no processing-time timer, so its value is the untimed bases' matter)."""
    if "timeout" not in base:
        return letter["kind"] not in ("fail", "advance")
    return letter["kind"] != "watermark" or bool(letter["timed"])


ASYNC = Exhaustive(
    width="the queue's capacity",
    bases=lambda w: [{"mode": m, "capacity": w, **timed} for timed in
                     ({}, {"timeout": ASYNC_TIMEOUT}, {"timeout": ASYNC_TIMEOUT, "timeout_results": [-1]})
                     for m in ("ordered", "unordered")],
    alphabet=_async_alphabet, events=_async_events, takes=_async_takes, shapes=("1x5", "2x4"))

ASSIGNER = Exhaustive(
    width="milliseconds: the auto-watermark interval (the clock advances by W or by the idle timeout + 1)",
    bases=lambda w: [{"generator": "bounded", "out_of_orderness_ms": 1, "auto_watermark_interval_ms": w},
                     {"generator": "monotonous", "idle_timeout_ms": 60_000, "auto_watermark_interval_ms": w}],
    alphabet=lambda w, timestamps: [{"kind": "record", "timestamp": t} for t in timestamps]
    + [{"kind": "watermark", "timestamp": t} for t in timestamps]
    + [{"kind": "status", "status": s} for s in ("idle", "active")]
    + [{"kind": "advance", "ms": w}, {"kind": "advance", "ms": 60_001}, {"kind": "end_of_input"}],
    shapes=("1x4",))


def _output_events(letters: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The letters up to the first end (nothing follows a task's end, or a chain's end of input)."""
    out: list[dict[str, Any]] = []
    for letter in letters:
        out.append(letter)
        if letter["kind"] in ("end", "end_of_input"):
            break
    return out


# W = 3's task: a TimestampsAndWatermarksOperator chained in front of the output (feature watermark.output.chain)
OUTPUT_CHAIN = {"chain": "assigner", "generator": "bounded", "out_of_orderness_ms": 1, "auto_watermark_interval_ms": 5}


def _output_takes(base: dict[str, Any], letter: dict[str, Any]) -> bool:
    """A source task takes no letter of a chain's (an advance, end of input), a chain's task none of a source
    task's (a latency marker, the end): mixed, they are not a request of the area."""
    return letter["kind"] not in (("latency", "end") if "chain" in base else ("advance", "end_of_input"))


OUTPUT = Exhaustive(
    width="the tasks: 1 a SourceOperatorStreamTask, 2 also a legacy SourceStreamTask, 3 also a one-input task whose "
    "chain is a TimestampsAndWatermarksOperator (bounded, 1 ms, interval 5 ms). The letters: a record at the first "
    "timestamp, a watermark at each, idle, active, a latency marker, end; with W = 3 also a record at the second "
    "timestamp, an advance of 5 ms and end_of_input (a chain's task takes no latency marker or end, a source task"
    " no advance or end_of_input)",
    bases=lambda w: [{"source": s} for s in ("operator", "legacy")[:max(1, min(w, 2))]]
    + ([OUTPUT_CHAIN] if w >= 3 else []),
    alphabet=lambda w, timestamps: [{"kind": "record", "timestamp": t} for t in timestamps[:1]]
    + [{"kind": "watermark", "timestamp": t} for t in timestamps]
    + [{"kind": "status", "status": s} for s in ("idle", "active")]
    + [{"kind": "latency", "marked_time": 0}, {"kind": "end"}]
    + ([{"kind": "record", "timestamp": t} for t in timestamps[1:2]]  # above Long.MIN_VALUE: a watermark follows
       + [{"kind": "advance", "ms": 5}, {"kind": "end_of_input"}] if w >= 3 else []),
    events=_output_events, takes=_output_takes, shapes=("1x5", "2x5"))


def _join_events(letters: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records of the one key ``k``, each valued by its place among the records (so every pair is told apart); a
    watermark letter without a side is that watermark on both inputs, left then right (one letter moving the
    combined watermark, so that a late record or a cleanup is three letters away, not four)."""
    out: list[dict[str, Any]] = []
    records = 0
    for letter in letters:
        if "timestamp" in letter:
            out.append({**letter, "key": "k", "value": records})
            records += 1
        elif "side" in letter:
            out.append(letter)
        else:
            out.extend({"side": s, "watermark": letter["watermark"]} for s in ("left", "right"))
    return out


JOIN = Exhaustive(
    width="milliseconds: the bounds (between(-W, W) inclusive and exclusive, and between(0, W) upper-exclusive)",
    bases=lambda w: [{"lower_bound_ms": -w, "upper_bound_ms": w},
                     {"lower_bound_ms": -w, "upper_bound_ms": w, "lower_exclusive": True, "upper_exclusive": True},
                     {"lower_bound_ms": 0, "upper_bound_ms": w, "upper_exclusive": True}],
    alphabet=lambda w, timestamps: [{"side": s, "timestamp": t} for s in ("left", "right") for t in timestamps]
    + [{"side": s, "watermark": t} for s in ("left", "right") for t in timestamps]
    + [{"watermark": t} for t in timestamps],
    events=_join_events, shapes=("1x3", "2x3"))
