"""Extend the protocol, never break it: an implementation written to docs/protocol/v1.md version 1 is never
sent what version 1 does not define (issue 17, item 4).

(a) The feature registry (:mod:`flinkspec.impls.features`) and :class:`flinkspec.impls.capabilities.Capabilities`:
each feature's detector fires on a request that uses it and on no version-1 request, its strip
removes exactly it, a feature that cannot be stripped makes the request not checked with a reason,
and capabilities declarations carrying ``protocol``/``features``/``unmodelled_keys`` parse.
(b) Every request the strategies generate, fitted for protocol 1 with nothing declared, is either not
sent or passes the version-1 validator of tests/v1_impl.py (written from docs/protocol/v1.md alone), and a
request that already passes it is sent unchanged.
(c) The strict version-1 implementation (tests/v1_impl.py) never refuses a fitted request, with the
oracle behind it and with real Flink behind it.
"""

from __future__ import annotations

import copy
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

import oracle
from flinkspec.impls import InProcess, open_impl
from flinkspec.impls import features as feat
from flinkspec.impls.capabilities import EVERYTHING, NONE, Capabilities, CapabilitiesError, parse, query, resolve
from oracle.versions import SUPPORTED, parse_version
from properties import corpus
from properties.areas import AREAS, EXTRA_CORPORA, all_rules, area_of_corpus
from tests.v1_impl import PREFIX, v1_answer, v1_problem

ROOT = Path(__file__).resolve().parents[1]
KNOWN = {"known_areas": AREAS, "known_rules": all_rules()}  # what a declaration may name
V1 = Capabilities()
STRICT = f"cmd:{sys.executable} {ROOT / 'tests' / 'v1_impl.py'}"
COORDINATOR_CONFIG = {"max_concurrent": 1, "min_pause_ms": 0, "timeout_ms": 600000, "retained": 1,
                      "tolerable_failures": 0, "unaligned": False}


def req(area: str, inp: dict[str, Any], flink: str = "2.3") -> dict[str, Any]:
    return {"area": area, "flink": flink, "input": inp}


# One request per version-1 area using everything docs/protocol/v1.md defines for it (and nothing more).
V1_REQUESTS = [
    req("memory.taskmanager", {"config": {"taskmanager.memory.process.size": "1728m",
                                          "taskmanager.heap.size": "1g", "taskmanager.numberOfTaskSlots": "2"}}),
    req("memory.jobmanager", {"config": {"jobmanager.memory.process.size": "1600m", "jobmanager.heap.mb": "512"}}),
    req("watermark.valve", {"channels": 3, "events": [{"channel": 0, "watermark": 5}, {"channel": 2, "status": "IDLE"},
                                                      {"channel": 2, "status": "ACTIVE"}]}),
    req("watermark.timers", {"events": [{"register": 10, "key": "a"}, {"delete": 10, "key": "a"},
                                        {"register": 11, "key": ""}, {"watermark": 12}]}),
    req("classloading.resolve", {"config": {"classloader.resolve-order": "child-first",
                                            "classloader.parent-first-patterns.additional": "com.acme.;org.foo"},
                                 "user_classes": ["com.acme.Job"], "parent_classes": ["com.acme.Job"],
                                 "lookups": ["com.acme.Job", "java.lang.String"], "user_resources": ["META-INF/x.txt"],
                                 "parent_resources": [], "resource_lookups": ["META-INF/x.txt"]}),
    req("checkpoint.coordinator", {
        "config": COORDINATOR_CONFIG, "tasks": ["source-0", "map-0", "sink-0"],
        "events": [{"at": 0, "trigger": "periodic"}, {"at": 1, "trigger": "checkpoint"},
                   {"at": 1, "trigger": "savepoint"}, {"at": 2, "trigger": "sync_savepoint"},
                   {"at": 5, "ack": "source-0", "checkpoint": 1},
                   {"at": 6, "decline": "map-0", "checkpoint": 1, "reason": "CHECKPOINT_DECLINED"},
                   {"at": 7, "fail": "map-0"}, {"at": 8, "restart": "map-0"}, {"at": 9, "tick": True}]}),
    req("checkpoint.alignment", {"mode": "exactly_once", "channels": 2, "events": [
        {"channel": 0, "record": "a"}, {"channel": 0, "barrier": 1}, {"channel": 1, "record": "b"},
        {"channel": 1, "barrier": 1}, {"channel": 0, "end": True}]}),
]

