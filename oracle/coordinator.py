"""Protocol area ``checkpoint.coordinator``: the JobManager's checkpoint coordinator (CC-1 ... CC-24,
declared in :data:`RULES`).

Semantics in docs/protocol/checkpoint-coordinator.md. The machine is
:mod:`oracle.coordinator_machine`; version tables, ``CheckpointFailureManager`` and the store are
in :mod:`oracle.coordinator_rules`. All classes below are in ``org.apache.flink.runtime.checkpoint``
unless named otherwise.

Each rule is enforced where its ID appears; ``because(ID)`` says so to an explanation
(:mod:`oracle.explain`), at the field of ``steps[i]`` it decides (``steps[i].aborted`` for an abort,
``steps[i].job_failed`` for what the failure manager made of it ...), the rule that decides the
field first; what decides no field of its step by itself (a task failing, a success resetting the
failure count) is recorded aside.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypedDict, cast

import attrs

from oracle import coordinator_rules
from oracle.changes import Change
from oracle.coordinator_machine import AckResult, Config, Coordinator, Step, TriggerKind
from oracle.coordinator_rules import JAVA_INT_MAX, Rules, rules_for
from oracle.explain import because, rejected_because
from oracle.protocol import AreaFn, BadRequest, Rejected, field, java_long
from oracle.rules import Declared
from oracle.versions import FlinkVersion

COORDINATOR = "checkpoint.coordinator"  # the protocol area (docs/protocol)

# The input and the output (docs/protocol/v1.md, checkpoint-coordinator.md): what coordinator_area reads and builds.
EventKind = Literal["trigger", "ack", "decline", "fail", "restart", "tick", "shutdown", "stop_scheduler", "id_counter"]


class CoordinatorConfig(TypedDict, total=False):
    """The checkpointing configuration (protocol 2: each setting optional, absent: the default)."""

    max_concurrent: int
    min_pause_ms: int
    timeout_ms: int
    retained: int
    tolerable_failures: int
    unaligned: bool


class TriggerEvent(TypedDict):
    at: int  # logical time (ms), never going back
    trigger: TriggerKind


class AckEvent(TypedDict):
    at: int
    ack: str  # the task
    checkpoint: int


class DeclineEvent(TypedDict):
    at: int
    decline: str
    checkpoint: int
    reason: str  # a CheckpointFailureReason of the version


class FailEvent(TypedDict):
    at: int
    fail: str


class RestartEvent(TypedDict):
    at: int
    restart: str


class TickEvent(TypedDict):
    at: int
    tick: Literal[True]


class ShutdownEvent(TypedDict):  # protocol 4 (feature checkpoint.coordinator.end)
    at: int
    shutdown: Literal[True]


class StopSchedulerEvent(TypedDict):  # protocol 4 (feature checkpoint.coordinator.end)
    at: int
    stop_scheduler: Literal[True]


class IdCounterEvent(TypedDict):  # protocol 4 (feature checkpoint.coordinator.end)
    at: int
    id_counter: Literal["fail"]


CoordinatorEvent = (TriggerEvent | AckEvent | DeclineEvent | FailEvent | RestartEvent | TickEvent | ShutdownEvent
                    | StopSchedulerEvent | IdCounterEvent)


class CompleteNotification(TypedDict):
    task: str
    complete: int  # the completed checkpoint
    last_subsumed: NotRequired[int]  # 1.15+: the last checkpoint the store subsumed, -1 for none


class AbortedNotification(TypedDict):
    task: str
    aborted: int


class CoordinatorInput(TypedDict):
    tasks: list[str]
    events: list[CoordinatorEvent]
    config: NotRequired[CoordinatorConfig]
    sources: NotRequired[list[str]]  # protocol 2 (absent: every task)


class CoordinatorStep(TypedDict, total=False):
    """What happened while one event was handled; an absent key means nothing of that kind."""

    triggered: list[int]
    queued: int
    rejected: list[str]  # CheckpointFailureReasons
    ack: AckResult
    completed: list[int]
    aborted: dict[str, str]  # checkpoint id -> CheckpointFailureReason
    retained: list[int]
    job_failed: str
    was_pending: Literal[True]  # protocol 2
    notified: list[CompleteNotification | AbortedNotification]  # protocol 4 (feature checkpoint.coordinator.notified)


class CoordinatorOutput(TypedDict):
    steps: list[CoordinatorStep]  # one per event


# The rules this module encodes, each declared once (its area's declaration, properties/<group>/area.py, says
# what checks each).
RULES: tuple[Declared, ...] = (
    Declared("CC-1",
             "A trigger is queued in the request decider (at most 1000): at a full queue whose last request is "
             "not periodic it fails TOO_MANY_CHECKPOINT_REQUESTS, otherwise it is queued and, past 1000, the "
             "last one is dropped with that reason.",
             "CheckpointRequestDecider.chooseRequestToExecute"),
    Declared("CC-2",
             "The queue orders savepoints, then forced, then non-periodic requests, then the oldest; savepoints"
             " are forced unless unaligned checkpoints are on, nothing starts while a trigger is in progress, "
             "and at max_concurrent pending checkpoints only a forced head starts.",
             "CheckpointRequestDecider (queue order, chooseRequestToExecute), CheckpointProperties.forSavepoint"),
    Declared("CC-3",
             "A periodic, non-forced head less than min_pause_ms (capped at 365 days) after the last completion"
             " fails MINIMUM_TIME_BETWEEN_CHECKPOINTS and the periodic trigger is rescheduled; manual "
             "checkpoints and savepoints ignore the pause.",
             "CheckpointRequestDecider.chooseRequestToExecute, CheckpointCoordinator.rescheduleTrigger"),
    Declared("CC-4",
             "The checkpoint plan needs its tasks RUNNING (1.13: the tasks to trigger, 1.14+: every task to "
             "wait for); otherwise the request fails NOT_ALL_REQUIRED_TASKS_RUNNING and takes no id.",
             "DefaultCheckpointPlanCalculator.calculateCheckpointPlan"),
    Declared("CC-5",
             "Checkpoint ids come from the ID counter (1, 2, ...) only once the plan exists; the pending "
             "checkpoint's canceller is due timeout_ms later.",
             "StandaloneCheckpointIDCounter, CheckpointCoordinator.createPendingCheckpoint, "
             "PendingCheckpoint.setCancellerHandle"),
    Declared("CC-6",
             "An acknowledgement is SUCCESS for an expected attempt, DUPLICATE for one that already "
             "acknowledged, UNKNOWN for another attempt; the last one completes the checkpoint.",
             "PendingCheckpoint.acknowledgeTask, CheckpointCoordinator.receiveAcknowledgeMessage"),
    Declared("CC-7",
             "A completed checkpoint or synchronous savepoint (1.13-1.14: any completion) aborts every older "
             "pending non-savepoint with CHECKPOINT_SUBSUMED; the min pause counts from the completion.",
             "CheckpointCoordinator.completePendingCheckpoint / dropSubsumedCheckpoints"),
    Declared("CC-8",
             "A decline aborts the pending checkpoint with the task's reason (task-level); a savepoint declined"
             " with CHECKPOINT_SUBSUMED is aborted but the abort throws before the failure manager hears of it.",
             "CheckpointCoordinator.receiveDeclineMessage, PendingCheckpoint.abort"),
    Declared("CC-9",
             "Before each event due timers fire in due-time order (ties in scheduling order): an expired "
             "pending checkpoint is aborted with CHECKPOINT_EXPIRED (job-level), a rescheduled periodic trigger"
             " requests a checkpoint.",
             "CheckpointCoordinator.CheckpointCanceller, ScheduledTrigger"),
    Declared("CC-10",
             "Every dispose (abort or completion), every scheduleTriggerRequest and (1.16+) every subsumed "
             "stored checkpoint queue one run of executeQueuedRequest.",
             "CheckpointCoordinator.executeQueuedRequest / scheduleTriggerRequest, CheckpointsCleaner (1.16+)"),
    Declared("CC-11",
             "restart (a region failover) aborts every pending checkpoint with JOB_FAILOVER_REGION (job-level) "
             "and gives the task a new attempt.",
             "SchedulerBase.restoreState, CheckpointCoordinator.abortPendingCheckpoints"),
    Declared("CC-12",
             "Decline reasons are the version's CheckpointFailureReason values.",
             "CheckpointFailureReason enum of each of the 1.13.6-2.3.0 jars"),
    Declared("CC-13",
             "The failure manager counts each checkpoint id once, only above the last success and only for the "
             "counted reasons of the version; a newer success resets the count; tolerable_failures = 2147483647"
             " disables counting.",
             "CheckpointFailureManager.checkFailureCounter / handleCheckpointSuccess"),
    Declared("CC-14",
             "1.14.3+: a pre-flight reason or a failure without a task is job-level and ignored for savepoints,"
             " a task-level failure of a synchronous savepoint fails the job; 1.13-1.14.2: every non-pre-flight"
             " failure of a synchronous savepoint fails the job and savepoint failures count.",
             "CheckpointFailureManager.handleJobLevelCheckpointException / handleTaskLevelCheckpointException /"
             " handleSynchronousSavepointFailure (CheckpointCoordinator.abortPendingCheckpoint up to 1.14.2, "
             "handleCheckpointException with the CheckpointProperties from 1.14.3), 1.13.6-2.3.0 jars and the "
             "1.14.0-1.14.3 jars"),
    Declared("CC-15",
             "The job fails when the count exceeds tolerable_failures (\"Exceeded checkpoint tolerable failure "
             "threshold.\", 1.17+ with the latest reason's message), and the count resets.",
             "CheckpointFailureManager (FailJobCallback, EXCEEDED_CHECKPOINT_TOLERABLE_FAILURE_MESSAGE)"),
    Declared("CC-16",
             "The completed-checkpoint store keeps `retained` checkpoints; 1.15+ stores no savepoints.",
             "StandaloneCompletedCheckpointStore, CheckpointSubsumeHelper.subsume"),
    Declared("CC-17",
             "1.13-1.14 store savepoints too: an older entry is dropped iff it is not the latest and is a "
             "savepoint, or the latest is a synchronous savepoint, or a newer checkpoint exists.",
             "StandaloneCompletedCheckpointStore.addCheckpoint(AndSubsumeOldestOne), CheckpointSubsumeHelper",
             until="1.15"),
    Declared("CC-18",
             "An acknowledgement for a checkpoint no longer pending returns true iff its id is among the last "
             "16 ids removed from pending (up to 1.18) or expired (1.19+).",
             "CheckpointCoordinator.receiveAcknowledgeMessage, recentPendingCheckpoints / "
             "recentExpiredCheckpoints"),
    Declared("CC-19",
             "The configuration rejects timeout < 10, min pause < 0, max concurrent < 1, tolerable < 0 "
             "(IllegalArgumentException) and unaligned with max concurrent > 1; the store rejects retained < 1.",
             "CheckpointCoordinatorConfiguration constructor, StandaloneCompletedCheckpointStore constructor"),
    Declared("CC-20",
             "A completion tells every task, in the job's task order and after the aborts of the checkpoints it "
             "subsumed, to commit the checkpoint; 1.15+ with the id of the last checkpoint the store subsumed on "
             "adding it (-1: none), and a savepoint that is not synchronous tells no task.",
             "CheckpointCoordinator.completePendingCheckpoint / sendAcknowledgeMessages / "
             "extractIdIfDiscardedOnSubsumed, Execution.notifyCheckpointComplete (1.13-1.14) / "
             "notifyCheckpointOnComplete (1.15+)"),
    Declared("CC-21",
             "Every abort of a pending checkpoint (declined, expired, subsumed, failover, shutdown, suspend) tells "
             "every task, in the job's task order, that the checkpoint is aborted, even when the abort throws.",
             "CheckpointCoordinator.abortPendingCheckpoint (finally) / sendAbortedMessages, "
             "Execution.notifyCheckpointAborted"),
    Declared("CC-22",
             "shutdown (once) fails the queued requests and aborts the pending checkpoints with "
             "CHECKPOINT_COORDINATOR_SHUTDOWN (job-level); every request that starts afterwards fails "
             "CHECKPOINT_COORDINATOR_SHUTDOWN before its plan, takes no id, and lets the next one start; an "
             "acknowledgement afterwards has no result (not even a late one's).",
             "CheckpointCoordinator.shutdown / abortPendingAndQueuedCheckpoints / preCheckGlobalState / "
             "onTriggerFailure / receiveAcknowledgeMessage"),
    Declared("CC-23",
             "stop_scheduler cancels the periodic trigger and fails the queued requests and aborts the pending "
             "checkpoints with CHECKPOINT_COORDINATOR_SUSPEND (job-level); a periodic request that starts "
             "afterwards fails PERIODIC_SCHEDULER_SHUTDOWN, other requests are still triggered.",
             "CheckpointCoordinator.stopCheckpointScheduler / preCheckGlobalState"),
    Declared("CC-24",
             "Once the checkpoint ID counter fails, a request whose plan succeeds fails TRIGGER_CHECKPOINT_FAILURE "
             "(job-level, not counted) and takes no id.",
             "CheckpointCoordinator.startTriggeringCheckpoint / initializeCheckpoint (CheckpointIDCounter."
             "getAndIncrement) / onTriggerFailure"),
)

MAX_AT = 2**40  # logical times are 0 ... 2**40 ms
TRIGGERS: tuple[TriggerKind, ...] = ("periodic", "checkpoint", "savepoint", "sync_savepoint")
KINDS: tuple[EventKind, ...] = ("trigger", "ack", "decline", "fail", "restart", "tick", "shutdown", "stop_scheduler",
                                "id_counter")
END_KINDS: tuple[EventKind, ...] = ("shutdown", "stop_scheduler", "id_counter")  # protocol 4
CONFIG_DEFAULTS = attrs.asdict(Config())


@attrs.frozen
class Event:
    """One input event, validated."""

    at: int
    kind: EventKind
    task: str = ""
    trigger: TriggerKind | Literal[""] = ""  # "": not a trigger event
    checkpoint: int = 0
    reason: str = ""


def coordinator_area(payload: Mapping[str, Any], version: FlinkVersion) -> CoordinatorOutput | Rejected:
    """Run the request's events through one coordinator; one step object per event."""
    rules = rules_for(version)
    for key in payload:
        if key not in ("config", "tasks", "sources", "events"):
            raise BadRequest(f"input.{key} is not a known field")
    config = _config(payload)
    tasks = _names(payload, "tasks", None)
    sources = set(_names(payload, "sources", tasks)) if "sources" in payload else set(tasks)
    events = _events(payload, tasks, rules)
    rejected = _rejection(config)
    if rejected is not None:
        return rejected
    machine = Coordinator(config, tasks, sources, rules)
    return {"steps": [_step(machine, i, e) for i, e in enumerate(events)]}


