"""Flink's checkpoint barrier handlers as small state machines (rules AL-* and ALO-*).

Each handler mirrors one class of ``org.apache.flink.streaming.runtime.io.checkpointing`` and is
fed the events a task's ``CheckpointedInputGate.handleEvent`` hands it: a ``CheckpointBarrier``
(``processBarrier``), a ``CancelCheckpointMarker`` (``processCancellationBarrier``) and an
``EndOfPartitionEvent`` (``processEndOfPartition``). Every method returns the effects of the call in
the order Flink performs them: :class:`Block` / :class:`Resume` (the handler's calls of
``CheckpointableInput.blockConsumption`` / ``resumeConsumption``), :class:`Trigger`
(``CheckpointableTask.triggerCheckpointOnBarrier``) and :class:`Abort`
(``CheckpointableTask.abortCheckpointOnBarrier``). The rules are listed in :mod:`oracle.alignment`.

Channel identities are the indices of the channels of one input gate (``InputChannelInfo(0, c)``).

Each rule is enforced where its ID appears below; ``because(ID)`` says so to an explanation
(:mod:`oracle.explain`), the rule that decides what a call adds to the trace first (a subsumed
checkpoint's abort before the new barrier's alignment, a failure before the count that reached it),
1.13's rules (AL-9, ALO-10) after the rule they vary, so that a cause is named alike in every release.
"""

from __future__ import annotations

from collections import deque

import attrs

from oracle.explain import because

# CheckpointFailureReason names the handlers abort with.
SUBSUMED = "CHECKPOINT_DECLINED_SUBSUMED"
ON_CANCELLATION_BARRIER = "CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER"
INPUT_END_OF_STREAM = "CHECKPOINT_DECLINED_INPUT_END_OF_STREAM"

# CheckpointBarrierTracker.MAX_CHECKPOINTS_TO_TRACK (ALO-4)
MAX_CHECKPOINTS_TO_TRACK = 50


@attrs.frozen
class Block:
    """``CheckpointableInput.blockConsumption(channel)``."""

    channel: int


@attrs.frozen
class Resume:
    """``CheckpointableInput.resumeConsumption(channel)``."""

    channel: int


@attrs.frozen
class Trigger:
    """``triggerCheckpointOnBarrier``: the task snapshots and forwards the barrier."""

    checkpoint: int


@attrs.frozen
class Abort:
    """``abortCheckpointOnBarrier(checkpoint, CheckpointException(reason))``."""

    checkpoint: int
    reason: str


@attrs.frozen
class Fail:
    """The handler threw ``exception`` (a simple class name): the task fails and stops."""

    exception: str


Effect = Block | Resume | Trigger | Abort | Fail