VALVE = {"channels": 2, "events": [{"channel": 0, "watermark": 5}, {"channel": 1, "status": "IDLE"}]}
CL_FULL = {"config": {"classloader.resolve-order": "parent-first"}, "user_classes": ["a.B"], "parent_classes": [],
           "lookups": ["a.B"], "user_resources": [], "parent_resources": [], "resource_lookups": []}
ALIGN = {"mode": "at_least_once", "channels": 2,
         "events": [{"channel": 0, "barrier": 1}, {"channel": 1, "cancel": 1}, {"channel": 1, "barrier": 2},
                    {"channel": 0, "end": True}]}
ALIGN_NO_CANCEL = {**ALIGN, "events": [ALIGN["events"][0], *ALIGN["events"][2:]]}
COORD = {"config": COORDINATOR_CONFIG, "tasks": ["a", "b"], "events": [{"at": 0, "trigger": "periodic"}]}


def _area_example(name: str) -> tuple[dict[str, Any], None]:
    """A request of an area added since version 1, drawn from its strategy: the first that uses the area's
    feature alone (no feature added to the area since)."""
    for drawn in corpus.draw(AREAS[name].requests(parse_version("2.3")), 50, 0):
        if {f.name for f in feat.FEATURES if f.used(drawn)} == {name}:
            return drawn, None
    raise AssertionError(f"50 requests of {name}: each uses a feature of the area too")


