"""The documented async I/O rules, as checks on any implementation's own answers.

Sources: Flink's documentation "Asynchronous I/O for External Data Access" (its sections "Order of Results",
"Event Time" and the capacity parameter of ``AsyncDataStream.orderedWait`` / ``unorderedWait``), the javadoc of
``AsyncDataStream`` and ``AsyncWaitOperator``, and the protocol page for the answer's shape. Each check replays the
request's events with the answer's ``held`` and ``admitted`` (which inputs the operator has taken, and when) and
compares what was emitted with what the documentation promises; none needs to know which record an emitted result
came from beyond its value and timestamp.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

import attrs

from oracle.versions import FlinkVersion
from oracle.watermark_async import ASYNC, LONG_MAX, LONG_MIN
from properties.rules import Request, Response, RuleBook, Violation, output_steps

BOOK = RuleBook()  # the rules this module declares, named by the area's declaration
BOOK.differential(ASYNC, "WMA")

DOCS = "Flink docs: Asynchronous I/O for External Data Access (Order of Results, Event Time); AsyncDataStream javadoc"
CAPACITY_DOCS = "Flink docs: Asynchronous I/O for External Data Access (Async I/O API: capacity); AsyncDataStream"


def _long(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and LONG_MIN <= x <= LONG_MAX


def _item_ok(item: Any) -> bool:
    if not isinstance(item, Mapping):
        return False
    if set(item) == {"watermark"}:
        return _long(item["watermark"])
    return set(item) in ({"record"}, {"record", "timestamp"}) and _long(item["record"]) \
        and _long(item.get("timestamp", 0))


def _step_ok(step: Any, n: int) -> bool:
    if not isinstance(step, Mapping) or not set(step) <= {"emitted", "held", "admitted"}:
        return False
    emitted, admitted = step.get("emitted"), step.get("admitted", [])
    return isinstance(emitted, list) and all(_item_ok(i) for i in emitted) and step.get("held", True) is True \
        and isinstance(admitted, list) and all(_long(a) and 0 <= a < n for a in admitted)


@BOOK.invariant("WMA-1", ASYNC, "The answer holds one step per event: what the operator emitted then ({record} with "
                "its timestamp if it has one, or {watermark}), whether the event was held (not processed on arrival) "
                "and which held inputs it admitted.", "docs/protocol/watermark-async.md")
def shape(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    if "output" not in resp or resp.get("error") is not None:
        return []
    steps = output_steps(resp)
    events = req.get("input", {}).get("events", [])
    if steps is None or len(steps) != len(events):
        return [Violation("WMA-1", "output.steps must be a list with one entry per event")]
    for i, step in enumerate(steps):
        if not _step_ok(step, len(events)):
            return [Violation("WMA-1", f"output.steps[{i}] = {step!r} is not a step")]
    return []


@attrs.frozen
class Moment:
    """One step replayed: its index, what it emitted, the inputs admitted by then (in order, with the step each
    was admitted at), the records completed by then (name: results)."""

    index: int
    emitted: tuple[Mapping[str, Any], ...]
    admitted: tuple[tuple[int, int], ...]  # (event index, admitted at step)
    completed: Mapping[str, tuple[int, ...]]


def _replay(req: Request, resp: Response) -> tuple[list[Mapping[str, Any]], list[Moment]] | None:
    steps = output_steps(resp)
    if steps is None or shape(req, resp, None) != []:  # type: ignore[arg-type]
        return None
    events: list[Mapping[str, Any]] = req["input"]["events"]
    admitted: list[tuple[int, int]] = []
    completed: dict[str, tuple[int, ...]] = {}
    out: list[Moment] = []
    for i, (ev, step) in enumerate(zip(events, steps, strict=True)):
        if ev.get("kind") == "complete":
            completed[ev["name"]] = tuple(ev["results"])
        elif not step.get("held"):
            admitted.append((i, i))
        admitted.extend((a, i) for a in step.get("admitted", []))
        out.append(Moment(i, tuple(step["emitted"]), tuple(admitted), dict(completed)))
    return events, out


def _output_of(ev: Mapping[str, Any], completed: Mapping[str, tuple[int, ...]]) -> list[dict[str, Any]]:
    if ev.get("kind") == "watermark":
        return [{"watermark": ev["timestamp"]}]
    if ev.get("kind") == "record":
        ts = {"timestamp": ev["timestamp"]} if ev.get("timestamp") is not None else {}
        return [{"record": r, **ts} for r in completed.get(ev["name"], ())]
    return []


@BOOK.invariant("WMA-2", ASYNC, "Ordered mode keeps the stream's order: records' results and watermarks are "
                "emitted in the order the operator took its inputs, a record's results after those of every earlier"
                " record and after every earlier watermark.", DOCS)
def ordered(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    replay = _replay(req, resp)
    if replay is None or req["input"].get("mode") != "ordered":
        return []
    events, moments = replay
    emitted: list[Mapping[str, Any]] = []
    for m in moments:
        emitted.extend(m.emitted)
        # what may have been emitted by now: the inputs' outputs in order, up to the first record not completed
        expected: list[dict[str, Any]] = []
        for a, _ in m.admitted:
            if events[a].get("kind") == "record" and events[a]["name"] not in m.completed:
                break
            expected.extend(_output_of(events[a], m.completed))
        if emitted != expected[:len(emitted)]:
            k = next((k for k, (x, y) in enumerate(zip(emitted, expected, strict=False)) if x != y), len(expected))
            return [Violation("WMA-2", f"step {m.index}: emitted element {k} is {emitted[k]}, in input order "
                              f"{expected[k] if k < len(expected) else 'nothing (an earlier request is pending)'} "
                              "comes there")]
    return []


@BOOK.invariant("WMA-3", ASYNC, "Unordered mode never emits a record across a watermark: a watermark is emitted "
                "only after every result of the records taken before it, and a record taken after it only after "
                "the watermark; records between two watermarks may come in any order.", DOCS)
def unordered_boundary(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    replay = _replay(req, resp)
    if replay is None or req["input"].get("mode") != "unordered":
        return []
    events, moments = replay
    last = moments[-1] if moments else None
    if last is None:
        return []
    # the admitted inputs split at their watermarks: the results each segment owes, then its watermark
    segments: list[tuple[Counter[tuple[Any, Any]], Any]] = [(Counter(), None)]
    for a, _ in last.admitted:
        ev = events[a]
        if ev.get("kind") == "watermark":
            segments[-1] = (segments[-1][0], ev["timestamp"])
            segments.append((Counter(), None))
        elif ev.get("kind") == "record":
            for r in last.completed.get(ev["name"], ()):
                segments[-1][0][(r, ev.get("timestamp"))] += 1
    k = 0
    seen: Counter[tuple[Any, Any]] = Counter()
    for m in moments:
        for item in m.emitted:
            if k >= len(segments):
                return [Violation("WMA-3", f"step {m.index} emitted {item} after every watermark taken")]
            owed, wm = segments[k]
            if "watermark" in item:
                pending = [events[a]["name"] for a, _ in last.admitted
                           if events[a].get("kind") == "record" and events[a]["name"] not in m.completed]
                if item["watermark"] != wm or seen != owed or (pending and _before_watermark(events, last, k,
                                                                                             set(pending))):
                    return [Violation("WMA-3", f"step {m.index} emitted the watermark {item['watermark']} with "
                                      f"{sum(seen.values())} of the {sum(owed.values())} results before it emitted")]
                k, seen = k + 1, Counter()
                continue
            key = (item["record"], item.get("timestamp"))
            seen[key] += 1
            if seen[key] > owed[key]:
                return [Violation("WMA-3", f"step {m.index} emitted {item}, not a result of a record taken since "
                                  "the last watermark emitted")]
    return []


def _before_watermark(events: list[Mapping[str, Any]], last: Moment, k: int, names: set[str]) -> bool:
    """Whether a record of ``names`` was taken before the ``k``-th watermark taken."""
    seen = 0
    for a, _ in last.admitted:
        ev = events[a]
        if ev.get("kind") == "watermark":
            if seen == k:
                return False
            seen += 1
        elif ev.get("kind") == "record" and ev["name"] in names:
            return True
    return False


@BOOK.invariant("WMA-4", ASYNC, "A record's results are emitted only once its async request has completed, each "
                "once, with the input record's timestamp.", DOCS)
def after_completion(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    replay = _replay(req, resp)
    if replay is None:
        return []
    events, moments = replay
    timestamps = {ev["name"]: ev.get("timestamp") for ev in events if ev.get("kind") == "record"}
    emitted: Counter[tuple[Any, Any]] = Counter()
    for m in moments:
        owed: Counter[tuple[Any, Any]] = Counter(
            (r, timestamps.get(name)) for name, results in m.completed.items() for r in results)
        for item in m.emitted:
            if "record" in item:
                key = (item["record"], item.get("timestamp"))
                emitted[key] += 1
                if emitted[key] > owed[key]:
                    return [Violation("WMA-4", f"step {m.index} emitted {item}: no completed request gave that "
                                      "result with that timestamp (or it was emitted already)")]
    return []


@BOOK.invariant("WMA-5", ASYNC, "At most capacity elements are in the operator's queue: an input is taken only "
                "while fewer than capacity are in flight (elements taken, less the watermarks emitted and the "
                "records whose requests completed, is never more than the capacity).", CAPACITY_DOCS)
def capacity(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    replay = _replay(req, resp)
    cap = req["input"].get("capacity")
    if replay is None or not isinstance(cap, int):
        return []
    events, moments = replay
    for m in moments:
        taken = [a for a, _ in m.admitted if events[a].get("kind") in ("record", "watermark")]
        gone = sum(1 for x in moments[:m.index + 1] for item in x.emitted if "watermark" in item) + len(m.completed)
        if len(taken) - gone > cap:
            return [Violation("WMA-5", f"after step {m.index}: at least {len(taken) - gone} elements in flight, "
                              f"more than the capacity {cap}")]
    return []


@BOOK.invariant("WMA-6", ASYNC, "A watermark taken when every record taken before it has completed is emitted at "
                "once, in the step that takes it (it waits for nothing).",
                "AsyncWaitOperator.processWatermark (its comment: 'if there is no prior element, we can directly emit "
                "them')")
def watermark_at_head(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    replay = _replay(req, resp)
    if replay is None:
        return []
    events, moments = replay
    done: list[int] = []
    for m in moments:
        for a, at in m.admitted:
            if at != m.index or a in done:
                continue
            done.append(a)
            ev = events[a]
            if ev.get("kind") != "watermark":
                continue
            earlier = [events[b]["name"] for b, _ in m.admitted if b < a and events[b].get("kind") == "record"]
            if all(name in m.completed for name in earlier) and {"watermark": ev["timestamp"]} not in m.emitted:
                return [Violation("WMA-6", f"step {m.index} took the watermark {ev['timestamp']} with every earlier "
                                  "request completed, and did not emit it")]
    return []
