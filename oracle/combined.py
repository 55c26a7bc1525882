"""The combined watermark and status of a multi-input operator (rules CWS-1 ... CWS-8,
declared in :data:`RULES`).

From 1.14 a two-input operator (``AbstractStreamOperator.processWatermark1/2``,
``processWatermarkStatus1/2``) and a multi-input one (``AbstractStreamOperatorV2.reportWatermark``
and ``processWatermarkStatus``, reached through ``AbstractInput``) combine their inputs with
``org.apache.flink.api.common.eventtime.IndexedCombinedWatermarkStatus`` (CWS-* in :data:`RULES`).


1.13 has no ``IndexedCombinedWatermarkStatus``: the operator sees no stream status at all.

Each rule is enforced where its ID appears below; ``because(ID)`` says so to an explanation
(:mod:`oracle.explain`), the rule that says what an event emits first: CWS-2 for a watermark, CWS-4
for a status (1.13: CWS-6, CWS-7), then the rules of how the combined watermark was derived.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

from oracle.explain import because
from oracle.rules import Declared
from oracle.valve import LONG_MIN, Arrival, Element, Status, Watermark

# The rules this module encodes, each declared once (its area's declaration, properties/<group>/area.py, says
# what checks each).
RULES: tuple[Declared, ...] = (
    Declared("CWS-1",
             "Each input keeps a partial watermark that is only ever raised and an idle flag; a watermark on an"
             " input raises its partial and marks the input active.",
             "IndexedCombinedWatermarkStatus.updateWatermark, "
             "CombinedWatermarkStatus.PartialWatermark.setWatermark", since="1.14"),
    Declared("CWS-2",
             "The combined watermark is the minimum over the non-idle inputs; it is emitted when it exceeds the"
             " last combined watermark.",
             "CombinedWatermarkStatus.updateCombinedWatermark", since="1.14"),
    Declared("CWS-3",
             "When every input is idle the combined status is idle; up to 2.1 no watermark is derived then, "
             "from 2.2 (FLINK-38454) the maximum over all inputs is, and emitted if it exceeds the last one.",
             "CombinedWatermarkStatus.updateCombinedWatermark; FLINK-38454 (2.2.1, 2.3.0)", since="1.14"),
    Declared("CWS-4",
             "A status event first emits the combined watermark if it advanced, then forwards the incoming "
             "status if the combined idleness flipped.",
             "AbstractStreamOperator.processWatermarkStatus1/2, AbstractStreamOperatorV2.processWatermarkStatus",
             since="1.14"),
    Declared("CWS-5",
             "A watermark event never emits a status, even when it ends combined idleness.",
             "AbstractStreamOperator.processWatermark1/2, AbstractStreamOperatorV2.reportWatermark", since="1.14"),
    Declared("CWS-6",
             "In 1.13 each input's last watermark is stored as is (it may go down) and the minimum over all "
             "inputs is emitted when it exceeds the last combined watermark.",
             "AbstractStreamOperator.processWatermark1/2, AbstractStreamOperatorV2.reportWatermark", until="1.14"),
    Declared("CWS-7",
             "In 1.13 the task combines statuses: ACTIVE on any input makes it ACTIVE, IDLE makes it IDLE once "
             "every input's last status is IDLE, and a status is emitted only when the task's changes.",
             "StreamTwoInputProcessorFactory.StreamStatusTracker, "
             "StreamMultipleInputProcessorFactory.MultiStreamStreamStatusTracker, StreamStatusMaintainer",
             until="1.14"),
    Declared("CWS-8",
             "Every input starts ACTIVE at Long.MIN_VALUE, and so does the combined watermark.",
             "IndexedCombinedWatermarkStatus.forInputsCount (1.14.6-2.3.0 jars); AbstractStreamOperator's input"
             " watermark fields (1.13.6 jar)"),
)


class _LiveMin:
    """Minimum over the inputs ``live(i)`` holds for, from a lazily pruned ``(watermark, i)`` heap."""

    def __init__(self, watermarks: list[int], live: Callable[[int], bool]) -> None:
        self._watermarks = watermarks
        self._live = live
        self._heap = [(w, i) for i, w in enumerate(watermarks)]
        heapq.heapify(self._heap)

    def push(self, index: int) -> None:
        heapq.heappush(self._heap, (self._watermarks[index], index))

    def minimum(self) -> int | None:
        heap = self._heap
        while heap and not (self._live(heap[0][1]) and self._watermarks[heap[0][1]] == heap[0][0]):
            heapq.heappop(heap)
        return heap[0][0] if heap else None


class IndexedCombinedWatermarkStatus:
    """``IndexedCombinedWatermarkStatus`` (1.14+); ``flush_when_all_idle`` is CWS-3's 2.2 change."""

    def __init__(self, inputs: int, *, flush_when_all_idle: bool) -> None:
        self._flush_when_all_idle = flush_when_all_idle
        self._watermark = [LONG_MIN] * inputs  # CWS-8
        self._idle = [False] * inputs
        self._active_inputs = inputs
        self._active_min = _LiveMin(self._watermark, lambda i: not self._idle[i])
        self._max_watermark = LONG_MIN
        self.combined = LONG_MIN
        self.idle = False

    def update_watermark(self, index: int, timestamp: int) -> bool:
        """``updateWatermark``: CWS-1 then CWS-2/3; true when the combined watermark advanced."""
        because("CWS-1")
        self._set_idle(index, False)
        if timestamp > self._watermark[index]:
            self._watermark[index] = timestamp
            self._max_watermark = max(self._max_watermark, timestamp)
            self._active_min.push(index)
        return self._update_combined()

    def update_status(self, index: int, idle: bool) -> bool:
        """``updateStatus``: set the input's idle flag, then CWS-2/3."""
        self._set_idle(index, idle)
        return self._update_combined()

    def _set_idle(self, index: int, idle: bool) -> None:
        if self._idle[index] == idle:
            return
        self._idle[index] = idle
        self._active_inputs += -1 if idle else 1
        if not idle:
            self._active_min.push(index)

    def _update_combined(self) -> bool:
        """``CombinedWatermarkStatus.updateCombinedWatermark``."""
        self.idle = self._active_inputs == 0
        if not self.idle:
            because("CWS-2")
            candidate = self._active_min.minimum()
        elif self._flush_when_all_idle:
            because("CWS-3")  # 2.2+: the maximum over all inputs
            candidate = self._max_watermark
        else:
            because("CWS-3")  # up to 2.1: no watermark while every input is idle
            return False
        if candidate is None or candidate <= self.combined:
            if self.combined == LONG_MIN:
                because("CWS-8")  # nothing exceeds the initial combined watermark
            return False
        self.combined = candidate
        return True


