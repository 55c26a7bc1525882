"""The reference's own words for a malformed request: each BadRequest of the oracle names the field,
what it must be and what it got (docs/protocol/v1.md: "a message naming what was wrong"). Other
implementations word theirs as they like; these pin the oracle's, which users read in reports."""

from __future__ import annotations

from typing import Any

import pytest

import oracle

VERSIONS = ("give a minor (1.13, 1.14, 1.15, 1.16, 1.17, 1.18, 1.19, 1.20, 2.0, 2.1, 2.2, 2.3, each meaning its newest "
            "patch) or a patch release on PyPI (1.14.0, 1.14.2, 1.14.3, 1.14.4, 1.14.5, 1.15.0, 1.15.1, 1.15.2, "
            "1.15.3, 1.16.0, 1.16.1, 1.16.2, 1.17.0, 1.17.1, 1.18.0, 1.19.0, 1.19.1, 1.19.2, 1.20.0, 1.20.1, "
            "1.20.2, 1.20.3, 1.20.4, 2.0.0, 2.0.1, 2.1.0, 2.1.1, 2.1.2, 2.2.0)")
AREAS = ("checkpoint.alignment, checkpoint.coordinator, checkpoint.ha, checkpoint.recovery, checkpoint.snapshot, "
         "checkpoint.storage, "
         "classloading.lifecycle, classloading.resolve, memory.consumers, memory.jobmanager, memory.network, "
         "memory.taskmanager, "
         "watermark.assigner, watermark.async, watermark.combined, watermark.generation, watermark.join, "
         "watermark.timers, watermark.valve, watermark.windows")
WM = {"area": "watermark.valve", "flink": "2.3"}
CASES = [
    ({"area": "memory.taskmanager", "flink": "3.0", "input": {}},
     f"unknown Flink version '3.0': {VERSIONS}"),
    ({"area": "memory.taskmanager", "flink": 2.3, "input": {}},
     f"unknown Flink version 2.3: {VERSIONS}"),
    ({"area": "memory.nope", "flink": "2.3", "input": {}}, f"unknown area 'memory.nope'; known areas: {AREAS}"),
    ({"flink": "2.3", "input": {}}, f"unknown area None; known areas: {AREAS}"),
    ({"area": "memory.taskmanager", "flink": "2.3", "input": []}, "input must be a JSON object"),
    ({"area": "memory.taskmanager", "flink": "2.3", "input": {"config": {"a": 1}}},
     "input.config['a'] must be a string, got int"),
    ({"area": "memory.taskmanager", "flink": "2.3", "input": {"config": []}},
     "input.config must be an object, got list"),
    ({"area": "watermark.valve", "flink": "2.3", "input": {"channels": True, "events": []}},
     "input.channels must be an integer, got a boolean"),
    ({"area": "watermark.valve", "flink": "2.3", "input": {"channels": 2, "events": {}}},
     "input.events must be an array, got dict"),
    ({"area": "watermark.valve", "flink": "2.3", "input": {"channels": 2, "events": [5]}},
     "input.events[0] must be an object, got int"),
    ({**WM, "input": {"channels": 2, "events": [{"channel": 0, "watermark": 1.5}]}},
     "input.events[0].watermark must be an integer, got float"),
    ({**WM, "input": {"channels": 2, "events": [{"channel": 0, "watermark": 1 << 63}]}},
     "input.events[0].watermark = 9223372036854775808 does not fit a signed 64-bit long"),
    ({"area": "classloading.resolve", "flink": "2.3", "input": {"lookups": [1]}},
     "input.lookups[0] must be a string, got int"),
    ({**WM, "input": {"channels": 2, "events": [{"channel": 0, "status": 5}]}},
     "input.events[0].status must be a string, got int"),
    ({**WM, "input": {"channels": 2, "events": [{"channel": 0, "status": "idle"}]}},
     'input.events[0].status = \'idle\' must be "IDLE" or "ACTIVE"'),
    ({**WM, "flink": "1.18", "input": {"channels": 1, "events": [{"channel": 0, "watermark": 1, "subpartition": 0}]}},
     "input.events[0].subpartition is not defined for Flink 1.18 (before 1.19)"),
    ({**WM, "input": {"channels": 1, "events": [{"channel": 0, "status": "IDLE", "subpartition": 0}]}},
     "input.events[0].subpartition is only defined on a watermark event"),
]


@pytest.mark.parametrize(("request_", "message"), CASES, ids=[m[:40] for _, m in CASES])
def test_the_oracle_names_what_is_wrong(request_: dict[str, Any], message: str) -> None:
    assert oracle.answer({"id": 7, **request_}) == {"id": 7, "error": {"type": "BadRequest", "message": message}}


def test_a_request_that_is_not_an_object() -> None:
    assert oracle.answer([1]) == {"id": None, "error": {"type": "BadRequest",
                                                        "message": "a request must be a JSON object, got list"}}


def test_an_unknown_version_keeps_the_text() -> None:
    from oracle.versions import UnknownVersion, parse_version

    with pytest.raises(UnknownVersion) as info:
        parse_version("3.0")
    assert info.value.text == "3.0"
