"""Protocol areas ``watermark.valve``, ``watermark.combined`` and ``watermark.timers``.

Requests are validated here (a malformed one is a :class:`BadRequest` naming the field) and turned
into :class:`~oracle.valve.Arrival` and :class:`TimerEvent` values; the rules themselves live in
:mod:`oracle.valve` (``StatusWatermarkValve``), :mod:`oracle.combined`
(``IndexedCombinedWatermarkStatus`` and its 1.13 predecessor) and :mod:`oracle.timers`
(``InternalTimerServiceImpl`` on a ``HeapPriorityQueueSet``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, NotRequired, Protocol, TypedDict, TypeVar

import attrs

from oracle.changes import Change
from oracle.combined import CombiningOperator, LegacyCombiningTask
from oracle.explain import at, because, tracing_active
from oracle.protocol import AreaFn, BadRequest, Rejected, field, java_long
from oracle.timers import EventTimeTimerService, Timer
from oracle.valve import (
    LONG_MAX,
    LONG_MIN,
    ArrayIndexOutOfBoundsException,
    Arrival,
    Element,
    Status,
    StatusWatermarkValve,
    Watermark,
)
from oracle.versions import FlinkVersion, pick, v

VALVE = "watermark.valve"  # the protocol area (docs/protocol)
COMBINED = "watermark.combined"  # the protocol area (docs/protocol)
TIMERS = "watermark.timers"  # the protocol area (docs/protocol)

# The areas' inputs and outputs (docs/protocol/v1.md, v2.md): what the entry points read and build.
StatusName = Literal["IDLE", "ACTIVE"]  # a WatermarkStatus, as the protocol spells it (Status.value)
TimerKind = Literal["register", "delete", "watermark"]  # what a watermark.timers event does


class ChannelWatermark(TypedDict):
    """A ``watermark.valve`` event: a watermark on ``channel`` (with ``subpartitions``, of one of its subpartitions)."""

    channel: int
    watermark: int
    subpartition: NotRequired[int]  # protocol 2, Flink 1.19+


class ChannelStatus(TypedDict):
    """A ``watermark.valve`` event: ``channel``'s status."""

    channel: int
    status: StatusName


class ValveInput(TypedDict):
    channels: int  # 1 ... MAX_CHANNELS
    events: list[ChannelWatermark | ChannelStatus]
    subpartitions: NotRequired[list[list[int]]]  # protocol 2, Flink 1.19+: [first, last] per channel


class InputWatermark(TypedDict):
    """A ``watermark.combined`` event: what input ``input``'s valve emitted."""

    input: int
    watermark: int


class InputStatus(TypedDict):
    input: int
    status: StatusName


class CombinedInput(TypedDict):
    inputs: int  # 1 ... MAX_CHANNELS
    events: list[InputWatermark | InputStatus]


class RegisterTimer(TypedDict):
    register: int  # the timer's timestamp
    key: str
    namespace: NotRequired[str]  # protocol 2 (absent: VoidNamespace)


class DeleteTimer(TypedDict):
    delete: int
    key: str
    namespace: NotRequired[str]


class TimersWatermark(TypedDict):
    watermark: int


class TimersInput(TypedDict):
    events: list[RegisterTimer | DeleteTimer | TimersWatermark]


class EmittedWatermark(TypedDict):
    watermark: int


class EmittedStatus(TypedDict):
    status: StatusName


Emitted = EmittedWatermark | EmittedStatus


class ValveOutput(TypedDict):
    """What the valve (the operator) emitted downstream while handling each event, in emission order."""

    emitted: list[list[Emitted]]


CombinedOutput = ValveOutput  # the same shape (docs/protocol/v2.md)


class FiredTimer(TypedDict):
    timestamp: int
    key: str
    namespace: NotRequired[str]  # only when the timer was registered with one


class TimersOutput(TypedDict):
    """The timers fired while handling each event."""

    fired: list[list[FiredTimer]]