def _step(machine: Coordinator, i: int, event: Event) -> CoordinatorStep:
    before = machine.store.ids()
    machine.begin(i)
    machine.advance(event.at)
    machine.aside()
    if event.kind == "trigger":
        machine.trigger(cast(TriggerKind, event.trigger))  # a trigger event's kind: validated
    elif event.kind == "ack":
        machine.acknowledge(event.task, event.checkpoint)
    elif event.kind == "decline":
        machine.decline(event.task, event.checkpoint, event.reason)
    elif event.kind == "fail":
        machine.fail(event.task)
    elif event.kind == "restart":
        machine.restart(event.task)
    elif event.kind == "shutdown":
        machine.shutdown()
    elif event.kind == "stop_scheduler":
        machine.stop_scheduler()
    elif event.kind == "id_counter":
        machine.fail_counter()
    machine.drain()
    machine.settle()
    out: CoordinatorStep
    step, out = machine.step, {}
    if step.triggered:
        out["triggered"] = step.triggered
    if machine.queue:
        out["queued"] = len(machine.queue)
    if step.rejected:
        out["rejected"] = step.rejected
    if step.ack is not None:
        out["ack"] = step.ack
    if step.completed:
        out["completed"] = step.completed
    if step.aborted:
        out["aborted"] = step.aborted
    after = machine.store.ids()
    if after != before:
        out["retained"] = after
    if step.job_failed is not None:
        out["job_failed"] = step.job_failed
    if step.was_pending:
        out["was_pending"] = True
    if step.notified:
        out["notified"] = cast(list[CompleteNotification | AbortedNotification], step.notified)
    machine.step = Step()
    return out


