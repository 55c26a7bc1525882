"""The documented async I/O rules, as checks on any implementation's own answers.

Sources: Flink's documentation "Asynchronous I/O for External Data Access" (its sections "Order of Results",
"Event Time", "Timeout Handling" and the capacity and timeout parameters of ``AsyncDataStream.orderedWait`` /
``unorderedWait``), the javadoc of ``AsyncDataStream``, ``AsyncFunction.timeout``, ``ResultFuture`` and
``AsyncWaitOperator``, and the protocol page for the answer's shape. Each check replays the
request's events with the answer's ``held`` and ``admitted`` (which inputs the operator has taken, and when) and
compares what was emitted with what the documentation promises; none needs to know which record an emitted result
came from beyond its value and timestamp. A request with a timeout is replayed on processing time: a record taken
at time t whose request has not completed by t + timeout times out then (completed with the timeout override's
results, or with none and a TimeoutException failing the job), and only a request's first completion counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

import attrs

from oracle.versions import FlinkVersion
from oracle.watermark_async import ASYNC, FAIL_CAUSE, LONG_MAX, LONG_MIN, TIMEOUT_CAUSE
from properties.rules import Request, Response, RuleBook, Violation, output_steps

BOOK = RuleBook()  # the rules this module declares, named by the area's declaration
BOOK.differential(ASYNC, "WMA")

DOCS = "Flink docs: Asynchronous I/O for External Data Access (Order of Results, Event Time); AsyncDataStream javadoc"
CAPACITY_DOCS = "Flink docs: Asynchronous I/O for External Data Access (Async I/O API: capacity); AsyncDataStream"
TIMEOUT_DOCS = ("Flink docs: Asynchronous I/O for External Data Access (Timeout Handling: 'When an async I/O request "
                "times out, by default an exception is thrown and job is restarted'); AsyncFunction.timeout javadoc "
                "('By default, the result future is exceptionally completed with a timeout exception'); "
                "AsyncDataStream javadoc (timeout: for the asynchronous operation to complete)")
FAILURE_DOCS = ("ResultFuture.completeExceptionally javadoc ('Completes the result future exceptionally with an "
                "exception'; complete: 'should be called for exactly one time'); Flink docs: Asynchronous I/O "
                "(Timeout Handling: the job is restarted); docs/protocol/watermark-async.md (the function's "
                "exception)")


def _long(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and LONG_MIN <= x <= LONG_MAX


def _item_ok(item: Any) -> bool:
    if not isinstance(item, Mapping):
        return False
    if set(item) == {"watermark"}:
        return _long(item["watermark"])
    return set(item) in ({"record"}, {"record", "timestamp"}) and _long(item["record"]) \
        and _long(item.get("timestamp", 0))


def _exception_ok(x: Any) -> bool:
    return isinstance(x, Mapping) and isinstance(x.get("exception"), str) and isinstance(x.get("message"), str)


def _failure_ok(x: Any) -> bool:
    return _exception_ok(x) and set(x) == {"exception", "message", "cause"} and _exception_ok(x["cause"]) \
        and set(x["cause"]) == {"exception", "message"}


def _step_ok(step: Any, n: int) -> bool:
    if not isinstance(step, Mapping) or not set(step) <= {"emitted", "held", "admitted", "failures"}:
        return False
    emitted, admitted, failures = step.get("emitted"), step.get("admitted", []), step.get("failures", [])
    return isinstance(emitted, list) and all(_item_ok(i) for i in emitted) and step.get("held", True) is True \
        and isinstance(admitted, list) and all(_long(a) and 0 <= a < n for a in admitted) \
        and isinstance(failures, list) and all(_failure_ok(f) for f in failures)


@BOOK.invariant("WMA-1", ASYNC, "The answer holds one step per event: what the operator emitted then ({record} with "
                "its timestamp if it has one, or {watermark}), whether the event was held (not processed on arrival) "
                "and which held inputs it admitted (and, with timeouts and failures, what the job was failed with: "
                "an exception and its cause).", "docs/protocol/watermark-async.md")
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
    was admitted at), the records completed by then (name: results; a record timed out or failed has the timeout
    override's results or none), and the causes the job is failed with at this step (exception, message)."""

    index: int
    emitted: tuple[Mapping[str, Any], ...]
    admitted: tuple[tuple[int, int], ...]  # (event index, admitted at step)
    completed: Mapping[str, tuple[int, ...]]
    causes: tuple[tuple[str, str], ...] = ()