class CombiningOperator:
    """A 1.14+ multi-input operator's watermark and status handling (CWS-4, CWS-5)."""

    def __init__(self, inputs: int, *, flush_when_all_idle: bool) -> None:
        self._status = IndexedCombinedWatermarkStatus(inputs, flush_when_all_idle=flush_when_all_idle)

    def feed(self, arrival: Arrival) -> tuple[Element, ...]:
        element, status = arrival.element, self._status
        if isinstance(element, Watermark):  # processWatermark1/2, reportWatermark
            because("CWS-2")  # what a watermark can emit: the combined watermark
            advanced = status.update_watermark(arrival.index, element.timestamp)
            because("CWS-5")  # and never a status, even where it ends the combined idleness
            return (Watermark(status.combined),) if advanced else ()
        because("CWS-4")  # processWatermarkStatus(status, index)
        was_idle = status.idle
        advanced = status.update_status(arrival.index, element is Status.IDLE)
        emitted: tuple[Element, ...] = (Watermark(status.combined),) if advanced else ()
        return (*emitted, element) if was_idle != status.idle else emitted


class LegacyCombiningTask:
    """1.13: the operator combines raw watermarks (CWS-6), the task combines statuses (CWS-7)."""

    def __init__(self, inputs: int) -> None:
        self._watermark = [LONG_MIN] * inputs  # input1Watermark / input2Watermark / inputWatermarks
        self._min = _LiveMin(self._watermark, lambda i: True)
        self._combined = LONG_MIN
        self._input_idle = [False] * inputs  # the StreamStatusTracker
        self._idle_inputs = 0
        self._task_status = Status.ACTIVE  # the StreamStatusMaintainer (OperatorChain)

    def feed(self, arrival: Arrival) -> tuple[Element, ...]:
        element = arrival.element
        if isinstance(element, Watermark):
            return self._operator_watermark(arrival.index, element.timestamp)
        return self._task_status_change(arrival.index, element)

    def _operator_watermark(self, index: int, timestamp: int) -> tuple[Element, ...]:
        """``processWatermark1/2``: store as is, emit the new minimum if it exceeds the last."""
        because("CWS-6")
        self._watermark[index] = timestamp
        self._min.push(index)
        low = self._min.minimum()
        if low is None or low <= self._combined:
            if self._combined == LONG_MIN:
                because("CWS-8")  # nothing exceeds the initial combined watermark
            return ()
        self._combined = low
        return (Watermark(low),)

    def _task_status_change(self, index: int, status: Status) -> tuple[Element, ...]:
        """``StreamTaskNetworkOutput.emitStreamStatus`` then ``OperatorChain.toggleStreamStatus``."""
        because("CWS-7")
        idle = status is Status.IDLE
        if self._input_idle[index] != idle:
            self._input_idle[index] = idle
            self._idle_inputs += 1 if idle else -1
        if status is self._task_status:
            return ()
        if idle and self._idle_inputs < len(self._input_idle):
            return ()
        self._task_status = status
        return (status,)