def _rejection(config: Config) -> Rejected | None:
    """CC-19: what ``CheckpointCoordinatorConfiguration`` and the store's constructor throw."""
    if (config.timeout_ms < 10 or config.min_pause_ms < 0 or config.max_concurrent < 1
            or config.tolerable_failures < 0):
        return _invalid("")
    if config.unaligned and config.max_concurrent > 1:
        return _invalid("maxConcurrentCheckpoints can't be > 1 if UnalignedCheckpoints enabled")
    if config.retained < 1:
        return _invalid("Must retain at least one checkpoint.")
    return None


def _invalid(message: str) -> Rejected:
    rejected_because("CC-19")
    return Rejected("IllegalArgumentException", message)


# ---------------------------------------------------------------------------------------------
# request validation
# ---------------------------------------------------------------------------------------------


def _config(payload: Mapping[str, Any]) -> Config:
    if "config" not in payload:
        return Config()
    raw = field(payload, "config", dict, "input")
    values: dict[str, Any] = {}
    for key in raw:
        if key not in CONFIG_DEFAULTS:
            raise BadRequest(f"input.config.{key} is not a known setting; known: {', '.join(CONFIG_DEFAULTS)}")
    for key in ("max_concurrent", "retained", "tolerable_failures"):
        if key in raw:
            value = field(raw, key, int, "input.config")
            if not -JAVA_INT_MAX - 1 <= value <= JAVA_INT_MAX:
                raise BadRequest(f"input.config.{key} = {value} does not fit a Java int")
            values[key] = value
    for key in ("min_pause_ms", "timeout_ms"):
        if key in raw:
            values[key] = java_long(raw, key, "input.config")
    if "unaligned" in raw:
        values["unaligned"] = field(raw, "unaligned", bool, "input.config")
    return Config(**values)


