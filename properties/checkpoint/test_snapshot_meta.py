"""Meta-tests: the checkpoint.snapshot strategy reaches the corners where implementations go wrong (writes after a
snapshot's synchronous part, several snapshots pending at once, a cancel before and after the run, a run after a
cancel, an empty result, a restore cancelling pending snapshots, keys in Java's order), the invariants reject what
they must, and the oracle answers pinned requests as real Flink did (the answers below come from the bridge,
SnapshotArea.java, at 1.13.6 and 2.3.0; the rocksdb ones at 1.13.6, 1.15.0, 2.1.0 and 2.3.0). For the rocksdb backend: a
snapshot after a completed one (placeholders), after one that never completed (its files uploaded again), with the
base pruned (2.0.2+, KSS-12), a restore after several increments."""

from __future__ import annotations

from typing import Any

import pytest

import oracle
from oracle.checkpoint_snapshot import SNAPSHOT
from oracle.versions import SUPPORTED
from properties.checkpoint import snapshot_invariants as inv
from properties.checkpoint.snapshot_strategies import requests
from properties.corpus import Corner, answered_with
from properties.meta import corner_tests

SAMPLE = 2000  # requests drawn once; every corner must be among them
CHECKS = (inv.shape, inv.pending_after_sync, inv.copy_on_write, inv.cancelable, inv.restore, inv.value_semantics,
          inv.sorted_pairs, inv.nothing_to_build_on, inv.builds_on_completed)


def _pairs(pred: Any) -> Corner:
    return answered_with(lambda out, inp: any(pred(e, s, inp["events"][:i])
                                              for i, (e, s) in enumerate(zip(inp["events"], out["steps"],
                                                                             strict=True))))


def _written_since(e: dict[str, Any], s: dict[str, Any], before: list[dict[str, Any]]) -> bool:
    """A run snapshot after a put or remove that came after its synchronous part, which it does not hold."""
    if e["kind"] != "run" or "state" not in s:
        return False
    at = next(i for i, b in enumerate(before) if b["kind"] == "snapshot" and b["checkpoint"] == e["checkpoint"])
    return any(b["kind"] in ("put", "remove") for b in before[at:])


def _pending(before: list[dict[str, Any]]) -> set[int]:
    ended = {b["checkpoint"] for b in before if b["kind"] in ("run", "cancel")}
    out: set[int] = set()
    for b in before:
        if b["kind"] == "snapshot":
            out.add(b["checkpoint"])
        if b["kind"] == "restore":
            out.clear()
    return out - ended


def _rocksdb(pred: Any) -> Corner:
    return answered_with(lambda out, inp: inp.get("backend") == "rocksdb" and any(
        pred(e, s, inp["events"][:i], out["steps"][:i])
        for i, (e, s) in enumerate(zip(inp["events"], out["steps"], strict=True))))


def _pruned(out: dict[str, Any], inp: dict[str, Any]) -> bool:
    """A rocksdb request Flink 2.1.0 answers otherwise than 2.3.0: a base pruned of re-uploaded files (KSS-12)."""
    if inp.get("backend") != "rocksdb":
        return False
    before = oracle.answer({"id": 0, "area": SNAPSHOT, "flink": "2.1.0", "input": inp})
    after = oracle.answer({"id": 0, "area": SNAPSHOT, "flink": "2.3.0", "input": inp})
    return bool(before.get("output") != after["output"])


def _restore_of(e: dict[str, Any], b: list[dict[str, Any]], steps: list[dict[str, Any]]) -> bool:
    """A restore of a snapshot whose run referred to files of earlier checkpoints (base and increments)."""
    return e["kind"] == "restore" and any(x["kind"] == "run" and x["checkpoint"] == e["checkpoint"] and
                                          s.get("placeholders", 0) > 0 for x, s in zip(b, steps, strict=True))


