"""Bad checkpoint input gets a clear BadRequest naming the field, never a crash: acks for tasks that do
not exist, negative times, time going backwards, channel indexes out of range and the rest of the
malformed inputs of docs/protocol/checkpoint-*.md. Checked on the implementation under test
(``--impl flink`` runs it against the bridge), which must stay usable afterwards."""

from __future__ import annotations

from typing import Any

import pytest

import oracle
from oracle.versions import FlinkVersion
from properties.under_test import Implementation, Judged, refuses_then_answers

pytestmark = pytest.mark.flinkspec_area("checkpoint.coordinator")  # a test with an area parameter checks that one

TASKS = {"tasks": ["t0", "t1"], "sources": ["t0"]}
AT0 = {"at": 0, "trigger": "periodic"}

COORDINATOR: list[tuple[dict[str, Any], str]] = [
    ({**TASKS, "events": [AT0, {"at": 1, "ack": "t9", "checkpoint": 1}]}, "events[1]"),
    ({**TASKS, "events": [AT0, {"at": 1, "decline": "t9", "checkpoint": 1, "reason": "CHECKPOINT_DECLINED"}]},
     "events[1]"),
    ({**TASKS, "events": [{"at": 0, "fail": "nobody"}]}, "events[0]"),
    ({**TASKS, "events": [{"at": 0, "restart": "t2"}]}, "events[0]"),
    ({**TASKS, "events": [{"at": -1, "trigger": "periodic"}]}, "events[0]"),
    ({**TASKS, "events": [{"at": 5, "trigger": "periodic"}, {"at": 4, "trigger": "periodic"}]}, "events[1]"),
    ({**TASKS, "events": [{"at": 2 ** 40 + 1, "trigger": "periodic"}]}, "events[0]"),
    ({**TASKS, "events": [{"at": 1.5, "trigger": "periodic"}]}, "events[0]"),
    ({**TASKS, "events": [{"trigger": "periodic"}]}, "events[0]"),
    ({**TASKS, "events": [{"at": 0, "trigger": "someday"}]}, "events[0]"),
    ({**TASKS, "events": [{"at": 0, "trigger": "periodic", "ack": "t0", "checkpoint": 1}]}, "events[0]"),
    ({**TASKS, "events": [{"at": 0, "ack": "t0", "checkpoint": 2 ** 63}]}, "events[0]"),
    ({**TASKS, "events": [{"at": 0, "decline": "t0", "checkpoint": 1, "reason": "NO_SUCH_REASON"}]}, "events[0]"),
    ({"tasks": ["t0"], "sources": ["t1"], "events": [AT0]}, "sources"),
    ({"tasks": [], "events": [AT0]}, "tasks"),
    ({**TASKS, "events": [AT0], "config": {"max_concurrent": "2"}}, "max_concurrent"),
    ({**TASKS, "events": [AT0], "config": {"timeout_ms": 2 ** 63}}, "timeout_ms"),
    ({**TASKS, "events": [AT0], "config": {"max_concurrnt": 2}}, "max_concurrnt"),
    ({**TASKS, "events": "trigger"}, "events"),
    ({**TASKS, "events": [{"at": 0, "trigger": 5}]}, "events[0].trigger"),
    ({**TASKS, "events": [AT0, {"at": 1, "decline": "t0", "checkpoint": 1, "reason": 5}]}, "events[1].reason"),
    ({**TASKS, "events": [{"at": 0, "ack": 5, "checkpoint": 1}]}, "events[0].ack"),
    ({"tasks": ["t0", ""], "events": [AT0]}, "tasks"),
    ({**TASKS, "events": [AT0], "config": {"tolerable_failures": -(2 ** 31) - 1}}, "tolerable_failures"),
]

