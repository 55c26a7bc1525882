"""The ``CheckpointCoordinator`` as a deterministic machine over logical time (CC-1 ... CC-11,
CC-20 ... CC-24: the notifications to the tasks, the coordinator's end and a failing ID counter).

A discrete mirror of the real coordinator's control flow, including its two executors: the
JobManager main thread (``timer``), where ``execute`` runs tasks first-in first-out after the
current one, and the timer's delayed tasks (checkpoint cancellers, the periodic trigger). Runs of
``executeQueuedRequest`` are queued exactly as often as Flink queues them, because each run may
reject one queued periodic request (CC-3). Rule IDs are documented in :mod:`oracle.coordinator`.
"""

from __future__ import annotations

import bisect
import heapq
from collections import deque
from operator import attrgetter
from typing import Literal

import attrs

from oracle.coordinator_rules import Completed, CompletedStore, FailureManager, Props, Rules
from oracle.explain import ASIDE, at, because, tracing_active

_ORDER = attrgetter("order")
MAX_QUEUED = 1000  # CheckpointRequestDecider.DEFAULT_MAX_QUEUED_REQUESTS
RECENT_IDS = 16  # CheckpointCoordinator.NUM_GHOST_CHECKPOINT_IDS
OFFSET_MS = 2**40  # the coordinator's relative clock at logical time 0 (long after "boot")
MIN_PAUSE_CAP = 31_536_000_000  # 365 days

# what a trigger event requests (docs/protocol/v1.md), and PendingCheckpoint.acknowledgeTask's result
TriggerKind = Literal["periodic", "checkpoint", "savepoint", "sync_savepoint"]
AckResult = Literal["SUCCESS", "DUPLICATE", "UNKNOWN", "DISCARDED"]


@attrs.frozen
class Config:
    """The checkpointing configuration as ``CheckpointCoordinatorConfiguration`` holds it."""

    max_concurrent: int = 1
    min_pause_ms: int = 0
    timeout_ms: int = 600_000
    retained: int = 1
    tolerable_failures: int = 0
    unaligned: bool = False


@attrs.define(eq=False)
class Request:
    """A ``CheckpointTriggerRequest``; ``seq`` stands for its creation timestamp."""

    seq: int
    props: Props
    order: tuple[bool, bool, bool, int] = attrs.field(init=False)  # the decider's queue order (CC-2)

    def __attrs_post_init__(self) -> None:
        # savepoints, forced, non-periodic first, then oldest
        self.order = (not self.props.savepoint, not self.props.forced, self.props.periodic, self.seq)


@attrs.define(eq=False)
class Pending:
    """A ``PendingCheckpoint``: the (task, attempt) pairs it waits for and has heard from."""

    checkpoint_id: int
    props: Props
    waiting: set[tuple[str, int]]
    acknowledged: set[tuple[str, int]] = attrs.field(factory=set)


@attrs.define
class Step:
    """What happened while one event was handled (the protocol's step object)."""

    triggered: list[int] = attrs.field(factory=list)
    rejected: list[str] = attrs.field(factory=list)
    ack: AckResult | None = None
    completed: list[int] = attrs.field(factory=list)
    aborted: dict[str, str] = attrs.field(factory=dict)
    job_failed: str | None = None
    was_pending: bool = False
    # the notifications sent to the tasks (CC-20, CC-21), in Flink's order: {"task", "complete"[, "last_subsumed"]}
    # or {"task", "aborted"}
    notified: list[dict[str, str | int]] = attrs.field(factory=list)


_QUEUED = "queued"  # a queued run of executeQueuedRequest