CORNERS: dict[str, Corner] = {
    "rocksdb: a snapshot after a completed one (placeholders)": _rocksdb(
        lambda e, s, b, o: e["kind"] == "run" and s.get("placeholders", 0) > 0),
    "rocksdb: a snapshot after an uncompleted one (its files uploaded again)": _rocksdb(
        lambda e, s, b, o: e["kind"] == "run" and s.get("placeholders") == 0 and s["uploaded"] >= 2),
    "rocksdb: a snapshot with nothing new to upload": _rocksdb(
        lambda e, s, b, o: e["kind"] == "run" and s.get("uploaded") == 0 and s["placeholders"] > 0),
    "rocksdb: a restore after several increments": _rocksdb(lambda e, s, b, o: _restore_of(e, b, o)),
    "rocksdb: a base pruned of re-uploaded files (2.0.2+)": answered_with(_pruned),

    "a run snapshot that does not hold later writes": _pairs(_written_since),
    "three snapshots pending at once": _pairs(lambda e, s, b: e["kind"] == "snapshot" and len(_pending(b)) >= 2),
    "a cancel before the run": _pairs(lambda e, s, b: e["kind"] == "cancel" and s["cancelled"] is True),
    "a cancel after the run": _pairs(lambda e, s, b: e["kind"] == "cancel" and s["cancelled"] is False and any(
        x["kind"] == "run" and x["checkpoint"] == e["checkpoint"] for x in b)),
    "a run after a cancel": _pairs(lambda e, s, b: e["kind"] == "run" and s.get("cancelled") is True and any(
        x["kind"] == "cancel" and x["checkpoint"] == e["checkpoint"] for x in b)),
    "a run twice": _pairs(lambda e, s, b: e["kind"] == "run" and "state" in s and any(
        x["kind"] == "run" and x["checkpoint"] == e["checkpoint"] for x in b)),
    "an empty result (no state registered)": _pairs(lambda e, s, b: e["kind"] == "run" and s.get("state", 0) is None),
    "a snapshot of a registered but empty state": _pairs(lambda e, s, b: e["kind"] == "run" and s.get("state") == []),
    "a restore cancels a pending snapshot": _pairs(lambda e, s, b: e["kind"] == "run" and s.get("cancelled") is True
                                                   and not any(x["kind"] == "cancel" and x["checkpoint"] ==
                                                               e["checkpoint"] for x in b)),
    "a restore of an older snapshot": _pairs(lambda e, s, b: e["kind"] == "restore" and any(
        x["kind"] == "snapshot" and x["checkpoint"] > e["checkpoint"] for x in b)),
    "a restore from an empty result": _pairs(lambda e, s, b: e["kind"] == "restore" and s["state"] == [] and not any(
        x["kind"] in ("put", "remove", "get") for x in b[:next(i for i, x in enumerate(b) if x["kind"] ==
                                                                "snapshot" and x["checkpoint"] == e["checkpoint"])])),
    "a get after a restore": _pairs(lambda e, s, b: e["kind"] == "get" and s["value"] is not None and any(
        x["kind"] == "restore" for x in b)),
    "a completion": _pairs(lambda e, s, b: e["kind"] == "complete"),
    "a key outside the BMP sorted after the others": _pairs(lambda e, s, b: isinstance(s.get("state"), list) and len(
        s["state"]) >= 3 and s["state"][-1][0].startswith("\U0001f600")),
    "the largest checkpoint id": answered_with(lambda out, inp: any(e.get("checkpoint") == 2**63 - 1
                                                                    for e in inp["events"])),
}


(test_strategy_reaches, _,
 test_every_generated_request_is_well_formed_and_keeps_the_rules) = corner_tests(requests, SAMPLE, CORNERS,
                                                                                 keeps=CHECKS, answers=True)


def _put(k: str, v: str) -> dict[str, Any]:
    return {"kind": "put", "key": k, "value": v}


def _do(kind: str, cid: int) -> dict[str, Any]:
    return {"kind": kind, "checkpoint": cid}


def _get(k: str) -> dict[str, Any]:
    return {"kind": "get", "key": k}