class AlignedHandler:
    """``SingleCheckpointBarrierHandler.aligned`` with its ``WaitingForFirstBarrier`` /
    ``CollectingBarriers`` states (exactly-once, unaligned checkpoints off): AL-1 ... AL-9.

    ``after_finish`` is ``execution.checkpointing.checkpoints-after-tasks-finish(.enabled)``; 1.13
    (``legacy``) has no such option and behaves as if it were off (AL-9).
    """

    def __init__(self, channels: int, *, after_finish: bool, legacy: bool = False) -> None:
        self.after_finish = after_finish
        self.legacy = legacy
        self.current = -1  # currentCheckpointId
        self.last_done = -1  # lastCancelledOrCompletedCheckpointId
        self.open = channels  # numOpenChannels
        self.target = 0  # targetChannelCount
        self.aligned: set[int] = set()  # alignedChannels
        self.blocked: list[int] = []  # ChannelState.blockedChannels, in blocking order

    def pending(self) -> bool:
        """AL-1 ``isCheckpointPending``."""
        return self.current != self.last_done and self.current >= 0

    def barrier(self, channel: int, checkpoint: int) -> tuple[Effect, ...]:
        """``processBarrier(barrier, channel, isRpcTriggered=false)``."""
        if self.current > checkpoint or (self.current == checkpoint and not self.pending()):
            because("AL-2")  # obsolete: only the network block is released
            if self.current == checkpoint:
                because("AL-1")  # its checkpoint is no longer pending
            return (Resume(channel),)
        out: list[Effect] = []
        if checkpoint > self.current and self.pending():
            because("AL-3", "AL-1")  # the pending checkpoint is subsumed: its abort comes first
        because("AL-4")  # the barrier's channel is aligned (and the alignment may complete)
        if checkpoint > self.current:  # checkNewCheckpoint
            because("AL-3")
            if self.pending():
                out += self._abort(self.current, SUBSUMED)
            self.current = checkpoint
            self.aligned = set()
            self.target = self.open
        self.aligned.add(channel)  # markCheckpointAlignedAndTransformState
        if self.legacy:
            because("AL-9")  # 1.13 counts barriers, to the same effect
        self.blocked.append(channel)
        out.append(Block(channel))
        if len(self.aligned) == self.target:
            out += self._trigger()
        return tuple(out)

    def cancel(self, channel: int, checkpoint: int) -> tuple[Effect, ...]:
        """AL-5 ``processCancellationBarrier``."""
        because("AL-5")
        if checkpoint > self.current or (checkpoint == self.current and self.aligned):
            return self._abort(checkpoint, ON_CANCELLATION_BARRIER)
        return ()

    def end(self, channel: int) -> tuple[Effect, ...]:
        """``processEndOfPartition``: AL-7 (after-finish off) / AL-8 (on)."""
        because("AL-8" if self.after_finish else "AL-7")
        if self.legacy:
            because("AL-9")  # 1.13: no checkpoints after finish
        self.open -= 1
        if not self.pending():
            because("AL-1")
            return ()
        if not self.after_finish:
            return self._abort(self.current, INPUT_END_OF_STREAM)
        self.aligned.add(channel)  # CollectingBarriers.endOfPartitionReceived
        if channel in self.blocked:  # ChannelState.channelFinished: forgotten, not resumed
            self.blocked.remove(channel)
        return self._trigger() if len(self.aligned) == self.target else ()

    def _trigger(self) -> tuple[Effect, ...]:
        """AL-4: all barriers in: trigger, then ``unblockAllChannels``; the checkpoint is done."""
        because("AL-4")
        out: list[Effect] = [Trigger(self.current), *self._unblock_all()]
        self.aligned = set()
        self.last_done = self.current
        return tuple(out)

    def _abort(self, checkpoint: int, reason: str) -> tuple[Effect, ...]:
        """AL-6 ``abortInternal``."""
        because("AL-6")
        self.current = max(checkpoint, self.current)
        self.last_done = max(self.last_done, checkpoint)
        self.aligned = set()
        self.target = 0
        return (*self._unblock_all(), Abort(checkpoint, reason))

    def _unblock_all(self) -> list[Effect]:
        out: list[Effect] = [Resume(c) for c in self.blocked]
        self.blocked = []
        return out


@attrs.define
class _Entry:
    """``CheckpointBarrierTracker.CheckpointBarrierCount``."""

    checkpoint: int
    target: int
    channels: set[int]
    count: int = 1  # 1.13 counts barriers, not distinct channels
    aborted: bool = False

    def mark(self, channel: int, *, distinct: bool) -> int:
        """``markChannelAligned`` (1.14+, a set) / ``incrementBarrierCount`` (1.13)."""
        if distinct:
            self.channels.add(channel)
            return len(self.channels)
        self.count += 1
        return self.count

    def mark_aborted(self) -> bool:
        first = not self.aborted
        self.aborted = True
        return first


