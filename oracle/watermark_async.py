"""Protocol area ``watermark.async``: what an ``AsyncWaitOperator`` emits, in ORDERED and UNORDERED output mode
with a capacity, for records whose async requests the request itself completes (or fails), watermarks, processing
time and end of input (AQ-1 ... AQ-9, declared in :data:`RULES`; docs/protocol/watermark-async.md).

The queue level is Flink's (``OrderedStreamElementQueue`` / ``UnorderedStreamElementQueue`` of
``org.apache.flink.streaming.api.operators.async.queue``: capacity, emission order, watermark segments, the
timestamps of the results); around it, the operator's loop as ``AsyncWaitOperator`` runs it on its mailbox
(``addToWorkQueue`` yielding while the queue is full, ``outputCompletedElement`` after a watermark and after a
completion, ``endInput`` waiting for the queue to drain), with the mailbox's mails run before the next input; and
its ``ResultHandler`` (protocol feature ``watermark.async.timeouts``): the processing-time timer each record
registers when the operator has a timeout, ``AsyncFunction.timeout`` when it fires, ``completeExceptionally``
failing the task, and the handler's ``completed`` flag, which lets only the first completion count.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any, Literal

import attrs

from oracle.changes import Change
from oracle.explain import INPUT, at, because, rejected_because
from oracle.protocol import AreaFn, BadRequest, Rejected, field, java_long
from oracle.rules import Declared
from oracle.versions import FlinkVersion

ASYNC = "watermark.async"  # the protocol area (docs/protocol/watermark-async.md)
Mode = Literal["ordered", "unordered"]
MODES: tuple[Mode, ...] = ("ordered", "unordered")
EVENT_KINDS = ("record", "complete", "fail", "watermark", "advance", "end")
AFTER_END = ("complete", "fail", "advance")  # endInput yields to its mailbox: completions and timers still come
# the queues allocate their capacity up front (ArrayDeque, HashSet per segment): a request keeps it small
MAX_CAPACITY = 1000
CAPACITY_MESSAGE = "The capacity must be larger than 0."
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
# processing time (ms) and a timeout stay below 2^62, so that a timer's time (now + timeout) fits a long
MAX_CLOCK_MS = 2**62
TIMEOUT_CAUSE = ("java.util.concurrent.TimeoutException", "Async function call has timed out.")
FAIL_CAUSE = "java.io.IOException"  # what the bridge's function completes exceptionally with, the event's message
DEFAULT_FAIL_MESSAGE = "async request failed"

RULES: tuple[Declared, ...] = (
    Declared("AQ-1",
             "The queue's capacity must be larger than 0: else IllegalArgumentException(\"The capacity must be "
             "larger than 0.\").",
             "OrderedStreamElementQueue.<init>, UnorderedStreamElementQueue.<init>"),
    Declared("AQ-2",
             "tryPut puts a record or a watermark only while the queue's size is less than its capacity; the size "
             "counts every element put and not yet emitted (records, completed or not, and watermarks).",
             "OrderedStreamElementQueue.tryPut, UnorderedStreamElementQueue.tryPut"),
    Declared("AQ-3",
             "The ordered queue is one FIFO: it has a completed element when its head is done (a watermark is done"
             " when put, a record when its request completes), and emitting pops the head.",
             "OrderedStreamElementQueue.hasCompletedElements, OrderedStreamElementQueue.emitCompletedElement"),
    Declared("AQ-4",
             "The unordered queue is a sequence of segments: a record joins the last segment (a first one is made "
             "if there is none); a watermark goes into the last segment if that is empty, else into a new one, and "
             "a new segment follows it for the next records. Only the first segment's completed entries are "
             "emitted, in the order they completed; after an emit an empty first segment is dropped if another "
             "follows.",
             "UnorderedStreamElementQueue.addRecord, addWatermark, emitCompletedElement, Segment"),
    Declared("AQ-5",
             "A completed record emits its results in order, each with the input record's timestamp (none if it "
             "had none: TimestampedCollector erases it); a watermark entry emits the watermark.",
             "StreamRecordQueueEntry.emitResult, TimestampedCollector.setTimestamp, WatermarkQueueEntry.emitResult"),
    Declared("AQ-6",
             "The operator puts each record and watermark into the queue, yielding to its mailbox while the queue "
             "is full (no later input is read meanwhile; a completion frees a slot once its element is emitted); "
             "after putting a watermark and after a completion it emits completed elements until none is left "
             "(one per mail, the mails run before the next input); endInput waits until the queue is empty.",
             "AsyncWaitOperator.addToWorkQueue, processWatermark, outputCompletedElement, "
             "ResultHandler.processResults, endInput (waitInFlightInputsFinished)"),
    Declared("AQ-7",
             "With a timeout above 0, processElement registers a processing-time timer per record at the current "
             "processing time plus the timeout (ResultHandler.registerTimeout), when the record is taken into the "
             "queue; a timer due fires when processing time reaches it (in time order, then registration order), "
             "and if the record's request has not completed it calls AsyncFunction.timeout, whose default "
             "completes it exceptionally with TimeoutException(\"Async function call has timed out.\"); a timeout "
             "override completes it with its results. A timeout of 0 or less registers no timer.",
             "AsyncWaitOperator.processElement, ResultHandler.registerTimeout, ResultHandler.timerTriggered, "
             "AsyncFunction.timeout"),
    Declared("AQ-8",
             "completeExceptionally fails the task: Environment.failExternally(new Exception(\"Could not complete "
             "the stream element: \" + record + \".\", cause)), the record printed by StreamRecord.toString "
             "(\"Record @ <timestamp or (undef)> : <value>\"); then the entry completes with no results, in a "
             "mail like a completion, so that the queue moves on (the operator goes on until the task is "
             "cancelled).",
             "ResultHandler.completeExceptionally, StreamRecord.toString"),
    Declared("AQ-9",
             "Only a request's first completion counts (ResultHandler.completed): a completion, an exceptional "
             "completion or a timeout after it is ignored; the completion's mail cancels the record's timer.",
             "ResultHandler.complete, completeExceptionally, timerTriggered, processResults"),
)

# the queues and the ResultHandler behave the same from 1.13 to 2.3 (read from every release's jar: the handler's
# bytecode differs only by the compiler, the MailboxExecutor's move to flink-core in 1.14, 1.15's
# ProcessingTimeCallback move, 1.16's retry delegator around it and 1.16.2's registerTimer helper, the same
# now + timeout; 1.13-1.15's complete(null) NullPointerException cannot be sent): no change of Flink's in this area
CHANGES: dict[str, tuple[Change, ...]] = {ASYNC: ()}


@attrs.frozen
class Event:
    kind: str
    name: str = ""
    timestamp: int | None = None
    results: tuple[int, ...] = ()
    ms: int = 0  # advance: how far processing time moves
    message: str = ""  # fail: the message of the exception the request fails with


@attrs.frozen
class Request:
    mode: Mode
    capacity: int
    events: tuple[Event, ...]
    timeout: int = 0
    timeout_results: tuple[int, ...] | None = None  # the function's timeout override; None: AsyncFunction's default


# ------------------------------------------------------------------ Flink's two queues

class Entry:
    """A queue entry: a record (done once its request completes) or a watermark (done when put)."""

    def __init__(self, event: Event) -> None:
        self.event = event
        self.results: tuple[int, ...] | None = () if event.kind == "watermark" else None
        self.handled = False  # ResultHandler.completed: a first completion came (AQ-9)
        self.timer: int | None = None  # the timeout timer's time, while registered (AQ-7)

    @property
    def done(self) -> bool:
        return self.results is not None

    def emit(self) -> list[dict[str, Any]]:
        because("AQ-5")
        if self.event.kind == "watermark":
            return [{"watermark": self.event.timestamp}]
        ts = {} if self.event.timestamp is None else {"timestamp": self.event.timestamp}
        return [{"record": r, **ts} for r in self.results or ()]


class Queue:
    """A ``StreamElementQueue``."""

    def __init__(self, capacity: int) -> None:
        because("AQ-1")
        if capacity <= 0:
            raise QueueRejected(CAPACITY_MESSAGE)
        self.capacity = capacity

    def size(self) -> int:
        raise NotImplementedError

    def has_room(self) -> bool:
        because("AQ-2")
        return self.size() < self.capacity

    def put(self, entry: Entry) -> None:
        raise NotImplementedError

    def completed(self, entry: Entry) -> None:
        """``entry``'s request completed (its results are set)."""

    def has_completed(self) -> bool:
        raise NotImplementedError

    def emit_completed(self) -> list[dict[str, Any]]:
        raise NotImplementedError