# requests answered by real Flink (flinkspec serve --impl flink:1.13 and flink:2.3 answered each exactly so)
PINNED: list[tuple[list[dict[str, Any]], list[dict[str, Any]]]] = [
    ([_do("snapshot", 1), _do("run", 1), _put("a", "x"), _put("b", "y"), _do("snapshot", 2), _put("a", "z"),
      {"kind": "remove", "key": "b"}, _put("c", "w"), _do("snapshot", 3), _do("cancel", 3), _do("run", 3),
      _do("run", 2), _do("cancel", 2), _do("complete", 2), _get("a"), _do("restore", 2), _get("a"), _get("q"),
      _do("restore", 1), _do("snapshot", 4), _do("run", 4)],
     [{"done": False}, {"state": None}, {}, {}, {"done": False}, {}, {}, {}, {"done": False}, {"cancelled": True},
      {"cancelled": True}, {"state": [["a", "x"], ["b", "y"]]}, {"cancelled": False}, {}, {"value": "z"},
      {"state": [["a", "x"], ["b", "y"]]}, {"value": "x"}, {"value": None}, {"state": []}, {"done": False},
      {"state": None}]),
    ([_get("a"), _do("snapshot", 1), _do("run", 1), _do("restore", 1), _do("snapshot", 2), _do("run", 2)],
     [{"value": None}, {"done": False}, {"state": []}, {"state": []}, {"done": False}, {"state": []}]),
    ([_put("a", "x"), _do("snapshot", 1), _do("run", 1), _put("b", "y"), _do("snapshot", 2), _do("snapshot", 3),
      _do("run", 3), _do("restore", 1), _do("run", 2), _do("cancel", 2), _do("cancel", 3), _get("b"),
      _do("restore", 3), _get("b")],
     [{}, {"done": False}, {"state": [["a", "x"]]}, {}, {"done": False}, {"done": False},
      {"state": [["a", "x"], ["b", "y"]]}, {"state": [["a", "x"]]}, {"cancelled": True}, {"cancelled": False},
      {"cancelled": False}, {"value": None}, {"state": [["a", "x"], ["b", "y"]]}, {"value": "y"}]),
]


@pytest.mark.parametrize("n", range(len(PINNED)))
def test_the_oracle_answers_flinks_pinned_requests(n: int) -> None:
    """KSS-1 ... KSS-8: a snapshot before any state is registered is empty (null), a cancelled one answers
    cancelled, a run one holds the state of its synchronous part, a restore disposes the old backend (its pending
    snapshot 2 is cancelled, the third pinned request) and holds exactly the snapshot's state."""
    events, steps = PINNED[n]
    for version in (SUPPORTED[0], SUPPORTED[-1]):
        resp = oracle.answer({"id": 0, "area": SNAPSHOT, "flink": str(version), "input": {"events": events}})
        assert resp.get("output", {}).get("steps") == steps, resp