# feature -> (a request using it, the request stripped of it, or None when it cannot be stripped); an area added
# since version 1 is a feature of its own, its example drawn (a new area needs no line here)
EXAMPLES: dict[str, tuple[dict[str, Any], dict[str, Any] | None]] = {
    **{f.name: _area_example(f.name) for f in feat.FEATURES if f.whole_area},
    "flink.patch-release": (req("watermark.valve", {"channels": 1, "events": [{"channel": 0, "watermark": 1}]},
                                flink="1.15.1"), None),
    "memory.network.gates": (req("memory.network", {"config": {"taskmanager.memory.process.size": "1g"},
                                                    "gates": [{"channels": 2, "local": 3, "type": "BLOCKING"}]},
                                 flink="1.17"), None),
    "memory.network.hybrid": (req("memory.network", {"config": {"taskmanager.memory.process.size": "1g"},
                                                     "partitions": [{"subpartitions": 4, "type": "HYBRID_FULL"}]}),
                              None),
    "watermark.async.timeouts": (req("watermark.async", {"mode": "ordered", "capacity": 1, "timeout": 2, "events": [
        {"kind": "record", "name": "a", "timestamp": 5}, {"kind": "advance", "ms": 2}]}), None),
    "watermark.output.chain": (req("watermark.output", {"chain": "assigner", "generator": "monotonous",
                                                        "auto_watermark_interval_ms": 5, "events": [
        {"kind": "record", "timestamp": 5}, {"kind": "advance", "ms": 5}]}), None),
    "checkpoint.snapshot.rocksdb": (req("checkpoint.snapshot", {"backend": "rocksdb", "events": [
        {"kind": "put", "key": "a", "value": "x"}, {"kind": "snapshot", "checkpoint": 1},
        {"kind": "run", "checkpoint": 1}]}), None),
    "watermark.valve.subpartitions": (
        req("watermark.valve", {"channels": 2, "subpartitions": [[0, 1], [2, 2]],
                                "events": [{"channel": 0, "watermark": 5, "subpartition": 1},
                                           {"channel": 1, "watermark": 3}, {"channel": 1, "status": "IDLE"}]}),
        req("watermark.valve", {"channels": 2, "events": [{"channel": 0, "watermark": 5},
                                                          {"channel": 1, "watermark": 3},
                                                          {"channel": 1, "status": "IDLE"}]})),
    "watermark.timers.namespace": (
        req("watermark.timers", {"events": [{"register": 1, "key": "a", "namespace": "w"}, {"watermark": 2},
                                            {"delete": 1, "key": "a", "namespace": "w"}]}),
        req("watermark.timers", {"events": [{"register": 1, "key": "a"}, {"watermark": 2},
                                            {"delete": 1, "key": "a"}]})),
    "classloading.resolve.optional-fields": (
        req("classloading.resolve", {"lookups": ["a.B"], "user_classes": ["a.B"]}),
        req("classloading.resolve", {**CL_FULL, "config": {}, "user_classes": ["a.B"]})),
    "classloading.resolve.patterns-default": (
        req("classloading.resolve", {**CL_FULL, "config": {**CL_FULL["config"],
                                                           "classloader.parent-first-patterns.default": "java."}}),
        req("classloading.resolve", CL_FULL)),
    "classloading.resolve.patterns-deprecated-key": (
        req("classloading.resolve", {**CL_FULL, "config": {"classloader.parent-first-patterns": "java.;scala.",
                                                           **CL_FULL["config"]}}),
        req("classloading.resolve", CL_FULL)),
    "classloading.resolve.check-leaked-classloader": (
        req("classloading.resolve", {**CL_FULL, "config": {**CL_FULL["config"],
                                                           "classloader.check-leaked-classloader": "nope"}}),
        req("classloading.resolve", CL_FULL)),
    "classloading.resolve.other-config-keys": (
        req("classloading.resolve", {**CL_FULL, "config": {**CL_FULL["config"],
                                                           "classloader.parent-first-patterns.unknown": "com."}}),
        req("classloading.resolve", CL_FULL)),
    "classloading.resolve.jars": (req("classloading.resolve", {**CL_FULL, "user_jars": ["/tmp/x.jar"]}), None),
    "checkpoint.coordinator.config-defaults": (
        req("checkpoint.coordinator", {**COORD, "config": {"timeout_ms": 15, "unaligned": True}}),
        req("checkpoint.coordinator", {**COORD, "config": {**COORDINATOR_CONFIG, "timeout_ms": 15,
                                                           "unaligned": True}})),
    "checkpoint.coordinator.sources": (req("checkpoint.coordinator", {**COORD, "sources": ["a"]}),
                                       req("checkpoint.coordinator", COORD)),
    "checkpoint.coordinator.end": (req("checkpoint.coordinator", {**COORD, "events": [
        {"at": 0, "trigger": "periodic"}, {"at": 1, "shutdown": True}]}), None),
    "checkpoint.alignment.cancel": (req("checkpoint.alignment", ALIGN), req("checkpoint.alignment", ALIGN_NO_CANCEL)),
    "checkpoint.alignment.checkpoints-after-finish": (
        req("checkpoint.alignment", {**ALIGN_NO_CANCEL, "checkpoints_after_finish": False}),
        req("checkpoint.alignment", ALIGN_NO_CANCEL)),
    "classloading.resolve.resource-lookup-one": (
        req("classloading.resolve", {**CL_FULL, "resource_lookup_one": ["a/B.class", "x.txt"]}),
        req("classloading.resolve", CL_FULL)),
}


def _feature(name: str) -> feat.Feature:
    f = feat.BY_NAME[name]
    assert isinstance(f, feat.Feature)
    return f


# ---- (a) the registry and the API ---------------------------------------------------------------


def test_the_version_1_areas_are_those_of_protocol_md_and_every_other_area_is_a_feature() -> None:
    """docs/protocol/v1.md's area headings are version 1; every area the suite checks is one of them or a
    registered whole-area feature."""
    text = (ROOT / "docs" / "protocol" / "v1.md").read_text()
    assert set(re.findall(r"^### `([a-z.]+)`", text, re.M)) == set(feat.V1_AREAS)
    for area in AREAS:
        assert area in feat.V1_AREAS or feat.area_feature(area) is not None, area
    assert {f.name for f in feat.FEATURES if f.whole_area} == set(AREAS) - set(feat.V1_AREAS)


def test_every_registered_feature_has_an_example_here() -> None:
    """Every feature added since version 1 (those of version 1 an implementation may declare unsupported,
    ``config.spelling``, are tests/test_config_spelling.py's)."""
    assert set(EXAMPLES) == {f.name for f in feat.FEATURES if f.version > 1}


