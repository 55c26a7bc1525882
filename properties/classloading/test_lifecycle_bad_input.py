"""``classloading.lifecycle``: the oracle's version table, and a BadRequest naming the field for each malformed
request, checked on the implementation under test (``--impl flink`` runs it against the bridge)."""

from __future__ import annotations

from typing import Any

import pytest

from oracle.classloading_lifecycle import METASPACE_TEST, THROWABLES, Kind, lifecycle
from oracle.versions import FlinkVersion, pick, v
from properties.under_test import Implementation, refuses_then_answers

pytestmark = pytest.mark.flinkspec_area("classloading.lifecycle")  # a test with an area parameter checks that one

AREA = {"area": "classloading.lifecycle", "flink": "2.3"}
OOM = {"class": "a.B", "side": "user", "stage": "define", "throws": "OutOfMemoryError"}


@pytest.mark.parametrize(("message", "until_1_14", "from_1_15"), [
    ("Metaspace", True, True), ("Metaspace: more", True, True), ("metaspace", False, True),
    ("METASPACE", False, True), ("Out of Metaspace", False, True), ("Meta space", False, False),
    ("Java heap space", False, False), ("", False, False)])
def test_the_metaspace_test_of_each_release(message: str, until_1_14: bool, from_1_15: bool) -> None:
    """ExceptionUtils.isMetaspaceOutOfMemoryError's message test: a prefix until 1.14, an infix in any case
    from 1.15 (FLINK-24993)."""
    assert pick(METASPACE_TEST, v("1.14.6"))(message) is until_1_14
    assert pick(METASPACE_TEST, v("1.15.0"))(message) is from_1_15


# ClassLoader.isRegisteredAsParallelCapable() of the loader FlinkUserCodeClassLoaders.create returns, read from
# each release's flink-dist jar by the bridge on JDK 17 (child-first and parent-first alike): the
# SafetyNetWrapperClassLoader (check on) always; ChildFirstClassLoader / ParentFirstClassLoader (check off) from
# 1.15, when their superclass FlinkUserCodeClassLoader registered (CLL-13).
@pytest.mark.parametrize(("release", "check_on", "check_off"), [
    ("1.13.6", True, False), ("1.14.0", True, False), ("1.14.6", True, False), ("1.15.0", True, True),
    ("1.15.4", True, True), ("1.16.0", True, True), ("1.20.5", True, True), ("2.0.0", True, True),
    ("2.3.0", True, True)])
@pytest.mark.parametrize("order", ["child-first", "parent-first"])
def test_parallel_capable_of_each_release_group(release: str, check_on: bool, check_off: bool, order: str) -> None:
    for check, expected in (("true", check_on), ("false", check_off)):
        out = lifecycle({"config": {"classloader.resolve-order": order, "classloader.check-leaked-classloader": check},
                         "operations": []}, v(release))
        assert isinstance(out, dict) and out["parallel_capable"] is expected, (release, order, check)


def test_only_a_static_initializer_throws_checked_exceptions() -> None:
    assert {t for t, k in THROWABLES.items() if k is Kind.CHECKED} == {
        "Exception", "Throwable", "ClassNotFoundException", "CloneNotSupportedException", "InterruptedException"}


BAD: list[tuple[dict[str, Any], str]] = [
    ({}, "input.operations is missing"),
    ({"operations": [{"load": "a.B", "close": True}]}, "input.operations[0] must have exactly one of"),
    ({"operations": [{"load": "a.B", "initialize": True}]}, "input.operations[0] must have exactly one of"),
    ({"operations": [{"close": False}]}, "input.operations[0].close must be true"),
    ({"operations": [{"load": "a..B"}]}, "input.operations[0].load = 'a..B' is not a valid binary name"),
    ({"operations": [{"get_resource": "a/../b"}]}, "is not a valid resource name"),
    ({"operations": [{"for_name": "java.lang.String", "initialize": True}]},
     "input.operations[0]: initializing the JDK class 'java.lang.String' is not modelled"),
    ({"faults": [{**OOM, "side": "both"}], "operations": []}, "input.faults[0].side must be 'user' or 'parent'"),
    ({"faults": [{**OOM, "stage": "link"}], "operations": []}, "input.faults[0].stage must be"),
    ({"faults": [{**OOM, "throws": "Oops"}], "operations": []}, "input.faults[0].throws = 'Oops' is none of"),
    ({"faults": [{**OOM, "throws": "Exception"}], "operations": []},
     "input.faults[0]: reading a class file throws no Exception"),
    ({"faults": [{**OOM, "message": 5}], "operations": []}, "input.faults[0].message must be a string or null"),
    ({"user_classes": ["a.B"], "faults": [OOM], "operations": []},
     "input.faults[0].class = 'a.B' is already an entry of the user jar"),
    ({"user_classes": ["java.x.Y"], "faults": [{**OOM, "stage": "initialize"}], "operations": []},
     "input.faults: a class whose initializer throws needs content without java.* classes"),
]


@pytest.mark.parametrize(("inp", "says"), BAD, ids=[s[:40] for _, s in BAD])
@pytest.mark.flinkspec_self  # a malformed request has no Flink answer to judge an implementation by
def test_invalid_requests_name_the_field(impl: Implementation, flink_version: FlinkVersion, inp: dict[str, Any],
                                         says: str) -> None:
    """The implementation answers a BadRequest naming the field, and stays usable."""
    ok = refuses_then_answers(impl, "classloading.lifecycle", flink_version, inp, says.split(" ")[0].rstrip(":"),
                              {"operations": [{"load": "java.lang.String"}]})
    assert ok.get("results") == [{"result": "parent", "handled": []}], ok


@pytest.mark.parametrize(("inp", "says"), BAD, ids=[s[:40] for _, s in BAD])
def test_the_oracle_says_what_is_wrong(inp: dict[str, Any], says: str) -> None:
    from oracle import answer

    err = answer({"id": 1, **AREA, "input": inp})["error"]
    assert err["type"] == "BadRequest" and says in err["message"], err
