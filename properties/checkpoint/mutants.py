"""Checkpointing mutants: bugs a reimplementation of barrier handling plausibly has. Each is the
oracle with its input or its trace rewritten."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

import oracle.coordinator
import oracle.coordinator_machine
from oracle import coordinator_rules as rules
from oracle.alignment import ALIGNMENT, AlignmentEvent, Mode, TraceEntry
from oracle.coordinator import COORDINATOR
from oracle.coordinator_rules import Completed, CompletedStore, FailureManager, Rules, rules_for
from oracle.recovery import RECOVERY, recover, restore_from, restore_latest
from oracle.versions import FlinkVersion, parse_version
from properties.mutant import PR, Mutant, Request, Response, historical, with_patches

MUTANTS: list[Mutant] = []  # this module's mutants, in the order flinkspec mutants lists them


def _mode(mode: Mode, into: Mode) -> Any:
    def before(request: Request) -> Request:
        inp = request["input"]
        if not isinstance(inp, dict) or inp.get("mode") != mode:
            return request
        return {**request, "input": {**inp, "mode": into}}
    return before


def _trace(fn: Any) -> Any:
    def after(_req: Request, resp: Response) -> Response:
        out = resp.get("output")
        if not isinstance(out, dict) or not isinstance(out.get("trace"), list):
            return resp
        return {**resp, "output": {"trace": fn(out["trace"])}}
    return after


def _no_subsume(trace: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [s for s in trace if s.get("abort", [None, None])[1] != "CHECKPOINT_DECLINED_SUBSUMED"]


def _lifo_after_snapshot(trace: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    i = 0
    while i < len(trace):
        out.append(trace[i])
        i += 1
        if "emit_barrier" in out[-1]:
            j = i
            while j < len(trace) and "process" in trace[j]:
                j += 1
            out.extend(reversed(trace[i:j]))
            i = j
    return out


def _ends_ignored(request: Request) -> Request:
    inp = request["input"]
    if not isinstance(inp, dict) or not isinstance(inp.get("events"), list):
        return request
    events = [e for e in inp["events"] if not (isinstance(e, dict) and "end" in e)]
    return {**request, "input": {**inp, "events": events}}


for _m in (
    Mutant("align-no-blocking", ALIGNMENT, "Exactly-once does not block channels that delivered the barrier: records "
           "behind barrier n are processed before the snapshot (at-least-once behaviour).",
           before=_mode("exactly_once", "at_least_once")),
    Mutant("align-tracker-blocks", ALIGNMENT, "At-least-once aligns like exactly-once, blocking channels (correct "
           "results, but not Flink's trace: records are held back).", before=_mode("at_least_once", "exactly_once")),
    Mutant("align-no-subsume", ALIGNMENT, "A newer barrier silently replaces the pending checkpoint: no abort "
           "CHECKPOINT_DECLINED_SUBSUMED is sent for it.", after=_trace(_no_subsume),
           undocumented="Neither the seed article on fault tolerance nor Flink's documentation (Checkpointing; "
           "Stateful Stream Processing) says what a task does with its pending checkpoint when the barrier of a newer "
           "one arrives first: the abort CHECKPOINT_DECLINED_SUBSUMED is SingleCheckpointBarrierHandler's code. The "
           "subsumption the documents state is the coordinator's (the seed article on checkpoint coordination, "
           "translated: a checkpoint is subsumed 'if a checkpoint ckp2 newer than ckp1 completes successfully'), "
           "checked by CCR-5."),
    Mutant("align-lifo-after-unblock", ALIGNMENT, "Records buffered during alignment are replayed newest first once "
           "the checkpoint is taken.", after=_trace(_lifo_after_snapshot)),
    Mutant("align-ends-ignored", ALIGNMENT, "End of partition is ignored: it neither aborts nor completes a pending "
           "checkpoint and the channel still counts as open.", before=_ends_ignored),
):
    MUTANTS.append(_m)




def _config(**changes: Any) -> Any:
    def before(request: Request) -> Request:
        inp = request["input"]
        if not isinstance(inp, dict) or not isinstance(inp.get("config", {}), dict):
            return request
        return {**request, "input": {**inp, "config": {**inp.get("config", {}), **changes}}}
    return before


def _steps(fn: Any) -> Any:
    def after(_req: Request, resp: Response) -> Response:
        out = resp.get("output")
        if not isinstance(out, dict) or not isinstance(out.get("steps"), list):
            return resp
        return {**resp, "output": {"steps": fn(out["steps"])}}
    return after


def _keep_subsumed(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for s in steps:
        aborted = {k: r for k, r in s.get("aborted", {}).items() if r != "CHECKPOINT_SUBSUMED"}
        s = {k: val for k, val in s.items() if k != "aborted"} | ({"aborted": aborted} if aborted else {})
        out.append(s)
    return out


def _store_everything(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    stored: list[int] = []
    out = []
    for s in steps:
        if "retained" in s:
            stored += [c for c in s.get("completed", []) if c not in stored]
            s = {**s, "retained": list(stored)}
        out.append(s)
    return out


def _duplicate_is_success(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**s, "ack": "SUCCESS"} if s.get("ack") == "DUPLICATE" else s for s in steps]


for _m in (
    Mutant("cc-no-subsume", COORDINATOR, "A completed checkpoint does not subsume older pending checkpoints: they stay "
           "pending (no CHECKPOINT_SUBSUMED abort).", after=_steps(_keep_subsumed)),
    Mutant("cc-store-unbounded", COORDINATOR, "The completed-checkpoint store keeps every completed checkpoint "
           "(state.checkpoints.num-retained ignored).", after=_steps(_store_everything)),
    Mutant("cc-no-max-concurrent", COORDINATOR, "max_concurrent is ignored: every request starts a checkpoint at once.",
           before=_config(max_concurrent=2147483647)),
    Mutant("cc-no-timeout", COORDINATOR, "Pending checkpoints never expire (the checkpoint timeout is ignored).",
           before=_config(timeout_ms=1 << 41)),
    Mutant("cc-duplicate-ack-success", COORDINATOR, "A task acknowledging the same checkpoint twice gets SUCCESS "
           "again instead of DUPLICATE.", after=_steps(_duplicate_is_success)),
):
    MUTANTS.append(_m)




def _recovering(restore: Any) -> Any:
    def after(request: Request, resp: Response) -> Response:
        if "output" not in resp:
            return resp
        return {**resp, "output": recover(request["input"], parse_version(request["flink"]), restore)}
    return after


def _no_rewind(trace: list[TraceEntry], before: list[AlignmentEvent], channels: int) -> Any:
    cid, _offsets, state = restore_latest(trace, before, channels)
    emitted = [sum(1 for e in before if "record" in e and e["channel"] == c) for c in range(channels)]
    return cid, emitted, state


def _rewind_to_zero(trace: list[TraceEntry], before: list[AlignmentEvent], channels: int) -> Any:
    cid, _offsets, state = restore_latest(trace, before, channels)
    return cid, [0] * channels, state


def _state_lost(trace: list[TraceEntry], before: list[AlignmentEvent], channels: int) -> Any:
    cid, offsets, _state = restore_latest(trace, before, channels)
    return cid, offsets, {}


def _oldest(trace: list[TraceEntry], before: list[AlignmentEvent], channels: int) -> Any:
    return restore_from(trace, before, channels, latest=False)


for _m in (
    Mutant("rcv-no-rewind", RECOVERY, "Sources resume where they stopped instead of rewinding to the checkpoint's "
           "offsets: records in flight at the failure are lost.", after=_recovering(_no_rewind)),
    Mutant("rcv-rewind-to-start", RECOVERY, "Sources replay their logs from the start although the state is "
           "restored: records before the checkpoint are counted twice.", after=_recovering(_rewind_to_zero)),
    Mutant("rcv-state-not-restored", RECOVERY, "The operator restarts with empty state while the sources rewind to "
           "the checkpoint's offsets: everything before the checkpoint is lost.", after=_recovering(_state_lost)),
    Mutant("rcv-restore-oldest", RECOVERY, "The job restores the oldest complete checkpoint instead of the latest "
           "(consistent, but not what Flink restores: more is replayed).", after=_recovering(_oldest)),
):
    MUTANTS.append(_m)


# ---- historical mutants (:func:`properties.mutant.historical`) -----------------------------------


def _rules_with(**changes: Any) -> Callable[[FlinkVersion], Rules]:
    def tweaked(version: FlinkVersion) -> Rules:
        rules = rules_for(version)
        return attrs.evolve(rules, **{k: fn(getattr(rules, k)) for k, fn in changes.items()})
    return tweaked


class _DropOldest(CompletedStore):
    """FLINK-21351: the store drops its oldest entries past ``retain``, savepoint or not, so adding
    a savepoint with retain 1 discards the last checkpoint (``CheckpointSubsumeHelper`` absent)."""

    def add(self, checkpoint: Completed) -> list[Completed]:
        self._checkpoints.append(checkpoint)
        dropped = self._checkpoints[:-self._retain]
        self._checkpoints = self._checkpoints[-self._retain:]
        return dropped


MUTANTS.append(historical(
    rules.EXPIRED_ONLY_REMEMBERED, COORDINATOR,
    "The coordinator remembers every checkpoint removed from pending (declined, subsumed, aborted) "
    "and reports a late ack for any of them as a late message, not only for expired ones.",
    f"{PR}23364 (Flink 1.19.0)", "1.13-1.18",
    after=with_patches((oracle.coordinator, "rules_for", _rules_with(remembers_all_removed=lambda _: True))),
    undocumented="No document says how the coordinator answers an acknowledgement of a checkpoint that is no "
    "longer pending (reported as a late message, or as unknown): that is CheckpointCoordinator's bookkeeping of "
    "the checkpoints it removed (the protocol's was_pending), which only Flink's code decides."))
MUTANTS.append(historical(
    rules.SAVEPOINTS_NOT_STORED, COORDINATOR,
    "Savepoints are added to the completed-checkpoint store and subsume older pending checkpoints "
    "and stored checkpoints, as up to 1.14 (FLIP-193 changed this; a behaviour change, not a bug fix).",
    f"{PR}18092 (Flink 1.15.0)", "1.13-1.14",
    after=with_patches((oracle.coordinator, "rules_for", _rules_with(stores_savepoints=lambda _: True)))))
MUTANTS.append(historical(
    21351, COORDINATOR,
    "Adding a savepoint to the completed-checkpoint store with num-retained 1 subsumes the last "
    "checkpoint (incremental checkpoints then refer to discarded state). From 1.15 savepoints are "
    "no longer stored, so there the mutant also stores them, as the buggy code did.",
    f"{PR}14953 (Flink 1.12.2 / 1.13.0)", "1.10-1.12.1",
    after=with_patches((oracle.coordinator_machine, "CompletedStore", _DropOldest),
                        (oracle.coordinator, "rules_for", _rules_with(stores_savepoints=lambda _: True))),
    undocumented="Up to 1.14 Flink's documentation lets a savepoint stand in the store for recovery (Savepoints: "
    "'if there is no checkpoint after the last savepoint, the savepoint will be used for recovery') and bounds the "
    "store only by state.checkpoints.num-retained, which the mutant keeps; that the latest checkpoint must stay "
    "beside a savepoint (what incremental checkpoints refer to) no document says. From 1.15 it breaks CCR-10.",
    documented_since="1.15"))
class _NoLastSuccess(FailureManager):
    """FLINK-18336: before 1.12 ``CheckpointFailureManager`` kept no ``lastSucceededCheckpointId``: every
    success cleared the count, and a failure of a checkpoint older than the last success counted again."""

    def succeeded(self, checkpoint_id: int) -> None:
        self._clear()


MUTANTS.append(historical(
    18336, COORDINATOR,
    "The failure manager keeps no last successful checkpoint id: a checkpoint older than the last "
    "success that fails afterwards (a savepoint still pending when a newer checkpoint completes, then "
    "declined) counts towards the tolerable failures, and any success, even an older one, resets the count.",
    f"{PR}12751 (Flink 1.12.0)", "1.10 and earlier (1.11.x not checked)",
    after=with_patches((oracle.coordinator_machine, "FailureManager", _NoLastSuccess)),
    undocumented="The documentation defines execution.checkpointing.tolerable-failed-checkpoints only as 'the "
    "tolerable checkpoint consecutive failure number'. Without savepoints the mutant answers as Flink does (a "
    "completion subsumes every older pending checkpoint, and a subsumed one is not counted); it differs only when "
    "a savepoint outlives a newer completed checkpoint, and whether that savepoint's later failure or completion "
    "breaks or ends a run of 'consecutive' failures no document says: CheckpointFailureManager's "
    "lastSucceededCheckpointId decides (FLINK-18336)."))


def _not_counted(reason: str) -> Callable[[Request, Response], Response]:
    """Answer as if the failure manager did not count ``reason`` towards the tolerable failures."""
    return with_patches((oracle.coordinator, "rules_for", _rules_with(counted=lambda counted: counted - {reason})))


MUTANTS.append(historical(
    rules.FINALIZE_COUNTED, COORDINATOR,
    "A task's decline with FINALIZE_CHECKPOINT_FAILURE is not counted towards the tolerable "
    "checkpoint failures (the job keeps running past the threshold).",
    f"{PR}20091 (Flink 1.15.2, per its release notes)", "1.15.1 and earlier",
    after=_not_counted("FINALIZE_CHECKPOINT_FAILURE")))
MUTANTS.append(historical(
    rules.IO_EXCEPTION_COUNTED, COORDINATOR,
    "A checkpoint that fails with IO_EXCEPTION is not counted towards the tolerable checkpoint "
    "failures, as before 1.14.",
    f"{PR}16637 (Flink 1.14.0)", "1.13 and earlier",
    after=_not_counted("IO_EXCEPTION")))


# ---- the commit phase and the coordinator's end (protocol 4) --------------------------------------


def _events_replaced(kind: str, into: dict[str, Any]) -> Callable[[Request], Request]:
    """Every ``kind`` event becomes ``into`` (at the same time: the steps stay one per event)."""
    def before(request: Request) -> Request:
        inp = request["input"]
        if not isinstance(inp, dict) or not isinstance(inp.get("events"), list):
            return request
        events = [{"at": e.get("at"), **into} if isinstance(e, dict) and kind in e else e for e in inp["events"]]
        return {**request, "input": {**inp, "events": events}}
    return before


def _notes(keep: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> Callable[[list[dict[str, Any]]],
                                                                                     list[dict[str, Any]]]:
    def fn(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for s in steps:
            notes = keep(s.get("notified", [])) if isinstance(s.get("notified"), list) else []
            s = {k: val for k, val in s.items() if k != "notified"} | ({"notified": notes} if notes else {})
            out.append(s)
        return out
    return fn


def _commits_first(notes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [n for n in notes if "complete" in n] + [n for n in notes if "complete" not in n]


for _m in (
    Mutant("cc-no-abort-notification", COORDINATOR, "Aborted checkpoints are not reported to the tasks "
           "(no notifyCheckpointAborted): a two-phase-commit sink keeps the aborted transaction open.",
           after=_steps(_notes(lambda notes: [n for n in notes if "aborted" not in n]))),
    Mutant("cc-shutdown-as-suspend", COORDINATOR, "shutdown is handled as stopping the periodic scheduler: pending "
           "checkpoints end CHECKPOINT_COORDINATOR_SUSPEND and manual checkpoints and savepoints are still "
           "triggered afterwards.", before=_events_replaced("shutdown", {"stop_scheduler": True})),
    Mutant("cc-id-counter-failure-ignored", COORDINATOR, "A failing checkpoint ID counter goes unnoticed: triggers "
           "still get ids (as from a counter kept in memory) instead of failing TRIGGER_CHECKPOINT_FAILURE.",
           before=_events_replaced("id_counter", {"tick": True})),
    Mutant("cc-commit-before-aborts", COORDINATOR, "A completion tells the tasks to commit before it tells them "
           "of the older checkpoints it subsumed: a sink commits, then hears that an older transaction aborted.",
           after=_steps(_notes(_commits_first)),
           undocumented="No document orders the notifications of one completion: that the aborts of the "
           "checkpoints it subsumes go out before the commit (dropSubsumedCheckpoints before "
           "sendAcknowledgeMessages) is CheckpointCoordinator's code; CCR-11 and CCR-12 check which tasks hear of "
           "which checkpoint, not in which order."),
):
    MUTANTS.append(_m)

MUTANTS.append(historical(
    rules.LAST_SUBSUMED_PASSED, COORDINATOR,
    "The commit notification carries no last subsumed checkpoint id (Execution.notifyCheckpointComplete as up "
    "to 1.14): a task cannot release what the store subsumed (FLINK-21504 added the notification).",
    f"{PR}16582 (Flink 1.15.0)", "1.13-1.14",
    after=with_patches((oracle.coordinator, "rules_for", _rules_with(passes_last_subsumed=lambda _: False))),
    undocumented="No document says which id the commit notification carries beside the completed checkpoint's: "
    "the last subsumed checkpoint (CheckpointStoreUtil.INVALID_CHECKPOINT_ID, -1, for none) is "
    "CheckpointCoordinator.extractIdIfDiscardedOnSubsumed's, which only Flink's code decides."))
