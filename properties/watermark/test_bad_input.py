"""Bad watermark input gets a clear BadRequest (or a correct answer), never a crash: checked on the
implementation under test."""

from __future__ import annotations

from typing import Any

import pytest

import oracle
from oracle.versions import FlinkVersion
from oracle.watermark import SUBPARTITIONS_SINCE
from properties.under_test import Implementation, Judged, answer_one, refuses_then_answers

pytestmark = pytest.mark.flinkspec_area("watermark.valve")  # a test with an area parameter checks that one

W = {"channel": 0, "watermark": 1}
SUBS = {"channels": 2, "subpartitions": [[0, 0], [1, 2]]}  # channel 1 consumes subpartitions 1..2
BAD = [  # (area, input, the field the BadRequest names; since 1.19 only where "subpartitions" appear)
    ("watermark.valve", {"channels": 2, "events": [{"channel": 2, "watermark": 1}]}, "events[0].channel"),
    ("watermark.valve", {"channels": 2, "events": [{"channel": -1, "watermark": 1}]}, "events[0].channel"),
    ("watermark.valve", {"channels": 2, "events": [W, {"channel": 1, "status": "IDLE"},
                                                   {"channel": 2, "watermark": 1}]},
     "events[2].channel"),
    ("watermark.valve", {"channels": 2, "events": [{"channel": 0, "status": "SLEEPY"}]}, "events[0].status"),
    ("watermark.valve", {"channels": 2, "events": [{"channel": 0, "watermark": 1.5}]}, "events[0].watermark"),
    ("watermark.valve", {"channels": 2, "events": [{"channel": 0, "watermark": 1 << 63}]}, "events[0].watermark"),
    ("watermark.valve", {"channels": 2, "events": [W, {"channel": 0, "watermark": "5"}]}, "events[1].watermark"),
    ("watermark.valve", {"channels": 0, "events": []}, "channels"),
    ("watermark.valve", {"channels": 2, "events": [W, {"channel": 0}]}, "events[1]"),
    ("watermark.combined", {"inputs": 2, "events": [{"input": 3, "watermark": 1}]}, "events[0].input"),
    ("watermark.combined", {"inputs": 2, "events": [{"input": 0, "watermark": 1}, {"input": 2, "status": "IDLE"}]},
     "events[1].input"),
    ("watermark.timers", {"events": [{"register": 1}]}, "events[0].key"),
    ("watermark.timers", {"events": [{"register": 1, "key": "a"}, {"watermark": -(1 << 63) - 1}]},
     "events[1].watermark"),
    ("watermark.valve", {**SUBS, "events": [W, {"channel": 1, "watermark": 1}]}, "events[1]"),
    ("watermark.valve", {**SUBS, "events": [W, {"channel": 1, "watermark": 1, "subpartition": 3}]},
     "events[1].subpartition"),
    ("watermark.valve", {**SUBS, "events": [{"channel": 1, "status": "IDLE", "subpartition": 1}]},
     "events[0].subpartition"),
    ("watermark.valve", {**SUBS, "events": [{"channel": 1, "watermark": 1, "subpartition": -1}]},
     "events[0].subpartition"),
    ("watermark.valve", {"channels": 2, "subpartitions": [[0, 0]], "events": []}, "subpartitions"),
    ("watermark.valve", {"channels": 2, "subpartitions": [[0, 0], [2, 1]], "events": []}, "subpartitions[1]"),
    ("watermark.valve", {"channels": 2, "subpartitions": [[0, 0], [1, "2"]], "events": []}, "subpartitions[1]"),
    ("watermark.valve", {"channels": 2, "subpartitions": [[0, 0], [1, 2, 3]], "events": []}, "subpartitions[1]"),
    ("watermark.valve", {"channels": 1, "subpartitions": [[-1, 0]], "events": []}, "subpartitions[0]"),
    ("watermark.valve", {"channels": 1, "subpartitions": [[0, 32768]], "events": []}, "subpartitions[0]"),
    ("watermark.valve", {**SUBS, "events": [{"channel": 1, "watermark": 1, "subpartition": "1"}]},
     "events[0].subpartition"),
    ("watermark.valve", {**SUBS, "events": [{"channel": 1, "watermark": 1, "subpartition": 32768}]},
     "events[0].subpartition"),
    ("watermark.valve", {"channels": 2, "events": [W, {"channel": "1", "watermark": 1}]}, "events[1].channel"),
    ("watermark.valve", {"channels": 2, "events": [W, {"channel": 1, "status": 5}]}, "events[1].status"),
]


@pytest.mark.flinkspec_self  # a malformed request has no Flink answer to judge an implementation by
@pytest.mark.parametrize(("area", "payload", "says"), BAD, ids=[f"{a}-{s}-{i}" for i, (a, _, s) in enumerate(BAD)])
def test_invalid_watermark_input_is_a_bad_request(impl: Implementation, flink_version: FlinkVersion, area: str,
                                                  payload: dict[str, Any], says: str) -> None:
    """The implementation answers a BadRequest and stays usable."""
    if "subpartitions" in payload and flink_version < SUBPARTITIONS_SINCE:
        says = "subpartitions"  # not defined before 1.19: refused as such
    fine = {"watermark.valve": {"channels": 1}, "watermark.combined": {"inputs": 1}}.get(area, {})
    refuses_then_answers(impl, area, flink_version, payload, f"input.{says}", {**fine, "events": []})


def test_a_hundred_thousand_events_are_answered_as_flink(gate: Judged, flink_version: FlinkVersion) -> None:
    """100,000 events on 16 channels are answered as Flink answers them, one list per event."""
    events = [{"channel": i % 16, "watermark": i // 16} if i % 97 else {"channel": i % 16, "status": "IDLE"}
              for i in range(100_000)]
    found = gate.judge_all("watermark.valve", flink_version, [{"channels": 16, "events": events}])
    assert not found, "\n\n".join(found)


NAMED_SUBPARTITION = {"channels": 1, "events": [{"channel": 0, "watermark": 1, "subpartition": 0}]}


@pytest.mark.flinkspec_self  # a malformed request has no Flink answer to judge an implementation by
def test_a_subpartition_before_119_is_a_bad_request(impl: Implementation, flink_version: FlinkVersion) -> None:
    """Before 1.19 a channel has no subpartitions to name."""
    if flink_version >= SUBPARTITIONS_SINCE:
        pytest.skip("a channel names its subpartitions from 1.19")
    answer = answer_one(impl, {"id": 1, "area": "watermark.valve", "flink": str(flink_version),
                               "input": NAMED_SUBPARTITION})
    assert answer.get("error", {}).get("type") == "BadRequest", answer
    assert "input.events[0].subpartition" in answer["error"]["message"], answer


def test_a_named_subpartition_is_answered_as_flink(gate: Judged, flink_version: FlinkVersion) -> None:
    """From 1.19 a watermark may name the subpartition it arrives on."""
    if flink_version < SUBPARTITIONS_SINCE:
        pytest.skip("a channel names its subpartitions from 1.19")
    assert oracle.answer({"area": "watermark.valve", "flink": str(flink_version), "input": NAMED_SUBPARTITION}
                         )["output"] == {"emitted": [[{"watermark": 1}]]}
    found = gate.judge_all("watermark.valve", flink_version, [NAMED_SUBPARTITION])
    assert not found, "\n\n".join(found)
