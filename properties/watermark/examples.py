"""Flink's own scenarios for ``watermark.valve``, ``watermark.combined`` and ``watermark.timers``: pinned data.

Every expected output comes from Flink, never from the oracle: either a Flink unit test (named in
the case: ``StatusWatermarkValveTest`` is in package ``streamstatus`` in 1.13 and
``watermarkstatus`` from 1.14, ``AbstractStreamOperatorV2Test``, ``InternalTimerServiceImplTest``)
or "real Flink": the output of flink-dist's own classes (one patch release per minor, see
``oracle.versions.SUPPORTED``) driven through flinkspec's bridge
(``flinkspec/impls/bridge/src/flinkspec/bridge/WatermarkArea.java``, ``TimersArea.java``), recorded for
every supported version.

Scripts are compact: ``W1:5`` is watermark 5 on channel/input 1 (``W0:5/1``: of subpartition 1),
``I1`` / ``A1`` make it IDLE / ACTIVE; an expected step is ``-`` (nothing), or comma-separated
watermarks and ``IDLE`` / ``ACTIVE`` in emission order.

``properties/test_oracle_watermark_examples.py`` holds the oracle to these tables on every test run;
``flinkspec.tools.vectors`` exports them as conformance test vectors.
"""

from __future__ import annotations

from typing import Any

import attrs

from oracle import SUPPORTED
from oracle.versions import FlinkVersion, parse_version, v

ALL = SUPPORTED
V113 = (parse_version("1.13"),)
SINCE_114 = tuple(x for x in SUPPORTED if x >= v("1.14"))
UNTIL_21 = tuple(x for x in SUPPORTED if x < v("2.2"))
SINCE_22 = tuple(x for x in SUPPORTED if x >= v("2.2"))


def events(script: str, key: str) -> list[dict[str, Any]]:
    """The events of a compact ``script``, each naming its channel or input under ``key``
    (``"channel"`` for the valve, ``"input"`` for the combined operator)."""
    out: list[dict[str, Any]] = []
    for token in script.split():
        if token[0] == "W":
            index, _, rest = token[1:].partition(":")
            mark, _, sub = rest.partition("/")
            event: dict[str, Any] = {key: int(index), "watermark": int(mark)}
            if sub:
                event["subpartition"] = int(sub)
            out.append(event)
        else:
            out.append({key: int(token[1:]), "status": "IDLE" if token[0] == "I" else "ACTIVE"})
    return out


def emitted(expected: str) -> list[list[dict[str, Any]]]:
    """What is emitted after each event, from a compact ``expected``: one list per step, ``-`` an empty one."""
    steps = []
    for step in expected.split():
        items = [] if step == "-" else step.split(",")
        steps.append([{"status": x} if x in ("IDLE", "ACTIVE") else {"watermark": int(x)} for x in items])
    return steps


@attrs.frozen
class Emissions:
    """A scenario of ``watermark.valve`` (``width`` channels) or ``watermark.combined`` (``width``
    inputs): the events of ``script``, and what Flink emits after each (``expected``, compact), at
    each of ``versions``. ``name`` is its source: Flink's test, or "real Flink: " and what it shows."""

    name: str
    versions: tuple[FlinkVersion, ...]
    width: int
    script: str
    expected: str


@attrs.frozen
class Firings:
    """A scenario of ``watermark.timers``: ``events`` (the request's), and the timers Flink fires after
    each (``fired``), at each of ``versions``. ``name`` is its source, as :class:`Emissions`'s."""

    name: str
    versions: tuple[FlinkVersion, ...]
    events: list[dict[str, Any]]
    fired: list[list[dict[str, Any]]]


# --------------------------------------------------------------------------------------------
# watermark.valve: StatusWatermarkValve
# --------------------------------------------------------------------------------------------

