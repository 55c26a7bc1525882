"""Protocol area ``checkpoint.alignment``: one task's checkpoint barrier handling (AL-*, ALO-*).

One operator instance reads one input gate of ``channels`` channels. The request's events arrive
at the gate in order; the task consumes them through Flink's barrier handler, which may block
channels (exactly-once) and triggers or aborts checkpoints. The output is the task's trace:
``{"process": [channel, record]}``, ``{"snapshot": id}`` followed by ``{"emit_barrier": id}``,
``{"abort": [id, reason]}``. The input model, the trace and the extension
``checkpoints_after_finish`` are specified in ``docs/protocol/checkpoint-alignment.md``.

Input model: IN-* in :data:`RULES` (the harness's, the same in the real-Flink bridge).

Exactly-once: ``SingleCheckpointBarrierHandler.aligned`` (all versions; in 1.13 it counts
barriers where 1.14+ keeps a channel set), states ``WaitingForFirstBarrier`` / ``CollectingBarriers``
via ``AbstractAlignedBarrierHandlerState``: AL-* in :data:`RULES`.

At-least-once: ``CheckpointBarrierTracker``; ``pendingCheckpoints`` is a deque, oldest first: ALO-* in :data:`RULES`.

Explained (:mod:`oracle.explain`), the rules that decided an event land on the trace entries it adds,
the rule that decided the entry first (the handler's; for a record the consumption order), on each
field of the entry (``trace[k].abort[0]``, ``trace[k].abort[1]``, ``trace[k].snapshot``): so an
implementation that has something else at ``trace[k]`` lacks Flink's abort there, whatever it has
instead. An event that adds no entry (a barrier that only blocks its channel, an ignored one, an
arrival queued behind a blocked channel) decides no entry by itself: its rules land after those of
the next entry added, where its effect shows, or past the trace's end (``trace[n]``). So the first
rule of an entry never depends on what came before it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypedDict, cast, final

import attrs

from oracle.alignment_handlers import Abort, AlignedHandler, Block, Effect, Fail, Resume, Tracker, Trigger
from oracle.changes import Change
from oracle.explain import ASIDE, at, because, recorded, tracing_active
from oracle.protocol import JAVA_LONG_MAX, AreaFn, BadRequest
from oracle.rules import Declared
from oracle.versions import FlinkVersion, pick, v

ALIGNMENT = "checkpoint.alignment"  # the protocol area (docs/protocol)

# The input and the output (docs/protocol/v1.md, checkpoint-alignment.md): what alignment_area reads and builds.
Mode = Literal["exactly_once", "at_least_once"]


class RecordEvent(TypedDict):
    channel: int
    record: str


class BarrierEvent(TypedDict):
    channel: int
    barrier: int  # a checkpoint id


class CancelEvent(TypedDict):
    channel: int
    cancel: int  # protocol 2: a CancelCheckpointMarker of this checkpoint


class EndEvent(TypedDict):
    channel: int
    end: Literal[True]


AlignmentEvent = RecordEvent | BarrierEvent | CancelEvent | EndEvent


class AlignmentInput(TypedDict):
    mode: Mode
    channels: int  # 1 ... MAX_CHANNELS
    events: list[AlignmentEvent]  # in arrival order
    checkpoints_after_finish: NotRequired[bool]  # protocol 2 (absent: the version's default)


# the trace's entries, each an object with one key (final: ``"process" in entry`` tells them apart)
@final
class ProcessEntry(TypedDict):
    process: list[int | str]  # [channel, record]


@final
class SnapshotEntry(TypedDict):
    snapshot: int


@final
class EmitBarrierEntry(TypedDict):
    emit_barrier: int


@final
class AbortEntry(TypedDict):
    abort: list[int | str]  # [checkpoint id, CheckpointFailureReason]


@final
class FailEntry(TypedDict):
    fail: str  # protocol 2: the simple name of what the handler threw


TraceEntry = ProcessEntry | SnapshotEntry | EmitBarrierEntry | AbortEntry | FailEntry


class AlignmentOutput(TypedDict):
    """The operator's actions, in order."""

    trace: list[TraceEntry]