class Coordinator:
    """One coordinator of a job whose tasks are ``tasks``; all of them are waited for."""

    def __init__(self, config: Config, tasks: list[str], sources: set[str], rules: Rules) -> None:
        self.config = config
        self.rules = rules
        self.min_pause = min(config.min_pause_ms, MIN_PAUSE_CAP)
        self.tasks = tasks
        self.required = sources if rules.checks_sources_only else set(tasks)
        self.attempt = dict.fromkeys(tasks, 0)
        self.running = dict.fromkeys(tasks, True)
        self.failures = FailureManager(config.tolerable_failures, rules)
        self.store = CompletedStore(config.retained)
        self.now = 0
        self.next_id = 1  # StandaloneCheckpointIDCounter starts at INITIAL_CHECKPOINT_ID
        self.last_completion = 0  # relative time; 0 lies far before OFFSET_MS
        self.pending: dict[int, Pending] = {}
        self.queue: list[Request] = []
        self.triggering = False
        self.recent: deque[int] = deque()
        self.fifo: deque[object] = deque()
        self.timers: list[tuple[int, int, str, int]] = []
        self.timer_seq = 0
        self.request_seq = 0
        self.periodic_token = 0
        self.shut_down = False  # CheckpointCoordinator.shutdown (CC-22)
        self.scheduling = True  # periodicScheduling: the periodic scheduler runs (CC-23)
        self.counter_fails = False  # every getAndIncrement of the ID counter throws (CC-24)
        self.step = Step()
        self.index = 0  # the event whose step is being decided
        self.explaining = tracing_active()

    # --- explanation (oracle.explain) -----------------------------------------------------------

    def begin(self, index: int) -> None:
        """The next event, ``index``, is handled: what it decides lands on ``steps[index]``."""
        self.index = index
        self.aside()

    def decides(self, key: str) -> None:
        """What is decided next is ``steps[index].<key>``."""
        if self.explaining:
            at("steps", self.index, key)

    def aside(self) -> None:
        """What is decided next decides no field of the step by itself."""
        if self.explaining:
            at(*ASIDE, self.index)

    def explain(self, key: str, *rules: str) -> None:
        """``rules`` decide ``steps[index].<key>``."""
        self.decides(key)
        because(*rules)

    # --- time ---------------------------------------------------------------------------------

    def advance(self, at: int) -> None:
        """Time passes up to ``at``: due timers fire in (due, scheduling) order (CC-9)."""
        while self.timers and self.timers[0][0] <= at:
            due, _, kind, ref = heapq.heappop(self.timers)
            if kind == "cancel" and ref in self.pending:
                self.now = due
                self.explain("aborted", "CC-9")  # the canceller: expired
                self._abort(self.pending[ref], "CHECKPOINT_EXPIRED", task_level=False)
            elif kind == "periodic" and ref == self.periodic_token:
                self.now = due
                self.aside()
                because("CC-9")  # the rescheduled periodic trigger requests a checkpoint
                self.submit(self._props("periodic"))
            self.drain()
        self.now = at

    def _schedule(self, delay: int, kind: str, ref: int) -> None:
        heapq.heappush(self.timers, (self.now + delay, self.timer_seq, kind, ref))
        self.timer_seq += 1

    def drain(self) -> None:
        """Run the main-thread tasks queued so far, and those they queue, in order."""
        while self.fifo:
            task = self.fifo.popleft()
            if task == _QUEUED:
                self._execute_queued(queued_run=True)
            else:
                assert isinstance(task, Request)
                self._run_trigger(task)

    # --- triggering (CheckpointCoordinator.triggerCheckpoint, CheckpointRequestDecider) ---------

    def _props(self, kind: TriggerKind) -> Props:
        if kind in ("periodic", "checkpoint"):
            return Props(savepoint=False, synchronous=False, forced=False, periodic=kind == "periodic")
        # CheckpointProperties.forSavepoint / forSyncSavepoint(!unalignedCheckpointsEnabled, ...)
        return Props(savepoint=True, synchronous=kind == "sync_savepoint", forced=not self.config.unaligned,
                     periodic=False)

    def trigger(self, kind: TriggerKind) -> None:
        self.submit(self._props(kind))

    def submit(self, props: Props) -> None:
        """``chooseRequestToExecute(newRequest, ...)``: queue it (CC-1), then maybe start one."""
        request = Request(self.request_seq, props)
        self.request_seq += 1
        if len(self.queue) >= MAX_QUEUED and not self.queue[-1].props.periodic:
            self.explain("rejected", "CC-1")
            self.step.rejected.append("TOO_MANY_CHECKPOINT_REQUESTS")
            return
        bisect.insort(self.queue, request, key=_ORDER)
        if len(self.queue) > MAX_QUEUED:
            self.explain("rejected", "CC-1")
            self.queue.pop()
            self.step.rejected.append("TOO_MANY_CHECKPOINT_REQUESTS")
        self._start(self._choose())
        if self.explaining and request in self.queue:  # by identity (eq=False)
            # queued for now (CC-1, after what decided that it could not start, CC-2): the step's
            # ``queued`` is decided when the step ends (Flink may start it before), so this is aside
            self.aside()
            because("CC-1")

    def _execute_queued(self, *, queued_run: bool = False) -> None:
        self._start(self._choose(queued_run=queued_run))

    def _choose(self, *, queued_run: bool = False) -> Request | None:
        """``CheckpointRequestDecider.chooseRequestToExecute`` (CC-2, CC-3)."""
        if self.triggering or not self.queue:
            if self.queue:
                self._not_started()
            return None
        head = self.queue[0]
        if len(self.pending) >= self.config.max_concurrent:
            if head.props.forced:
                return self.queue.pop(0)
            self._not_started()
            return None
        if not head.props.forced and head.props.periodic:
            delay = self.last_completion - (OFFSET_MS + self.now) + self.min_pause
            if delay > 0:
                self.explain("rejected", "CC-3")
                if queued_run:
                    because("CC-10")  # one of the runs Flink queues
                self.queue.pop(0)
                self.step.rejected.append("MINIMUM_TIME_BETWEEN_CHECKPOINTS")
                self.periodic_token += 1  # rescheduleTrigger: cancel the periodic trigger, schedule anew
                self._schedule(delay, "periodic", self.periodic_token)
                return None
        return self.queue.pop(0)

    def _not_started(self) -> None:
        """CC-2: the head waits (a trigger is in progress, or max_concurrent checkpoints are pending); for
        now: the step's ``queued`` and ``triggered`` are decided when it ends (:meth:`settle`)."""
        self.aside()
        because("CC-2")

    def settle(self) -> None:
        """The step ends: what is still queued could not start (CC-2) and waits in the queue (CC-1)."""
        if self.queue:
            self.explain("queued", "CC-2", "CC-1")
            self.explain("triggered", "CC-2")

    def _start(self, request: Request | None) -> None:
        """``startTriggeringCheckpoint``: ``preCheckGlobalState`` at once (CC-22, CC-23), the rest on the main
        thread, after what is queued."""
        if request is None:
            return
        refused = self._refusal(request)
        if refused is not None:
            # onTriggerFailure: the request fails, the failure manager hears of it, the next request may start
            self.step.rejected.append(refused)
            self.decides("job_failed")
            self._fail_job(self.failures.failed(None, request.props, refused, task_level=False))
            self._execute_queued()
            return
        self.triggering = True
        self.fifo.append(request)

    def _refusal(self, request: Request) -> str | None:
        """``preCheckGlobalState``: a shut-down coordinator refuses every request (CC-22), a stopped periodic
        scheduler the periodic ones (CC-23)."""
        if self.shut_down:
            self.explain("rejected", "CC-22")
            self.explain("triggered", "CC-22")  # takes no id
            return "CHECKPOINT_COORDINATOR_SHUTDOWN"
        if request.props.periodic and not self.scheduling:
            self.explain("rejected", "CC-23")
            self.explain("triggered", "CC-23")
            return "PERIODIC_SCHEDULER_SHUTDOWN"
        return None

    def _run_trigger(self, request: Request) -> None:
        """The plan, the id, the pending checkpoint and its canceller (CC-4, CC-5)."""
        if not all(self.running[t] for t in self.required):
            reason = "NOT_ALL_REQUIRED_TASKS_RUNNING"
            self.explain("rejected", "CC-4")
            self.explain("triggered", "CC-4")  # takes no id
            self.step.rejected.append(reason)
            self.decides("job_failed")
            self._fail_job(self.failures.failed(None, request.props, reason, task_level=False))
        elif self.counter_fails:
            reason = "TRIGGER_CHECKPOINT_FAILURE"  # initializeCheckpoint: getAndIncrement threw
            self.explain("rejected", "CC-24")
            self.explain("triggered", "CC-24")  # takes no id
            self.step.rejected.append(reason)
            self.decides("job_failed")
            self._fail_job(self.failures.failed(None, request.props, reason, task_level=False))
        else:
            self.explain("triggered", "CC-5", "CC-4", "CC-2")
            checkpoint_id = self.next_id
            self.next_id += 1
            waiting = {(t, self.attempt[t]) for t in self.tasks}
            self.pending[checkpoint_id] = Pending(checkpoint_id, request.props, waiting)
            self._schedule(self.config.timeout_ms, "cancel", checkpoint_id)
            self.step.triggered.append(checkpoint_id)
        self.triggering = False
        self._execute_queued()

    # --- messages from tasks ------------------------------------------------------------------

    def acknowledge(self, task: str, checkpoint_id: int) -> None:
        """``receiveAcknowledgeMessage`` / ``PendingCheckpoint.acknowledgeTask`` (CC-6); after a shutdown it
        returns false at once (CC-22)."""
        if self.shut_down:
            self.explain("ack", "CC-22")
            self.explain("was_pending", "CC-22")
            return
        pending = self.pending.get(checkpoint_id)
        if pending is None:
            self.explain("ack", "CC-18")  # no result: the checkpoint is no longer pending
            self.explain("was_pending", "CC-18")
            self.step.was_pending = checkpoint_id in self.recent
            return
        self.explain("ack", "CC-6")
        who = (task, self.attempt[task])
        if who in pending.waiting:
            pending.waiting.remove(who)
            pending.acknowledged.add(who)
            self.step.ack = "SUCCESS"
            if not pending.waiting:
                self._complete(pending)
        else:
            self.step.ack = "DUPLICATE" if who in pending.acknowledged else "UNKNOWN"

    def decline(self, task: str, checkpoint_id: int, reason: str) -> None:
        """``receiveDeclineMessage``: the task's exception aborts the checkpoint (CC-8)."""
        pending = self.pending.get(checkpoint_id)
        if pending is not None:
            self.explain("aborted", "CC-8")
            self._abort(pending, reason, task_level=True)

    def fail(self, task: str) -> None:
        """The task's attempt is no longer RUNNING; the coordinator is not told (CC-4)."""
        because("CC-4")  # the next checkpoint plan finds it not running
        self.running[task] = False

    def restart(self, task: str) -> None:
        """``SchedulerBase.restoreState``: a new attempt, and every pending checkpoint is aborted."""
        because("CC-11")  # later acknowledgements of the old attempt are UNKNOWN (CC-6)
        self.attempt[task] += 1
        self.running[task] = True
        for pending in list(self.pending.values()):
            self.explain("aborted", "CC-11")
            self._abort(pending, "JOB_FAILOVER_REGION", task_level=False)

    # --- the coordinator's end (CC-22, CC-23) and the ID counter (CC-24) -----------------------

    def shutdown(self) -> None:
        """``CheckpointCoordinator.shutdown``: once; queued requests and pending checkpoints end with
        CHECKPOINT_COORDINATOR_SHUTDOWN (the periodic trigger is not cancelled)."""
        if self.shut_down:
            because("CC-22")  # a second shutdown does nothing
            return
        self.shut_down = True
        self.scheduling = False
        self._abort_all("CHECKPOINT_COORDINATOR_SHUTDOWN", "CC-22")

    def stop_scheduler(self) -> None:
        """``stopCheckpointScheduler``: the periodic trigger is cancelled, queued requests and pending checkpoints
        end with CHECKPOINT_COORDINATOR_SUSPEND."""
        self.scheduling = False
        self.periodic_token += 1  # cancelPeriodicTrigger
        self._abort_all("CHECKPOINT_COORDINATOR_SUSPEND", "CC-23")

    def _abort_all(self, reason: str, rule: str) -> None:
        """``abortPendingAndQueuedCheckpoints``: the queued requests fail (in queue order), then every pending
        checkpoint is aborted (job-level), in id order."""
        for _request in self.queue:
            self.explain("rejected", rule)
            self.step.rejected.append(reason)
        self.queue.clear()
        for pending in list(self.pending.values()):
            self.explain("aborted", rule)
            self._abort(pending, reason, task_level=False)

    def fail_counter(self) -> None:
        """From now on the checkpoint ID counter fails (CC-24)."""
        because("CC-24")
        self.counter_fails = True

    # --- completion and abortion --------------------------------------------------------------

    def _complete(self, pending: Pending) -> None:
        """``completePendingCheckpoint`` and ``cleanupAfterCompletedCheckpoint`` (CC-7, CC-10)."""
        cid, props = pending.checkpoint_id, pending.props
        self.explain("completed", "CC-6")  # the last acknowledgement completes it
        completed = Completed(cid, props.savepoint, props.synchronous)
        because("CC-10")
        self.fifo.append(_QUEUED)  # finalizeCheckpoint disposes: CheckpointsCleaner post-clean-up
        subsumed: list[Completed] = []
        if self.rules.stores_savepoints:
            self._succeeded(cid)
            self.explain("retained", "CC-16", "CC-17")  # 1.13-1.14 store savepoints too
            self.store.add(completed)
        else:
            self.explain("retained", "CC-16")
            if not props.savepoint:
                subsumed = self.store.add(completed)
                if self.rules.store_cleanup_schedules:
                    because("CC-10")
                    self.fifo.extend([_QUEUED] * len(subsumed))
            self._succeeded(cid)
        self.step.completed.append(cid)
        del self.pending[cid]
        self.fifo.append(_QUEUED)  # scheduleTriggerRequest
        if self.rules.remembers_all_removed:
            self._remember(cid)
        self.last_completion = OFFSET_MS + self.now
        if self.rules.stores_savepoints or not props.savepoint or props.synchronous:
            for other in list(self.pending.values()):  # dropSubsumedCheckpoints
                if other.checkpoint_id < cid and not other.props.savepoint:
                    self.explain("aborted", "CC-7")
                    self._abort(other, "CHECKPOINT_SUBSUMED", task_level=False)
        self._notify_complete(cid, props, subsumed)

    def _notify_complete(self, cid: int, props: Props, subsumed: list[Completed]) -> None:
        """``sendAcknowledgeMessages``: every task is told to commit, after the subsumed aborts (CC-20); 1.15+
        with the last checkpoint the store subsumed (-1: none), and not for a savepoint."""
        self.explain("notified", "CC-20")
        if props.savepoint and not props.synchronous and not self.rules.commits_savepoints:
            return
        for task in self.tasks:
            note: dict[str, str | int] = {"task": task, "complete": cid}
            if self.rules.passes_last_subsumed:
                note["last_subsumed"] = subsumed[-1].checkpoint_id if subsumed else -1
            self.step.notified.append(note)

    def _succeeded(self, cid: int) -> None:
        self.aside()  # a success decides later failures (CC-13)
        self.failures.succeeded(cid)

    def _abort(self, pending: Pending, reason: str, task_level: bool) -> None:
        """``abortPendingCheckpoint`` (CC-8, CC-9, CC-11), after the caller's ``explain("aborted", rule)``."""
        cid = pending.checkpoint_id
        self.step.aborted[str(cid)] = reason
        because("CC-10")
        self.fifo.append(_QUEUED)  # PendingCheckpoint.dispose: CheckpointsCleaner post-clean-up
        if not (pending.props.savepoint and reason == "CHECKPOINT_SUBSUMED"):
            self.decides("job_failed")
            self._fail_job(self.failures.failed(cid, pending.props, reason, task_level))
        else:
            # PendingCheckpoint.abort throws "Bug: savepoints must never be subsumed" first
            self.explain("job_failed", "CC-8")
        self.explain("notified", "CC-21")  # sendAbortedMessages, in a finally: also after the abort threw
        self.step.notified.extend({"task": task, "aborted": cid} for task in self.tasks)
        self.aside()
        del self.pending[cid]
        if self.rules.remembers_all_removed or reason == "CHECKPOINT_EXPIRED":
            self._remember(cid)
        self.fifo.append(_QUEUED)  # scheduleTriggerRequest

    def _remember(self, cid: int) -> None:
        if len(self.recent) >= RECENT_IDS:
            self.recent.popleft()
        self.recent.append(cid)

    def _fail_job(self, message: str | None) -> None:
        if message is not None and self.step.job_failed is None:
            self.step.job_failed = message
