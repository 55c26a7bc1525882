"""The documented watermark rules, as checks on any implementation's own answers.

Sources: a seed article on how watermarks propagate through Flink 1.11 (how StatusWatermarkValve
aligns, idles and flushes, how operators combine inputs and fire timers), the Javadoc of
``StatusWatermarkValve``, ``WatermarkStatus``, ``IndexedCombinedWatermarkStatus`` and
``InternalTimerService``, and Flink's documentation on idleness ("Dealing With Idle Sources").
Each check replays the request's events into a small sketch of what the documentation promises
(which channels are active, what each delivered) and compares the answer with it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from oracle.versions import FlinkVersion
from oracle.watermark import ALL_IDLE_FLUSH, COMBINED, HEAP_REMOVAL_CHECKED, IDLE_INPUTS_IGNORED, TIMERS, VALVE
from properties.rules import Check, Request, Response, RuleBook, Violation

BOOK = RuleBook()  # the rules this module declares, named by its areas' declarations

LONG_MIN = -(1 << 63)
BOOK.differential(VALVE, "WM")
BOOK.differential(COMBINED, "CWM")
BOOK.differential(TIMERS, "TIMER")


@attrs.define
class Sketch:
    """What the documentation says the valve knows: per-channel status and watermark."""

    active: list[bool]
    wm: list[int | None]  # every channel starts at Long.MIN_VALUE and holds the output there
    out: int | None = LONG_MIN  # like lastOutputWatermark: Long.MIN_VALUE is never emitted
    idle_out: bool = False

    @classmethod
    def of(cls, n: int) -> Sketch:
        return cls([True] * n, [LONG_MIN] * n)

    def aligned_min(self, floor: int | None) -> int | None:
        vals = [w for a, w in zip(self.active, self.wm, strict=True)
                if a and w is not None and (floor is None or w >= floor)]
        return min(vals) if vals else None


def accepted(resp: Response) -> bool:
    """The answer is an output, no error: any error answer, of whatever type or shape and even next to
    an output, is a refusal, and none of these rules judges it."""
    return "output" in resp and resp.get("error") is None


def _steps(req: Request, resp: Response, index: str) -> list[tuple[dict[str, Any], list[dict[str, Any]]]] | None:
    out = resp.get("output")
    if not accepted(resp) or not isinstance(out, dict) or not isinstance(out.get("emitted"), list):
        return None
    events = req["input"]["events"]
    if len(out["emitted"]) != len(events):
        return None
    return list(zip(events, out["emitted"], strict=True))


def _shape(rule: str, req: Request, resp: Response) -> list[Violation]:
    if not accepted(resp):
        return []
    out = resp["output"]
    events = req["input"]["events"]
    if not isinstance(out, dict) or not isinstance(out.get("emitted"), list) or len(out["emitted"]) != len(events):
        return [Violation(rule, "the answer must hold one list of emitted elements per input event")]
    for i, emitted in enumerate(out["emitted"]):
        for el in emitted if isinstance(emitted, list) else [None]:
            ok = isinstance(el, dict) and (
                (set(el) == {"watermark"} and type(el["watermark"]) is int)
                or (set(el) == {"status"} and el["status"] in ("IDLE", "ACTIVE"))
            )
            if not ok:
                return [Violation(rule, f"emitted[{i}] holds {el!r}, not a watermark or a status")]
    return []


def _replay(req: Request, resp: Response, index: str, checks: dict[str, SequenceCheck]) -> dict[str, Violation]:
    """Replay the events once into the sketch and run every check at every step; the first
    problem of each rule is kept."""
    steps = _steps(req, resp, index)
    if steps is None:
        return {}
    n = req["input"]["channels" if index == "channel" else "inputs"]
    if index == "channel" and "subpartitions" in req["input"]:
        sliced = _by_slot(req["input"]["subpartitions"], steps)
        if sliced is None:
            return {}
        n, steps = sliced
    sk = Sketch.of(n)
    found: dict[str, Violation] = {}
    for i, (ev, emitted) in enumerate(steps):
        before = Sketch(list(sk.active), list(sk.wm), sk.out, sk.idle_out)
        ch = ev[index]
        if "watermark" in ev:
            if sk.active[ch] and (sk.wm[ch] is None or ev["watermark"] > sk.wm[ch]):
                sk.wm[ch] = ev["watermark"]
        else:
            sk.active[ch] = ev["status"] == "ACTIVE"
        for el in emitted:
            if "watermark" in el:
                sk.out = el["watermark"]
            else:
                sk.idle_out = el["status"] == "IDLE"
        for rule, check in checks.items():
            if rule not in found:
                problem = check(i, ev, emitted, before, sk)
                if problem:
                    found[rule] = Violation(rule, f"event {i} {ev}: {problem}")
        if len(found) == len(checks):
            break
    return found


def _by_slot(ranges: list[list[int]], steps: list[tuple[dict[str, Any], list[dict[str, Any]]]]
             ) -> tuple[int, list[tuple[dict[str, Any], list[dict[str, Any]]]]] | None:
    """Since 1.19 a channel may consume subpartitions ``first..last``, and the valve keeps one
    watermark and status per (channel, subpartition): the rules hold per such slot, so the events
    are replayed on slots. None (no sequence rule applies) for a status event on a channel of
    several subpartitions, which Flink refuses (SWV-10)."""
    offsets, total = [], 0
    for first, last in ranges:
        offsets.append(total)
        total += last - first + 1
    out = []
    for ev, emitted in steps:
        first, last = ranges[ev["channel"]]
        if "status" in ev and last > first:
            return None
        slot = offsets[ev["channel"]] + ev.get("subpartition", first) - first
        out.append(({**{k: x for k, x in ev.items() if k != "subpartition"}, "channel": slot}, emitted))
    return total, out


_LAST: list[Any] = [None, None, {}]  # (request, response, violations) of the last replay


def _replayed(req: Request, resp: Response, area: str) -> dict[str, Violation]:
    """The violations of every sequence rule of ``area``, replayed once per answer (not per rule)."""
    if _LAST[0] is not req or _LAST[1] is not resp:
        _LAST[:] = [req, resp, _replay(req, resp, "channel" if area == VALVE else "input", _SEQUENCE_CHECKS[area])]
    violations: dict[str, Violation] = _LAST[2]
    return violations


Event = dict[str, Any]  # an event of the request, or an element the answer emitted for one
SequenceCheck = Callable[[int, Event, list[Event], Sketch, Sketch], "str | None"]
_SEQUENCE_CHECKS: dict[str, dict[str, SequenceCheck]] = {VALVE: {}, COMBINED: {}}


def _strictly_increasing(i: int, ev: Event, emitted: list[Event], before: Sketch, after: Sketch) -> str | None:
    last = before.out
    for el in emitted:
        if "watermark" in el:
            if last is not None and el["watermark"] <= last:
                return f"emitted watermark {el['watermark']} after {last}: output watermarks must strictly increase"
            last = el["watermark"]
    return None


def _never_invents_time(i: int, ev: Event, emitted: list[Event], before: Sketch, after: Sketch) -> str | None:
    delivered = [w for w in after.wm if w is not None]
    for el in emitted:
        if "watermark" in el and (not delivered or el["watermark"] > max(delivered)):
            return f"emitted watermark {el['watermark']} is ahead of every channel ({delivered})"
    return None


def _min_of_aligned(i: int, ev: Event, emitted: list[Event], before: Sketch, after: Sketch) -> str | None:
    return _min_rule(ev, emitted, before, after, after.aligned_min(before.out))


def _min_of_active(i: int, ev: Event, emitted: list[Event], before: Sketch, after: Sketch) -> str | None:
    return _min_rule(ev, emitted, before, after, after.aligned_min(None))


def _min_rule(ev: Event, emitted: list[Event], before: Sketch, after: Sketch, want: int | None) -> str | None:
    accepted = "watermark" in ev and before.wm != after.wm
    if not accepted or not any(after.active):
        return None
    if want is not None and before.out is not None and want <= before.out:
        want = None
    got = [el["watermark"] for el in emitted if "watermark" in el]
    if (got[-1:] or [None])[0] != want and not (want is None and not got):
        return (f"the output should become {want} (the minimum over active channels at or above the output "
                f"{before.out}), emitted {emitted}")
    return None


def _status_transitions(i: int, ev: Event, emitted: list[Event], before: Sketch, after: Sketch) -> str | None:
    statuses = [el["status"] for el in emitted if "status" in el]
    went_idle = any(before.active) and not any(after.active)
    woke_up = not any(before.active) and any(after.active)
    want = ["IDLE"] if went_idle else ["ACTIVE"] if woke_up else []
    if statuses != want:
        return f"status output {statuses}, expected {want} (statuses change only when all / the first channel change)"
    return None


def _quiet_when_idle_or_waking(i: int, ev: Event, emitted: list[Event], before: Sketch, after: Sketch) -> str | None:
    wms = [el for el in emitted if "watermark" in el]
    if wms and ev.get("status") == "ACTIVE" and "channel" in ev:
        return f"a channel becoming active emitted {wms}"
    if wms and before.idle_out and not any(after.active):
        return f"emitted {wms} while the output is idle"
    return None


def _flush_when_all_idle(i: int, ev: Event, emitted: list[Event], before: Sketch, after: Sketch) -> str | None:
    if not (any(before.active) and not any(after.active)):
        return None
    kinds = ["status" if "status" in el else "watermark" for el in emitted]
    if "status" in kinds and "watermark" in kinds[kinds.index("status"):]:
        return f"a watermark follows the IDLE status in {emitted}: the flush must come first"
    delivered = [w for w in after.wm if w is not None]
    if delivered and (after.out is None or after.out < max(delivered)):
        return (f"every channel is idle, but the output ({after.out}) has not reached the largest watermark "
                f"delivered ({max(delivered)})")
    return None


def _ignored_watermarks(i: int, ev: Event, emitted: list[Event], before: Sketch, after: Sketch) -> str | None:
    if "watermark" not in ev or not emitted:
        return None
    ch = ev.get("channel", ev.get("input"))
    assert ch is not None  # _replay has already indexed the sketch with it
    if not before.active[ch]:
        return f"a watermark on an idle channel emitted {emitted}"
    if before.wm[ch] is not None and ev["watermark"] <= before.wm[ch]:
        return f"a watermark not above the channel's last ({before.wm[ch]}) emitted {emitted}"
    return None


ART = "seed article on watermarks"
_VALVE_CODE = f"{ART}, quoting StatusWatermarkValve (1.11)"
COMBINED_SOURCE = "IndexedCombinedWatermarkStatus / AbstractStreamOperatorV2 Javadoc"
VALVE_SOURCES = {  # the claim of the seed article each valve rule rests on
    "WM-1": "StatusWatermarkValve Javadoc",
    "WM-2": f"{ART} (translated): 'if there are aligned channels and this earliest timestamp is later than "
            "lastOutputWatermark, emit it downstream as the watermark'; StatusWatermarkValve Javadoc",
    "WM-3": f"{ART} (translated): 'using the smallest upstream watermark is, as far as results go, never wrong "
            "(the fallback strategy)'; StatusWatermarkValve Javadoc",
    "WM-4": f"{ART}, quoting the StreamStatus Javadoc (1.11): 'the watermarks of input streams that are temporarily "
            "idle, or has resumed to be active but its watermark is behind the overall min watermark of the "
            "operator, should not be accounted for'; StatusWatermarkValve Javadoc",
    "WM-5": f"{_VALVE_CODE}: 'if all input channels of the valve are now idle, we need to output an idle stream "
            "status'; 'if the valve was previously marked to be idle, mark it as active and output an active stream "
            "status'",
    "WM-6": f"{_VALVE_CODE}: 'ignore the input watermark if its input channel, or all input channels are idle "
            "(i.e. overall the valve is idle)'; StatusWatermarkValve Javadoc",
    "WM-7": f"{ART} (translated): 'if all channels have now become idle and this channel emitted "
            "lastOutputWatermark, perform FlushAll: emit the largest watermark of all channel states'; "
            "StatusWatermarkValve Javadoc",
    "WM-8": f"{_VALVE_CODE}: 'ignore the input watermark if its input channel, or all input channels are idle'; "
            "'if the input watermark's value is less than the last received watermark for its input channel, "
            "ignore it also'",
}


def _rules(area: str, index: str, what: str) -> None:
    table = [
        (("WM-1", "CWM-1"),
         "The answer holds one list per event; each element is a watermark (a long) or an IDLE/ACTIVE status.",
         None),
        (("WM-2", "CWM-2"),
         f"Output watermarks strictly increase: the {what} never emits a watermark at or below one it emitted.",
         _strictly_increasing),
        (("WM-3", "CWM-3"),
         f"The {what} never emits a watermark ahead of every {index}: each one is at most the largest "
            f"watermark delivered on an active {index}.", _never_invents_time),
        (("WM-4", "CWM-4"),
         f"After a {index} accepts a watermark, the output is the minimum watermark over the active {index}s, "
            f"ignoring idle {index}s and {index}s that resumed behind the output; it is emitted when it rises.",
         _min_of_aligned) if area == VALVE else
        (("WM-4", "CWM-4"),
         "After an input accepts a watermark, the output is the minimum watermark over the active inputs "
            "(idle ones do not hold it back); it is emitted when it rises above the last output.",
         _min_of_active),
        (("WM-5", "CWM-5"),
         f"IDLE is emitted exactly when the last active {index} goes idle, ACTIVE exactly when the first "
            f"{index} becomes active again; no other event emits a status.", _status_transitions),
        (("WM-6", "CWM-6"),
         "No watermark is emitted while the output is idle, nor when a channel becomes active."
         if area == VALVE else "No watermark is emitted while the output is idle.", _quiet_when_idle_or_waking),
        (("WM-7", "CWM-7"),
         f"When every {index} has gone idle, in whatever order, the output watermark is first advanced "
            f"to the largest watermark any {index} delivered (the flush), then IDLE is emitted.",
         _flush_when_all_idle),
    ]
    if area == VALVE:  # a multi-input operator never sees a watermark on an idle input (its valve drops it)
        table.append((("WM-8", ""),
         "A watermark on an idle channel, or one not above that channel's last watermark, "
                         "emits nothing.", _ignored_watermarks))
    for ids, text, fn in table:
        rule_id = ids[0] if area == VALVE else ids[1]  # the IDs written out, so that grep finds each check
        src = VALVE_SOURCES[rule_id] if area == VALVE else COMBINED_SOURCE
        if fn is None:
            BOOK.invariant(rule_id, area, text, src)(_shape_check(rule_id))
        else:
            _SEQUENCE_CHECKS[area][rule_id] = fn
            BOOK.invariant(rule_id, area, text, src)(_sequence_check(rule_id, area))


def _shape_check(r: str) -> Check:
    return lambda req, resp, ver: _shape(r, req, resp)


def _sequence_check(r: str, a: str) -> Check:
    return lambda req, resp, ver: [] if _shape(r, req, resp) else [
        v for v in (_replayed(req, resp, a).get(r),) if v is not None]


_rules(VALVE, "channel", "valve")
_rules(COMBINED, "input", "operator")


# ---- timers ----


def _timer(t: object) -> bool:
    """A fired timer: ``{"timestamp": long, "key": str}``, with ``"namespace": str`` if it has one."""
    return (isinstance(t, dict) and set(t) <= {"timestamp", "key", "namespace"} and type(t.get("timestamp")) is int
            and isinstance(t.get("key"), str) and isinstance(t.get("namespace", ""), str))


def _malformed_fired(req: Request, resp: Response) -> str | None:
    """What is wrong with the shape of an accepted timers answer, or None."""
    out = resp.get("output")
    fired = out.get("fired") if isinstance(out, dict) else None
    if not isinstance(fired, list) or len(fired) != len(req["input"]["events"]):
        return "the answer must hold one list of fired timers per event"
    for i, f in enumerate(fired):
        if not isinstance(f, list) or not all(_timer(t) for t in f):
            return f"fired[{i}] = {str(f)[:200]} is not a list of timers (timestamp, key, namespace)"
    return None


def _fired(req: Request, resp: Response) -> list[list[dict[str, Any]]] | None:
    """The fired timers of a well-formed acceptance, else None."""
    if not accepted(resp) or _malformed_fired(req, resp):
        return None
    fired: list[list[dict[str, Any]]] = resp["output"]["fired"]
    return fired


def _tkey(t: dict[str, Any]) -> tuple[int, str, str | None]:
    return t.get("timestamp"), t.get("key"), t.get("namespace")  # type: ignore[return-value]


@BOOK.invariant("TIMER-1", TIMERS, "The answer holds one list of fired timers per event; only watermark events fire.",
           "docs/protocol/v1.md; InternalTimerServiceImpl")
def timers_shape(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    if not accepted(resp):
        return []
    problem = _malformed_fired(req, resp)
    if problem:
        return [Violation("TIMER-1", problem)]
    fired = resp["output"]["fired"]
    for i, (ev, f) in enumerate(zip(req["input"]["events"], fired, strict=True)):
        if f and "watermark" not in ev:
            return [Violation("TIMER-1", f"event {i} {ev} is not a watermark but fired {f}")]
    return []


@BOOK.invariant("TIMER-2", TIMERS, "Advancing the watermark to t fires exactly the registered, not deleted timers "
           "with timestamp <= t, each (timestamp, key, namespace) once however often it was registered; a timer "
           "never fires before the watermark reaches it.", f"{ART}, quoting InternalTimerServiceImpl.advanceWatermark "
           "(1.11): 'while ((timer = eventTimeTimersQueue.peek()) != null && timer.getTimestamp() <= time)'; "
           "InternalTimerService Javadoc")
def timers_fire_exactly_the_due_ones(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    fired = _fired(req, resp)
    if fired is None:
        return []
    pending: set[tuple[int, str, str | None]] = set()
    for i, (ev, f) in enumerate(zip(req["input"]["events"], fired, strict=True)):
        key = (ev.get("register", ev.get("delete")), ev.get("key"), ev.get("namespace"))
        if "register" in ev:
            pending.add(key)
        elif "delete" in ev:
            pending.discard(key)
        else:
            due = {t for t in pending if t[0] <= ev["watermark"]}
            got = [_tkey(t) for t in f]
            if len(got) != len(set(got)) or set(got) != due:
                return [Violation("TIMER-2", f"event {i} (watermark {ev['watermark']}) fired {sorted(got, key=str)}, "
                                             f"but the due timers are {sorted(due, key=str)}")]
            pending -= due
    return []


@BOOK.invariant("TIMER-3", TIMERS, "Timers fired by one watermark come in non-decreasing timestamp order.",
           f"{ART}, quoting InternalTimerServiceImpl.advanceWatermark (1.11): "
           "'while ((timer = eventTimeTimersQueue.peek()) != null ...) { eventTimeTimersQueue.poll(); ...'; "
           "InternalTimerServiceImpl.advanceWatermark; TimerHeapInternalTimer.comparePriorityTo (priority = timestamp)")
def timers_fire_in_timestamp_order(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    fired = _fired(req, resp)
    for i, f in enumerate(fired or []):
        stamps = [t.get("timestamp") for t in f]
        if stamps != sorted(stamps, key=lambda s: (s is None, s)):
            return [Violation("TIMER-3", f"event {i} fired timestamps {stamps} out of order")]
    return []


def timers_normalize(resp: dict[str, Any]) -> dict[str, Any]:
    """docs/protocol/v1.md's tie rule: timers with equal timestamps may come in any order."""
    out = resp.get("output")
    if not isinstance(out, dict) or not isinstance(out.get("fired"), list):
        return resp
    try:
        fired = [sorted(f, key=lambda t: (t["timestamp"], t["key"], t.get("namespace") or "")) for f in out["fired"]]
    except (KeyError, TypeError):
        return resp
    return {**resp, "output": {**out, "fired": fired}}