# Flink's largest maximum parallelism (KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM): no
# task has more input channels or an operator more inputs than this.
MAX_CHANNELS = 32768


class Machine(Protocol):
    """A valve or combining operator: one arrival in, the elements it emitted out."""

    def feed(self, arrival: Arrival) -> tuple[Element, ...]: ...


# The valve: from 1.19 a channel may consume a range of subpartitions, each with its own status in
# the valve; earlier valves know one watermark per channel.
SUBPARTITIONS = Change(
    since="1.19", what="per-subpartition valve (subpartitions accepted)",
    witnesses=({"channels": 1, "subpartitions": [[0, 1]],
                "events": [{"channel": 0, "subpartition": 0, "watermark": 1}]},))
SUBPARTITIONS_SINCE = SUBPARTITIONS.at

# The valve: 1.17.0 removes a channel from its heap of aligned channels unchecked (SWV-11).
HEAP_REMOVAL_CHECKED = Change(
    since="1.17.1", regressed="1.17.0", issue="FLINK-31628",
    what="an active channel that is not aligned goes idle without an ArrayIndexOutOfBoundsException "
    "(FLINK-31628)",
    # an active channel that is not aligned goes idle (1.17.0 throws)
    witnesses=({"channels": 2, "events": [{"channel": 1, "status": "IDLE"}, {"channel": 0, "watermark": 0},
                                          {"channel": 1, "status": "ACTIVE"}, {"channel": 1, "status": "IDLE"}]},))
UNCHECKED_HEAP_REMOVAL: Mapping[FlinkVersion, bool] = HEAP_REMOVAL_CHECKED.table(True, False)

# A multi-input operator: idle inputs stop holding it back (1.14), all idle inputs flush first (2.2).
IDLE_INPUTS_IGNORED = Change(
    since="1.14", issue="FLINK-18934",
    what="idle inputs no longer hold back a multi-input operator (IndexedCombinedWatermarkStatus, FLINK-18934)",
    witnesses=({"inputs": 2, "events": [{"input": 1, "status": "IDLE"}, {"input": 0, "watermark": 5}]},))
ALL_IDLE_FLUSH = Change(
    since="2.2", issue="FLINK-38454", what="all-idle inputs first flush the largest watermark (FLINK-38454)",
    witnesses=({"inputs": 2, "events": [{"input": 0, "watermark": 5}, {"input": 0, "status": "IDLE"},
                                        {"input": 1, "status": "IDLE"}]},))

# How a multi-input operator combines, by first Flink version (CWS-*).
COMBINERS: Mapping[FlinkVersion, Callable[[int], Machine]] = {
    v("1.13"): LegacyCombiningTask,
    IDLE_INPUTS_IGNORED.at: lambda n: CombiningOperator(n, flush_when_all_idle=False),
    ALL_IDLE_FLUSH.at: lambda n: CombiningOperator(n, flush_when_all_idle=True),
}


def valve_area(payload: Mapping[str, Any], version: FlinkVersion) -> ValveOutput | Rejected:
    """One ``StatusWatermarkValve`` fed the request's events; the same rules in every version.

    With ``subpartitions`` (1.19+) the valve keeps one status per consumed subpartition and a
    watermark event names its subpartition (an ``InternalWatermark``); see :class:`Layout`.
    """
    channels = _count(payload, "channels")
    layout = _layout(payload, channels, version)
    arrivals = _arrivals(payload, "channel", channels)
    events = payload["events"]
    valve = StatusWatermarkValve(layout.size, unchecked_heap_removal=pick(UNCHECKED_HEAP_REMOVAL, version))
    if "subpartitions" not in payload and not any("subpartition" in e for e in events):
        return _run_valve(valve, arrivals)  # one subpartition per channel
    subpartitions = [_subpartition(e, i, version) for i, e in enumerate(events)]
    slots = [layout.slot(i, a, sub) for i, (a, sub) in enumerate(zip(arrivals, subpartitions, strict=True))]
    if layout.shared and any(isinstance(a.element, Status) for a in arrivals):
        # SWV-10: StatusWatermarkValve.inputWatermarkStatus does checkState(!isInputChannelShared)
        because("SWV-10")
        return Rejected("IllegalStateException", "")
    return _run_valve(valve, slots)