class QueueRejected(Exception):
    """``IllegalArgumentException`` from a queue's constructor."""


class Ordered(Queue):
    """AQ-3: ``OrderedStreamElementQueue``."""

    def __init__(self, capacity: int) -> None:
        super().__init__(capacity)
        self.queue: deque[Entry] = deque()

    def size(self) -> int:
        return len(self.queue)

    def put(self, entry: Entry) -> None:
        self.queue.append(entry)

    def has_completed(self) -> bool:
        because("AQ-3")
        return bool(self.queue) and self.queue[0].done

    def emit_completed(self) -> list[dict[str, Any]]:
        because("AQ-3")
        return self.queue.popleft().emit() if self.has_completed() else []


class Segment:
    def __init__(self) -> None:
        self.incomplete: list[Entry] = []
        self.complete: deque[Entry] = deque()

    def empty(self) -> bool:
        return not self.incomplete and not self.complete

    def add(self, entry: Entry) -> None:
        (self.complete if entry.done else self.incomplete).append(entry)


class Unordered(Queue):
    """AQ-4: ``UnorderedStreamElementQueue``, its segments separated by watermarks."""

    def __init__(self, capacity: int) -> None:
        super().__init__(capacity)
        self.segments: deque[Segment] = deque()
        self.entries = 0

    def size(self) -> int:
        return self.entries

    def put(self, entry: Entry) -> None:
        because("AQ-4")
        self.entries += 1
        if entry.event.kind == "watermark":
            self.add_watermark(entry)
        else:
            if not self.segments:
                self.segments.append(Segment())
            self.segments[-1].add(entry)

    def add_watermark(self, entry: Entry) -> None:
        if not self.segments or not self.segments[-1].empty():
            self.segments.append(Segment())
        self.segments[-1].add(entry)
        self.segments.append(Segment())

    def completed(self, entry: Entry) -> None:
        for segment in self.segments:
            if entry in segment.incomplete:
                segment.incomplete.remove(entry)
                segment.complete.append(entry)

    def has_completed(self) -> bool:
        because("AQ-4")
        return bool(self.segments) and bool(self.segments[0].complete)

    def emit_completed(self) -> list[dict[str, Any]]:
        because("AQ-4")
        if not self.segments:
            return []
        first = self.segments[0]
        out: list[dict[str, Any]] = []
        if first.complete:
            out = first.complete.popleft().emit()
            self.entries -= 1
        if len(self.segments) > 1 and first.empty():
            self.segments.popleft()
        return out