# The rules this module encodes, each declared once (its area's declaration, properties/<group>/area.py, says
# what checks each).
RULES: tuple[Declared, ...] = (
    Declared("IN-1",
             "Each event is appended to its channel's queue when it arrives.",
             "flinkspec's input model, docs/protocol/checkpoint-alignment.md (bridge: AlignmentArea.java)"),
    Declared("IN-2",
             "A channel is blocked from the handler's blockConsumption until its resumeConsumption.",
             "CheckpointableInput.blockConsumption / resumeConsumption as the handlers call them"),
    Declared("IN-3",
             "After each arrival the task consumes, one at a time, the earliest-arrived queued event of any "
             "unblocked channel until none is left; what a never-resumed channel queued is never consumed.",
             "flinkspec's input model, docs/protocol/checkpoint-alignment.md (bridge: AlignmentArea.java)"),
    Declared("IN-4",
             "A consumed record is processed; a barrier, cancel marker or end of partition goes to the barrier "
             "handler.",
             "CheckpointedInputGate.handleEvent"),
    Declared("IN-5",
             "A trigger is recorded as snapshot then emit_barrier, an abort as abort.",
             "SubtaskCheckpointCoordinatorImpl.checkpointState, abortCheckpointOnBarrier"),
    Declared("IN-6",
             "An exception thrown by the handler fails the task: a fail step ends the trace and nothing more is"
             " consumed.",
             "flinkspec's input model (a task fails on an exception in its mailbox)"),
    Declared("AL-1",
             "Exactly-once: the handler starts with current = last completed-or-cancelled = -1, and a "
             "checkpoint is pending while current != last and current >= 0.",
             "SingleCheckpointBarrierHandler.isCheckpointPending"),
    Declared("AL-2",
             "Exactly-once: a barrier with id < current, or = current while nothing is pending, is obsolete: "
             "its channel is resumed and nothing else happens.",
             "SingleCheckpointBarrierHandler.processBarrier"),
    Declared("AL-3",
             "Exactly-once: a barrier with id > current first aborts a pending checkpoint with "
             "CHECKPOINT_DECLINED_SUBSUMED, then starts checkpoint id targeting the open channels.",
             "SingleCheckpointBarrierHandler.checkNewCheckpoint / cancelSubsumedCheckpoint"),
    Declared("AL-4",
             "Exactly-once: the barrier's channel joins the aligned set and is blocked; once the set reaches "
             "the target the checkpoint is triggered, every blocked channel resumed, and it counts as "
             "completed.",
             "SingleCheckpointBarrierHandler.markCheckpointAlignedAndTransformState, WaitingForFirstBarrier / "
             "CollectingBarriers.barrierReceived, triggerGlobalCheckpoint"),
    Declared("AL-5",
             "Exactly-once: a cancel marker with id > current, or = current while some channel is aligned, "
             "aborts id with CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER; any other is ignored, and an older "
             "pending checkpoint is dropped without an abort of its own.",
             "SingleCheckpointBarrierHandler.processCancellationBarrier"),
    Declared("AL-6",
             "Exactly-once abort: current = max(current, id), last = max(last, id), the aligned set cleared, "
             "every blocked channel resumed, then the abort notified.",
             "SingleCheckpointBarrierHandler.abortInternal"),
    Declared("AL-7",
             "Exactly-once, checkpoints after finish off: an end of partition leaves one channel fewer open and"
             " aborts a pending checkpoint with CHECKPOINT_DECLINED_INPUT_END_OF_STREAM.",
             "SingleCheckpointBarrierHandler.processEndOfPartition"),
    Declared("AL-8",
             "Exactly-once, checkpoints after finish on: an end of partition leaves one channel fewer open and "
             "counts as aligned for a pending checkpoint, which it may trigger.",
             "SingleCheckpointBarrierHandler.processEndOfPartition, "
             "AbstractAlignedBarrierHandlerState.endOfPartitionReceived", since="1.14"),
    Declared("AL-9",
             "1.13 has no checkpoints after finish (AL-7 always); its barrier counter decides as 1.14+'s "
             "channel set does.",
             "SingleCheckpointBarrierHandler (numBarriersReceived)", until="1.14"),
    Declared("ALO-1",
             "At-least-once: no channel is ever blocked, everything is consumed in arrival order.",
             "CheckpointBarrierTracker"),
    Declared("ALO-2",
             "At-least-once: a barrier with id > the latest pending id while one channel is open triggers at "
             "once and is not tracked (1.13: whenever the task has one channel).",
             "CheckpointBarrierTracker.processBarrier"),
    Declared("ALO-3",
             "At-least-once: a barrier of a tracked checkpoint counts its channel; at the entry's target the "
             "entry and every older one are removed (the older silently) and it is triggered unless aborted.",
             "CheckpointBarrierTracker.processBarrier / triggerCheckpointOnAligned"),
    Declared("ALO-4",
             "At-least-once: a barrier with a new id > the latest pending id starts an entry; beyond 50 entries"
             " the oldest is dropped silently.",
             "CheckpointBarrierTracker.processBarrier, MAX_CHECKPOINTS_TO_TRACK"),
    Declared("ALO-5",
             "At-least-once: any other barrier (older, untracked) is ignored.",
             "CheckpointBarrierTracker.processBarrier"),
    Declared("ALO-6",
             "At-least-once: a cancel marker with id > the latest pending id while one channel is open aborts "
             "id at once and changes nothing else (1.13: whenever the task has one channel).",
             "CheckpointBarrierTracker.processCancellationBarrier"),
    Declared("ALO-7",
             "At-least-once: otherwise a cancel marker removes every older entry, notifying each not yet "
             "aborted one, aborts (once) an entry of its id that then counts the channel, and tracks a newer id"
             " as an aborted entry.",
             "CheckpointBarrierTracker.processCancellationBarrier"),
    Declared("ALO-8",
             "At-least-once, checkpoints after finish off: an end of partition leaves one channel fewer open "
             "and removes every entry, aborting each not yet aborted one with "
             "CHECKPOINT_DECLINED_INPUT_END_OF_STREAM.",
             "CheckpointBarrierTracker.processEndOfPartition"),
    Declared("ALO-9",
             "At-least-once, checkpoints after finish on: an end of partition counts its channel in each entry "
             "from the newest back to the first it completes, which is removed with every older one and "
             "triggered unless aborted.",
             "CheckpointBarrierTracker.checkAlignmentOnEndOfPartitionIfEnabled", since="1.14"),
    Declared("ALO-10",
             "At-least-once in 1.13: entries count barriers (a repeated barrier counts again) against the "
             "task's fixed channel count, and an end of partition never lowers it and always does ALO-8.",
             "CheckpointBarrierTracker (totalNumberOfInputChannels)", until="1.14"),
    Declared("ALO-11",
             "At-least-once: the task fails with IllegalStateException(\"Alignment time is less than zero\") when"
             " the latest pending checkpoint completes while no alignment is in progress.",
             "CheckpointBarrierHandler.markAlignmentStartAndEnd / markAlignmentEnd / resetAlignment", since="1.14"),
)

