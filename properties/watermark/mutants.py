"""Watermark mutants: bugs a reimplementation of the valve, a multi-input operator or the timer
service plausibly has. Each is the oracle with its input or output rewritten."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import oracle
import oracle.watermark
from oracle.valve import LONG_MAX, Element, StatusWatermarkValve, Watermark
from oracle.versions import v
from oracle.watermark import COMBINED, TIMERS, VALVE
from properties.mutant import PR, Mutant, Request, Response, historical, undo, with_patches

MUTANTS: list[Mutant] = []  # this module's mutants, in the order flinkspec mutants lists them

ListKey = str  # "emitted" or "fired"


def _without(request: Request, drop: Callable[[dict[str, Any]], bool], key: ListKey) -> Response:
    """Answer as if the events for which ``drop`` holds never arrived (they emit nothing)."""
    events = request["input"]["events"]
    kept = [e for e in events if not drop(e)]
    resp = oracle.answer({**request, "input": {**request["input"], "events": kept}})
    if "output" not in resp:
        return resp
    produced = iter(resp["output"][key])
    return {**resp, "output": {key: [[] if drop(e) else next(produced) for e in events]}}


Elements = list[dict[str, Any]]


def _map_lists(response: Response, key: ListKey, fn: Callable[[int, Elements], Elements]) -> Response:
    out = response.get("output")
    if not isinstance(out, dict):
        return response
    return {**response, "output": {key: [fn(i, lst) for i, lst in enumerate(out[key])]}}


def _is_status(e: dict[str, Any]) -> bool:
    return "status" in e


def _no_flush(_req: Request, resp: Response) -> Response:
    def strip(_i: int, emitted: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [e for e in emitted if "status" in e] if {"status": "IDLE"} in emitted else emitted
    return _map_lists(resp, "emitted", strip)


def _idle_first(_req: Request, resp: Response) -> Response:
    def reorder(_i: int, emitted: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return sorted(emitted, key=lambda e: "status" not in e) if {"status": "IDLE"} in emitted else emitted
    return _map_lists(resp, "emitted", reorder)


def _reemit_on_active(req: Request, resp: Response) -> Response:
    last: list[int | None] = [None]

    def add(i: int, emitted: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for e in emitted:
            if "watermark" in e:
                last[0] = e["watermark"]
        if emitted == [{"status": "ACTIVE"}] and last[0] is not None:
            return [*emitted, {"watermark": last[0]}]
        return emitted
    return _map_lists(resp, "emitted", add)


def _article(noun: str) -> str:
    return "an" if noun[0] in "aeiou" else "a"


def _valve_mutants(area: str, noun: str) -> None:
    prefix = "valve" if area == VALVE else "combined"
    MUTANTS.append(Mutant(f"{prefix}-ignores-idleness", area,
                  f"ignores IDLE/ACTIVE: an idle {noun} keeps holding the watermark back, no status is forwarded",
                  after=lambda req, _resp: _without(req, _is_status, "emitted")))
    MUTANTS.append(Mutant(f"{prefix}-no-flush", area,
                  f"when every {noun} goes idle, emits IDLE without first advancing to the largest watermark",
                  after=_no_flush))
    MUTANTS.append(Mutant(f"{prefix}-idle-before-flush", area,
                  "emits IDLE before the flush watermark instead of after it", after=_idle_first))
    MUTANTS.append(Mutant(f"{prefix}-reemit-on-active", area,
                  f"re-emits the current watermark when {_article(noun)} {noun} wakes up the output",
                  after=_reemit_on_active))


_valve_mutants(VALVE, "channel")
_valve_mutants(COMBINED, "input")


def _keep_idle_watermarks(req: Request, resp: Response) -> Response:
    """Watermarks that arrive on an idle channel are applied (as if the channel were active)."""
    events = req["input"]["events"]
    active = [True] * req["input"]["channels"]
    rewritten = []
    for e in events:
        if "status" in e:
            active[e["channel"]] = e["status"] == "ACTIVE"
            rewritten.append(e)
        elif not active[e["channel"]]:
            rewritten.append(e)  # the bug: the valve treats it as if it were active for a moment
            rewritten[-1] = {**e, "_wake": True}
        else:
            rewritten.append(e)
    expanded: list[dict[str, Any]] = []
    owner: list[int] = []
    for i, e in enumerate(rewritten):
        if e.get("_wake"):
            clean = {k: v for k, v in e.items() if k != "_wake"}
            for ev in ({"channel": e["channel"], "status": "ACTIVE"}, clean,
                       {"channel": e["channel"], "status": "IDLE"}):
                expanded.append(ev)
                owner.append(i)
        else:
            expanded.append(e)
            owner.append(i)
    answer = oracle.answer({**req, "input": {**req["input"], "events": expanded}})
    if "output" not in answer:
        return resp
    lists: list[list[dict[str, Any]]] = [[] for _ in events]
    for i, emitted in zip(owner, answer["output"]["emitted"], strict=True):
        lists[i].extend(e for e in emitted if "watermark" in e or not rewritten[i].get("_wake"))
    return {**resp, "output": {"emitted": lists}}


MUTANTS.append(Mutant("valve-idle-channel-watermarks-count", VALVE,
              "lets a watermark that arrives on an idle channel advance the output", after=_keep_idle_watermarks))


# ---- timers ----

def _fire_strictly_before(req: Request) -> Request:
    events = [{"watermark": e["watermark"] - 1} if "watermark" in e and e["watermark"] > -(1 << 63) else e
              for e in req["input"]["events"]]
    return {**req, "input": {**req["input"], "events": events}}


def _no_dedup(req: Request, resp: Response) -> Response:
    counts: Counter[tuple[Any, ...]] = Counter()
    events = req["input"]["events"]

    def fire(i: int, fired: list[dict[str, Any]]) -> list[dict[str, Any]]:
        e = events[i]
        key = (e.get("register", e.get("delete")), e.get("key"), e.get("namespace"))
        if "register" in e:
            counts[key] += 1
        elif "delete" in e:
            counts.pop(key, None)
        out = []
        for t in fired:
            k = (t["timestamp"], t["key"], t.get("namespace"))
            out += [t] * max(1, counts.pop(k, 1))
        return out
    return _map_lists(resp, "fired", fire)


def _one_per_watermark(req: Request, resp: Response) -> Response:
    return _map_lists(resp, "fired", lambda _i, fired: fired[:1])


MUTANTS.append(Mutant("timers-fire-strictly-before", TIMERS,
              "fires a timer only once the watermark is strictly past it (< instead of <=)",
              before=_fire_strictly_before))
MUTANTS.append(Mutant("timers-no-dedup", TIMERS,
              "fires a timer once per registration instead of once per (timestamp, key, namespace)",
              after=_no_dedup))
MUTANTS.append(Mutant("timers-delete-ignored", TIMERS, "ignores deleteEventTimeTimer",
              after=lambda req, _resp: _without(req, lambda e: "delete" in e, "fired")))
MUTANTS.append(Mutant("timers-one-per-watermark", TIMERS,
              "fires at most one timer per watermark (an `if` where Flink loops with `while`)",
              after=_one_per_watermark))


# ---- historical mutants (:func:`properties.mutant.historical`) -----------------------------------


class _MaxWhenNoneAligned(StatusWatermarkValve):
    """FLINK-7721: the minimum over aligned channels starts at Long.MAX_VALUE and is emitted even
    when no channel is aligned (``findAndOutputNewMinWatermarkAcrossAlignedChannels`` had no
    ``hasAlignedChannels`` check)."""

    def _emit_new_min(self) -> tuple[Element, ...]:
        if self._aligned_min.minimum() is None and self._last_watermark < LONG_MAX:
            self._last_watermark = LONG_MAX
            return (Watermark(LONG_MAX),)
        return super()._emit_new_min()


class _NoAllIdleFlush(StatusWatermarkValve):
    """FLINK-7728: when the last active channel goes idle, only IDLE is emitted (no flush)."""

    def _emit_max_over_all(self) -> tuple[Element, ...]:
        return ()


MUTANTS.append(historical(
    7721, VALVE,
    "StatusWatermarkValve emits Long.MAX_VALUE when no channel is aligned but some are active "
    "(e.g. the only aligned channel goes idle while an active one lags behind the output).",
    f"{PR}4738 (Flink 1.3.3 / 1.4.0)", "1.2.x, 1.3.0-1.3.2",
    after=with_patches((oracle.watermark, "StatusWatermarkValve", _MaxWhenNoneAligned))))
MUTANTS.append(historical(
    7728, VALVE,
    "StatusWatermarkValve does not flush the largest channel watermark when all channels go idle: "
    "the output watermark depends on the order in which the channels became idle.",
    f"{PR}4747 (Flink 1.3.3 / 1.4.0)", "1.3.0-1.3.2",
    after=with_patches((oracle.watermark, "StatusWatermarkValve", _NoAllIdleFlush))))

MUTANTS.append(historical(
    oracle.watermark.HEAP_REMOVAL_CHECKED, VALVE,
    "StatusWatermarkValve removes a channel going idle from its heap of aligned channels without checking "
    "that it is there: an active channel that is not aligned (it came back behind the output) throws "
    "ArrayIndexOutOfBoundsException when it goes idle (as Flink 1.17.0 does, SWV-11).",
    f"{PR}22382 (Flink 1.17.1)", "1.17.0",
    after=with_patches((oracle.watermark, "UNCHECKED_HEAP_REMOVAL", {v("1.13"): True}))))

MUTANTS.append(historical(
    oracle.watermark.IDLE_INPUTS_IGNORED, COMBINED,
    "An idle input still holds back the combined watermark of a two/multi-input operator (answers "
    "as Flink 1.13, whose operators ignore stream status; from 2.2 this also lacks FLINK-38454's flush).",
    f"{PR}15771 (Flink 1.14.0)", "1.13 and earlier", before=undo(oracle.watermark.IDLE_INPUTS_IGNORED)))
MUTANTS.append(historical(
    oracle.watermark.ALL_IDLE_FLUSH, COMBINED,
    "When every input of a multi-input operator goes idle, only IDLE is emitted: the largest "
    "input watermark is not flushed first (answers as Flink 2.1 from 2.2 on).",
    f"{PR}27066 (Flink 2.2.0)", "1.14-2.1", before=undo(oracle.watermark.ALL_IDLE_FLUSH)))