def queue_of(mode: Mode, capacity: int) -> Queue:
    return Ordered(capacity) if mode == "ordered" else Unordered(capacity)


# ------------------------------------------------------------------ the operator around the queue

def record_string(event: Event) -> str:
    """``StreamRecord.toString`` of the record the bridge's operator takes (its value is the record's name)."""
    ts = "(undef)" if event.timestamp is None else str(event.timestamp)
    return f"Record @ {ts} : {event.name}"


def failure(event: Event, cause: tuple[str, str]) -> dict[str, Any]:
    """AQ-8: what ``completeExceptionally`` hands ``Environment.failExternally``."""
    because("AQ-8")
    return {"exception": "java.lang.Exception",
            "message": f"Could not complete the stream element: {record_string(event)}.",
            "cause": {"exception": cause[0], "message": cause[1]}}


class Operator:
    """AQ-6: ``AsyncWaitOperator``'s loop on its mailbox, the request's completions as its mails; AQ-7 ... AQ-9: its
    ``ResultHandler``s, their timeout timers on a manual processing-time clock."""

    def __init__(self, queue: Queue, timeout: int = 0, timeout_results: tuple[int, ...] | None = None) -> None:
        self.queue = queue
        self.timeout = timeout
        self.timeout_results = timeout_results
        self.held: deque[tuple[int, Event]] = deque()  # inputs not processed yet: the first waits for a slot
        self.entries: dict[str, Entry] = {}
        self.ended = False
        self.now = 0  # processing time, ms
        self.registered = 0
        self.timers: list[tuple[int, int, Entry]] = []  # (time, registration order, entry)
        self.failures: list[dict[str, Any]] = []  # what failExternally was handed in the current step

    def drain(self) -> list[dict[str, Any]]:
        """``outputCompletedElement``, then the mails it schedules while completed elements are left."""
        because("AQ-6")
        out: list[dict[str, Any]] = []
        while self.queue.has_completed():
            out.extend(self.queue.emit_completed())
        return out

    def process(self, event: Event) -> tuple[bool, list[dict[str, Any]]]:
        """One input, if it can be processed now: (processed, what it emitted)."""
        because("AQ-6")
        if event.kind == "end":
            return self.queue.size() == 0, []
        if not self.queue.has_room():
            return False, []
        entry = Entry(event)
        self.queue.put(entry)
        if event.kind == "record":
            self.entries[event.name] = entry
            if self.timeout > 0:
                because("AQ-7")
                entry.timer = self.now + self.timeout
                self.timers.append((entry.timer, self.registered, entry))
                self.registered += 1
            return True, []
        return True, self.drain()

    def admit(self) -> tuple[list[int], list[dict[str, Any]]]:
        """The held inputs that can now be processed, in order: their indices and what they emitted."""
        admitted: list[int] = []
        out: list[dict[str, Any]] = []
        while self.held:
            i, event = self.held[0]
            done, emitted = self.process(event)
            if not done:
                break
            self.held.popleft()
            admitted.append(i)
            out.extend(emitted)
        return admitted, out

    def complete(self, entry: Entry, results: tuple[int, ...]) -> bool:
        """``ResultHandler.complete``: whether it counted (AQ-9); its mail is :meth:`results`."""
        because("AQ-9")
        if entry.handled:
            return False
        entry.handled = True
        entry.results = results
        return True

    def complete_exceptionally(self, entry: Entry, cause: tuple[str, str]) -> bool:
        """``ResultHandler.completeExceptionally`` (AQ-8): the task fails, the entry completes with no results."""
        because("AQ-9")
        if entry.handled:
            return False
        entry.handled = True
        self.failures.append(failure(entry.event, cause))
        entry.results = ()
        return True

    def results(self, entry: Entry) -> list[dict[str, Any]]:
        """The completion's mail, ``processResults``: the timer cancelled, the entry completed, the queue drained."""
        because("AQ-9")
        if entry.timer is not None:
            self.timers = [t for t in self.timers if t[2] is not entry]
            entry.timer = None
        self.queue.completed(entry)
        return self.drain()

    def advance(self, ms: int) -> list[dict[str, Any]]:
        """Processing time moves: the timers due fire in time order (AQ-7), then the mails they scheduled run."""
        self.now += ms
        mails: list[Entry] = []
        for _time, _, entry in sorted(t for t in self.timers if t[0] <= self.now):
            because("AQ-7")
            self.timers = [t for t in self.timers if t[2] is not entry]
            entry.timer = None
            if entry.handled:
                continue
            if self.timeout_results is not None:
                counted = self.complete(entry, self.timeout_results)
            else:
                counted = self.complete_exceptionally(entry, TIMEOUT_CAUSE)
            if counted:
                mails.append(entry)
        out: list[dict[str, Any]] = []
        for entry in mails:
            out.extend(self.results(entry))
        return out

    def step(self, i: int, event: Event) -> dict[str, Any]:
        self.failures = []
        if event.kind in ("complete", "fail", "advance"):
            if event.kind == "advance":
                out = self.advance(event.ms)
            else:
                entry = self.entries[event.name]
                counted = self.complete(entry, event.results) if event.kind == "complete" \
                    else self.complete_exceptionally(entry, (FAIL_CAUSE, event.message))
                out = self.results(entry) if counted else []
            admitted, more = self.admit()
            step: dict[str, Any] = {"emitted": out + more}
            if admitted:
                step["admitted"] = admitted
            if self.failures:
                step["failures"] = self.failures
            return step
        if self.held:
            self.held.append((i, event))
            return {"emitted": [], "held": True}
        done, out = self.process(event)
        if not done:
            self.held.append((i, event))
            return {"emitted": [], "held": True}
        return {"emitted": out}