MAX_CHANNELS = 64
MAX_EVENTS = 100_000

# execution.checkpointing.checkpoints-after-tasks-finish(.enabled): the option's default, by first
# version (ExecutionCheckpointingOptions 1.14-1.20, CheckpointingOptions 1.20+); None: no option,
# the handlers have no such mode (1.13). Verified in each flink-dist jar.
CHANNEL_SETS = Change(
    since="1.14", what="barrier handlers track channel sets; end of partition counts as aligned; "
    "checkpoints-after-finish option",
    # end of partition: counts as aligned (1.14), with checkpoints after finish on by default (1.15)
    witnesses=({"mode": "at_least_once", "channels": 2,
                "events": [{"channel": 1, "end": True}, {"channel": 0, "barrier": 1}]},
               {"mode": "exactly_once", "channels": 2,
                "events": [{"channel": 1, "barrier": 1}, {"channel": 0, "end": True}]}))
AFTER_FINISH_ON = Change(since="1.15", what="checkpoints-after-finish default false -> true")
AFTER_FINISH_DEFAULT: Mapping[FlinkVersion, bool | None] = {
    v("1.13"): None, CHANNEL_SETS.at: False, AFTER_FINISH_ON.at: True}

# CheckpointBarrierTracker's rules: 1.13's barrier counter (ALO-10) or 1.14+'s channel sets.
LEGACY_TRACKER: Mapping[FlinkVersion, bool] = CHANNEL_SETS.table(True, False)

MODES: tuple[Mode, ...] = ("exactly_once", "at_least_once")
_KINDS = ("record", "barrier", "cancel", "end")
_INPUT_KEYS = frozenset({"mode", "channels", "events", "checkpoints_after_finish"})


@attrs.frozen
class Event:
    """One arrival at the input gate: ``kind`` is record / barrier / cancel / end."""

    channel: int
    kind: str
    value: str | int | None = None


Handler = AlignedHandler | Tracker


def alignment_area(payload: Mapping[str, Any], version: FlinkVersion) -> AlignmentOutput:
    """The trace of one task reading ``events`` through Flink's barrier handler of ``mode``."""
    return {"trace": run(parse(payload, version), version)}


@attrs.frozen
class Request:
    """A validated ``checkpoint.alignment`` input."""

    mode: Mode
    channels: int
    after_finish: bool
    events: list[Event]


