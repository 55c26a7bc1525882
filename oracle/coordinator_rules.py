"""Version tables, ``CheckpointFailureManager`` and the completed-checkpoint store (CC-12 ... CC-19).

The pieces of :mod:`oracle.coordinator_machine` that do not depend on time: which
``CheckpointFailureReason`` values exist in a Flink version (and their pre-flight flag and
message), how failures are counted against ``tolerable_failures``, and which completed
checkpoints ``StandaloneCompletedCheckpointStore`` keeps. Rule IDs are listed in
:mod:`oracle.coordinator`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from oracle.changes import Change
from oracle.explain import because
from oracle.versions import FlinkVersion, pick, v

JAVA_INT_MAX = 2**31 - 1
UNLIMITED = JAVA_INT_MAX  # CheckpointFailureManager.UNLIMITED_TOLERABLE_FAILURE_NUMBER


@attrs.frozen
class Reason:
    """One ``CheckpointFailureReason``: its pre-flight flag and ``message()``."""

    preflight: bool
    message: str


def _reasons_113() -> dict[str, Reason]:
    rows = [
        ("PERIODIC_SCHEDULER_SHUTDOWN", True, "Periodic checkpoint scheduler is shut down."),
        ("TOO_MANY_CONCURRENT_CHECKPOINTS", True, "The maximum number of concurrent checkpoints is exceeded"),
        ("TOO_MANY_CHECKPOINT_REQUESTS", True, "The maximum number of queued checkpoint requests exceeded"),
        ("MINIMUM_TIME_BETWEEN_CHECKPOINTS", True,
         "The minimum time between checkpoints is still pending. Checkpoint will be triggered after the minimum time."),
        ("NOT_ALL_REQUIRED_TASKS_RUNNING", True, "Not all required tasks are currently running."),
        ("EXCEPTION", True, "An Exception occurred while triggering the checkpoint."),
        ("CHECKPOINT_ASYNC_EXCEPTION", False, "Asynchronous task checkpoint failed."),
        ("CHECKPOINT_EXPIRED", False, "Checkpoint expired before completing."),
        ("CHECKPOINT_SUBSUMED", False, "Checkpoint has been subsumed."),
        ("CHECKPOINT_DECLINED", False, "Checkpoint was declined."),
        ("CHECKPOINT_DECLINED_TASK_NOT_READY", False, "Checkpoint was declined (tasks not ready)"),
        ("CHECKPOINT_DECLINED_TASK_CLOSING", False, "Checkpoint was declined (task's operators partially closed)"),
        ("CHECKPOINT_DECLINED_TASK_NOT_CHECKPOINTING", False, "Task does not support checkpointing"),
        ("CHECKPOINT_DECLINED_SUBSUMED", False,
         "Checkpoint was canceled because a barrier from newer checkpoint was received."),
        ("CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER", False, "Task received cancellation from one of its inputs"),
        ("CHECKPOINT_DECLINED_ALIGNMENT_LIMIT_EXCEEDED", False,
         "The checkpoint alignment phase needed to buffer more than the configured maximum bytes"),
        ("CHECKPOINT_DECLINED_INPUT_END_OF_STREAM", False,
         "Checkpoint was declined because one input stream is finished"),
        ("CHECKPOINT_COORDINATOR_SHUTDOWN", False, "CheckpointCoordinator shutdown."),
        ("CHECKPOINT_COORDINATOR_SUSPEND", False, "Checkpoint Coordinator is suspending."),
        ("JOB_FAILURE", False, "The job has failed."),
        ("JOB_FAILOVER_REGION", False, "FailoverRegion is restarting."),
        ("TASK_FAILURE", False, "Task has failed."),
        ("TASK_CHECKPOINT_FAILURE", False, "Task local checkpoint failure."),
        ("UNKNOWN_TASK_CHECKPOINT_NOTIFICATION_FAILURE", False, "Unknown task for the checkpoint to notify."),
        ("FINALIZE_CHECKPOINT_FAILURE", False, "Failure to finalize checkpoint."),
        ("TRIGGER_CHECKPOINT_FAILURE", False, "Trigger checkpoint failure."),
    ]
    return {name: Reason(pre, msg) for name, pre, msg in rows}


def _reasons_114() -> dict[str, Reason]:
    out = _reasons_113()
    del out["EXCEPTION"]
    out["IO_EXCEPTION"] = Reason(True, "An Exception occurred while triggering the checkpoint. IO-problem detected.")
    out["CHECKPOINT_DECLINED_TASK_CLOSING"] = Reason(False, "Checkpoint was declined (task is closing)")
    return out


def _reasons_117() -> dict[str, Reason]:
    out = _reasons_114()
    for gone in ("TOO_MANY_CONCURRENT_CHECKPOINTS", "CHECKPOINT_DECLINED_TASK_NOT_CHECKPOINTING",
                 "CHECKPOINT_DECLINED_ALIGNMENT_LIMIT_EXCEEDED", "JOB_FAILURE"):
        del out[gone]
    out["CHANNEL_STATE_SHARED_STREAM_EXCEPTION"] = Reason(
        False, "The checkpoint was aborted due to exception of other subtasks sharing the ChannelState file.")
    return out


def _reasons_120() -> dict[str, Reason]:
    out = _reasons_117()
    out["BLOCKING_OUTPUT_EXIST"] = Reason(True, "Blocking output edge exists in running tasks.")
    return out


def _declined(reason: str) -> dict[str, Any]:
    """A coordinator input where one task declines the first checkpoint with ``reason``."""
    return {"tasks": ["t0"], "events": [{"at": 0, "trigger": "checkpoint"},
                                        {"at": 1, "decline": "t0", "checkpoint": 1, "reason": reason}]}


# The changes of the coordinator's behaviour, each with inputs that show it (a decline reason only
# some versions have: CheckpointFailureReason, FLINK_RULES section 6).
IO_EXCEPTION_COUNTED = Change(
    since="1.14", issue="FLINK-23189", what="EXCEPTION -> IO_EXCEPTION, TASK_CLOSING text; IO_EXCEPTION counted",
    witnesses=(_declined("EXCEPTION"), _declined("IO_EXCEPTION")))
FAILED_PROPERTIES_SEEN = Change(
    since="1.14.3", what="the failure manager sees a failed checkpoint's properties: a savepoint's job-level failures "
    "are no longer counted, failures without an id (-1) are",
    # a savepoint expires: counted until 1.14.2 (CC-14)
    witnesses=({"config": {"timeout_ms": 10}, "tasks": ["t1"],
                "events": [{"at": 1, "trigger": "savepoint"}, {"at": 60, "trigger": "savepoint"}]},))
SAVEPOINTS_NOT_STORED = Change(
    since="1.15", issue="FLINK-25191", what="savepoints no longer stored, only checkpoint/sync-savepoint completions "
    "subsume",
    # a completed savepoint is no longer stored (retained) beside the checkpoints
    witnesses=({"config": {"retained": 1}, "tasks": ["t0"],
                "events": [{"at": 0, "trigger": "checkpoint"}, {"at": 0, "trigger": "savepoint"},
                           {"at": 1, "ack": "t0", "checkpoint": 1}, {"at": 1, "ack": "t0", "checkpoint": 2}]},))
FINALIZE_COUNTED = Change(
    since="1.15.2", issue="FLINK-27570",
    what="FINALIZE_CHECKPOINT_FAILURE counted towards the tolerable failures (FLINK-27570)",
    witnesses=(_declined("FINALIZE_CHECKPOINT_FAILURE"),))
CLEANER_RUNS_QUEUE = Change(
    since="1.16", what="the store hands subsumed checkpoints to the CheckpointsCleaner, whose clean-up runs the "
    "request queue once more each (oracle rule CC-10, oracle/coordinator_rules.py)",
    # a subsuming completion runs the request queue once more
    witnesses=({"config": {"min_pause_ms": 5}, "tasks": ["t0"],
                "events": [*[{"at": 0, "trigger": "periodic"}] * 4, {"at": 184, "trigger": "checkpoint"},
                           {"at": 204, "ack": "t0", "checkpoint": 1}, {"at": 264, "ack": "t0", "checkpoint": 2}]},))
MESSAGE_NAMES_REASON = Change(
    since="1.17", what="tolerable-failure message names the reason; failure reasons -4, "
    "+CHANNEL_STATE_SHARED_STREAM_EXCEPTION", witnesses=(_declined("CHANNEL_STATE_SHARED_STREAM_EXCEPTION"),))
EXPIRED_ONLY_REMEMBERED = Change(
    since="1.19", issue="FLINK-15922", what="late-ack 'wasPending' ring holds expired ids only",
    # a duplicate ack of a completed checkpoint: late (was pending) until 1.19
    witnesses=({"tasks": ["t0"], "events": [{"at": 0, "trigger": "periodic"},
                                            *[{"at": 0, "ack": "t0", "checkpoint": 1}] * 2]},))
BLOCKING_OUTPUT = Change(since="1.20", what="+BLOCKING_OUTPUT_EXIST failure reason",
                         witnesses=(_declined("BLOCKING_OUTPUT_EXIST"),))
LAST_SUBSUMED_PASSED = Change(
    since="1.15", issue="FLINK-21504",
    what="the commit notification passes the last subsumed checkpoint id (Execution.notifyCheckpointOnComplete)",
    # a second completed checkpoint tells the task it subsumed the first
    witnesses=({"tasks": ["t0"], "events": [{"at": 0, "trigger": "checkpoint"}, {"at": 1, "ack": "t0", "checkpoint": 1},
                                            {"at": 2, "trigger": "checkpoint"},
                                            {"at": 3, "ack": "t0", "checkpoint": 2}]},))
SAVEPOINTS_NOT_COMMITTED = Change(
    since="1.15", what="a completed savepoint (not synchronous) no longer notifies the tasks to commit "
    "(CheckpointCoordinator.cleanupAfterCompletedCheckpoint)",
    witnesses=({"tasks": ["t0"], "events": [{"at": 0, "trigger": "savepoint"},
                                            {"at": 1, "ack": "t0", "checkpoint": 1}]},))
KEYS_RENAMED = Change(since="1.20", what="checkpoint option keys renamed to execution.checkpointing.* (old keys kept)",
                      unseen="the protocol's coordinator config has its own field names")
CHANGES: tuple[Change, ...] = (IO_EXCEPTION_COUNTED, FAILED_PROPERTIES_SEEN, SAVEPOINTS_NOT_STORED,
                               LAST_SUBSUMED_PASSED, SAVEPOINTS_NOT_COMMITTED, FINALIZE_COUNTED, CLEANER_RUNS_QUEUE,
                               MESSAGE_NAMES_REASON, EXPIRED_ONLY_REMEMBERED, BLOCKING_OUTPUT, KEYS_RENAMED)

# CC-12: the CheckpointFailureReason enum of each version
REASONS: Mapping[FlinkVersion, Mapping[str, Reason]] = {
    v("1.13"): _reasons_113(),
    IO_EXCEPTION_COUNTED.at: _reasons_114(),
    MESSAGE_NAMES_REASON.at: _reasons_117(),
    BLOCKING_OUTPUT.at: _reasons_120(),
}

# CC-13: CheckpointFailureManager.checkFailureCounter, the reasons that count
COUNTED: Mapping[FlinkVersion, frozenset[str]] = {
    v("1.13"): frozenset({"CHECKPOINT_ASYNC_EXCEPTION", "CHECKPOINT_DECLINED", "CHECKPOINT_EXPIRED"}),
    IO_EXCEPTION_COUNTED.at: frozenset({"CHECKPOINT_ASYNC_EXCEPTION", "CHECKPOINT_DECLINED", "CHECKPOINT_EXPIRED",
                                        "IO_EXCEPTION"}),
    # not in 1.14: a FINALIZE_CHECKPOINT_FAILURE counts
    FINALIZE_COUNTED.at: frozenset({"CHECKPOINT_ASYNC_EXCEPTION", "CHECKPOINT_DECLINED", "CHECKPOINT_EXPIRED",
                                    "IO_EXCEPTION", "FINALIZE_CHECKPOINT_FAILURE"}),
}

EXCEEDED = "Exceeded checkpoint tolerable failure threshold."


def _exceeded_plain(reason: Reason) -> str:
    return EXCEEDED


def _exceeded_with_reason(reason: Reason) -> str:
    return (f"{EXCEEDED} The latest checkpoint failed due to {reason.message}, view the Checkpoint History tab "
            "or the Job Manager log to find out why continuous checkpoints failed.")


# CC-15: the message of the job failure once the tolerable number is exceeded
EXCEEDED_MESSAGE: Mapping[FlinkVersion, Callable[[Reason], str]] = MESSAGE_NAMES_REASON.table(
    _exceeded_plain, _exceeded_with_reason)


# CC-14: the release whose CheckpointFailureManager first takes a failed checkpoint's properties
LEGACY_FAILURE_MANAGER_UNTIL = FAILED_PROPERTIES_SEEN.at


@attrs.frozen
class Rules:
    """Everything version-dependent in this area, looked up once per request."""

    reasons: Mapping[str, Reason]
    counted: frozenset[str]
    exceeded_message: Callable[[Reason], str]
    # CC-14: up to 1.14.2 abortPendingCheckpoint passes sync savepoints to
    # handleSynchronousSavepointFailure and counts every other failure of a pending checkpoint,
    # savepoints included; from 1.14.3 handleCheckpointException takes the CheckpointProperties
    # and decides job- vs task-level failures
    legacy_failure_manager: bool
    # CC-16/17: up to 1.14 every completed checkpoint, savepoints included, is added to the store
    # and subsumes older pending checkpoints; from 1.15 savepoints are not stored and only
    # checkpoints and synchronous savepoints subsume
    stores_savepoints: bool
    # CC-18: the 16 ids behind a late ack's return value: every id removed from the pending
    # checkpoints (up to 1.18), or only the expired ones (1.19+)
    remembers_all_removed: bool
    # CC-4: DefaultCheckpointPlanCalculator checks that the tasks to trigger (1.13: the sources)
    # or the tasks to wait for (1.14+: all tasks) are RUNNING
    checks_sources_only: bool
    # CC-10: from 1.16 the store hands subsumed checkpoints to the CheckpointsCleaner, whose
    # clean-up then schedules one more run of the request queue each
    store_cleanup_schedules: bool
    # CC-20: from 1.15 (FLINK-21504) the commit notification carries the last subsumed checkpoint id
    passes_last_subsumed: bool
    # CC-20: up to 1.14 every completion notifies the tasks; from 1.15 a savepoint's (not synchronous) does not
    commits_savepoints: bool


def rules_for(version: FlinkVersion) -> Rules:
    """The rules of ``version``."""
    return Rules(
        reasons=pick(REASONS, version),
        counted=pick(COUNTED, version),
        exceeded_message=pick(EXCEEDED_MESSAGE, version),
        legacy_failure_manager=version < LEGACY_FAILURE_MANAGER_UNTIL,
        stores_savepoints=SAVEPOINTS_NOT_STORED.before(version),
        remembers_all_removed=EXPIRED_ONLY_REMEMBERED.before(version),
        checks_sources_only=version < v("1.14"),
        store_cleanup_schedules=not CLEANER_RUNS_QUEUE.before(version),
        passes_last_subsumed=not LAST_SUBSUMED_PASSED.before(version),
        commits_savepoints=SAVEPOINTS_NOT_COMMITTED.before(version),
    )


@attrs.frozen
class Props:
    """The ``CheckpointProperties`` a trigger request carries (only what the coordinator reads)."""

    savepoint: bool
    synchronous: bool
    forced: bool
    periodic: bool


class FailureManager:
    """``CheckpointFailureManager``: counts failed checkpoints, fails the job past the tolerance.

    ``failed`` returns the message of the exception passed to the fail-job callback, or None.
    """

    def __init__(self, tolerable: int, rules: Rules) -> None:
        self._tolerable = tolerable
        self._rules = rules
        self._counter = 0
        self._counted_ids: set[int] = set()
        self._last_success: int | None = None  # Long.MIN_VALUE

    def succeeded(self, checkpoint_id: int) -> None:
        """``handleCheckpointSuccess``: a newer success resets the count (CC-13)."""
        because("CC-13")
        if self._last_success is None or checkpoint_id > self._last_success:
            self._last_success = checkpoint_id
            self._clear()

    def failed(self, checkpoint_id: int | None, props: Props, reason: str, task_level: bool) -> str | None:
        """A failed trigger (``checkpoint_id`` None) or an aborted pending checkpoint (CC-14); the
        counter's rule (CC-13) first wherever the counter decides, in every version alike."""
        info = self._rules.reasons[reason]
        if self._rules.legacy_failure_manager:
            if checkpoint_id is None:
                because("CC-13", "CC-14")  # 1.13: onTriggerFailure without a pending checkpoint only logs
                return None
            if props.savepoint and props.synchronous:
                because("CC-14")
                return None if info.preflight else info.message
            failed = self._against_counter(checkpoint_id, reason)
            if props.savepoint:
                because("CC-14")  # up to 1.14.2 a savepoint's failure counts as a checkpoint's
            return failed
        cid = -1 if checkpoint_id is None else checkpoint_id
        if info.preflight or not task_level:
            if props.savepoint:
                because("CC-14")  # job-level: ignored for a savepoint
                return None
            return self._against_counter(cid, reason)
        if props.savepoint and props.synchronous:
            because("CC-14")  # task-level failure of a synchronous savepoint
            return info.message
        return self._against_counter(cid, reason)

    def _against_counter(self, cid: int, reason: str) -> str | None:
        because("CC-13")
        legacy = self._rules.legacy_failure_manager
        if not ((cid == -1 and not legacy) or self._last_success is None or cid > self._last_success):
            return None
        self._count(cid, reason)
        if self._counter > self._tolerable:
            because("CC-15")
            self._clear()
            return self._rules.exceeded_message(self._rules.reasons[reason])
        return None

    def _count(self, cid: int, reason: str) -> None:
        if self._tolerable == UNLIMITED or reason not in self._rules.counted:
            return
        if cid == -1 and not self._rules.legacy_failure_manager:
            self._counter += 1  # an unknown id always counts (1.14+)
        elif cid not in self._counted_ids:
            self._counted_ids.add(cid)
            self._counter += 1

    def _clear(self) -> None:
        self._counter = 0
        self._counted_ids.clear()