def test_docs_protocol_md_lists_every_feature_as_registered() -> None:
    """The tables in docs/protocol/v2.md, v3.md and v4.md: one row per feature, its area first, its version, and "not
    checked" exactly where the feature cannot be stripped (or dropped from an answer)."""
    text = "\n".join((ROOT / "docs" / "protocol" / page).read_text() for page in ("v2.md", "v3.md", "v4.md"))
    rows = {m[0]: m[1:] for m in re.findall(r"^\| `([a-z.-]+)` \| `([a-z.]+)`[^|]* \| (\d+) \|[^|]*\| ([^|]*) \|$",
                                            text, re.M)}
    assert set(rows) == set(feat.BY_NAME)
    for row in feat.table():
        area, version, effect = rows[row["name"]]
        assert (area, int(version)) == (row["area"], row["version"]), row
        assert (effect == "not checked") == (not row["strippable"]), row


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_the_detector_fires_and_the_strip_removes_exactly_the_feature(name: str) -> None:
    f = _feature(name)
    using, stripped = EXAMPLES[name]
    assert f.used(using)
    assert v1_problem(using) is not None, "the example must use something version 1 does not define"
    assert (f.strip is None) == (stripped is None)
    if f.strip is not None:
        before = copy.deepcopy(using)
        out = f.strip(using)
        assert using == before, "strip must not mutate its argument"
        assert out == stripped and not f.used(out)
        assert v1_problem(out) is None, v1_problem(out)


@pytest.mark.parametrize("request_", V1_REQUESTS, ids=[r["area"] for r in V1_REQUESTS])
def test_no_detector_fires_on_a_version_1_request(request_: dict[str, Any]) -> None:
    assert v1_problem(request_) is None
    assert [f.name for f in feat.FEATURES if f.used(request_)] == []
    out, why = V1.fit(request_)
    assert out is request_ and why is None
    assert V1.area_needs(request_["area"]) is None
    assert oracle.answer({"id": 1, **request_}).get("error", {}).get("type") != "BadRequest"


def test_detectors_and_strips_survive_malformed_requests() -> None:
    """The reducer's candidates and the bad-input tests are requests too: nothing raises."""
    bad = [{}, {"area": 3}, {"area": "watermark.valve", "input": []},
           {"area": "watermark.valve", "input": {"events": 5}},
           {"area": "checkpoint.coordinator", "input": {"config": [1]}},
           {"area": "checkpoint.alignment", "input": {"events": [1, "x", None], "fail_after": "x"}},
           {"area": "classloading.resolve", "input": {"config": "x"}}]
    for request_ in bad:
        for f in feat.FEATURES:
            if f.used(request_) and f.strip is not None:
                f.strip(request_)
        V1.fit(request_)


def test_the_reason_names_the_version_the_feature_and_what_it_is() -> None:
    assert _feature("watermark.valve.subpartitions").need() == (
        "needs protocol 2 feature watermark.valve.subpartitions "
        "(channels consuming several subpartitions, Flink 1.19+)")
    using, _ = EXAMPLES["classloading.resolve.jars"]
    assert V1.fit(using) == (None, "needs protocol 2 feature classloading.resolve.jars "
                                   "(real jars on the class path: user_jars, parent_jars)")
    out, why = V1.fit(EXAMPLES["checkpoint.recovery"][0])
    assert out is None and why == V1.area_needs("checkpoint.recovery") == _feature("checkpoint.recovery").need()


def test_what_is_declared_is_sent_as_it_is() -> None:
    using, stripped = EXAMPLES["watermark.valve.subpartitions"]
    assert V1.fit(using) == (stripped, None)
    declared = Capabilities(features=("watermark.valve.subpartitions",))
    assert declared.fit(using)[0] is using
    for name, (request_, _) in EXAMPLES.items():
        assert EVERYTHING.fit(request_) == (request_, None), name
        area = feat.area_feature(request_["area"])  # a feature of an area added since version 1 needs the area too
        needs = (area.name,) if area is not None and area.name != name else ()
        assert Capabilities(features=(name, *needs)).fit(request_) == (request_, None), name