_ALWAYS = ("protocol pages (docs/protocol/v1.md, v2.md): the valve, a multi-input operator and the timer service take "
           "any sequence of watermarks, statuses and timer events; no Flink documentation names an input they "
           "refuse")
BOOK.accepted("WM-ACCEPTED", VALVE, lambda req, _v: "subpartitions" not in req["input"],
              "of a valve whose channels each consume one subpartition", _ALWAYS)
BOOK.accepted("CWM-ACCEPTED", COMBINED, lambda _req, _v: True, "of a multi-input operator", _ALWAYS)
BOOK.accepted("TIMER-ACCEPTED", TIMERS, lambda _req, _v: True, "of the timer service", _ALWAYS)

# Documented rules that real Flink itself breaks (found by `flinkspec check --impl flink
# --conformance documented`; docs/documented-rules.md). At conformance level
# `flink` these rules are not required of an implementation for those versions.
BOOK.flink_violates("WM-7", "the all-idle flush is skipped when the channel that goes idle last "
               "resumed behind the output (StatusWatermarkValve flushes only if that channel's watermark equals "
               "the last output)")
BOOK.flink_violates("CWM-4", "before FLINK-18934 (1.14) an idle input still holds back a two-input "
               "operator's watermark", before=IDLE_INPUTS_IGNORED)
BOOK.flink_violates("WM-ACCEPTED", "1.17.0's valve throws ArrayIndexOutOfBoundsException when an active channel that "
               "is not aligned goes idle (FLINK-31628, SWV-11)", before=HEAP_REMOVAL_CHECKED)
BOOK.flink_violates("CWM-7", "before FLINK-38454 (2.2) a multi-input operator whose inputs all go "
               "idle does not advance to the largest input watermark", before=ALL_IDLE_FLUSH)
