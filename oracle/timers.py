"""Event-time timers of ``InternalTimerServiceImpl`` on the heap backend's queue (ITS-1 ... ITS-7,
declared in :data:`RULES`).

The heap keyed state backends (``HashMapStateBackend``, and ``RocksDB`` with heap timers) create
every timer queue through ``HeapPriorityQueuesManager`` -> ``HeapPriorityQueueSetFactory.create``:
ONE ``org.apache.flink.runtime.state.heap.HeapPriorityQueueSet`` over the subtask's whole key-group
range. Key groups only pick the deduplication ``HashMap`` a timer lives in; they never affect the
order (``KeyGroupPartitionedPriorityQueue``, one heap per key group, is what RocksDB's own timer
queues use). The same code runs in every version 1.13-2.3.

"""

from __future__ import annotations

import attrs

from oracle.explain import because
from oracle.rules import Declared

# The rules this module encodes, each declared once (its area's declaration, properties/<group>/area.py, says
# what checks each).
RULES: tuple[Declared, ...] = (
    Declared("ITS-1",
             "A timer is (timestamp, key, namespace); registering one that is already queued is a no-op.",
             "HeapPriorityQueueSet.add, TimerHeapInternalTimer.equals, "
             "InternalTimerServiceImpl.registerEventTimeTimer"),
    Declared("ITS-2",
             "Deleting a timer removes the queued timer equal to it, if any.",
             "HeapPriorityQueueSet.remove, InternalTimerServiceImpl.deleteEventTimeTimer"),
    Declared("ITS-3",
             "advanceWatermark(t) sets the current watermark to t (even backwards) and fires, one poll at a "
             "time, every queued timer with timestamp <= t.",
             "InternalTimerServiceImpl.advanceWatermark / tryAdvanceWatermark"),
    Declared("ITS-4",
             "A timer's priority is its timestamp alone.",
             "TimerHeapInternalTimer.comparePriorityTo"),
    Declared("ITS-5",
             "The timer queue is a 1-based binary heap: an insertion appends and sifts up while strictly less "
             "than its parent.",
             "HeapPriorityQueue.addInternal / siftUp"),
    Declared("ITS-6",
             "Sifting down takes the right child only if strictly less than the left and moves while that child"
             " is strictly less; removing index i moves the last element to i, sifts it down, and up only if it"
             " did not move, so equal timestamps fire in heap order, not registration order.",
             "HeapPriorityQueue.siftDown / removeInternal / adjustModifiedElement"),
    Declared("ITS-7",
             "Registering a timer at or below the current watermark does not fire it; it fires at the next "
             "watermark.",
             "InternalTimerServiceImpl.registerEventTimeTimer / advanceWatermark"),
)


@attrs.frozen
class Timer:
    """``TimerHeapInternalTimer``: equal (and deduplicated) by all three fields (ITS-1)."""

    timestamp: int
    key: str
    namespace: str | None = None  # None: VoidNamespace (a timer of a KeyedProcessFunction)


class HeapPriorityQueueSet:
    """``HeapPriorityQueueSet`` of timers: a 1-based binary heap (ITS-5, ITS-6) plus a dedup index."""

    def __init__(self) -> None:
        self._heap: list[Timer | None] = [None]  # index 0 unused: QUEUE_HEAD_INDEX is 1
        self._position: dict[Timer, int] = {}

    def peek(self) -> Timer | None:
        return self._heap[1] if len(self._heap) > 1 else None

    def add(self, timer: Timer) -> None:
        """ITS-1: a timer already queued is not added again."""
        if timer in self._position:
            return
        self._heap.append(timer)
        self._sift_up(len(self._heap) - 1)

    def remove(self, timer: Timer) -> None:
        """ITS-2: ``removeInternal`` at the queued timer's index."""
        index = self._position.pop(timer, None)
        if index is not None:
            self._remove_at(index)

    def poll(self) -> Timer:
        head = self._heap[1]
        assert head is not None
        del self._position[head]
        self._remove_at(1)
        return head

    def _remove_at(self, index: int) -> None:
        """``HeapPriorityQueue.removeInternal``: last element into the hole, then adjust (ITS-6)."""
        last = self._heap.pop()
        assert last is not None
        if index == len(self._heap):
            return  # the removed element was the last one
        self._place(last, index)
        self._sift_down(index)
        if self._heap[index] is last:
            self._sift_up(index)

    def _place(self, timer: Timer, index: int) -> None:
        self._heap[index] = timer
        self._position[timer] = index

    def _sift_up(self, index: int) -> None:
        heap, current = self._heap, self._heap[index]
        assert current is not None
        parent = index >> 1
        while parent > 0 and current.timestamp < _ts(heap[parent]):
            self._place(_timer(heap[parent]), index)
            index, parent = parent, parent >> 1
        self._place(current, index)

    def _sift_down(self, index: int) -> None:
        heap, size, current = self._heap, len(self._heap) - 1, self._heap[index]
        assert current is not None
        child = self._smaller_child(index, size)
        while child <= size and _ts(heap[child]) < current.timestamp:
            self._place(_timer(heap[child]), index)
            index = child
            child = self._smaller_child(index, size)
        self._place(current, index)

    def _smaller_child(self, index: int, size: int) -> int:
        """The left child, or the right one if it exists and is strictly less (ITS-6)."""
        left = index << 1
        right = left + 1
        if right <= size and _ts(self._heap[right]) < _ts(self._heap[left]):
            return right
        return left


def _timer(slot: Timer | None) -> Timer:
    assert slot is not None
    return slot


def _ts(slot: Timer | None) -> int:
    return _timer(slot).timestamp


class EventTimeTimerService:
    """The event-time half of ``InternalTimerServiceImpl``; ``advance_watermark`` returns fired timers."""

    def __init__(self) -> None:
        self._queue = HeapPriorityQueueSet()
        self.current_watermark: int | None = None

    def register(self, timer: Timer) -> None:
        """``registerEventTimeTimer`` (ITS-1, ITS-7)."""
        because("ITS-1", "ITS-5")  # queued once, where its timestamp sifts it (ITS-4)
        if self.current_watermark is not None and timer.timestamp <= self.current_watermark:
            because("ITS-7")  # not fired now: at the next watermark
        self._queue.add(timer)

    def delete(self, timer: Timer) -> None:
        """``deleteEventTimeTimer`` (ITS-2)."""
        because("ITS-2")
        self._queue.remove(timer)

    def advance_watermark(self, time: int) -> tuple[Timer, ...]:
        """``advanceWatermark`` / ``tryAdvanceWatermark`` (ITS-3): fire while the head is ``<= time``."""
        because("ITS-3")
        self.current_watermark = time
        fired: list[Timer] = []
        head = self._queue.peek()
        while head is not None and head.timestamp <= time:
            fired.append(self._queue.poll())
            head = self._queue.peek()
        if len(fired) > 1:
            because("ITS-4", "ITS-6")  # by timestamp alone: equal timestamps fire in heap order
        return tuple(fired)
