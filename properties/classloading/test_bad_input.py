"""Bad class-loading input gets a clear BadRequest naming the field, never a crash: checked on the
implementation under test (``--impl flink`` runs it against the bridge)."""

from __future__ import annotations

from typing import Any

import pytest

import oracle
from oracle.versions import FlinkVersion
from properties.under_test import Implementation, Judged, answer_one, refuses_then_answers

pytestmark = pytest.mark.flinkspec_area("classloading.resolve")  # a test with an area parameter checks that one

BAD = [
    ({"lookups": ["a..b"]}, "lookups[0]"),
    ({"lookups": ["com/acme/Job"]}, "lookups[0]"),
    ({"lookups": [""]}, "lookups[0]"),
    ({"lookups": [".a"]}, "lookups[0]"),
    ({"lookups": ["[Ljava.lang.String;"]}, "lookups[0]"),
    ({"lookups": ["a\u0000b"]}, "lookups[0]"),
    ({"lookups": ["x" * 1025]}, "lookups[0]"),
    ({"lookups": ["ok.Name", 5]}, "lookups[1]"),
    ({"user_classes": ["a.b."]}, "user_classes[0]"),
    ({"parent_classes": ["a;b"]}, "parent_classes[0]"),
    ({"user_resources": ["/abs/path"]}, "user_resources[0]"),
    ({"resource_lookups": ["a/../b"]}, "resource_lookups[0]"),
    ({"parent_resources": ["a\\b"]}, "parent_resources[0]"),
    ({"user_classes": ["a.B"], "user_resources": ["a/B.class"]}, "user_resources[0]"),
    ({"lookups": "a.B"}, "lookups"),
    ({"config": {"classloader.resolve-order": 1}}, "config"),
    ({"config": None}, "config"),
]


@pytest.mark.parametrize(("payload", "says"), BAD, ids=[f"{s}-{i}" for i, (_, s) in enumerate(BAD)])
@pytest.mark.flinkspec_self  # a malformed request has no Flink answer to judge an implementation by
def test_invalid_classloading_input_is_a_bad_request(impl: Implementation, flink_version: FlinkVersion,
                                                     payload: dict[str, Any], says: str) -> None:
    """The implementation answers a BadRequest naming the field, and stays usable."""
    ok = refuses_then_answers(impl, "classloading.resolve", flink_version, payload, says,
                              {"lookups": ["java.lang.String"]})
    assert ok.get("resolved") == ["parent"], ok


# names exactly at the protocol's limits (1 to 1,024 UTF-16 units, no control character, no "." or ".."
# segment in a resource name): accepted, and one step past each limit: refused
ASTRAL = "\U0001d518"  # two UTF-16 units
EDGES = [
    ({"lookups": ["x" * 1024]}, True),
    ({"lookups": ["x" * 1022 + ASTRAL]}, True),
    ({"lookups": ["x" * 1023 + ASTRAL]}, False),
    ({"lookups": ["a.b" + "\u001f"]}, False),
    ({"lookups": ["a.\u0020b"]}, True),
    ({"lookups": ["a.\u007fb"]}, True),
    ({"resource_lookups": ["a/.../b"]}, True),
    ({"resource_lookups": ["a/./b"]}, False),
    ({"resource_lookups": ["a/.b/c."]}, True),
]


@pytest.mark.flinkspec_self  # a malformed request has no Flink answer to judge an implementation by
@pytest.mark.parametrize("payload", [p for p, accepted in EDGES if not accepted])
def test_names_past_the_protocols_limits_are_bad_requests(impl: Implementation, flink_version: FlinkVersion,
                                                          payload: dict[str, Any]) -> None:
    answer = answer_one(impl, {"id": 1, "area": "classloading.resolve", "flink": str(flink_version),
                               "input": payload})
    assert answer["error"]["type"] == "BadRequest" and next(iter(payload)) in answer["error"]["message"], answer


UNKNOWN_ORDER = {"config": {"classloader.resolve-order": "child_first"}}


def test_names_at_the_protocols_limits_are_answered_as_flink(gate: Judged, flink_version: FlinkVersion) -> None:
    """Names at the protocol's limits, and an unknown resolve order, are answered as Flink answers them."""
    found = gate.judge_all("classloading.resolve", flink_version,
                           [*(p for p, accepted in EDGES if accepted), UNKNOWN_ORDER])
    assert not found, "\n\n".join(found)


def test_unknown_resolve_order_is_rejected_by_flink(flink_version: FlinkVersion) -> None:
    """An unknown resolve order is Flink's verdict (InvalidConfiguration), not a malformed request."""
    answer = oracle.answer({"id": 1, "area": "classloading.resolve", "flink": str(flink_version),
                            "input": UNKNOWN_ORDER})
    assert answer.get("error") == {"type": "InvalidConfiguration", "exception": "IllegalArgumentException",
                                   "message": "Unknown resolve order: child_first"}, answer