# ------------------------------------------------------------------ reading the request

def _longs(raw: Any, where: str) -> tuple[int, ...]:
    if not isinstance(raw, list) or not all(isinstance(r, int) and not isinstance(r, bool) and LONG_MIN <= r <= LONG_MAX
                                            for r in raw):
        raise BadRequest(f"{where} must be an array of integers that fit a signed 64-bit long")
    return tuple(raw)


def _event(raw: Any, i: int, names: dict[str, str]) -> Event:
    where = f"input.events[{i}]"
    if not isinstance(raw, Mapping):
        raise BadRequest(f"{where} must be an object")
    kind = field(raw, "kind", str, where)
    if kind == "record":
        name = field(raw, "name", str, where)
        if name in names:
            raise BadRequest(f"{where}.name {name!r} names an earlier record")
        names[name] = "pending"
        ts = java_long(raw, "timestamp", where) if raw.get("timestamp") is not None else None
        return Event("record", name=name, timestamp=ts)
    if kind in ("complete", "fail"):
        name = field(raw, "name", str, where)
        if names.get(name) != "pending":
            raise BadRequest(f"{where}.name {name!r} names no earlier record whose request is pending")
        names[name] = "completed"
        if kind == "fail":
            message = raw.get("message", DEFAULT_FAIL_MESSAGE)
            if not isinstance(message, str):
                raise BadRequest(f"{where}.message must be a string")
            return Event("fail", name=name, message=message)
        field(raw, "results", list, where)
        return Event("complete", name=name, results=_longs(raw["results"], f"{where}.results"))
    if kind == "watermark":
        return Event("watermark", timestamp=java_long(raw, "timestamp", where))
    if kind == "advance":
        ms = java_long(raw, "ms", where)
        if ms < 0:
            raise BadRequest(f"{where}.ms must not be negative (processing time does not go back)")
        return Event("advance", ms=ms)
    if kind == "end":
        return Event("end")
    raise BadRequest(f"{where}.kind must be one of {', '.join(EVENT_KINDS)}, got {kind!r}")


