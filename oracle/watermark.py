"""Protocol areas ``watermark.valve``, ``watermark.combined`` and ``watermark.timers``.

Requests are validated here (a malformed one is a :class:`BadRequest` naming the field) and turned
into :class:`~oracle.valve.Arrival` and :class:`TimerEvent` values; the rules themselves live in
:mod:`oracle.valve` (``StatusWatermarkValve``), :mod:`oracle.combined`
(``IndexedCombinedWatermarkStatus`` and its 1.13 predecessor) and :mod:`oracle.timers`
(``InternalTimerServiceImpl`` on a ``HeapPriorityQueueSet``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import attrs

from oracle import area
from oracle.combined import CombiningOperator, LegacyTwoInputTask
from oracle.protocol import BadRequest, field, java_long
from oracle.timers import EventTimeTimerService, Timer
from oracle.valve import Arrival, Element, Status, StatusWatermarkValve, Watermark
from oracle.versions import FlinkVersion, pick, v

# Flink's largest maximum parallelism (KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM): no
# task has more input channels or an operator more inputs than this.
MAX_CHANNELS = 32768


class Machine(Protocol):
    """A valve or combining operator: one arrival in, the elements it emitted out."""

    def feed(self, arrival: Arrival) -> tuple[Element, ...]: ...


# watermark.combined: how a multi-input operator combines, by first Flink version (CWM-*).
COMBINERS: Mapping[FlinkVersion, Callable[[int], Machine]] = {
    v("1.13"): LegacyTwoInputTask,
    v("1.14"): lambda n: CombiningOperator(n, flush_when_all_idle=False),
    v("2.2"): lambda n: CombiningOperator(n, flush_when_all_idle=True),  # FLINK-38454
}


@area("watermark.valve")
def valve_area(payload: Mapping[str, Any], version: FlinkVersion) -> dict[str, Any]:
    """One ``StatusWatermarkValve`` fed the request's events; the same rules in every version."""
    channels = _count(payload, "channels")
    arrivals = _arrivals(payload, "channel", channels)
    return _run(StatusWatermarkValve(channels), arrivals)


@area("watermark.combined")
def combined_area(payload: Mapping[str, Any], version: FlinkVersion) -> dict[str, Any]:
    """A multi-input operator's combined watermark and status (see :mod:`oracle.combined`)."""
    inputs = _count(payload, "inputs")
    arrivals = _arrivals(payload, "input", inputs)
    return _run(pick(COMBINERS, version)(inputs), arrivals)


@area("watermark.timers")
def timers_area(payload: Mapping[str, Any], version: FlinkVersion) -> dict[str, Any]:
    """Event-time timers of one ``InternalTimerServiceImpl``; the same rules in every version."""
    service = EventTimeTimerService()
    fired: list[list[dict[str, Any]]] = []
    for event in _timer_events(payload):
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


def _run(machine: Machine, arrivals: Sequence[Arrival]) -> dict[str, Any]:
    return {"emitted": [[_element_json(e) for e in machine.feed(a)] for a in arrivals]}


def _element_json(element: Element) -> dict[str, Any]:
    if isinstance(element, Watermark):
        return {"watermark": element.timestamp}
    return {"status": element.value}


def _timer_json(timer: Timer) -> dict[str, Any]:
    out: dict[str, Any] = {"timestamp": timer.timestamp, "key": timer.key}
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
    events = field(payload, "events", list, "input")
    for i, event in enumerate(events):
        if not isinstance(event, Mapping):
            raise BadRequest(f"input.events[{i}] must be an object, got {type(event).__name__}")
    return events


def _exactly_one(event: Mapping[str, Any], names: tuple[str, ...], where: str) -> str:
    present = [n for n in names if n in event]
    if len(present) != 1:
        raise BadRequest(f"{where} must have exactly one of {', '.join(names)}")
    return present[0]


def _arrivals(payload: Mapping[str, Any], index_name: str, n: int) -> list[Arrival]:
    """``[{"<index_name>": i, "watermark": ts} | {"<index_name>": i, "status": "IDLE"}]``."""
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

    kind: str
    timestamp: int
    key: str = ""
    namespace: str | None = None


def _timer_events(payload: Mapping[str, Any]) -> list[TimerEvent]:
    out: list[TimerEvent] = []
    for i, event in enumerate(_events(payload)):
        where = f"input.events[{i}]"
        kind = _exactly_one(event, ("register", "delete", "watermark"), where)
        timestamp = java_long(event, kind, where)
        if kind == "watermark":
            out.append(TimerEvent(kind, timestamp))
            continue
        key = field(event, "key", str, where)
        namespace = field(event, "namespace", str, where) if "namespace" in event else None
        out.append(TimerEvent(kind, timestamp, key, namespace))
    return out