# rocksdb requests answered by real Flink (the bridge at 1.13.6, 1.15.0, 2.1.0 and 2.3.0): the answers differ only
# where 2.1.0 keeps a re-uploaded file in the base (KSS-12: the steps the third element gives), 1.13.6 and 1.15.0
# answering as 2.1.0
ROCKSDB_PINNED: list[tuple[list[dict[str, Any]], list[dict[str, Any]], dict[int, dict[str, Any]]]] = [
    ([_put("a", "x"), _do("snapshot", 1), _do("run", 1), _put("b", "y"), _do("snapshot", 2), _do("run", 2),
      _do("complete", 1), _do("snapshot", 3), _put("c", "z"), _do("run", 3), _do("complete", 3), _do("snapshot", 4),
      _do("run", 4), _do("restore", 4), {"kind": "remove", "key": "a"}, _do("snapshot", 5), _do("run", 5),
      _do("restore", 3), _get("c")],
     [{}, {"done": False}, {"state": [["a", "x"]], "uploaded": 1, "placeholders": 0}, {}, {"done": False},
      {"state": [["a", "x"], ["b", "y"]], "uploaded": 2, "placeholders": 0}, {}, {"done": False}, {},
      {"state": [["a", "x"], ["b", "y"]], "uploaded": 2, "placeholders": 0}, {}, {"done": False},
      {"state": [["a", "x"], ["b", "y"], ["c", "z"]], "uploaded": 1, "placeholders": 2},
      {"state": [["a", "x"], ["b", "y"], ["c", "z"]]}, {}, {"done": False},
      {"state": [["b", "y"], ["c", "z"]], "uploaded": 1, "placeholders": 3}, {"state": [["a", "x"], ["b", "y"]]},
      {"value": None}],
     {9: {"state": [["a", "x"], ["b", "y"]], "uploaded": 1, "placeholders": 1}}),
    ([_put("a", "x"), _do("snapshot", 1), _do("run", 1), _do("snapshot", 2), _do("run", 2), _do("complete", 1),
      _do("snapshot", 3), _do("run", 3)],
     [{}, {"done": False}, {"state": [["a", "x"]], "uploaded": 1, "placeholders": 0}, {"done": False},
      {"state": [["a", "x"]], "uploaded": 1, "placeholders": 0}, {}, {"done": False},
      {"state": [["a", "x"]], "uploaded": 1, "placeholders": 0}],
     {7: {"state": [["a", "x"]], "uploaded": 0, "placeholders": 1}}),
    ([_do("snapshot", 1), _do("run", 1), _get("a"), _do("snapshot", 2), _do("run", 2), _do("restore", 2),
      {"kind": "remove", "key": "q"}, _do("snapshot", 3), _do("run", 3)],
     [{"done": False}, {"state": None}, {"value": None}, {"done": False},
      {"state": [], "uploaded": 0, "placeholders": 0}, {"state": []}, {}, {"done": False},
      {"state": [], "uploaded": 1, "placeholders": 0}], {}),
    ([_put("a", "x"), _do("snapshot", -(2**63)), _do("run", -(2**63)), _do("complete", -(2**63)), _put("b", "y"),
      _do("snapshot", 1 - 2**63), _do("complete", 1 - 2**63), _do("run", 1 - 2**63), _do("snapshot", 2 - 2**63),
      _do("run", 2 - 2**63)],
     [{}, {"done": False}, {"state": [["a", "x"]], "uploaded": 1, "placeholders": 0}, {}, {}, {"done": False}, {},
      {"state": [["a", "x"], ["b", "y"]], "uploaded": 2, "placeholders": 0}, {"done": False},
      {"state": [["a", "x"], ["b", "y"]], "uploaded": 2, "placeholders": 0}], {}),
    ([_put("a", "x"), _do("snapshot", 1), _put("b", "y"), _do("snapshot", 2), _do("run", 2), _do("complete", 2),
      {"kind": "remove", "key": "a"}, _do("snapshot", 3), _do("run", 3), _do("complete", 3), _put("c", "z"),
      _do("snapshot", 4), _do("run", 4), _do("restore", 4), _get("b"), _do("snapshot", 5), _do("run", 5),
      _do("run", 1)],
     [{}, {"done": False}, {}, {"done": False}, {"state": [["a", "x"], ["b", "y"]], "uploaded": 2, "placeholders": 0},
      {}, {}, {"done": False}, {"state": [["b", "y"]], "uploaded": 1, "placeholders": 2}, {}, {}, {"done": False},
      {"state": [["b", "y"], ["c", "z"]], "uploaded": 1, "placeholders": 3}, {"state": [["b", "y"], ["c", "z"]]},
      {"value": "y"}, {"done": False}, {"state": [["b", "y"], ["c", "z"]], "uploaded": 0, "placeholders": 4},
      {"cancelled": True}], {}),
]


@pytest.mark.parametrize("n", range(len(ROCKSDB_PINNED)))
def test_the_oracle_answers_flinks_pinned_rocksdb_requests(n: int) -> None:
    """KSS-9 ... KSS-13: one SST file per snapshot after writes (a remove too), placeholders for the files of the
    last completed checkpoint, completions of an id not above the last completed one ignored (a long's smallest
    ids), a restore of base and increments, and at 2.3.0 the base pruned of files a later checkpoint uploaded again
    (1.13.6, 1.15.0 and 2.1.0 answer otherwise in the steps the third element gives). At 1.13.6 the oracle
    answers each or does not model it (a restored backend writing a new SST file before 1.15: REGISTRY_REPLACES)."""
    events, steps, older = ROCKSDB_PINNED[n]
    for version in ("1.13.6", "1.15.0", "2.1.0", "2.3.0"):
        want = steps if version == "2.3.0" else [older.get(i, step) for i, step in enumerate(steps)]
        resp = oracle.answer({"id": 0, "area": SNAPSHOT, "flink": version,
                              "input": {"backend": "rocksdb", "events": events}})
        if version == "1.13.6" and "FLINK-24611" in resp.get("error", {}).get("message", ""):
            continue
        assert resp.get("output", {}).get("steps") == want, (version, resp)