def parse(inp: Mapping[str, Any]) -> Request:
    """The request's input, checked (BadRequest naming the field otherwise)."""
    mode = field(inp, "mode", str, "input")
    if mode not in MODES:
        raise BadRequest(f"input.mode must be one of {', '.join(MODES)}, got {mode!r}")
    capacity = field(inp, "capacity", int, "input")
    if capacity > MAX_CAPACITY:
        raise BadRequest(f"input.capacity must be at most {MAX_CAPACITY} (the queues allocate it up front)")
    if capacity < -(2**31):
        raise BadRequest("input.capacity must fit a signed 32-bit int")
    timeout = java_long(inp, "timeout", "input") if "timeout" in inp else 0
    if timeout > MAX_CLOCK_MS:
        raise BadRequest(f"input.timeout must be at most {MAX_CLOCK_MS} (a timer's time must fit a long)")
    timeout_results = _longs(inp["timeout_results"], "input.timeout_results") if "timeout_results" in inp else None
    raw = field(inp, "events", list, "input")
    names: dict[str, str] = {}
    events: list[Event] = []
    ended = False
    clock = 0
    for i, e in enumerate(raw):
        event = _event(e, i, names)
        if ended and event.kind not in AFTER_END:
            raise BadRequest(f"input.events[{i}]: after end only completions, failures and advances may follow")
        clock += event.ms
        if clock > MAX_CLOCK_MS:
            raise BadRequest(f"input.events[{i}]: processing time must stay at most {MAX_CLOCK_MS} ms")
        ended = ended or event.kind == "end"
        events.append(event)
    return Request(mode, capacity, tuple(events), timeout, timeout_results)


def async_area(inp: Mapping[str, Any], version: FlinkVersion) -> dict[str, Any] | Rejected:
    """Per event, what the operator emitted, whether the event was held, which held inputs it admitted and what
    the task was failed with."""
    req = parse(inp)
    at(*INPUT)
    try:
        queue = queue_of(req.mode, req.capacity)
    except QueueRejected as exc:
        rejected_because("AQ-1")
        return Rejected("IllegalArgumentException", str(exc))
    op = Operator(queue, req.timeout, req.timeout_results)
    steps: list[dict[str, Any]] = []
    for i, event in enumerate(req.events):
        at("steps", i)
        if event.kind in ("complete", "fail") and event.name not in op.entries:
            raise BadRequest(f"input.events[{i}].name {event.name!r}: that record is still waiting for a slot in "
                             "the queue (its request is not made yet)")
        steps.append(op.step(i, event))
    return {"steps": steps}


ENTRIES: dict[str, AreaFn] = {ASYNC: async_area}