def _run_valve(valve: StatusWatermarkValve, arrivals: Sequence[Arrival]) -> ValveOutput | Rejected:
    """The valve fed ``arrivals``; what it throws on the way (SWV-11) is the answer."""
    try:
        return _run(valve, arrivals)
    except ArrayIndexOutOfBoundsException as exc:
        return Rejected(exc.simple_name, exc.message)


def combined_area(payload: Mapping[str, Any], version: FlinkVersion) -> CombinedOutput:
    """A multi-input operator's combined watermark and status (see :mod:`oracle.combined`)."""
    inputs = _count(payload, "inputs")
    arrivals = _arrivals(payload, "input", inputs)
    return _run(pick(COMBINERS, version)(inputs), arrivals)


def timers_area(payload: Mapping[str, Any], version: FlinkVersion) -> TimersOutput:
    """Event-time timers of one ``InternalTimerServiceImpl``; the same rules in every version."""
    service = EventTimeTimerService()
    fired: list[list[FiredTimer]] = []
    explaining = tracing_active()
    for i, event in enumerate(_timer_events(payload)):
        if explaining:
            at("fired", i)  # what the service decides now is the answer to event i
        if event.kind == "watermark":
            fired.append([_timer_json(t) for t in service.advance_watermark(event.timestamp)])
            continue
        timer = Timer(event.timestamp, event.key, event.namespace)
        if event.kind == "register":
            service.register(timer)
        else:
            service.delete(timer)
        fired.append([])
    return {"fired": fired}


@attrs.frozen
class Layout:
    """The subpartitions each channel consumes (``ResultSubpartitionIndexSet`` per channel, 1.19+).

    The valve keeps one status per (channel, subpartition); they are numbered consecutively as
    ``slot``s. Without ``subpartitions`` every channel consumes exactly subpartition 0.
    """

    ranges: tuple[tuple[int, int], ...]
    offsets: tuple[int, ...]

    @classmethod
    def of(cls, ranges: Sequence[tuple[int, int]]) -> Layout:
        offsets, total = [], 0
        for first, last in ranges:
            offsets.append(total)
            total += last - first + 1
        return cls(tuple(ranges), tuple(offsets))

    @property
    def size(self) -> int:
        first, last = self.ranges[-1]
        return self.offsets[-1] + last - first + 1

    @property
    def shared(self) -> bool:
        """``isInputChannelShared``: some channel consumes more than one subpartition."""
        return any(last > first for first, last in self.ranges)

    def slot(self, i: int, arrival: Arrival, subpartition: int | None) -> Arrival:
        """The arrival re-addressed to its (channel, subpartition) slot, as the valve routes it."""
        first, last = self.ranges[arrival.index]
        where = f"input.events[{i}]"
        if subpartition is None and last > first:
            if isinstance(arrival.element, Status):
                return arrival  # rejected as a whole (SWV-10) before any slot is used
            raise BadRequest(
                f"{where} is a watermark on channel {arrival.index}, which consumes subpartitions "
                f"{first}..{last}: it must name its subpartition"
            )
        sub = first if subpartition is None else subpartition
        if not first <= sub <= last:
            raise BadRequest(
                f"{where}.subpartition = {sub} is not consumed by channel {arrival.index} ({first}..{last})"
            )
        return Arrival(self.offsets[arrival.index] + sub - first, arrival.element)


