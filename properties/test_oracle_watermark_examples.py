"""Pinned examples for ``watermark.valve``, ``watermark.combined`` and ``watermark.timers``.

The tables of Flink's own scenarios (``VALVE``, ``COMBINED``, ``TIMERS``: every expected output from
Flink, never from the oracle) and their compact scripts are data beside the code,
:mod:`properties.watermark.examples`; this module holds the oracle to them on every run, and to the
scenarios only a test states (subpartitions, 1.17.0's exception, malformed requests).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import pytest

from oracle import SUPPORTED, answer
from oracle.versions import FlinkVersion, parse_version, v
from properties.watermark.examples import COMBINED, TIMERS, VALVE, Emissions, Firings, emitted, events

UNTIL_118 = tuple(x for x in SUPPORTED if x < v("1.19"))
SINCE_119 = tuple(x for x in SUPPORTED if x >= v("1.19"))


def run(area: str, version: FlinkVersion, payload: dict[str, Any]) -> dict[str, Any]:
    return answer({"id": 1, "area": area, "flink": str(version), "input": payload})


def cases(table: Sequence[Emissions] | Sequence[Firings]) -> list[Any]:
    """A parameter set per scenario and release it holds at, ``name-release``: the release, then the
    scenario's fields after its name and releases."""
    return [pytest.param(ver, *attrs.astuple(ex, recurse=False)[2:], id=f"{ex.name}-{ver}")
            for ex in table for ver in ex.versions]


# --------------------------------------------------------------------------------------------
# watermark.valve: StatusWatermarkValve
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("version", "channels", "script", "expected"), cases(VALVE))
def test_valve_emits_what_flink_emits(
    version: FlinkVersion, channels: int, script: str, expected: str
) -> None:
    """WM-1..WM-9: the valve's emissions, event by event, equal Flink's (same in 1.13-2.3)."""
    out = run("watermark.valve", version, {"channels": channels, "events": events(script, "channel")})
    assert out == {"id": 1, "output": {"emitted": emitted(expected)}}


SUBPARTITIONED = {"channels": 2, "subpartitions": [[0, 1], [0, 0]]}


@pytest.mark.parametrize("version", SINCE_119, ids=str)
def test_valve_routes_internal_watermarks_to_their_subpartition(version: FlinkVersion) -> None:
    """SWV-10 (real Flink 1.19+): each consumed subpartition holds its own watermark in the minimum."""
    payload = {**SUBPARTITIONED, "events": events("W0:5/0 W0:3/1 W1:4 W0:6/1 W0:9/0 W1:8", "channel")}
    assert run("watermark.valve", version, payload)["output"] == {"emitted": emitted("- - 3 4 - 6")}


@pytest.mark.parametrize("version", SINCE_119, ids=str)
def test_valve_status_on_a_shared_channel_is_rejected(version: FlinkVersion) -> None:
    """SWV-10 (real Flink 1.19+): checkState(!isInputChannelShared) throws IllegalStateException."""
    payload = {**SUBPARTITIONED, "events": events("W1:4 I1", "channel")}
    assert run("watermark.valve", version, payload)["error"] == {
        "type": "InvalidConfiguration", "exception": "IllegalStateException", "message": ""}


@pytest.mark.parametrize("release", ["1.17.0", "1.17.1", "1.17"])
def test_valve_unaligned_channel_going_idle_throws_in_1_17_0(release: str) -> None:
    """SWV-11 (real Flink 1.17.0 and 1.17.1, and StatusWatermarkValveTest#testUnalignedActiveChannelBecomesIdle
    of FLINK-31628): channel 1 becomes active behind the output, so it is not aligned; going idle again,
    1.17.0 removes it from the heap of aligned channels anyway and throws."""
    payload = {"channels": 2, "events": events("I1 W0:0 A1 I1", "channel")}
    got = run("watermark.valve", parse_version(release), payload)
    if release == "1.17.0":
        assert got["error"] == {"type": "InvalidConfiguration", "exception": "ArrayIndexOutOfBoundsException",
                                "message": "Index -2147483648 out of bounds for length 3"}
    else:
        assert got["output"] == {"emitted": emitted("- 0 - -")}


@pytest.mark.parametrize("version", UNTIL_118, ids=str)
def test_invalid_subpartitions_before_1_19(version: FlinkVersion) -> None:
    """Before 1.19 a channel is one subpartition: the field is a BadRequest, not a guess."""
    payload = {**SUBPARTITIONED, "events": []}
    assert run("watermark.valve", version, payload)["error"]["type"] == "BadRequest"


@pytest.mark.parametrize(
    "payload",
    [
        {"channels": 0, "events": []},
        {"channels": 2, "events": [{"channel": 2, "watermark": 1}]},
        {"channels": 2, "events": [{"channel": 0, "status": "PAUSED"}]},
        {"channels": 2, "events": [{"channel": 0, "watermark": 2**63}]},
        {"channels": 2, "events": [{"channel": 0, "watermark": 1.5}]},
        {"channels": 2, "events": [{"channel": 0, "watermark": 1, "status": "IDLE"}]},
        {"channels": 40000, "events": []},
    ],
    ids=["no-channels", "channel-out-of-range", "unknown-status", "past-long", "float", "both", "absurd"],
)
def test_invalid_valve_requests_are_bad_requests(payload: dict[str, Any]) -> None:
    """A malformed valve request is a BadRequest naming the field, never a crash."""
    error = run("watermark.valve", parse_version("2.3"), payload)["error"]
    assert error["type"] == "BadRequest" and "input." in error["message"]


# --------------------------------------------------------------------------------------------
# watermark.combined: a multi-input operator (AbstractStreamOperator / V2)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("version", "inputs", "script", "expected"), cases(COMBINED))
def test_combined_operator_emits_what_flink_emits(
    version: FlinkVersion, inputs: int, script: str, expected: str
) -> None:
    """CWM-1..CWM-8: the operator's combined watermark and status, event by event."""
    out = run("watermark.combined", version, {"inputs": inputs, "events": events(script, "input")})
    assert out == {"id": 1, "output": {"emitted": emitted(expected)}}


# --------------------------------------------------------------------------------------------
# watermark.timers: InternalTimerServiceImpl on HeapPriorityQueueSet
# --------------------------------------------------------------------------------------------



@pytest.mark.parametrize(("version", "timer_events", "fired"), cases(TIMERS))
def test_timers_fire_in_flinks_order(
    version: FlinkVersion, timer_events: list[Any], fired: list[Any]
) -> None:
    """TM-1..TM-7: timers fire at ``ts <= watermark``, deduplicated, ties in binary-heap order."""
    out = run("watermark.timers", version, {"events": timer_events})
    assert out == {"id": 1, "output": {"fired": fired}}


@pytest.mark.parametrize(
    "event",
    [{"register": 1}, {"register": "1", "key": "a"}, {"delete": 1, "key": 7}, {"watermark": -(2**63) - 1},
     {"register": 1, "watermark": 2, "key": "a"}, {"register": 1, "key": "a", "namespace": 3}, {}],
    ids=["no-key", "string-ts", "int-key", "below-long", "two-kinds", "int-namespace", "empty"],
)
def test_invalid_timer_events_are_bad_requests(event: dict[str, Any]) -> None:
    """A malformed timer event is a BadRequest naming the event, never a crash."""
    error = run("watermark.timers", parse_version("2.3"), {"events": [event]})["error"]
    assert error["type"] == "BadRequest" and "input.events[0]" in error["message"]
