"""Requests for ``checkpoint.coordinator``: event sequences with several checkpoints in flight.

1 to 4 tasks (sometimes only some of them sources); configurations around the defaults (max
concurrent 1-3 or unlimited, min pause 0 or a few ms, short timeouts so that expiry happens, 1-3
retained, 0-2 tolerable failures, unaligned); events at non-decreasing times: periodic and manual
triggers, savepoints and synchronous savepoints among checkpoints, acks for the newest ids, late,
duplicate and unknown acks, declines with the version's reasons, tasks failing and restarting,
ticks that let timeouts fire; now and then a burst of triggers past the 1000-request queue. One
sequence in three opens with a checkpoint declined (mostly at once) for a reason the failure manager
counts, two in nine with one or two checkpoints or savepoints completed, four in 27 with a savepoint
still pending when a newer checkpoint completes, then mostly declined: which reasons count changed
in 1.14 and 1.15, what the store keeps and the next completion subsumes in 1.15, and that failures
of checkpoints older than the last success do not count (FLINK-23189, FLINK-27570, FLINK-21351,
FLINK-25191, FLINK-18336 turn on these openings). One in nine opens with n or n + 1 counted
declines in a row at tolerable failures n (CCR-9; the last one, half the time, for a reason counted
only since 1.14 or 1.15), one in nine with a newer checkpoint completing while an older one is
pending (CCR-5), neither with savepoints later (both rules judge only sequences without them), and
one in nine with a task acknowledging a pending checkpoint twice (CCR-8).

Protocol 4 (feature ``checkpoint.coordinator.end``): one sequence in three meets the coordinator's end:
its random events include shutdown, stop_scheduler and id_counter events, and it closes with one of
them (shutdown or id_counter two times in five each) while a checkpoint is pending, followed by
triggers of each kind (after a failing ID counter a savepoint first, which starts at once), so
that what a shut-down or suspended coordinator or a failing ID counter does to pending and later
checkpoints is seen (CC-22 ... CC-24, CCR-13). The commit and abort notifications (CC-20, CC-21)
are part of every answer.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from oracle.coordinator import COORDINATOR as AREA
from oracle.coordinator_rules import rules_for
from oracle.versions import FlinkVersion
from properties.draws import booleans, choice, integers

COMMON_REASONS = ("CHECKPOINT_DECLINED", "CHECKPOINT_DECLINED_TASK_NOT_READY", "CHECKPOINT_EXPIRED",
                  "CHECKPOINT_ASYNC_EXCEPTION", "CHECKPOINT_SUBSUMED", "TASK_FAILURE", "FINALIZE_CHECKPOINT_FAILURE",
                  "IO_EXCEPTION")
TRIGGERS = ("periodic", "periodic", "checkpoint", "savepoint", "sync_savepoint")
# counted towards the tolerable failures from 1.14 (FLINK-23189) and 1.15 (FLINK-27570)
CHANGED_COUNTING = ("IO_EXCEPTION", "FINALIZE_CHECKPOINT_FAILURE")


@st.composite
def _config(draw: st.DrawFn) -> dict[str, Any]:
    config: dict[str, Any] = {}
    if draw(booleans()):
        config["max_concurrent"] = choice(draw, [1, 1, 2, 3, 2147483647])
    if draw(booleans()):
        config["min_pause_ms"] = choice(draw, [0, 1, 5, 20])
    if draw(booleans()):
        config["timeout_ms"] = choice(draw, [10, 15, 50, 600000])
    if draw(booleans()):
        config["retained"] = choice(draw, [1, 2, 3])
    if draw(booleans()):
        config["tolerable_failures"] = choice(draw, [0, 0, 1, 2, 2147483647])
    if draw(integers(0, 5)) == 0:
        config["unaligned"] = True
    if draw(integers(0, 40)) == 0:
        config[choice(draw, ["retained", "timeout_ms", "max_concurrent"])] = 0  # rejected
    return config


def _failures_at_threshold(draw: st.DrawFn, payload: dict[str, Any],
                           version: FlinkVersion) -> tuple[list[dict[str, Any]], int]:
    """n or n + 1 checkpoints (n = tolerable failures, 0-2), each triggered and declined at once for a
    reason the failure manager counts: the job must fail on the (n+1)-th, not before, not after."""
    n = choice(draw, [0, 1, 2])
    payload["config"] = {k: val for k, val in payload["config"].items() if k not in ("min_pause_ms", "max_concurrent")}
    payload["config"]["tolerable_failures"] = n
    counted = sorted(rules_for(version).counted)
    changed = [r for r in CHANGED_COUNTING if r in counted]  # whether these count changed between versions
    events: list[dict[str, Any]] = []
    failures = n + choice(draw, [0, 1, 1])
    for cid in range(1, failures + 1):
        last_changed = cid == failures and changed and draw(booleans())  # the decisive one, often
        events += [{"at": 0, "trigger": "periodic"},
                   {"at": 0, "decline": choice(draw, payload["tasks"]), "checkpoint": cid,
                    "reason": choice(draw, changed if last_changed else counted)}]
    return events, failures


def _subsumed_opening(draw: st.DrawFn, payload: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """Two checkpoints pending at once (max concurrent raised to 2 or 3); every task acknowledges the
    newer: it completes and subsumes the older, which must be reported aborted (CHECKPOINT_SUBSUMED)."""
    payload["config"]["max_concurrent"] = max(2, payload["config"].get("max_concurrent", 1))
    payload["config"].pop("min_pause_ms", None)
    payload["config"].pop("timeout_ms", None)
    acks = [{"at": 0, "ack": t, "checkpoint": 2} for t in payload["tasks"]]
    older = [{"at": 0, "ack": t, "checkpoint": 1} for t in payload["tasks"][1:] if draw(booleans())]
    return [{"at": 0, "trigger": "periodic"}, {"at": 0, "trigger": "periodic"}, *older, *acks], 2


def _duplicate_ack(draw: st.DrawFn, payload: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """A task acknowledges a pending checkpoint twice while another task has not acknowledged it yet (a second
    task is added if there is one only): the second acknowledgement must be DUPLICATE (CCR-8)."""
    tasks = payload["tasks"]
    if len(tasks) == 1:
        tasks.append("t1")
    payload["config"].pop("timeout_ms", None)
    twice = choice(draw, tasks[:-1])
    return [{"at": 0, "trigger": "periodic"}, {"at": 0, "ack": twice, "checkpoint": 1},
            {"at": 0, "ack": twice, "checkpoint": 1}], 1


@st.composite
def inputs(draw: st.DrawFn, version: FlinkVersion) -> dict[str, Any]:
    tasks = [f"t{i}" for i in range(draw(integers(1, 4)))]
    payload: dict[str, Any] = {"config": draw(_config()), "tasks": tasks}
    if len(tasks) > 1 and draw(integers(0, 3)) == 0:
        payload["sources"] = tasks[:1]
    reasons = sorted(set(COMMON_REASONS) & set(rules_for(version).reasons)) or sorted(rules_for(version).reasons)
    events: list[dict[str, Any]] = []
    at, triggered = 0, 0
    opening = draw(integers(0, 8))
    if opening == 0:  # CCR-9: declined checkpoints one after another, up to the threshold or one past it
        events, triggered = _failures_at_threshold(draw, payload, version)
    elif opening == 1:  # CCR-5: a newer checkpoint completes while an older one is pending (it is subsumed)
        events, triggered = _subsumed_opening(draw, payload)
    elif opening == 8:  # CCR-8: a task acknowledges a pending checkpoint twice
        events, triggered = _duplicate_ack(draw, payload)
    elif draw(integers(0, 2)) == 0:  # a pending checkpoint, declined for reasons the failure manager counts
        reasons = sorted(rules_for(version).counted)
        events.append({"at": 0, "trigger": "periodic"})
        triggered = 1
        if draw(integers(0, 3)) != 0:  # mostly at once: which reasons count changed in 1.14 and 1.15
            events.append({"at": 0, "decline": choice(draw, tasks), "checkpoint": 1, "reason": choice(draw, reasons)})
    elif draw(integers(0, 2)) == 0:  # completed first: what the store keeps, and what the next one subsumes
        kinds = ["periodic", *(choice(draw, TRIGGERS) for _ in range(draw(integers(0, 1))))]
        for triggered, kind in enumerate(kinds, 1):
            events += [{"at": 0, "trigger": kind}, *({"at": 0, "ack": t, "checkpoint": triggered} for t in tasks)]
    elif draw(integers(0, 2)) == 0:  # a savepoint outlives a newer completed checkpoint (nothing subsumes it)
        if payload["config"].get("max_concurrent", 1) == 1:
            payload["config"]["max_concurrent"] = 2
        events += [{"at": 0, "trigger": "savepoint"}, {"at": 0, "trigger": "periodic"},
                   *({"at": 0, "ack": t, "checkpoint": 2} for t in tasks)]
        triggered = 2
        if draw(integers(0, 3)) != 0:  # then fails: older than the last success, not counted (CC-13)
            events.append({"at": 0, "decline": choice(draw, tasks), "checkpoint": 1,
                           "reason": choice(draw, sorted(rules_for(version).counted))})
    if draw(integers(0, 39)) == 0:  # past the request queue's 1000 entries
        events += [{"at": 0, "trigger": "periodic"}] * draw(integers(1000, 1003))
    ending = draw(integers(0, 2)) == 0  # the coordinator's end (protocol 4)
    kinds = ["trigger"] * 4 + ["ack"] * 8 + ["decline", "fail", "restart", "tick"] + (["end"] if ending else [])
    for _ in range(draw(integers(0, 30))):
        at += choice(draw, [0, 0, 1, 2, 5, 20, 60])
        kind = choice(draw, kinds)
        if kind == "end":
            events.append(_end_event(draw, at))
            continue
        if kind == "trigger":
            events.append({"at": at, "trigger": choice(draw, TRIGGERS[:3] if opening < 2 else TRIGGERS)})
            triggered += 1
        elif kind in ("ack", "decline"):
            newest = max(triggered, 1)
            cid = choice(draw, [newest, newest, newest - 1, newest + 1, 1])
            event: dict[str, Any] = {"at": at, kind: choice(draw, tasks), "checkpoint": max(1, cid)}
            if kind == "decline":
                event["reason"] = choice(draw, reasons)
            events.append(event)
            if kind == "ack" and draw(booleans()):  # the other tasks follow soon
                events += [{"at": at, "ack": t, "checkpoint": max(1, cid)} for t in tasks if t != event["ack"]]
        elif kind in ("fail", "restart"):
            events.append({"at": at, kind: choice(draw, tasks)})
        else:
            events.append({"at": at, "tick": True})
    if ending:  # a pending checkpoint meets the end, then triggers of each kind are refused or not
        events.append({"at": at, "trigger": "checkpoint"})
        end = choice(draw, CLOSING_KINDS)
        events.append(_end_event(draw, at, end))
        # after a failing counter a savepoint first: forced, it starts although the checkpoint is still pending
        first = "savepoint" if end == "id_counter" else "checkpoint"
        for kind in (first, "periodic", choice(draw, TRIGGERS)):
            events.append({"at": at, "trigger": kind})
        events += [{"at": at, "ack": t, "checkpoint": triggered + 2} for t in tasks if draw(booleans())]
    payload["events"] = events
    return payload


END_KINDS = ("shutdown", "shutdown", "stop_scheduler", "id_counter")
CLOSING_KINDS = ("shutdown", "shutdown", "stop_scheduler", "id_counter", "id_counter")


def _end_event(draw: st.DrawFn, at: int, kind: str | None = None) -> dict[str, Any]:
    """A shutdown, stop_scheduler or id_counter event at ``at``."""
    kind = kind or choice(draw, END_KINDS)
    return {"at": at, kind: "fail" if kind == "id_counter" else True}


def requests(version: FlinkVersion) -> st.SearchStrategy[dict[str, Any]]:
    """Protocol requests for ``checkpoint.coordinator`` and ``version``."""
    return inputs(version).map(lambda i: {"area": AREA, "flink": str(version), "input": i})


def adapt(inp: dict[str, Any], version: FlinkVersion) -> dict[str, Any]:
    """A corpus input for ``version``: a decline reason the version lacks becomes CHECKPOINT_DECLINED."""
    reasons = rules_for(version).reasons
    if all(e.get("reason", "CHECKPOINT_DECLINED") in reasons for e in inp["events"]):
        return inp
    events = [{**e, "reason": "CHECKPOINT_DECLINED"} if "reason" in e and e["reason"] not in reasons else e
              for e in inp["events"]]
    return {**inp, "events": events}