def test_a_recovery_request_keeps_its_failure_point_when_cancel_markers_go() -> None:
    """checkpoint.recovery takes alignment inputs: an implementation that declares the area but not
    cancel markers gets the events without them, failing behind the same events."""
    caps = Capabilities(features=("checkpoint.recovery", "checkpoint.alignment.checkpoints-after-finish"))
    request_ = req("checkpoint.recovery", {**ALIGN, "fail_after": 3})
    out, why = caps.fit(request_)
    assert why is None and out == req("checkpoint.recovery", {**ALIGN_NO_CANCEL, "fail_after": 2})


def test_area_needs() -> None:
    assert V1.area_needs("watermark.valve") is None
    assert V1.area_needs("watermark.combined") == (
        "needs protocol 2 feature watermark.combined (the combined watermark and status of a multi-input operator)")
    assert Capabilities(protocol=2).area_needs("watermark.combined") is None
    assert Capabilities(features=("watermark.combined",)).area_needs("watermark.combined") is None
    assert Capabilities(features=("watermark.combined",)).area_needs("checkpoint.recovery") is not None
    assert V1.area_needs("future.area") == f"needs protocol {feat.CURRENT} area future.area"


def test_unmodelled_config_keys_are_not_checked_unless_stripped_anyway() -> None:
    memory = V1_REQUESTS[0]
    caps = Capabilities(protocol=2, unmodelled_keys=("taskmanager.heap.size",))
    assert caps.fit(memory) == (None, "needs config key taskmanager.heap.size")
    assert caps.fit(V1_REQUESTS[1])[0] is V1_REQUESTS[1]
    leak_using, leak_stripped = EXAMPLES["classloading.resolve.check-leaked-classloader"]
    v1_leak = Capabilities(unmodelled_keys=("classloader.check-leaked-classloader",))
    assert v1_leak.fit(leak_using) == (leak_stripped, None)  # stripped as a protocol-2 key first
    assert v1_leak.merged(EVERYTHING).fit(leak_using) == (None, "needs config key classloader.check-leaked-classloader")


def test_answers_lose_what_the_implementation_does_not_speak() -> None:
    request_ = V1_REQUESTS[5]
    answer = {"id": 1, "output": {"steps": [{"triggered": [1]}, {"was_pending": True}]}}
    before = copy.deepcopy(answer)
    assert V1.fit_answer(request_, answer) == ({"id": 1, "output": {"steps": [{"triggered": [1]}, {}]}}, None)
    assert answer == before
    assert EVERYTHING.fit_answer(request_, answer) == (answer, None)
    failed = {"id": 2, "output": {"trace": [{"snapshot": 2}, {"emit_barrier": 2}, {"fail": "IllegalStateException"}]}}
    assert V1.fit_answer(V1_REQUESTS[6], failed) == (
        None, "needs protocol 2 feature checkpoint.alignment.fail "
              "(a fail entry in the trace: the barrier handler threw)")
    error = {"id": 3, "error": {"type": "InvalidConfiguration", "exception": "X", "message": ""}}
    assert V1.fit_answer(request_, error) == (error, None)


def test_a_recorded_get_resource_answer_is_held_without_it_where_the_lookups_are_not_sent() -> None:
    """Protocol 3's resource lookup: an implementation of version 2 is sent the request without
    resource_lookup_one and held to Flink's answer without resource; one that speaks it, to all of it."""
    using, stripped = EXAMPLES["classloading.resolve.resource-lookup-one"]
    answer = {"id": 1, "output": {"patterns": [], "resolved": ["user"], "resources": [], "resource": ["user", None]}}
    without = {"id": 1, "output": {"patterns": [], "resolved": ["user"], "resources": []}}
    for caps in (V1, Capabilities(protocol=2)):
        assert caps.fit(using) == (stripped, None)
        assert caps.fit_answer(using, answer) == (without, None)
    for caps in (Capabilities(protocol=3), Capabilities(features=("classloading.resolve.resource-lookup-one",))):
        assert caps.fit(using) == (using, None)
        assert caps.fit_answer(using, answer) == (answer, None)
    assert oracle.answer({"id": 1, **stripped}) == {**oracle.answer({"id": 1, **using}), "output": {
        k: v for k, v in oracle.answer({"id": 1, **using})["output"].items() if k != "resource"}}