VALVE: tuple[Emissions, ...] = (
    Emissions("StatusWatermarkValveTest.testSingleInputIncreasingWatermarks", ALL, 1, "W0:0 W0:25", "0 25"),
    Emissions("StatusWatermarkValveTest.testSingleInputDecreasingWatermarksYieldsNoOutput", ALL, 1,
              "W0:25 W0:18 W0:42", "25 - 42"),
    Emissions("StatusWatermarkValveTest.testSingleInputWatermarkStatusToggling", ALL, 1,
              "A0 I0 I0 A0", "- IDLE - ACTIVE"),
    Emissions("StatusWatermarkValveTest.testSingleInputWatermarksIntactDuringIdleness", ALL, 1,
              "W0:25 I0 W0:50 A0 W0:50", "25 IDLE - ACTIVE 50"),
    Emissions("StatusWatermarkValveTest.testMultipleInputYieldsWatermarkOnlyWhenAllChannelsReceivesWatermarks",
              ALL, 3, "W0:0 W1:0 W2:0", "- - 0"),
    Emissions("StatusWatermarkValveTest.testMultipleInputIncreasingWatermarks", ALL, 3,
              "W0:0 W1:0 W2:0 W0:12 W2:8 W2:10 W1:15 W2:17 W0:20", "- - 0 - - - 10 12 15"),
    Emissions("StatusWatermarkValveTest.testMultipleInputDecreasingWatermarksYieldsNoOutput", ALL, 3,
              "W0:25 W1:10 W2:17 W0:12 W1:8 W2:15", "- - 10 - - -"),
    Emissions("StatusWatermarkValveTest.testMultipleInputWatermarkStatusToggling", ALL, 2,
              "A0 A1 I1 I0 I0 I1 A1 A0", "- - - IDLE - - ACTIVE -"),
    Emissions("StatusWatermarkValveTest.testMultipleInputWatermarkAdvancingWithPartiallyIdleChannels", ALL, 3,
              "W0:15 W1:10 I2 W1:18 W0:20", "- - 10 15 18"),
    Emissions("StatusWatermarkValveTest.testMultipleInputWatermarkAdvancingAsChannelsIndividuallyBecomeIdle", ALL, 3,
              "W0:25 W1:10 W2:17 I1 I2", "- - 10 17 25"),
    Emissions("StatusWatermarkValveTest.testMultipleInputFlushMaxWatermarkAndWatermarkStatusOnceAllInputsBecomeIdle",
              ALL, 3, "W0:10 W1:5 W2:3 I0 I1 I2", "- - 3 - - 10,IDLE"),
    Emissions("StatusWatermarkValveTest.testMultipleInputWatermarkRealignmentAfterResumeActive", ALL, 3,
              "W0:10 W1:7 W2:3 I2 A2 W2:5 W2:9 W1:12", "- - 3 7 - - - 9"),
    Emissions("StatusWatermarkValveTest.testNoOutputWhenAllActiveChannelsAreUnaligned", ALL, 3,
              "W0:10 W1:7 I2 A2 I0 I1", "- - 7 - - -"),
    Emissions("real Flink: a watermark on an idle channel is dropped, not remembered", ALL, 2,
              "W0:5 W1:3 I1 I0 A1 W1:4 W1:6 W0:7", "- 3 5 IDLE ACTIVE - 6 -"),
    Emissions("real Flink: the all-idle flush precedes IDLE", ALL, 2,
              "W0:5 W1:3 I0 I1 A0 W0:5 W0:6", "- 3 - 5,IDLE ACTIVE - 6"),
    Emissions("real Flink: Long.MIN_VALUE is never emitted", ALL, 1,
              f"W0:{-(2**63)} W0:0 I0 W0:10 A0 W0:5", "- 0 IDLE - ACTIVE 5"),
    Emissions("real Flink: a realigned channel counts once it catches up", ALL, 3,
              "I0 W1:10 W2:8 A0 W0:2 W0:9 W0:20 W2:30 I1 I2 I0", "- - 8 - - - - 10 20 - 30,IDLE"),
)

# --------------------------------------------------------------------------------------------
# watermark.combined: a multi-input operator (AbstractStreamOperator / V2)
# --------------------------------------------------------------------------------------------