def _layout(payload: Mapping[str, Any], channels: int, version: FlinkVersion) -> Layout:
    if "subpartitions" not in payload:
        return Layout.of([(0, 0)] * channels)
    if version < SUBPARTITIONS_SINCE:
        raise BadRequest(
            f"input.subpartitions is not defined for Flink {version}: before "
            f"{SUBPARTITIONS_SINCE.line} every channel consumes exactly one subpartition"
        )
    raw = field(payload, "subpartitions", list, "input")
    if len(raw) != channels:
        raise BadRequest(f"input.subpartitions must hold one [first, last] pair per channel ({channels})")
    ranges = [_range(r, f"input.subpartitions[{c}]") for c, r in enumerate(raw)]
    layout = Layout.of(ranges)
    if layout.size > MAX_CHANNELS:
        raise BadRequest(f"input.subpartitions: {layout.size} subpartitions in all, more than {MAX_CHANNELS}")
    return layout


def _range(raw: Any, where: str) -> tuple[int, int]:
    ok = isinstance(raw, list) and len(raw) == 2 and all(type(x) is int for x in raw)
    if not ok or not 0 <= raw[0] <= raw[1] < MAX_CHANNELS:
        raise BadRequest(f"{where} must be [first, last] with 0 <= first <= last < {MAX_CHANNELS}")
    return raw[0], raw[1]


def _subpartition(event: Mapping[str, Any], i: int, version: FlinkVersion) -> int | None:
    if "subpartition" not in event:
        return None
    where = f"input.events[{i}]"
    if version < SUBPARTITIONS_SINCE:
        raise BadRequest(
            f"{where}.subpartition is not defined for Flink {version} (before {SUBPARTITIONS_SINCE.line})"
        )
    if "watermark" not in event:
        raise BadRequest(f"{where}.subpartition is only defined on a watermark event")
    sub = field(event, "subpartition", int, where)
    if not 0 <= sub < MAX_CHANNELS:
        raise BadRequest(f"{where}.subpartition = {sub} is out of range [0, {MAX_CHANNELS})")
    return int(sub)


def _run(machine: Machine, arrivals: Sequence[Arrival]) -> ValveOutput:
    if not tracing_active():
        return {"emitted": [[_element_json(e) for e in machine.feed(a)] for a in arrivals]}
    emitted: list[list[Emitted]] = []
    for i, arrival in enumerate(arrivals):
        at("emitted", i)  # what the machine decides now is the answer to event i
        emitted.append([_element_json(e) for e in machine.feed(arrival)])
    return {"emitted": emitted}


def _element_json(element: Element) -> Emitted:
    if isinstance(element, Watermark):
        return {"watermark": element.timestamp}
    return {"status": element.value}


def _timer_json(timer: Timer) -> FiredTimer:
    out: FiredTimer = {"timestamp": timer.timestamp, "key": timer.key}
    if timer.namespace is not None:
        out["namespace"] = timer.namespace
    return out


# ---------------------------------------------------------------------------------------------
# request validation
# ---------------------------------------------------------------------------------------------


def _count(payload: Mapping[str, Any], name: str) -> int:
    n = field(payload, name, int, "input")
    if not 1 <= n <= MAX_CHANNELS:
        raise BadRequest(f"input.{name} = {n} must be between 1 and {MAX_CHANNELS}")
    return int(n)


def _events(payload: Mapping[str, Any]) -> list[Any]:
    events: list[Any] = field(payload, "events", list, "input")
    for i, event in enumerate(events):
        if not isinstance(event, Mapping):
            raise BadRequest(f"input.events[{i}] must be an object, got {type(event).__name__}")
    return events


_Name = TypeVar("_Name", bound=str)


def _exactly_one(event: Mapping[str, Any], names: tuple[_Name, ...], where: str) -> _Name:
    present = [n for n in names if n in event]
    if len(present) != 1:
        raise BadRequest(f"{where} must have exactly one of {', '.join(names)}")
    return present[0]


_STATUS: dict[StatusName, Status] = {"IDLE": Status.IDLE, "ACTIVE": Status.ACTIVE}