def parse(payload: Mapping[str, Any], version: FlinkVersion) -> Request:
    """The input, validated (a BadRequest naming the field otherwise)."""
    _check_keys(payload)
    mode = payload.get("mode")
    if mode not in MODES:
        raise BadRequest(f'input.mode = {mode!r} must be "exactly_once" or "at_least_once"')
    channels = payload.get("channels")
    if type(channels) is not int or not 1 <= channels <= MAX_CHANNELS:
        raise BadRequest(f"input.channels = {channels!r} must be an integer between 1 and {MAX_CHANNELS}")
    return Request(mode, channels, _after_finish(payload, version), _events(payload, channels))


def run(request: Request, version: FlinkVersion, upto: int | None = None) -> list[TraceEntry]:
    """The trace of the first ``upto`` events (all by default)."""
    mode, channels, after_finish = request.mode, request.channels, request.after_finish
    events = request.events if upto is None else request.events[:upto]
    handler: Handler
    legacy = pick(LEGACY_TRACKER, version)
    if mode == "exactly_once":
        handler = AlignedHandler(channels, after_finish=after_finish, legacy=legacy)
    else:
        handler = Tracker(channels, after_finish=after_finish, legacy=legacy)
    return Gate(channels, handler).run(events)


class Gate:
    """The input model IN-1 ... IN-6 around one handler."""

    def __init__(self, channels: int, handler: Handler) -> None:
        self.handler = handler
        self.queues: list[deque[tuple[int, Event]]] = [deque() for _ in range(channels)]
        self.blocked = [False] * channels
        self.queued: set[int] = set()  # channels with a non-empty queue
        self.trace: list[TraceEntry] = []
        self.failed = False
        # what the task consumes in order: IN-3 (the input model), and ALO-1: the tracker blocks nothing
        self.order_rules = ("IN-3",) if isinstance(handler, AlignedHandler) else ("IN-3", "ALO-1")
        self.explaining = tracing_active()
        self.unlanded: dict[str, None] = {}  # rules of events that added no entry, for the next one

    def run(self, events: list[Event]) -> list[TraceEntry]:
        for seq, event in enumerate(events):
            if self.failed:
                break
            if not self.queued and not self.blocked[event.channel]:
                self._consume(seq, event)  # IN-3 fast path: nothing waits before it
            else:
                if self.explaining:
                    at(*ASIDE, seq, "arrival")
                # why it waits: its channel is blocked until resumed, or earlier arrivals go first
                because("IN-2" if self.blocked[event.channel] else "IN-3", "IN-1")
                self.queues[event.channel].append((seq, event))
                self.queued.add(event.channel)
                if self.explaining:
                    self._land((*ASIDE, seq, "arrival"), len(self.trace))
            self._drain()
        if self.explaining and self.unlanded:
            at("trace", len(self.trace))  # an entry past the end would depart here
            because(*self.unlanded)
        return self.trace

    def _land(self, aside: tuple[str | int, ...], start: int) -> None:
        """Repeat the rules recorded ``aside`` on the entries added since ``start``, the first also
        followed by the rules of the events before it that added none (see the module's docstring)."""
        rules = recorded(*aside)
        if len(self.trace) == start:
            self.unlanded.update(dict.fromkeys(rules))
            return
        for k in range(start, len(self.trace)):
            for name, value in self.trace[k].items():
                parts: list[tuple[int, ...]] = [(j,) for j in range(len(value))] if isinstance(value, list) else [()]
                for part in parts:
                    at("trace", k, name, *part)
                    because(*rules)
                    if k == start:
                        because(*self.unlanded)
        self.unlanded = {}

    def _drain(self) -> None:
        """IN-3: consume the earliest queued event of an unblocked channel while there is one."""
        while not self.failed:
            ready = [c for c in self.queued if not self.blocked[c]]
            if not ready:
                return
            channel = min(ready, key=lambda c: self.queues[c][0][0])
            queue = self.queues[channel]
            seq, event = queue.popleft()
            if not queue:
                self.queued.discard(channel)
            self._consume(seq, event)

    def _consume(self, seq: int, event: Event) -> None:
        """IN-4 ... IN-6."""
        start = len(self.trace)
        if self.explaining:
            at(*ASIDE, seq)
        self._handle(event)
        if self.explaining:
            self._land((*ASIDE, seq), start)

    def _handle(self, event: Event) -> None:
        if event.kind == "record":
            if self.explaining:  # the hot path: records are most of what a task consumes
                because(*self.order_rules, "IN-4")  # which record is processed here: the consumption order
            self.trace.append({"process": [event.channel, cast(str, event.value)]})  # a record's value: a string
            return
        effects: tuple[Effect, ...]
        if event.kind == "end":
            effects = self.handler.end(event.channel)
        elif event.kind == "barrier" and isinstance(event.value, int):
            effects = self.handler.barrier(event.channel, event.value)
        elif event.kind == "cancel" and isinstance(event.value, int):
            effects = self.handler.cancel(event.channel, event.value)
        else:
            raise AssertionError(f"unvalidated event {event!r}")
        because("IN-4")  # after the handler's own rules: they decide what it adds
        for effect in effects:
            if isinstance(effect, Block):
                because("IN-2")
                self.blocked[effect.channel] = True
            elif isinstance(effect, Resume):
                because("IN-2")
                self.blocked[effect.channel] = False
            elif isinstance(effect, Trigger):
                because("IN-5")
                self.trace.append({"snapshot": effect.checkpoint})
                self.trace.append({"emit_barrier": effect.checkpoint})
            elif isinstance(effect, Abort):
                because("IN-5")
                self.trace.append({"abort": [effect.checkpoint, effect.reason]})
            elif isinstance(effect, Fail):
                because("IN-6")
                self.trace.append({"fail": effect.exception})
                self.failed = True


