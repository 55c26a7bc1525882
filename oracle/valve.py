"""Stream elements and Flink's ``StatusWatermarkValve`` (rules SWV-1 ... SWV-11, declared in :data:`RULES`).

Mirrors ``org.apache.flink.streaming.runtime.streamstatus.StatusWatermarkValve`` (1.13, with
``StreamStatus``) and ``org.apache.flink.streaming.runtime.watermarkstatus.StatusWatermarkValve``
(1.14+, with ``WatermarkStatus``). The valve's decisions are the same in every version 1.13-2.3
for channels that each consume one subpartition; only the bookkeeping changed (1.17 keeps the
aligned channels in a ``HeapPriorityQueue``, 1.19 keeps one status per subpartition). This
module keeps the aligned minimum in a lazily pruned binary heap, so a step costs O(log n).

Each rule is enforced where its ID appears below; ``because(ID)`` says so to an explanation
(:mod:`oracle.explain`).
"""

from __future__ import annotations

import enum
import heapq

import attrs

from oracle.explain import because, rejected_because
from oracle.javanum import JavaException
from oracle.rules import Declared

# The rules this module encodes, each declared once (its area's declaration, properties/<group>/area.py, says
# what checks each).
RULES: tuple[Declared, ...] = (
    Declared("SWV-1",
             "A watermark is ignored unless both the valve and its channel are ACTIVE.",
             "StatusWatermarkValve.inputWatermark"),
    Declared("SWV-2",
             "A watermark is ignored unless it is strictly greater than its channel's watermark.",
             "StatusWatermarkValve.inputWatermark"),
    Declared("SWV-3",
             "An unaligned channel becomes aligned when its new watermark is >= the last output watermark.",
             "StatusWatermarkValve.inputWatermark"),
    Declared("SWV-4",
             "The valve emits the minimum watermark over the aligned channels when it exceeds the last output.",
             "StatusWatermarkValve.findAndOutputNewMinWatermarkAcrossAlignedChannels"),
    Declared("SWV-5",
             "IDLE on an ACTIVE channel unaligns it; if it was the last active channel the valve first flushes "
             "the maximum over all channels (only if that channel's watermark equals the last output), then "
             "emits IDLE.",
             "StatusWatermarkValve.inputWatermarkStatus / findAndOutputMaxWatermarkAcrossAllChannels"),
    Declared("SWV-6",
             "IDLE on an ACTIVE channel that was not the last active one re-evaluates the minimum, but only if "
             "that channel's watermark equals the last output.",
             "StatusWatermarkValve.inputWatermarkStatus"),
    Declared("SWV-7",
             "ACTIVE on an IDLE channel realigns it when its watermark is >= the last output and emits ACTIVE "
             "if the valve was IDLE; it never emits a watermark.",
             "StatusWatermarkValve.inputWatermarkStatus"),
    Declared("SWV-8",
             "IDLE on an IDLE channel and ACTIVE on an ACTIVE channel change nothing.",
             "StatusWatermarkValve.inputWatermarkStatus"),
    Declared("SWV-9",
             "The valve starts ACTIVE with every channel ACTIVE and aligned at Long.MIN_VALUE.",
             "StatusWatermarkValve constructor, InputChannelStatus / SubpartitionStatus"),
    Declared("SWV-10",
             "From 1.19 a channel may consume several subpartitions: the valve keeps one status per "
             "subpartition, routes each InternalWatermark to its subpartition, and rejects every status input "
             "with IllegalStateException.",
             "StatusWatermarkValve(numInputChannels, subpartitions) and inputWatermarkStatus's "
             "checkState(!isInputChannelShared), FLINK-33743", since="1.19"),
    Declared("SWV-11",
             "In 1.17.0 only, IDLE on an active channel that is not aligned throws "
             "ArrayIndexOutOfBoundsException (the valve removes it from its heap of aligned channels, where it "
             "is not).",
             "StatusWatermarkValve.markWatermarkUnaligned and InputChannelStatus.removeFrom (no heap index "
             "check until FLINK-31628), HeapPriorityQueue.removeInternal, 1.17.0 and 1.17.1 jars", since="1.17.0",
             until="1.17.1"),
)

LONG_MIN = -(2**63)
LONG_MAX = 2**63 - 1


@attrs.frozen
class Watermark:
    """``org.apache.flink.streaming.api.watermark.Watermark``: event time has reached ``timestamp``."""

    timestamp: int


class Status(enum.Enum):
    """``WatermarkStatus`` (``StreamStatus`` in 1.13): whether a stream is idle."""

    IDLE = "IDLE"
    ACTIVE = "ACTIVE"


Element = Watermark | Status


class ArrayIndexOutOfBoundsException(JavaException):
    """java.lang.ArrayIndexOutOfBoundsException, as ``HeapPriorityQueue.removeInternal`` throws it (SWV-11)."""


@attrs.frozen
class Arrival:
    """``element`` arrives on channel (or input) ``index``."""

    index: int
    element: Element