class Tracker:
    """``CheckpointBarrierTracker`` (at-least-once): ALO-1 ... ALO-11.

    ``legacy`` selects 1.13's tracker (ALO-10): barrier counts against the fixed total channel
    count, a fast path whenever there is one channel, and end of partition always aborting.
    ``aligning`` is ``CheckpointBarrierHandler.isDuringAlignment`` (ALO-11).
    """

    def __init__(self, channels: int, *, after_finish: bool, legacy: bool) -> None:
        self.after_finish = after_finish and not legacy
        self.legacy = legacy
        self.total = channels  # 1.13 totalNumberOfInputChannels
        self.open = channels  # 1.14+ numOpenChannels
        self.entries: deque[_Entry] = deque()  # pendingCheckpoints, oldest first
        self.latest = -1  # latestPendingCheckpointID
        self.aligning = False  # startOfAlignmentTimestamp != OUTSIDE_OF_ALIGNMENT

    def _single(self, checkpoint: int) -> bool:
        """ALO-2 / ALO-6 fast path."""
        if self.legacy:
            return self.total == 1
        return checkpoint > self.latest and self.open == 1

    def _target(self, entry: _Entry) -> int:
        return self.total if self.legacy else entry.target

    def barrier(self, channel: int, checkpoint: int) -> tuple[Effect, ...]:
        """``processBarrier``."""
        if self._single(checkpoint):
            because("ALO-2")
            self._legacy()
            self.aligning = False  # markAlignmentStartAndEnd
            return (Trigger(checkpoint),)
        for pos, entry in enumerate(self.entries):
            if entry.checkpoint == checkpoint:
                if entry.mark(channel, distinct=not self.legacy) != self._target(entry):
                    because("ALO-3")
                    self._legacy()
                    return ()
                for _ in range(pos + 1):
                    self.entries.popleft()
                if entry.aborted:
                    because("ALO-3")
                    self._legacy()
                    return ()
                return self._trigger(checkpoint, "ALO-3")
        if checkpoint > self.latest:
            because("ALO-4")
            self.aligning = True  # markAlignmentStart
            self.latest = checkpoint
            self.entries.append(_Entry(checkpoint, self.open, {channel}))
            if len(self.entries) > MAX_CHECKPOINTS_TO_TRACK:
                self.entries.popleft()
            return ()
        because("ALO-5")  # an older barrier of no pending checkpoint is ignored
        return ()

    def _legacy(self) -> None:
        """ALO-10 after the rule it varies: 1.13 counts barriers against its fixed channel count."""
        if self.legacy:
            because("ALO-10")

    def cancel(self, channel: int, checkpoint: int) -> tuple[Effect, ...]:
        """``processCancellationBarrier``: ALO-6, ALO-7."""
        if self._single(checkpoint):
            because("ALO-6")
            self._legacy()
            self.aligning = False  # resetAlignment
            return (Abort(checkpoint, ON_CANCELLATION_BARRIER),)
        because("ALO-7")
        out: list[Effect] = []
        while self.entries and self.entries[0].checkpoint < checkpoint:
            entry = self.entries.popleft()
            if entry.mark_aborted():
                out.append(Abort(entry.checkpoint, ON_CANCELLATION_BARRIER))
        head = self.entries[0] if self.entries else None
        if head is not None and head.checkpoint == checkpoint:
            if head.mark_aborted():
                out.append(Abort(checkpoint, ON_CANCELLATION_BARRIER))
            if head.mark(channel, distinct=not self.legacy) == self._target(head):
                self._legacy()
                self.entries.popleft()
        elif checkpoint > self.latest:
            out.append(Abort(checkpoint, ON_CANCELLATION_BARRIER))
            self.latest = checkpoint
            self.entries.appendleft(_Entry(checkpoint, self.open, {channel}, aborted=True))
        return tuple(out)

    def end(self, channel: int) -> tuple[Effect, ...]:
        """``processEndOfPartition``: ALO-8 (after-finish off, and 1.13) / ALO-9 (on)."""
        if not self.legacy:
            self.open -= 1
        if not self.after_finish:
            because("ALO-8")
            self._legacy()  # 1.13: the channel count stays, and no checkpoints after finish
            out: list[Effect] = []
            while self.entries:
                entry = self.entries.popleft()
                if entry.mark_aborted():
                    out.append(Abort(entry.checkpoint, INPUT_END_OF_STREAM))
            self.aligning = False  # resetAlignment
            return tuple(out)
        for pos in range(len(self.entries) - 1, -1, -1):  # newest first
            entry = self.entries[pos]
            if entry.mark(channel, distinct=True) == entry.target:
                for _ in range(pos + 1):
                    self.entries.popleft()
                if entry.aborted:
                    because("ALO-9")
                    return ()
                return self._trigger(entry.checkpoint, "ALO-9")
        because("ALO-9")
        return ()

    def _trigger(self, checkpoint: int, rule: str) -> tuple[Effect, ...]:
        """``triggerCheckpointOnAligned`` after ``rule`` completed it; ALO-11: completing the latest
        pending checkpoint ends the alignment (``markAlignmentEnd()``), whose
        ``checkState(duration >= 0)`` fails when no alignment is in progress:
        ``relativeTimeNanos() - Long.MIN_VALUE`` overflows."""
        if checkpoint == self.latest:
            if not self.aligning:
                because("ALO-11", rule)  # the failure is what this call adds
                return (Fail("IllegalStateException"),)
            self.aligning = False
        because(rule)
        self._legacy()
        return (Trigger(checkpoint),)