COMBINED: tuple[Emissions, ...] = (
    Emissions("AbstractStreamOperatorV2Test.testIdleWatermarkHandling", SINCE_114, 3,
              "W0:1 I1 I2 W0:3 A1 W0:4", "- - 1 3 - -"),
    Emissions("real Flink 1.13: idle inputs still hold the minimum", V113, 3,
              "W0:1 I1 I2 W0:3 A1 W0:4", "- - - - - -"),
    Emissions("AbstractStreamOperatorV2Test.testIdlenessForwarding", SINCE_114, 3, "I0 I1 I2", "- - IDLE"),
    Emissions("real Flink 1.13: the task forwards IDLE once every input is idle", V113, 3, "I0 I1 I2", "- - IDLE"),
    Emissions("real Flink <= 2.1: no watermark is derived when all inputs are idle", UNTIL_21, 2,
              "W0:5 W1:3 I0 I1", "- 3 - IDLE"),
    Emissions("real Flink >= 2.2 (FLINK-38454): all idle flushes the maximum first", SINCE_22, 2,
              "W0:5 W1:3 I0 I1", "- 3 - 5,IDLE"),
    Emissions("real Flink 1.14+: a watermark ends idleness without an ACTIVE", SINCE_114, 2,
              "I0 I1 W0:7 A1 W1:9", "- IDLE 7 - -"),
    Emissions("real Flink 1.13: the operator ignores status, the task toggles it", V113, 2,
              "I0 I1 W0:7 A1 W1:9", "- IDLE - ACTIVE 7"),
    Emissions("real Flink 1.14+: an input's watermark never goes back", SINCE_114, 2,
              "W0:5 W1:4 W0:3 W1:9", "- 4 - 5"),
    Emissions("real Flink 1.13: an input's watermark is stored as it comes", V113, 2,
              "W0:5 W1:4 W0:3 W1:9", "- 4 - -"),
)

# --------------------------------------------------------------------------------------------
# watermark.timers: InternalTimerServiceImpl on HeapPriorityQueueSet
# --------------------------------------------------------------------------------------------


def timer(ts: int, key: str, namespace: str | None = None) -> dict[str, Any]:
    """A fired timer as ``watermark.timers`` reports it (no ``namespace`` when it has none)."""
    return {"timestamp": ts, "key": key} | ({"namespace": namespace} if namespace is not None else {})


FOUR = [{"register": 10, "key": k, "namespace": n} for k in ("k1", "k2") for n in ("ciao", "hello")]

TIMERS: tuple[Firings, ...] = (
    Firings("InternalTimerServiceImplTest.testSetAndFireEventTimeTimers (order: real Flink)", ALL,
            [*FOUR, {"watermark": 10}],
            [[], [], [], [], [timer(10, "k1", "ciao"), timer(10, "k2", "hello"), timer(10, "k2", "ciao"),
                              timer(10, "k1", "hello")]]),
    Firings("InternalTimerServiceImplTest.testDeleteEventTimeTimers", ALL,
            [*FOUR, {"delete": 10, "key": "k1", "namespace": "hello"},
             {"delete": 10, "key": "k2", "namespace": "ciao"}, {"watermark": 10}],
            [[], [], [], [], [], [], [timer(10, "k1", "ciao"), timer(10, "k2", "hello")]]),
    Firings("real Flink: equal timestamps fire in heap order, not registration order", ALL,
            [*({"register": 10, "key": k} for k in "abcde"), {"watermark": 10}],
            [[], [], [], [], [], [timer(10, k) for k in "aedcb"]]),
    Firings("real Flink: a timer at or below the watermark waits for the next watermark; duplicates fire once", ALL,
            [{"watermark": 10}, {"register": 5, "key": "a"}, {"register": 5, "key": "a"}, {"watermark": 1},
             {"watermark": 5}, {"watermark": 5}],
            [[], [], [], [], [timer(5, "a")], []]),
    Firings("real Flink: deletion re-heapifies; namespaces are distinct timers", ALL,
            [{"register": 10, "key": "a"}, {"register": 10, "key": "b"}, {"register": 10, "key": "c"},
             {"register": 10, "key": "a"}, {"register": 5, "key": "d", "namespace": "w"},
             {"register": 5, "key": "d"}, {"watermark": 9}, {"delete": 10, "key": "b"}, {"register": 10, "key": "e"},
             {"watermark": 10},
             {"register": 3, "key": "z"}, {"watermark": 1}],
            [[], [], [], [], [], [], [timer(5, "d", "w"), timer(5, "d")], [], [],
             [timer(10, "c"), timer(10, "e"), timer(10, "a")], [], []]),
)