def _replay(req: Request, resp: Response) -> tuple[list[Mapping[str, Any]], list[Moment]] | None:
    steps = output_steps(resp)
    if steps is None or shape(req, resp, None) != []:  # type: ignore[arg-type]
        return None
    inp = req["input"]
    events: list[Mapping[str, Any]] = inp["events"]
    timeout = inp.get("timeout", 0)
    override = inp.get("timeout_results")
    admitted: list[tuple[int, int]] = []
    completed: dict[str, tuple[int, ...]] = {}
    taken_at: dict[str, int] = {}  # record: the processing time it was taken at
    clock = 0
    out: list[Moment] = []
    for i, (ev, step) in enumerate(zip(events, steps, strict=True)):
        causes: list[tuple[str, str]] = []
        kind = ev.get("kind")
        if kind == "complete" and ev["name"] not in completed:
            completed[ev["name"]] = tuple(ev["results"])
        elif kind == "fail" and ev["name"] not in completed:
            completed[ev["name"]] = ()
            causes.append((FAIL_CAUSE, ev.get("message", "async request failed")))
        elif kind == "advance":
            clock += ev["ms"]
            for name, t in taken_at.items():
                if isinstance(timeout, int) and timeout > 0 and t + timeout <= clock and name not in completed:
                    completed[name] = tuple(override) if override is not None else ()
                    if override is None:
                        causes.append(TIMEOUT_CAUSE)
        elif kind in ("record", "watermark", "end") and not step.get("held"):
            admitted.append((i, i))
            if kind == "record":
                taken_at[ev["name"]] = clock
        for a in step.get("admitted", []):
            admitted.append((a, i))
            if events[a].get("kind") == "record":
                taken_at[events[a]["name"]] = clock
        out.append(Moment(i, tuple(step["emitted"]), tuple(admitted), dict(completed), tuple(causes)))
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


def _causes(step: Mapping[str, Any]) -> Counter[tuple[str, str]]:
    return Counter((f["cause"]["exception"], f["cause"]["message"]) for f in step.get("failures", []))


@BOOK.invariant("WMA-7", ASYNC, "With a timeout, a record whose request has not completed when processing time "
                "reaches the time it was taken plus the timeout times out at that advance, once: by default the job "
                "fails with a TimeoutException, with a timeout override its results are the override's; a request "
                "completed before never times out, and nothing else fails with a TimeoutException.", TIMEOUT_DOCS)
def timeouts(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    replay = _replay(req, resp)
    if replay is None:
        return []
    _, moments = replay
    for m, step in zip(moments, output_steps(resp) or [], strict=False):
        want = sum(1 for c in m.causes if c == TIMEOUT_CAUSE)
        got = sum(n for (cls, _), n in _causes(step).items() if cls == TIMEOUT_CAUSE[0])
        if got != want:
            return [Violation("WMA-7", f"step {m.index}: {got} requests failed with a TimeoutException, "
                              f"{want} timed out then")]
    return []


@BOOK.invariant("WMA-8", ASYNC, "A request completed exceptionally fails the job at that step, with the function's "
                "exception as the cause, unless it had completed (or timed out) before; no step fails otherwise.",
                FAILURE_DOCS)
def failures(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    replay = _replay(req, resp)
    if replay is None:
        return []
    _, moments = replay
    for m, step in zip(moments, output_steps(resp) or [], strict=False):
        want = Counter(c for c in m.causes if c != TIMEOUT_CAUSE)
        got = Counter({c: n for c, n in _causes(step).items() if c[0] != TIMEOUT_CAUSE[0]})
        if got != want:
            return [Violation("WMA-8", f"step {m.index}: the job failed with the causes {sorted(got.elements())}, "
                              f"the requests that failed then give {sorted(want.elements())}")]
    return []
