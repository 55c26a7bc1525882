"""Requests for ``checkpoint.snapshot``: puts, removes and gets of a few keys interleaved with snapshots whose
asynchronous parts run, are cancelled, run after being cancelled or cancelled after running, with completions and
restores, on and around every rule of the heap backend's snapshots.

A request draws 0-30 events over four keys (one of them empty, one outside the Basic Multilingual Plane, so that
the order of the keys is Java's) and a few values. The first event is a key event three times in four: else a
snapshot comes before any state is registered (an empty result, KSS-4). Snapshots pile up before they run (several
pending at once, each holding its own copy), a run or cancel picks any earlier snapshot (the oldest, the newest or
any, already run or cancelled or not) and a restore any snapshot whose asynchronous part ran (uncancelled; a restore
disposes the old backend, which cancels its pending snapshots), so the request is valid by construction. Checkpoint
ids go up from 0, 1 or a long's smallest, or down from its largest.

One request in :data:`ROCKSDB_ONE_IN` is for the ``rocksdb`` backend (feature ``checkpoint.snapshot.rocksdb``,
slower to answer: a RocksDB database per backend). There snapshots, runs and completions come more often and a
completion names a snapshot that ran one time in two, so that snapshots are taken after a completed one
(placeholders), after one completed before a later one ran (the base pruned, KSS-12), after an ignored completion
(an id not above the last completed one, a snapshot not yet run), and restores come after several increments (a
rocksdb request starts with one of :data:`PREFIXES` or none; a restore names the snapshot that ran last one time in
two). Before 1.15 a rocksdb backend restored from a checkpoint is only read, never written: the oracle does not
model its new SST files there (``REGISTRY_REPLACES``: real Flink may give its checkpoints another backend's file).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from oracle.checkpoint_snapshot import REGISTRY_REPLACES, SNAPSHOT
from oracle.versions import FlinkVersion
from properties.draws import booleans, integers, sampled

AREA = SNAPSHOT
KEYS = ("a", "b", "", "\U0001f600k")
VALUES = ("x", "y", "", "z" * 3)
FIRST_IDS = (1, 1, 1, 0, 2**63 - 1, -(2**63))  # from a long's largest, the ids go down
ROCKSDB_ONE_IN = 4
# how a rocksdb request may start (kind, which new checkpoint id): nothing; a checkpoint completed (the next snapshots
# build on it); that and an increment on it that runs; two checkpoints run, then the first completed (the next
# snapshot's base pruned of the files the second uploaded again, 2.0.2+); two that run, none completed (nothing to
# build on: CSN-8)
_P = ("put", 0)
PREFIXES: tuple[tuple[tuple[str, int], ...], ...] = (
    (),
    (_P, ("snapshot", 0), ("run", 0), ("complete", 0)),
    (_P, ("snapshot", 0), ("run", 0), ("complete", 0), _P, ("snapshot", 1), ("run", 1)),
    (_P, ("snapshot", 0), _P, ("snapshot", 1), ("run", 0), ("run", 1), ("complete", 0)),
    (_P, ("snapshot", 0), ("run", 0), _P, ("snapshot", 1), ("run", 1)),
)


@st.composite
def inputs(draw: st.DrawFn, version: FlinkVersion) -> dict[str, Any]:
    events: list[dict[str, Any]] = []
    rocksdb = draw(integers(0, ROCKSDB_ONE_IN - 1)) == 0
    read_only_after_restore = rocksdb and REGISTRY_REPLACES.before(version)
    restored = False
    cid = draw(sampled(FIRST_IDS))
    step = -1 if cid == 2**63 - 1 else 1
    states: dict[int, str] = {}  # checkpoint id -> pending | run | cancelled (what came first)
    for kind, nth in PREFIXES[draw(integers(0, len(PREFIXES) - 1)) if rocksdb else 0]:
        checkpoint = cid + nth * step
        if kind == "put":
            events.append({"kind": kind, "key": draw(sampled(KEYS)), "value": draw(sampled(VALUES))})
            continue
        if kind != "complete":
            states[checkpoint] = "run" if kind == "run" else "pending"
        events.append({"kind": kind, "checkpoint": checkpoint})
    cid += len(states) * step
    for i in range(len(events), len(events) + draw(integers(0, 30))):
        choices = ["put", "put", "remove", "get"] if i == 0 and draw(integers(0, 3)) != 0 else \
            ["put", "put", "put", "remove", "get", "snapshot", "snapshot", "run", "cancel", "complete", "restore",
             *(["snapshot", "run", "run", "complete", "complete", "restore"] if rocksdb else [])]
        kind = draw(sampled(choices))
        ran = [c for c, s in states.items() if s == "run"]
        if (kind in ("run", "cancel", "complete") and not states) or (kind == "restore" and not ran):
            kind = "snapshot"
        if kind in ("put", "remove") and restored and read_only_after_restore:
            kind = "get"
        ev: dict[str, Any] = {"kind": kind}
        if kind in ("put", "remove", "get"):
            ev["key"] = draw(sampled(KEYS))
            if kind == "put":
                ev["value"] = draw(sampled(VALUES))
        elif kind == "snapshot":
            ev["checkpoint"] = cid
            states[cid] = "pending"
            cid += step
        elif kind == "restore":
            ev["checkpoint"] = ran[-1] if rocksdb and draw(booleans()) else draw(sampled(ran))
            states = {c: "cancel" if s == "pending" else s for c, s in states.items()}  # the old backend disposed
            restored = True
        elif kind == "complete" and rocksdb and ran and draw(booleans()):
            ev["checkpoint"] = draw(sampled(ran))
        else:
            ids = list(states)
            which = draw(sampled(("oldest", "newest", "any")))
            ev["checkpoint"] = ids[0] if which == "oldest" else ids[-1] if which == "newest" \
                else draw(sampled(ids))
            if kind != "complete" and states[ev["checkpoint"]] == "pending":
                states[ev["checkpoint"]] = kind
        events.append(ev)
    out: dict[str, Any] = {"events": events}
    if rocksdb:
        out["backend"] = "rocksdb"
    elif draw(integers(0, 3)) == 0:
        out["backend"] = "hashmap"
    return out


def requests(version: FlinkVersion) -> st.SearchStrategy[dict[str, Any]]:
    """Protocol requests for ``checkpoint.snapshot`` and ``version``."""
    return inputs(version).map(lambda i: {"area": AREA, "flink": str(version), "input": i})


def corpus_key(version: FlinkVersion) -> bool:
    """Releases before 1.15 draw their own corpus: a restored rocksdb backend only read there."""
    return REGISTRY_REPLACES.before(version)


def size(req: dict[str, Any]) -> int:
    return len(req["input"].get("events", []))