ALIGNMENT: list[tuple[dict[str, Any], str]] = [
    ({"mode": "exactly_once", "channels": 2, "events": [{"channel": 2, "record": "a"}]}, "events[0]"),
    ({"mode": "exactly_once", "channels": 2, "events": [{"channel": -1, "barrier": 1}]}, "events[0]"),
    ({"mode": "at_least_once", "channels": 0, "events": []}, "channels"),
    ({"mode": "at_least_once", "channels": 65, "events": []}, "channels"),
    ({"mode": "exactly_once", "channels": 1, "events": [{"channel": 0, "barrier": 0}]}, "events[0]"),
    ({"mode": "exactly_once", "channels": 1, "events": [{"channel": 0, "barrier": 2 ** 63}]}, "events[0]"),
    ({"mode": "exactly_once", "channels": 1, "events": [{"channel": 0, "record": 7}]}, "events[0]"),
    ({"mode": "exactly_once", "channels": 1, "events": [{"channel": 0, "end": True},
                                                        {"channel": 0, "record": "a"}]}, "events[1]"),
    ({"mode": "exactly_once", "channels": 1, "events": [{"channel": 0, "end": False}]}, "events[0]"),
    ({"mode": "exactly_once", "channels": 1, "events": [{"channel": 0, "record": "a", "barrier": 1}]}, "events[0]"),
    ({"mode": "exactly_once", "channels": 1, "events": [{"channel": 0}]}, "events[0]"),
    ({"mode": "exactly_once", "channels": 1, "events": ["barrier"]}, "events[0]"),
    ({"mode": "twice", "channels": 1, "events": []}, "mode"),
    ({"channels": 1, "events": []}, "mode"),
    ({"mode": "exactly_once", "channels": 1, "events": [], "colour": "red"}, "colour"),
]

RECOVERY: list[tuple[dict[str, Any], str]] = [
    *ALIGNMENT[:3],
    ({"mode": "exactly_once", "channels": 1, "events": [{"channel": 0, "record": "a"}], "fail_after": 2},
     "fail_after"),
    ({"mode": "exactly_once", "channels": 1, "events": [{"channel": 0, "record": "a"}], "fail_after": -1},
     "fail_after"),
]

GOOD: dict[str, dict[str, Any]] = {
    "checkpoint.coordinator": {**TASKS, "events": [AT0]},
    "checkpoint.alignment": {"mode": "exactly_once", "channels": 1, "events": [{"channel": 0, "barrier": 1}]},
    "checkpoint.recovery": {"mode": "exactly_once", "channels": 1, "events": [{"channel": 0, "record": "a"}]},
}
CASES = [(area, payload, says) for area, cases in (("checkpoint.coordinator", COORDINATOR),
                                                    ("checkpoint.alignment", ALIGNMENT),
                                                    ("checkpoint.recovery", RECOVERY))
         for payload, says in cases]


@pytest.mark.flinkspec_self  # a malformed request has no Flink answer to judge an implementation by
@pytest.mark.parametrize(("area", "payload", "says"), CASES,
                         ids=[f"{a.split('.')[1]}-{i}-{s}" for i, (a, _, s) in enumerate(CASES)])
def test_invalid_checkpoint_input_is_a_bad_request(impl: Implementation, flink_version: FlinkVersion, area: str,
                                                   payload: dict[str, Any], says: str) -> None:
    """The implementation answers a BadRequest naming the field, and stays usable."""
    refuses_then_answers(impl, area, flink_version, payload, says, GOOD[area])


NEGATIVE_TIMEOUT = {**TASKS, "events": [AT0], "config": {"timeout_ms": -5}}
AT_THE_LIMITS = [{**TASKS, "events": [{"at": 2 ** 40, "trigger": "periodic"}]},  # the protocol's last time
                 {**TASKS, "events": [AT0], "config": {"tolerable_failures": -(2 ** 31)}},
                 {**TASKS, "events": [AT0], "config": {"max_concurrent": 2 ** 31 - 1}}]


def test_a_negative_timeout_is_flinks_verdict(flink_version: FlinkVersion) -> None:
    """A negative checkpoint timeout is well-formed input that Flink itself rejects
    (``CheckpointCoordinatorConfiguration``'s ``checkArgument``): InvalidConfiguration, not BadRequest."""
    answer = oracle.answer({"id": 1, "area": "checkpoint.coordinator", "flink": str(flink_version),
                            "input": NEGATIVE_TIMEOUT})
    assert answer.get("error", {}).get("type") == "InvalidConfiguration", answer


def test_values_at_the_limits_are_no_bad_request(flink_version: FlinkVersion) -> None:
    """The last time the protocol allows and the smallest Java int are well-formed: whatever Flink
    answers (a negative failure count is Flink's own InvalidConfiguration), it is no BadRequest."""
    for payload in AT_THE_LIMITS:
        answer = oracle.answer({"id": 1, "area": "checkpoint.coordinator", "flink": str(flink_version),
                                "input": payload})
        assert answer.get("error", {}).get("type") != "BadRequest", (payload, answer)


def test_the_implementation_answers_well_formed_edges_as_flink(gate: Judged, flink_version: FlinkVersion) -> None:
    """A negative timeout and values at the protocol's limits are answered as Flink answers them."""
    found = gate.judge_all("checkpoint.coordinator", flink_version, [NEGATIVE_TIMEOUT, *AT_THE_LIMITS])
    assert not found, "\n\n".join(found)
