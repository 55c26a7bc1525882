"""Bad watermark input gets a clear BadRequest (or a correct answer), never a crash: checked on the
implementation under test."""

from __future__ import annotations

import pytest

from flinkspec.impls import Implementation, answer_one
from oracle.versions import FlinkVersion

BAD = [
    ("watermark.valve", {"channels": 2, "events": [{"channel": 2, "watermark": 1}]}, "out of range"),
    ("watermark.valve", {"channels": 2, "events": [{"channel": -1, "watermark": 1}]}, "out of range"),
    ("watermark.valve", {"channels": 2, "events": [{"channel": 0, "status": "SLEEPY"}]}, "status"),
    ("watermark.valve", {"channels": 2, "events": [{"channel": 0, "watermark": 1.5}]}, "watermark"),
    ("watermark.valve", {"channels": 2, "events": [{"channel": 0, "watermark": 1 << 63}]}, "64-bit"),
    ("watermark.valve", {"channels": 2, "events": [{"channel": 0, "watermark": "5"}]}, "watermark"),
    ("watermark.valve", {"channels": 0, "events": []}, "channels"),
    ("watermark.valve", {"channels": 2, "events": [{"channel": 0}]}, "exactly one"),
    ("watermark.combined", {"inputs": 2, "events": [{"input": 3, "watermark": 1}]}, "out of range"),
    ("watermark.timers", {"events": [{"register": 1}]}, "key"),
    ("watermark.timers", {"events": [{"watermark": -(1 << 63) - 1}]}, "64-bit"),
]


@pytest.mark.parametrize(("area", "payload", "says"), BAD, ids=[f"{a}-{s}-{i}" for i, (a, _, s) in enumerate(BAD)])
def test_invalid_watermark_input_is_a_bad_request(impl: Implementation, flink_version: FlinkVersion, area: str,
                                                  payload: dict, says: str) -> None:
    """The implementation answers a BadRequest and stays usable."""
    answer = answer_one(impl, {"id": 1, "area": area, "flink": str(flink_version), "input": payload})
    assert answer.get("error", {}).get("type") == "BadRequest", answer
    ok = answer_one(impl, {"id": 2, "area": area, "flink": str(flink_version),
                           "input": {**payload, "events": []}} if area != "watermark.valve" or payload["channels"]
                    else {"id": 2, "area": area, "flink": str(flink_version), "input": {"channels": 1, "events": []}})
    assert "output" in ok, ok


def test_a_hundred_thousand_events_get_an_answer(impl: Implementation, flink_version: FlinkVersion) -> None:
    """100,000 events on 16 channels are answered, one list per event."""
    events = [{"channel": i % 16, "watermark": i // 16} if i % 97 else {"channel": i % 16, "status": "IDLE"}
              for i in range(100_000)]
    answer = answer_one(impl, {"id": 1, "area": "watermark.valve", "flink": str(flink_version),
                               "input": {"channels": 16, "events": events}})
    assert len(answer["output"]["emitted"]) == 100_000