class _AlignedMin:
    """The minimum watermark over a changing set of members, as a lazily pruned heap.

    An entry ``(watermark, index)`` is live while ``index`` is a member with that watermark;
    stale entries are dropped when they reach the top. Plays the role of the valve's
    ``HeapPriorityQueue`` of aligned channels (1.17+): only the minimum is ever read.
    """

    def __init__(self, watermarks: list[int], members: list[bool]) -> None:
        self._watermarks = watermarks
        self._members = members
        self._heap = [(w, i) for i, w in enumerate(watermarks) if members[i]]
        heapq.heapify(self._heap)

    def push(self, index: int) -> None:
        heapq.heappush(self._heap, (self._watermarks[index], index))

    def minimum(self) -> int | None:
        heap = self._heap
        while heap and not (self._members[heap[0][1]] and self._watermarks[heap[0][1]] == heap[0][0]):
            heapq.heappop(heap)
        return heap[0][0] if heap else None


class StatusWatermarkValve:
    """One ``StatusWatermarkValve`` over ``channels`` input channels; ``feed`` returns what it emits."""

    def __init__(self, channels: int, *, unchecked_heap_removal: bool = False) -> None:
        """``unchecked_heap_removal``: Flink 1.17.0's ``removeFrom`` (SWV-11)."""
        self._unchecked_heap_removal = unchecked_heap_removal
        # SWV-9: every channel ACTIVE, aligned, at Long.MIN_VALUE; the valve ACTIVE at MIN_VALUE.
        self._watermark = [LONG_MIN] * channels
        self._idle = [False] * channels
        self._aligned = [True] * channels
        self._aligned_min = _AlignedMin(self._watermark, self._aligned)
        self._active_channels = channels
        self._max_watermark = LONG_MIN  # channel watermarks only rise, so the max is a running max
        self._last_watermark = LONG_MIN
        self._last_status = Status.ACTIVE

    def feed(self, arrival: Arrival) -> tuple[Element, ...]:
        """Handle one arrival exactly as ``inputWatermark`` / ``inputWatermarkStatus`` do."""
        element = arrival.element
        if isinstance(element, Watermark):
            return self.input_watermark(arrival.index, element.timestamp)
        if element is Status.IDLE:
            return self.channel_goes_idle(arrival.index)
        return self.channel_becomes_active(arrival.index)

    def input_watermark(self, channel: int, timestamp: int) -> tuple[Element, ...]:
        """``StatusWatermarkValve.inputWatermark``."""
        if self._last_status is not Status.ACTIVE or self._idle[channel]:
            because("SWV-1")
            return ()
        if timestamp <= self._watermark[channel]:
            because("SWV-2")
            return ()
        because("SWV-4")  # what the watermark can change: the minimum over the aligned channels
        self._watermark[channel] = timestamp
        self._max_watermark = max(self._max_watermark, timestamp)
        if self._aligned[channel]:
            self._aligned_min.push(channel)
        elif timestamp >= self._last_watermark:
            because("SWV-3")
            self._mark_aligned(channel)
        return self._emit_new_min()

    def channel_goes_idle(self, channel: int) -> tuple[Element, ...]:
        """``inputWatermarkStatus(IDLE, channel)``."""
        if self._idle[channel]:
            because("SWV-8")
            return ()
        if self._unchecked_heap_removal and not self._aligned[channel]:
            # SWV-11: HeapPriorityQueue.remove at index Integer.MIN_VALUE of its array of channels + 1
            rejected_because("SWV-11")
            length = len(self._watermark) + 1
            raise ArrayIndexOutOfBoundsException(f"Index {-(2**31)} out of bounds for length {length}")
        self._idle[channel] = True
        self._aligned[channel] = False
        self._active_channels -= 1
        holds_min = self._watermark[channel] == self._last_watermark
        if self._active_channels == 0:  # flush, then IDLE
            because("SWV-5")
            flushed = self._emit_max_over_all() if holds_min else ()
            self._last_status = Status.IDLE
            return (*flushed, Status.IDLE)
        because("SWV-6")
        return self._emit_new_min() if holds_min else ()

    def channel_becomes_active(self, channel: int) -> tuple[Element, ...]:
        """``inputWatermarkStatus(ACTIVE, channel)``: SWV-7, never a watermark."""
        if not self._idle[channel]:
            because("SWV-8")
            return ()
        because("SWV-7")
        self._idle[channel] = False
        self._active_channels += 1
        if self._watermark[channel] >= self._last_watermark:
            self._mark_aligned(channel)
        if self._last_status is Status.IDLE:
            self._last_status = Status.ACTIVE
            return (Status.ACTIVE,)
        return ()

    def _mark_aligned(self, channel: int) -> None:
        self._aligned[channel] = True
        self._aligned_min.push(channel)

    def _emit_new_min(self) -> tuple[Element, ...]:
        """``findAndOutputNewMinWatermarkAcrossAlignedChannels`` (SWV-4)."""
        because("SWV-4")
        low = self._aligned_min.minimum()
        if low is None or low <= self._last_watermark:
            if self._last_watermark == LONG_MIN:
                because("SWV-9")  # nothing exceeds the initial output watermark
            return ()
        self._last_watermark = low
        return (Watermark(low),)

    def _emit_max_over_all(self) -> tuple[Element, ...]:
        """``findAndOutputMaxWatermarkAcrossAllChannels`` (the all-idle flush of SWV-5)."""
        if self._max_watermark <= self._last_watermark:
            return ()
        self._last_watermark = self._max_watermark
        return (Watermark(self._max_watermark),)