# ---------------------------------------------------------------------------------------------
# request validation
# ---------------------------------------------------------------------------------------------


def _check_keys(payload: Mapping[str, Any]) -> None:
    for key in payload:
        if key not in _INPUT_KEYS:
            known = ", ".join(sorted(_INPUT_KEYS))
            raise BadRequest(f"input.{key} is not a field of checkpoint.alignment (known: {known})")
    for key in ("mode", "channels", "events"):
        if key not in payload:
            raise BadRequest(f"input.{key} is missing")


def _after_finish(payload: Mapping[str, Any], version: FlinkVersion) -> bool:
    default = pick(AFTER_FINISH_DEFAULT, version)
    if "checkpoints_after_finish" not in payload:
        return bool(default)
    value = payload["checkpoints_after_finish"]
    if type(value) is not bool:
        raise BadRequest(f"input.checkpoints_after_finish must be a boolean, got {type(value).__name__}")
    if default is None and value:
        raise BadRequest(
            f"input.checkpoints_after_finish: Flink {version} has no checkpoints after tasks finish "
            "(the option exists from 1.14); only false is defined"
        )
    return value


def _events(payload: Mapping[str, Any], channels: int) -> list[Event]:
    raw = payload["events"]
    if not isinstance(raw, list):
        raise BadRequest(f"input.events must be an array, got {type(raw).__name__}")
    if len(raw) > MAX_EVENTS:
        raise BadRequest(f"input.events has {len(raw)} events, more than {MAX_EVENTS}")
    ended: set[int] = set()
    out: list[Event] = []
    for i, event in enumerate(raw):
        where = f"input.events[{i}]"
        if not isinstance(event, dict):
            raise BadRequest(f"{where} must be an object, got {type(event).__name__}")
        channel = event.get("channel")
        if type(channel) is not int or not 0 <= channel < channels:
            raise BadRequest(f"{where}.channel = {channel!r} must be an integer in [0, {channels})")
        kinds = [k for k in _KINDS if k in event]
        if len(kinds) != 1:
            raise BadRequest(f"{where} must have exactly one of {', '.join(_KINDS)}")
        kind = kinds[0]
        for key in event:
            if key not in ("channel", kind):
                raise BadRequest(f"{where}.{key} is not a field of a {kind} event")
        if channel in ended:
            raise BadRequest(f"{where} arrives on channel {channel} after its end of partition")
        out.append(Event(channel, kind, _value(event[kind], kind, where)))
        if kind == "end":
            ended.add(channel)
    return out


def _value(value: Any, kind: str, where: str) -> str | int | None:
    if kind == "record":
        if not isinstance(value, str):
            raise BadRequest(f"{where}.record must be a string, got {type(value).__name__}")
        return value
    if kind == "end":
        if value is not True:
            raise BadRequest(f"{where}.end must be true")
        return None
    if type(value) is not int or not 1 <= value <= JAVA_LONG_MAX:
        raise BadRequest(f"{where}.{kind} = {value!r} must be a checkpoint id: an integer in [1, 2^63-1]")
    return value


# the areas this module answers, by name (oracle.AREAS)
ENTRIES: dict[str, AreaFn] = {ALIGNMENT: alignment_area}

# the changes of Flink's behaviour in this area, in release order (oracle.changes)
CHANGES: dict[str, tuple[Change, ...]] = {ALIGNMENT: (CHANNEL_SETS, AFTER_FINISH_ON)}