@attrs.frozen
class Completed:
    """A ``CompletedCheckpoint`` as the store sees it."""

    checkpoint_id: int
    savepoint: bool
    synchronous: bool


class CompletedStore:
    """``StandaloneCompletedCheckpointStore`` with ``CheckpointSubsumeHelper.subsume`` (CC-16)."""

    def __init__(self, retain: int) -> None:
        self._retain = retain
        self._checkpoints: list[Completed] = []

    def ids(self) -> list[int]:
        return [c.checkpoint_id for c in self._checkpoints]

    def add(self, checkpoint: Completed) -> list[Completed]:
        """Append, then drop old entries while more than ``retain``; returns those dropped."""
        self._checkpoints.append(checkpoint)
        if len(self._checkpoints) <= self._retain:
            return []
        latest = self._checkpoints[-1]
        latest_regular = next((c for c in reversed(self._checkpoints) if not c.savepoint), None)
        kept: list[Completed] = []
        dropped: list[Completed] = []
        size = len(self._checkpoints)
        for c in self._checkpoints:
            subsumable = c is not latest and (
                c.savepoint or latest.synchronous or (latest_regular is not None and latest_regular is not c))
            if size > self._retain and subsumable:
                dropped.append(c)
                size -= 1
            else:
                kept.append(c)
        self._checkpoints = kept
        return dropped
