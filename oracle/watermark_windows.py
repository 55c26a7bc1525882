"""Protocol area ``watermark.windows``: what Flink's ``WindowOperator`` with an event-time assigner and the
``EventTimeTrigger`` emits for a sequence of keyed records and watermarks (WW-1 ... WW-10, declared in
:data:`RULES`).

The operator level (docs/protocol/watermark-windows.md): one ``WindowOperator`` of flink-streaming-java with a
``TumblingEventTimeWindows``, ``SlidingEventTimeWindows`` (size, slide, offset) or ``EventTimeSessionWindows``
(gap) assigner, Flink's ``EventTimeTrigger``, an allowed lateness and optionally a late-data side output; its
window function emits the key, the window and the values of the window's elements. Per event, the answer is
what reached the operator's output (fired windows, late records on the side output) and the
``numLateRecordsDropped`` counter after it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from oracle.changes import Change
from oracle.explain import INPUT, at, because, rejected_because
from oracle.protocol import AreaFn, BadRequest, Rejected, field, java_long
from oracle.rules import Declared
from oracle.versions import FlinkVersion, pick

WINDOWS = "watermark.windows"  # the protocol area (docs/protocol/watermark-windows.md)
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
ASSIGNERS = ("tumbling", "sliding", "session")
MAX_WINDOW_NUM = 10_000_000  # SlidingEventTimeWindows.MAX_WINDOW_NUM (2.1+)
MAX_SLIDING_RATIO = 1000  # the protocol's bound on size / slide for a request with records (windows per record)
UNSUPPORTED_MERGE = ("The end timestamp of an event-time window cannot become earlier than the current watermark "
                     "by merging. Current watermark: {wm} window: TimeWindow{{start={start}, end={end}}}")

RULES: tuple[Declared, ...] = (
    Declared("WW-1",
             "The assigners check their parameters when built: tumbling IllegalArgumentException(\"TumblingEventTime"
             "Windows parameters must satisfy abs(offset) < size\") when abs(offset) >= size; sliding (\"Sliding"
             "EventTimeWindows parameters must satisfy abs(offset) < slide and size > 0\") when abs(offset) >= slide "
             "or size <= 0, and from 2.1.0 (\"... must satisfy size / slide <= 10000000\") when size / slide > "
             "10,000,000; session (\"EventTimeSessionWindows parameters must satisfy 0 < size\") when gap <= 0.",
             "TumblingEventTimeWindows.<init>, SlidingEventTimeWindows.<init>, EventTimeSessionWindows.<init>"),
    Declared("WW-2",
             "A window's start is TimeWindow.getWindowStartWithOffset(timestamp, offset, size): timestamp - "
             "(timestamp - offset) % size, minus size more where that remainder is negative (from 1.14.5, "
             "FLINK-26334); before, timestamp - (timestamp - offset + size) % size, which puts a timestamp more "
             "than a size before the offset into the window after it. All arithmetic is Java long (wrapping).",
             "TimeWindow.getWindowStartWithOffset"),
    Declared("WW-3",
             "Tumbling: one window [start, start + size), the offset taken % size. Sliding: the windows [start, "
             "start + size) for start = the start with the slide as size, then start - slide, ..., while start > "
             "timestamp - size, in that order. Session: [timestamp, timestamp + gap).",
             "TumblingEventTimeWindows.assignWindows, SlidingEventTimeWindows.assignWindows, "
             "EventTimeSessionWindows.assignWindows"),
    Declared("WW-4",
             "A window's maxTimestamp is end - 1; its cleanup time is maxTimestamp + allowed lateness, or "
             "Long.MAX_VALUE where that addition overflows (no cleanup timer is then registered); a window is late "
             "when its cleanup time <= the current watermark, and the element is not added to it.",
             "WindowOperator.cleanupTime, WindowOperator.isWindowLate, WindowOperator.registerCleanupTimer, "
             "TimeWindow.maxTimestamp"),
    Declared("WW-5",
             "For each window of an element not late: the element is added to the window's state, then "
             "EventTimeTrigger.onElement fires at once (the window's whole contents are emitted, with the window's "
             "maxTimestamp as timestamp) when maxTimestamp <= the current watermark, else registers an event-time "
             "timer at maxTimestamp; then the cleanup timer is registered. A window therefore fires again for each "
             "element that arrives after its end but within the allowed lateness.",
             "WindowOperator.processElement, EventTimeTrigger.onElement, WindowOperator.emitWindowContents"),
    Declared("WW-6",
             "An element that every window skipped is late when timestamp + allowed lateness (a Java long addition, "
             "no overflow guard) <= the current watermark: it goes to the late side output if there is one, else "
             "numLateRecordsDropped is incremented. An element skipped but not late is dropped without a trace.",
             "WindowOperator.processElement, WindowOperator.isElementLate, WindowOperator.sideOutput"),
    Declared("WW-7",
             "A watermark sets the current watermark and fires the event-time timers with timestamp <= it, in "
             "ascending timestamp order (timers of equal timestamps in the order of the timer queue): a timer at "
             "the window's maxTimestamp fires the window (if it has contents), a timer at its cleanup time clears "
             "its contents and its trigger timer (and, for sessions, retires the window).",
             "InternalTimerServiceImpl.advanceWatermark, WindowOperator.onEventTime, EventTimeTrigger.onEventTime, "
             "WindowOperator.clearAllState"),
    Declared("WW-8",
             "Session windows merge as they are added (MergingWindowSet.addWindow, TimeWindow.mergeWindows): the "
             "windows of a key sorted by start, each one that intersects the cover so far (start <= cover end and "
             "end >= cover start: touching windows merge) joins it; the merged window's state holds every "
             "merged window's elements. A new window inside an existing one adds its element to that window.",
             "MergingWindowSet.addWindow, TimeWindow.mergeWindows, TimeWindow.intersects, TimeWindow.cover"),
    Declared("WW-9",
             "On a merge, EventTimeTrigger.onMerge registers a timer at the merged window's maxTimestamp only if it is"
             " > the current watermark, and the merged windows' trigger and cleanup timers are deleted; a merge "
             "whose result's maxTimestamp + allowed lateness (a Java long addition) <= the current watermark is "
             "UnsupportedOperationException(\"The end timestamp of an event-time window cannot become earlier than "
             "the current watermark by merging. ...\"). A merged window that is late is retired at once.",
             "WindowOperator.processElement (MergeFunction), EventTimeTrigger.onMerge, MergingWindowSet.retireWindow"),
    Declared("WW-10",
             "A fired window emits its elements' values: in the order the elements were added for tumbling and "
             "sliding windows; for session windows sorted ascending (the bridge's window function sorts them, as "
             "the heap state's merge order follows a HashSet's iteration).",
             "WindowOperator.emitWindowContents, InternalIterableWindowFunction"),
)

# Flink's changes in this area, each written once; the tables below read them
_NEGATIVE = {"assigner": "tumbling", "size_ms": 10,
             "events": [{"key": "a", "timestamp": -15, "value": 1}, {"watermark": LONG_MAX}]}
WINDOW_START = Change(
    since="1.14.5", issue="FLINK-26334",
    what="TimeWindow.getWindowStartWithOffset takes the remainder of timestamp - offset and corrects a negative one "
    "(timestamp - offset + size < 0 put the element in the window after its timestamp before)",
    witnesses=(_NEGATIVE,))
_RATIO = {"assigner": "sliding", "size_ms": MAX_WINDOW_NUM + 1, "slide_ms": 1, "events": []}
SLIDING_CAP = Change(
    since="2.1.0", issue="FLINK-37512",
    what="SlidingEventTimeWindows refuses size / slide > 10,000,000 (MAX_WINDOW_NUM) when built",
    witnesses=(_RATIO,))
CHANGES: dict[str, tuple[Change, ...]] = {WINDOWS: (WINDOW_START, SLIDING_CAP)}

# whether getWindowStartWithOffset corrects a negative remainder (else the old formula)
REMAINDER_START: Mapping[FlinkVersion, bool] = WINDOW_START.table(False, True)
# whether SlidingEventTimeWindows refuses more than MAX_WINDOW_NUM windows per element
CAPS_SLIDING: Mapping[FlinkVersion, bool] = SLIDING_CAP.table(False, True)

Window = tuple[int, int]  # (start, end)


def wrap(x: int) -> int:
    """``x`` as a Java long (two's complement overflow)."""
    return (x + 2**63) % 2**64 - 2**63


def jrem(a: int, b: int) -> int:
    """Java's ``a % b`` (the sign of the dividend), for longs; ``b`` not 0."""
    r = abs(a) % abs(b)
    return wrap(-r if a < 0 else r)


def jdiv(a: int, b: int) -> int:
    """Java's ``a / b`` (truncating) for longs; ``b`` not 0."""
    q = abs(a) // abs(b)
    return wrap(-q if (a < 0) != (b < 0) else q)


def window_start(timestamp: int, offset: int, size: int, version: FlinkVersion) -> int:
    """WW-2: ``TimeWindow.getWindowStartWithOffset``."""
    because("WW-2")
    if not pick(REMAINDER_START, version):
        return wrap(timestamp - jrem(wrap(wrap(timestamp - offset) + size), size))
    remainder = jrem(wrap(timestamp - offset), size)
    if remainder < 0:
        return wrap(timestamp - wrap(remainder + size))
    return wrap(timestamp - remainder)


def max_timestamp(w: Window) -> int:
    return wrap(w[1] - 1)


def show(w: Window) -> str:
    return f"TimeWindow{{start={w[0]}, end={w[1]}}}"


@attrs.frozen
class Record:
    key: str
    timestamp: int
    value: int


@attrs.frozen
class Watermark:
    timestamp: int


Event = Record | Watermark


@attrs.frozen
class Request:
    assigner: str
    size: int
    slide: int
    offset: int
    gap: int
    lateness: int
    late_output: bool
    events: tuple[Event, ...]


class WindowsRejected(Exception):
    """An exception of Flink's: ``exception`` its simple name."""

    def __init__(self, exception: str, message: str) -> None:
        super().__init__(message)
        self.exception = exception


def check_assigner(req: Request, version: FlinkVersion) -> None:
    """WW-1: the assigner's constructor."""
    because("WW-1")
    if req.assigner == "tumbling":
        if abs(req.offset) >= req.size:
            raise WindowsRejected("IllegalArgumentException",
                                  "TumblingEventTimeWindows parameters must satisfy abs(offset) < size")
    elif req.assigner == "sliding":
        if abs(req.offset) >= req.slide or req.size <= 0:
            raise WindowsRejected("IllegalArgumentException",
                                  "SlidingEventTimeWindows parameters must satisfy abs(offset) < slide and size > 0")
        if pick(CAPS_SLIDING, version) and jdiv(req.size, req.slide) > MAX_WINDOW_NUM:
            raise WindowsRejected("IllegalArgumentException",
                                  f"SlidingEventTimeWindows parameters must satisfy size / slide <= {MAX_WINDOW_NUM}")
    elif req.gap <= 0:
        raise WindowsRejected("IllegalArgumentException", "EventTimeSessionWindows parameters must satisfy 0 < size")


def assign(req: Request, timestamp: int, version: FlinkVersion) -> list[Window]:
    """WW-3: the windows of an element, in the assigner's order."""
    because("WW-3")
    if req.assigner == "tumbling":
        start = window_start(timestamp, jrem(req.offset, req.size), req.size, version)
        return [(start, wrap(start + req.size))]
    if req.assigner == "session":
        return [(timestamp, wrap(timestamp + req.gap))]
    out: list[Window] = []
    start = window_start(timestamp, req.offset, req.slide, version)
    bound = wrap(timestamp - req.size)
    for _ in range(jdiv(req.size, req.slide) + 1):  # Java's loop ends by then unless its arithmetic wraps
        if start <= bound:
            break
        out.append((start, wrap(start + req.size)))
        start = wrap(start - req.slide)
    return out


def merge_groups(windows: list[Window]) -> list[tuple[Window, set[Window]]]:
    """WW-8: ``TimeWindow.mergeWindows``: each cover of more than one window, with the windows it covers."""
    because("WW-8")
    groups: list[tuple[Window, set[Window]]] = []
    for w in sorted(windows, key=lambda x: x[0]):
        if groups:
            cover, members = groups[-1]
            if cover[0] <= w[1] and cover[1] >= w[0]:
                groups[-1] = ((min(cover[0], w[0]), max(cover[1], w[1])), members | {w})
                continue
        groups.append((w, {w}))
    return [(cover, members) for cover, members in groups if len(members) > 1]


class Operator:
    """A ``WindowOperator`` with an event-time assigner and ``EventTimeTrigger``, its state per key."""

    def __init__(self, req: Request, version: FlinkVersion) -> None:
        self.req = req
        self.version = version
        self.merging = req.assigner == "session"
        self.watermark = LONG_MIN
        self.dropped = 0
        self.contents: dict[tuple[str, Window], list[int]] = {}  # (key, state window) -> values
        self.mapping: dict[str, dict[Window, Window]] = {}  # sessions: key -> window -> its state window
        self.timers: set[tuple[int, str, Window]] = set()

    # --------------------------------------------------------------- WW-4
    def cleanup_time(self, w: Window) -> int:
        because("WW-4")
        cleanup = wrap(max_timestamp(w) + self.req.lateness)
        return cleanup if cleanup >= max_timestamp(w) else LONG_MAX

    def is_window_late(self, w: Window) -> bool:
        return self.cleanup_time(w) <= self.watermark

    def register_cleanup(self, key: str, w: Window) -> None:
        cleanup = self.cleanup_time(w)
        if cleanup != LONG_MAX:
            self.timers.add((cleanup, key, w))

    def delete_cleanup(self, key: str, w: Window) -> None:
        cleanup = self.cleanup_time(w)
        if cleanup != LONG_MAX:
            self.timers.discard((cleanup, key, w))

    def fired(self, key: str, w: Window, values: list[int]) -> dict[str, Any]:
        because("WW-10")
        shown = sorted(values) if self.merging else list(values)
        return {"fired": {"key": key, "start": w[0], "end": w[1], "values": shown, "timestamp": max_timestamp(w)}}

    # --------------------------------------------------------------- WW-5, WW-6
    def on_element(self, key: str, w: Window, state: Window, out: list[dict[str, Any]]) -> None:
        """The element added to ``state``, the trigger's onElement for ``w``, the cleanup timer."""
        because("WW-5")
        if max_timestamp(w) <= self.watermark:
            out.append(self.fired(key, w, self.contents[(key, state)]))
        else:
            self.timers.add((max_timestamp(w), key, w))
        self.register_cleanup(key, w)

    def process(self, rec: Record) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        skipped = True
        for w in assign(self.req, rec.timestamp, self.version):
            if self.merging:
                actual = self.add_window(rec.key, w)
                if self.is_window_late(actual):
                    because("WW-9")
                    del self.mapping[rec.key][actual]
                    continue
                state = self.mapping[rec.key][actual]
            else:
                if self.is_window_late(w):
                    continue
                actual = state = w
            skipped = False
            self.contents.setdefault((rec.key, state), []).append(rec.value)
            self.on_element(rec.key, actual, state, out)
        if skipped and wrap(rec.timestamp + self.req.lateness) <= self.watermark:
            because("WW-6")
            if self.req.late_output:
                out.append({"late": {"key": rec.key, "timestamp": rec.timestamp, "value": rec.value}})
            else:
                self.dropped += 1
        return out

    # --------------------------------------------------------------- WW-8, WW-9
    def add_window(self, key: str, new: Window) -> Window:
        """``MergingWindowSet.addWindow`` with the operator's merge function."""
        mapping = self.mapping.setdefault(key, {})
        result, merged_new = new, False
        groups = merge_groups([*mapping, new])
        for cover, members in groups:
            merged = set(members)
            if new in merged:
                merged.discard(new)
                merged_new, result = True, cover
            state = mapping[min(merged)]  # any of the merged windows' state windows: their union is what counts
            merged_states = [mapping.pop(m) for m in sorted(merged) if m in mapping]
            mapping[cover] = state
            merged_states.remove(state)
            if not (cover in merged and len(merged) == 1):
                self.merge(key, cover, merged, state, merged_states)
        if not groups or (result == new and not merged_new):
            mapping[result] = result
        return result

    def merge(self, key: str, cover: Window, merged: set[Window], state: Window, merged_states: list[Window]) -> None:
        because("WW-9")
        if wrap(max_timestamp(cover) + self.req.lateness) <= self.watermark:
            raise WindowsRejected("UnsupportedOperationException", UNSUPPORTED_MERGE.format(
                wm=self.watermark, start=cover[0], end=cover[1]))
        if max_timestamp(cover) > self.watermark:
            self.timers.add((max_timestamp(cover), key, cover))
        for m in merged:
            self.timers.discard((max_timestamp(m), key, m))
            self.delete_cleanup(key, m)
        target = self.contents.setdefault((key, state), [])
        for s in merged_states:
            target.extend(self.contents.pop((key, s), []))
        if not target:
            del self.contents[(key, state)]

    # --------------------------------------------------------------- WW-7
    def advance(self, wm: int) -> list[dict[str, Any]]:
        because("WW-7")
        self.watermark = wm
        out: list[dict[str, Any]] = []
        while True:
            due = [t for t in self.timers if t[0] <= wm]
            if not due:
                return out
            timer = min(due)
            self.timers.discard(timer)
            self.on_event_time(*timer, out)

    def on_event_time(self, time: int, key: str, w: Window, out: list[dict[str, Any]]) -> None:
        if self.merging:
            state = self.mapping.get(key, {}).get(w)
            if state is None:
                return
        else:
            state = w
        if time == max_timestamp(w) and (key, state) in self.contents:
            out.append(self.fired(key, w, self.contents[(key, state)]))
        if time == self.cleanup_time(w):
            self.contents.pop((key, state), None)
            self.timers.discard((max_timestamp(w), key, w))
            if self.merging:
                del self.mapping[key][w]


# ------------------------------------------------------------------ reading the request

def _event(raw: Any, i: int, last: int) -> Event:
    where = f"input.events[{i}]"
    if not isinstance(raw, Mapping):
        raise BadRequest(f"{where} must be an object")
    if "watermark" in raw:
        wm = java_long(raw, "watermark", where)
        if wm < last:
            raise BadRequest(f"{where}.watermark goes back ({wm} after {last})")
        return Watermark(wm)
    key = field(raw, "key", str, where)
    ts = java_long(raw, "timestamp", where)
    if ts == LONG_MIN:
        raise BadRequest(f"{where}.timestamp must be greater than Long.MIN_VALUE (Flink's no-timestamp marker)")
    return Record(key, ts, java_long(raw, "value", where))


def _optional_long(inp: Mapping[str, Any], name: str) -> int:
    return java_long(inp, name, "input") if name in inp else 0


def parse(inp: Mapping[str, Any]) -> Request:
    """The request's input, checked (BadRequest naming the field otherwise)."""
    assigner = field(inp, "assigner", str, "input")
    lateness = _optional_long(inp, "allowed_lateness_ms")
    if lateness < 0:
        raise BadRequest("input.allowed_lateness_ms must not be negative (WindowedStream.allowedLateness refuses it "
                         "before any operator is built)")
    late_output = field(inp, "late_output", bool, "input") if "late_output" in inp else False
    raw = field(inp, "events", list, "input")
    events: list[Event] = []
    last = LONG_MIN
    for i, e in enumerate(raw):
        events.append(_event(e, i, last))
        if isinstance(events[-1], Watermark):
            last = events[-1].timestamp
    if assigner not in ASSIGNERS:
        raise BadRequest(f"input.assigner must be one of {', '.join(ASSIGNERS)}, got {assigner!r}")
    size = slide = offset = gap = 0
    if assigner == "session":
        gap = java_long(inp, "gap_ms", "input")
    else:
        size = java_long(inp, "size_ms", "input")
        slide = java_long(inp, "slide_ms", "input") if assigner == "sliding" else 0
        offset = _optional_long(inp, "offset_ms")
        if offset == LONG_MIN:
            raise BadRequest("input.offset_ms must be greater than Long.MIN_VALUE (Math.abs of it is negative)")
    req = Request(assigner, size, slide, offset, gap, lateness, late_output, tuple(events))
    if assigner == "sliding" and slide > 0 and jdiv(size, slide) > MAX_SLIDING_RATIO \
            and any(isinstance(e, Record) for e in events):
        raise BadRequest(f"input: a sliding assigner with records must have size / slide <= {MAX_SLIDING_RATIO} "
                         "(the windows of one record)")
    return req


def windows_area(inp: Mapping[str, Any], version: FlinkVersion) -> dict[str, Any] | Rejected:
    """Per event, what the window operator emitted, and its dropped-records counter after it."""
    req = parse(inp)
    at(*INPUT)
    try:
        check_assigner(req, version)
    except WindowsRejected as exc:
        rejected_because("WW-1")
        return Rejected(exc.exception, str(exc))
    op = Operator(req, version)
    outputs: list[list[dict[str, Any]]] = []
    dropped: list[int] = []
    for i, event in enumerate(req.events):
        at("outputs", i)
        try:
            outputs.append(op.process(event) if isinstance(event, Record) else op.advance(event.timestamp))
        except WindowsRejected as exc:
            rejected_because("WW-9")
            return Rejected(exc.exception, str(exc))
        dropped.append(op.dropped)
    return {"outputs": outputs, "dropped": dropped}


ENTRIES: dict[str, AreaFn] = {WINDOWS: windows_area}