def test_neutral_strips_do_not_change_flinks_answer() -> None:
    """Filling in defaults and empty lists says what the request already meant: the oracle's answer
    is the same (so those cases stay checked as they were)."""
    for name in ("classloading.resolve.optional-fields", "checkpoint.coordinator.config-defaults"):
        f = _feature(name)
        assert f.strip is not None
        for version in (parse_version("1.13"), parse_version("2.3")):
            for inp in corpus.inputs(f.area, version, 60, 5):
                request_ = {"id": 1, **req(f.area, inp, str(version))}
                if f.used(request_):
                    assert oracle.answer(f.strip(request_)) == oracle.answer(request_), (name, request_)


@pytest.mark.parametrize(("data", "says"), [
    ({"protocol": "2"}, "protocol must be an integer >= 1"),
    ({"protocol": True}, "protocol must be an integer >= 1"),
    ({"protocol": 0}, "protocol must be an integer >= 1"),
    ({"protocol": 5}, "protocol 5 is newer than this suite's protocol 4"),
    ({"features": "watermark.combined"}, "features must be a list of non-empty strings"),
    ({"features": ["watermark.nope"]}, "features: unknown feature(s) watermark.nope"),
    ({"unmodelled_keys": [""]}, "unmodelled_keys must be a list of non-empty strings"),
    ({"unsupported": {}}, "unsupported must be a list"),
    ({"protocl": 2}, "unknown field(s) protocl"),
])
def test_a_file_of_the_wrong_shape_names_the_field(data: object, says: str) -> None:
    with pytest.raises(CapabilitiesError) as info:
        parse(data, "caps.json", known_areas=list(AREAS))
    assert says in str(info.value) and str(info.value).startswith("caps.json")


def test_an_implementations_own_answer_may_be_newer_than_the_suite() -> None:
    caps = parse({"protocol": 7, "features": ["watermark.nope", "watermark.timers.namespace"]}, "answer", lenient=True)
    assert caps.protocol == feat.CURRENT and caps.features == ("watermark.timers.namespace",)
    assert len(caps.warnings) == 2 and "watermark.nope" in caps.warnings[1]


def test_declarations_parse_and_add_up() -> None:
    assert parse({}, "f") == NONE and NONE.protocol == 1
    caps = parse({"protocol": 1, "features": ["watermark.timers.namespace"], "unmodelled_keys": ["a.b"],
                  "unsupported": [{"area": "watermark.timers", "rule": "TIMER-1"}]}, "f", known_rules=["TIMER-1"])
    assert (caps.protocol, caps.features, caps.unmodelled_keys) == (1, ("watermark.timers.namespace",), ("a.b",))
    both = caps.merged(parse({"protocol": 2, "features": ["watermark.timers.namespace"]}, "g"))
    assert (both.protocol, both.features, both.unmodelled_keys) == (2, ("watermark.timers.namespace",), ("a.b",))
    assert both.to_json() == [{"area": ["watermark.timers"], "rule": ["TIMER-1"], "source": "f"}]
    speaks = caps.speaks.to_json()
    assert speaks["protocol"] == 1 and speaks["features"] == ["watermark.timers.namespace"]
    assert "watermark.valve.subpartitions" in speaks["not_spoken"]
    assert "watermark.timers.namespace" not in speaks["not_spoken"]
    assert EVERYTHING.speaks.to_json()["not_spoken"] == []
    json.dumps(speaks)


def _refuses(request_: dict[str, Any]) -> dict[str, Any]:
    return {"id": request_.get("id"), "error": {"type": "BadRequest", "message": "unknown area"}}