def _names(payload: Mapping[str, Any], name: str, within: list[str] | None) -> list[str]:
    raw = field(payload, name, list, "input")
    if not raw:
        raise BadRequest(f"input.{name} must name at least one task")
    out: list[str] = []
    for i, item in enumerate(raw):
        if not isinstance(item, str) or not item:
            raise BadRequest(f"input.{name}[{i}] must be a non-empty string")
        if item in out:
            raise BadRequest(f"input.{name}[{i}] = {item!r} appears twice")
        if within is not None and item not in within:
            raise BadRequest(f"input.{name}[{i}] = {item!r} is not one of input.tasks")
        out.append(item)
    return out


def _events(payload: Mapping[str, Any], tasks: list[str], rules: Rules) -> list[Event]:
    raw = field(payload, "events", list, "input")
    out: list[Event] = []
    last = 0
    for i, event in enumerate(raw):
        where = f"input.events[{i}]"
        if not isinstance(event, Mapping):
            raise BadRequest(f"{where} must be an object, got {type(event).__name__}")
        at = field(event, "at", int, where)
        if not 0 <= at <= MAX_AT:
            raise BadRequest(f"{where}.at = {at} must be between 0 and {MAX_AT}")
        if at < last:
            raise BadRequest(f"{where}.at = {at} goes back in time (the previous event is at {last})")
        last = at
        present = [k for k in KINDS if k in event]
        if len(present) != 1:
            raise BadRequest(f"{where} must have exactly one of {', '.join(KINDS)}")
        out.append(_event(event, present[0], at, where, tasks, rules))
    return out