def _violations(events: list[dict[str, Any]], steps: list[Any], backend: str = "hashmap") -> list[str]:
    req = {"area": SNAPSHOT, "flink": "2.3", "input": {"events": events, "backend": backend}}
    resp = {"id": 0, "output": {"steps": steps}}
    return [v.rule for check in CHECKS for v in check(req, resp, SUPPORTED[-1])]


def test_the_invariants_reject_what_they_must() -> None:
    """Each documented rule rejects an answer that breaks it."""
    ab = [_put("a", "x"), _do("snapshot", 1), _put("a", "y"), _do("run", 1)]
    assert _violations(ab, [{}, {"done": False}, {}, {"state": [["a", "x"]]}]) == []
    assert _violations(ab, [{}, {"done": True}, {}, {"state": [["a", "x"]]}]) == ["CSN-2"]
    assert _violations(ab, [{}, {"done": False}, {}, {"state": [["a", "y"]]}]) == ["CSN-3"]
    assert _violations(ab, [{}, {"done": False}, {}, {"state": "x"}]) == ["CSN-1"]
    cancel = [_put("a", "x"), _do("snapshot", 1), _do("cancel", 1), _do("run", 1), _do("cancel", 1)]
    assert _violations(cancel, [{}, {"done": False}, {"cancelled": True}, {"state": [["a", "x"]]},
                                {"cancelled": False}]) == ["CSN-4"]
    assert _violations(cancel, [{}, {"done": False}, {"cancelled": True}, {"cancelled": True},
                                {"cancelled": True}]) == ["CSN-4"]
    disposed = [_put("a", "x"), _do("snapshot", 1), _do("run", 1), _do("snapshot", 2), _do("restore", 1),
                _do("run", 2)]
    assert _violations(disposed, [{}, {"done": False}, {"state": [["a", "x"]]}, {"done": False},
                                  {"state": [["a", "x"]]}, {"state": [["a", "x"]]}]) == ["CSN-4"]
    back = [_put("a", "x"), _do("snapshot", 1), _do("run", 1), _put("b", "y"), _do("restore", 1), _get("b")]
    assert _violations(back, [{}, {"done": False}, {"state": [["a", "x"]]}, {},
                              {"state": [["a", "x"], ["b", "y"]]}, {"value": "y"}]) == ["CSN-5"]
    assert _violations(back, [{}, {"done": False}, {"state": [["a", "x"]]}, {}, {"state": [["a", "x"]]},
                              {"value": "y"}]) == ["CSN-6"]
    two = [_put("b", "x"), _put("a", "y"), _do("snapshot", 1), _do("run", 1)]
    assert _violations(two, [{}, {}, {"done": False}, {"state": [["b", "x"], ["a", "y"]]}]) == ["CSN-7"]
    inc = [_put("a", "x"), _do("snapshot", 1), _do("run", 1), _do("complete", 1), _put("b", "y"), _do("snapshot", 2),
           _do("run", 2)]
    good = [{}, {"done": False}, {"state": [["a", "x"]], "uploaded": 1, "placeholders": 0}, {}, {},
            {"done": False}, {"state": [["a", "x"], ["b", "y"]], "uploaded": 1, "placeholders": 1}]
    assert _violations(inc, good, "rocksdb") == []
    assert _violations(inc, [*good[:2], {"state": [["a", "x"]], "uploaded": 1, "placeholders": 1}, *good[3:]],
                       "rocksdb") == ["CSN-8"]
    assert _violations(inc, [*good[:-1], {"state": [["a", "x"], ["b", "y"]], "uploaded": 2, "placeholders": 0}],
                       "rocksdb") == ["CSN-9"]
    assert _violations(inc, [*good[:-1], {"state": [["b", "y"]], "uploaded": 1, "placeholders": 1}],
                       "rocksdb") == ["CSN-3"]
    assert _violations(inc, [*good[:-1], {"state": [["a", "x"], ["b", "y"]], "uploaded": -1, "placeholders": 1}],
                       "rocksdb") == ["CSN-1"]