def test_who_speaks_what() -> None:
    """No answer (BadRequest, a crash, a malformed answer): protocol 1. The built-in implementations:
    everything, unasked."""
    assert query(InProcess("v1", _refuses), **KNOWN) == NONE

    def broken(request_: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("no")

    crashed = query(InProcess("broken", broken), **KNOWN)
    assert crashed.protocol == 1 and crashed.warnings
    odd = query(InProcess("odd", lambda r: {"id": r["id"], "output": {"protocol": "two"}}), **KNOWN)
    assert odd.protocol == 1 and "protocol must be" in odd.warnings[0]
    newer = query(InProcess("v2", lambda r: {"id": r["id"], "output": {"protocol": 2}}), **KNOWN)
    assert newer.protocol == 2 and newer.area_needs("checkpoint.recovery") is None
    for spec in ("oracle", "flink", "flink:2.3", "mutant:valve-no-flush"):
        assert resolve(spec, None, None, **KNOWN).protocol == feat.CURRENT, spec
    assert resolve("cmd:./engine", None, None, **KNOWN) == NONE


# ---- (b) nothing undeclared is ever sent ----------------------------------------------------------


@pytest.mark.parametrize("name", [*AREAS, *EXTRA_CORPORA])
def test_fitted_requests_speak_version_1(name: str) -> None:
    """300 inputs per version of every area's corpus (what the check pipelines) plus 60 drawn by Hypothesis's
    engine (as the pytest property draws them), and 100 of each extra corpus (``flinkspec record``): fitted for
    protocol 1, each is not sent or passes the version-1 validator; one that already passes it is sent unchanged
    (nothing version 1 defines is listed as a feature)."""
    area = area_of_corpus(name)
    for version in SUPPORTED:
        if name in AREAS and version not in AREAS[name].versions:
            continue
        n = 300 if name in AREAS else 100
        drawn = [{"area": area, "flink": str(version), "input": i} for i in corpus.inputs(name, version, n, 11)]
        if name in AREAS:
            drawn += corpus.draw(AREAS[name].requests(version), 60, 12)
        for request_ in drawn:
            out, why = V1.fit(request_)
            if v1_problem(request_) is None:
                assert out is request_, request_
            elif out is None:
                assert why and re.match(r"needs protocol [234] ", why), why
            else:
                assert v1_problem(out) is None, (v1_problem(out), out)
                assert not [f.name for f in feat.FEATURES if not V1.speaks.speaks(f.name) and f.used(out)]


# ---- (c) the strict version-1 implementation ----------------------------------------------------


def _fitted(version: str, per_area: int, seed: int) -> list[dict[str, Any]]:
    out = []
    for area in feat.V1_AREAS:
        for inp in corpus.inputs(area, parse_version(version), per_area, seed):
            fitted, _ = V1.fit(req(area, inp, version))
            if fitted is not None:
                out.append(fitted)
    return [{"id": i, **r} for i, r in enumerate(out, 1)]


def test_the_strict_implementation_refuses_what_it_cannot_know() -> None:
    """With the oracle behind it: the capabilities request and every example feature get a BadRequest
    from the strict implementation itself; the suite therefore takes it for protocol 1."""
    impl = open_impl(f"{STRICT} --behind oracle")
    try:
        assert query(impl, **KNOWN) == NONE
        sent = [{"id": i, **r} for i, (r, _) in enumerate(EXAMPLES.values(), 1)]
        for resp in impl.answer_many(sent):
            assert resp["error"]["type"] == "BadRequest" and resp["error"]["message"].startswith(PREFIX), resp
    finally:
        impl.close()


def test_fitted_requests_are_never_refused_with_the_oracle_behind() -> None:
    impl = open_impl(f"{STRICT} --behind oracle")
    try:
        for version in ("1.13", "1.19", "2.3"):
            sent = _fitted(version, 40, 21)
            for request_, resp in zip(sent, impl.answer_many(sent), strict=True):
                assert resp.get("error", {}).get("type") != "BadRequest", (request_, resp)
                assert resp == v1_answer(request_, oracle.answer(request_))
    finally:
        impl.close()


@pytest.mark.flink
def test_fitted_requests_are_never_refused_with_real_flink_behind() -> None:
    """Real Flink 2.3 behind the strict implementation: no fitted request is refused, and each answer
    is the oracle's as protocol 1 has it (``fit_answer``; a case it cannot express is skipped)."""
    impl = open_impl(f"{STRICT} --behind flink:2.3", timeout=120)
    try:
        sent = _fitted("2.3", 40, 31)
        for request_, resp in zip(sent, impl.answer_many(sent), strict=True):
            assert resp.get("error", {}).get("type") not in ("BadRequest", "BridgeError"), (request_, resp)
            expected, _ = V1.fit_answer(request_, oracle.answer(request_))
            if expected is None:
                continue
            norm = AREAS[request_["area"]].normalize
            if "error" in expected:
                assert resp.get("error", {}).get("type") == expected["error"]["type"], (request_, resp)
            else:
                assert norm(resp) == norm(expected), (request_, resp, expected)
    finally:
        impl.close()