def _event(event: Mapping[str, Any], kind: EventKind, at: int, where: str, tasks: list[str], rules: Rules) -> Event:
    allowed = {"at", kind}
    if kind in ("ack", "decline"):
        allowed |= {"checkpoint", "reason"} if kind == "decline" else {"checkpoint"}
    for key in event:
        if key not in allowed:
            raise BadRequest(f"{where}.{key} is not a field of a {kind} event")
    if kind == "trigger":
        trigger = field(event, "trigger", str, where)
        if trigger not in TRIGGERS:
            raise BadRequest(f"{where}.trigger = {trigger!r} must be one of {', '.join(TRIGGERS)}")
        return Event(at, kind, trigger=trigger)
    if kind in ("tick", "shutdown", "stop_scheduler"):
        if event[kind] is not True:
            raise BadRequest(f"{where}.{kind} must be true")
        return Event(at, kind)
    if kind == "id_counter":
        if event[kind] != "fail":
            raise BadRequest(f'{where}.id_counter must be "fail"')
        return Event(at, kind)
    task = field(event, kind, str, where)
    if task not in tasks:
        raise BadRequest(f"{where}.{kind} = {task!r} is not one of input.tasks")
    if kind in ("fail", "restart"):
        return Event(at, kind, task=task)
    checkpoint = java_long(event, "checkpoint", where)
    if kind == "ack":
        return Event(at, kind, task=task, checkpoint=checkpoint)
    reason = field(event, "reason", str, where)
    because("CC-12")  # the version's CheckpointFailureReason values
    if reason not in rules.reasons:
        raise BadRequest(f"{where}.reason = {reason!r} is not a CheckpointFailureReason of this Flink version")
    return Event(at, kind, task=task, checkpoint=checkpoint, reason=reason)


# the areas this module answers, by name (oracle.AREAS)
ENTRIES: dict[str, AreaFn] = {COORDINATOR: coordinator_area}

# the changes of Flink's behaviour in this area, in release order (oracle.changes)
CHANGES: dict[str, tuple[Change, ...]] = {COORDINATOR: coordinator_rules.CHANGES}