def _arrivals(payload: Mapping[str, Any], index_name: str, n: int) -> list[Arrival]:
    """``[{"<index_name>": i, "watermark": ts} | {"<index_name>": i, "status": "IDLE"}]``."""
    out: list[Arrival] = []
    events = field(payload, "events", list, "input")
    for event in events:  # fast path for well-formed events; anything else is re-checked below
        index = event.get(index_name) if type(event) is dict else None
        if type(index) is not int or not 0 <= index < n:
            break
        wm, status = event.get("watermark"), event.get("status")
        if type(wm) is int and status is None and LONG_MIN <= wm <= LONG_MAX:
            out.append(Arrival(index, Watermark(wm)))
        elif wm is None and status in _STATUS:
            out.append(Arrival(index, _STATUS[status]))
        else:
            break
    else:
        return out
    return _checked_arrivals(payload, index_name, n)


def _checked_arrivals(payload: Mapping[str, Any], index_name: str, n: int) -> list[Arrival]:
    """The slow path of :func:`_arrivals`: a BadRequest naming the first malformed field."""
    out: list[Arrival] = []
    for i, event in enumerate(_events(payload)):
        where = f"input.events[{i}]"
        index = field(event, index_name, int, where)
        if not 0 <= index < n:
            raise BadRequest(f"{where}.{index_name} = {index} is out of range [0, {n})")
        if _exactly_one(event, ("watermark", "status"), where) == "watermark":
            element: Element = Watermark(java_long(event, "watermark", where))
        else:
            element = _status(field(event, "status", str, where), where)
        out.append(Arrival(index, element))
    return out


def _status(text: str, where: str) -> Status:
    try:
        return Status(text)
    except ValueError:
        raise BadRequest(f'{where}.status = {text!r} must be "IDLE" or "ACTIVE"') from None


@attrs.frozen
class TimerEvent:
    """``register`` / ``delete`` a timer of ``key`` (and ``namespace``), or a ``watermark``."""

    kind: TimerKind
    timestamp: int
    key: str = ""
    namespace: str | None = None


def _timer_events(payload: Mapping[str, Any]) -> list[TimerEvent]:
    out: list[TimerEvent] = []
    for i, event in enumerate(_events(payload)):
        where = f"input.events[{i}]"
        kind: TimerKind = _exactly_one(event, ("register", "delete", "watermark"), where)
        timestamp = java_long(event, kind, where)
        if kind == "watermark":
            out.append(TimerEvent(kind, timestamp))
            continue
        key = field(event, "key", str, where)
        namespace = field(event, "namespace", str, where) if "namespace" in event else None
        out.append(TimerEvent(kind, timestamp, key, namespace))
    return out


# the areas this module answers, by name (oracle.AREAS)
ENTRIES: dict[str, AreaFn] = {VALVE: valve_area, COMBINED: combined_area, TIMERS: timers_area}

# the changes of Flink's behaviour in these areas, in release order (oracle.changes)
CHANGES: dict[str, tuple[Change, ...]] = {
    VALVE: (
        Change(since="1.14", what="StreamStatus -> WatermarkStatus rename",
               unseen="same valve output (two-input operators: the watermark.combined 1.14 change)"),
        Change(since="1.17", what="StatusWatermarkValve on HeapPriorityQueue",
               unseen="same valve output (but for 1.17.0's ArrayIndexOutOfBoundsException, FLINK-31628, fixed in "
               "1.17.1)"),
        HEAP_REMOVAL_CHECKED,
        SUBPARTITIONS,
    ),
    COMBINED: (IDLE_INPUTS_IGNORED, ALL_IDLE_FLUSH),
    TIMERS: (
        Change(since="1.15", what="timer loop: key set before poll",
               unseen="same timers fired (the protocol reads no keyed state)"),
        Change(since="1.18", what="timer loop: stops on cancellation", unseen="the protocol has no task cancellation"),
        Change(since="1.20", what="timer loop: interruptible (tryAdvanceWatermark)",
               unseen="the protocol has no interruption"),
    ),
}
