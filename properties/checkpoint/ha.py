"""``checkpoint.ha``: requests (ZooKeeper high-availability options and a JobManager's store and counter
events), the rules Flink documents for them as checks on any implementation's answer, and the area's mutants.

Sources: the seed article on checkpoints (seed 001: a savepoint's or an externalized checkpoint's metadata is
written to the file system, and with ZooKeeper high availability ZooKeeper holds a handle to it), Flink's docs
"ZooKeeper HA Services" (high-availability.storageDir: "JobManager metadata is persisted in the file system
storageDir and only a pointer to this state is stored in ZooKeeper") and "Checkpointing"
(state.checkpoints.num-retained: "The maximum number of completed checkpoints to retain").
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

import oracle
from oracle import checkpoint_ha as ha_oracle
from oracle.checkpoint_ha import HA as AREA
from oracle.checkpoint_ha import RETENTIONS, STATUSES, STORAGE
from oracle.versions import FlinkVersion
from properties.draws import booleans, integers, sampled
from properties.mutant import PR, Mutant, historical, with_patches
from properties.rules import Request, Response, RuleBook, Violation

BOOK = RuleBook()  # the rules this module declares, named by its area's declaration
BOOK.differential(AREA, "CHA")

ART = "seed article on checkpoints (seed 001)"
HA_DOCS = "Flink docs, ZooKeeper HA Services"

STORAGE_DIRS = (STORAGE, STORAGE, f"{STORAGE}/ha", f"{STORAGE}/ha/", f"{STORAGE}/a/b", "   ")
ROOTS = ("/flink", "/r", "r/", "/a/b", "", "/x/y/")
CLUSTERS = ("c1", "/c2", "a/b/", "/default", "prod-1")
RETAINED = ("1", "2", "3", "0", "-1", "x", "10")


@st.composite
def inputs(draw: st.DrawFn) -> dict[str, Any]:
    config: dict[str, str] = {}
    if draw(integers(0, 19)):
        config["high-availability.storageDir"] = draw(sampled(STORAGE_DIRS))
    if draw(booleans()):
        config["high-availability.zookeeper.path.root"] = draw(sampled(ROOTS))
    if draw(booleans()):
        config["high-availability.cluster-id"] = draw(sampled(CLUSTERS))
    if draw(integers(0, 4)) == 0:
        config["high-availability.zookeeper.path.checkpoints"] = "/cps"  # not read since 1.14
    if draw(integers(0, 3)):
        config["state.checkpoints.num-retained"] = draw(sampled(RETAINED))
    events: list[dict[str, Any]] = []
    next_id = 1
    for _ in range(draw(integers(0, 10))):
        kind = draw(sampled(("add", "add", "add", "add", "get", "counter", "set", "shutdown", "recover")))
        if kind == "add":
            if draw(integers(0, 5)) == 0:
                cid = draw(sampled((-1, 0, next_id - 1, max(0, next_id - 2))))
            else:
                cid = next_id
                next_id += 1
            event: dict[str, Any] = {"add": cid}
            if draw(booleans()):
                event["retention"] = draw(sampled(RETENTIONS))
            events.append(event)
        elif kind == "get":
            events.append({"get": draw(sampled(("latest", "all")))})
        elif kind == "counter":
            events.append({"counter": "next"})
        elif kind == "set":
            events.append({"set_count": draw(sampled((0, 1, 2, 5, 10, -1, -3, 2147483647)))})
        elif kind == "shutdown":
            events.append({"shutdown": draw(sampled(STATUSES))})
        else:
            events.append({"recover": True})
    return {"config": config, "events": events}


def requests(version: FlinkVersion) -> st.SearchStrategy[dict[str, Any]]:
    return inputs().map(lambda i: {"area": AREA, "flink": str(version), "input": i})


def size(req: dict[str, Any]) -> int:
    return len(req["input"].get("events", [])) + len(req["input"].get("config", {}))


def _out(resp: Response) -> dict[str, Any] | None:
    out = resp.get("output")
    if "output" not in resp or resp.get("error") is not None or not _well_formed(out):
        return None
    assert isinstance(out, dict)
    return out


def _well_formed(out: object) -> bool:
    return (isinstance(out, dict) and type(out.get("retained_max")) is int and isinstance(out.get("steps"), list)
            and all(isinstance(s, dict) for s in out["steps"])
            and isinstance(out.get("znodes"), list) and all(isinstance(z, str) for z in out["znodes"])
            and isinstance(out.get("handles"), dict)
            and all(isinstance(h, dict) for h in out["handles"].values())
            and isinstance(out.get("files"), list) and all(isinstance(f, str) for f in out["files"]))


@BOOK.invariant("CHA-1", AREA, "The answer gives the retained count, one step per event, the znodes, the handles "
                "checkpoint znodes hold and the files left.", "docs/protocol/checkpoint-ha.md")
def shape(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    if "output" not in resp or resp.get("error") is not None:
        return []
    out = _out(resp)
    if out is None or len(out["steps"]) != len(req["input"]["events"]):
        return [Violation("CHA-1", f"malformed answer {str(resp.get('output'))[:200]}")]
    return []


def _storage(req: Request) -> str:
    return str(req["input"].get("config", {}).get("high-availability.storageDir", "")).rstrip("/")


@BOOK.invariant("CHA-2", AREA, "ZooKeeper holds a handle, the metadata is on the file system: every checkpoint "
                "znode holds a state handle of a file under high-availability.storageDir, and that file is there.",
                f"{ART}: the metadata is written to the file system and ZooKeeper holds a handle to it; {HA_DOCS}: "
                "'JobManager metadata is persisted in the file system storageDir and only a pointer to this state is "
                "stored in ZooKeeper'")
def handle_in_zookeeper(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _out(resp)
    if out is None:
        return []
    storage = _storage(req)
    for node in out["znodes"]:
        parent, _, name = node.rpartition("/")
        if not parent.endswith("/checkpoints") or not (name.isdigit() and len(name) == 19):
            continue
        handle = out["handles"].get(node)
        file = handle.get("file") if isinstance(handle, dict) else None
        if not isinstance(file, str) or not file.startswith(storage + "/"):
            return [Violation("CHA-2", f"znode {node} holds {handle!r}, no handle of a file under {storage}")]
        if file not in out["files"]:
            return [Violation("CHA-2", f"znode {node}'s file {file} is not on the file system")]
    return []


def _retained(req: Request) -> int:
    raw = req["input"].get("config", {}).get("state.checkpoints.num-retained", "1")
    try:
        return max(1, int(raw))
    except ValueError:
        return 1


@BOOK.invariant("CHA-3", AREA, "The store retains at most state.checkpoints.num-retained checkpoints (at least one), "
                "the one just added among them and the latest.",
                "Flink docs, Checkpointing, state.checkpoints.num-retained: 'The maximum number of completed "
                "checkpoints to retain'")
def retained_count(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _out(resp)
    if out is None:
        return []
    cap = _retained(req)
    for event, step in zip(req["input"]["events"], out["steps"], strict=False):
        if "add" not in event or "retained" not in step:
            continue
        kept = step["retained"]
        if not isinstance(kept, list) or len(kept) > cap or not kept or kept[-1] != event["add"]:
            return [Violation("CHA-3", f"after adding {event['add']} the store retains {kept!r} (at most {cap})")]
    return []


BOOK.accepted("CHA-ACCEPTED", AREA,
              lambda req, _v: req["input"].get("config", {}).get("high-availability.storageDir", " ").strip() != ""
              and req["input"].get("config", {}).get("state.checkpoints.num-retained", "1").lstrip("-").isdigit(),
              "with a storage directory and a retained count that is an integer",
              f"{HA_DOCS}: high-availability.storageDir is required")


# ---- mutants ----------------------------------------------------------------------------------------


def _handle_in_znode(req: dict[str, Any], _resp: dict[str, Any]) -> dict[str, Any]:
    """The metadata itself in the znode: no file under the storage directory."""
    resp = dict(oracle.answer(req))
    out = resp.get("output")
    if isinstance(out, dict):
        out["handles"] = {k: {"class": "ByteStreamStateHandle", "file": None} for k in out["handles"]}
        out["files"] = [f for f in out["files"] if not f.startswith(STORAGE)]
    return resp


def _retain_all(req: dict[str, Any], _resp: dict[str, Any]) -> dict[str, Any]:
    """num-retained ignored: nothing is ever subsumed."""
    config = {**req["input"].get("config", {})}
    if config.get("state.checkpoints.num-retained", "1").lstrip("-").isdigit():
        config["state.checkpoints.num-retained"] = "1000"
    resp = dict(oracle.answer({**req, "input": {**req["input"], "config": config}}))
    out = resp.get("output")
    if isinstance(out, dict):
        out["retained_max"] = max(1, int(req["input"].get("config", {}).get("state.checkpoints.num-retained", "1")))
    return resp


def _suspend_deletes(req: dict[str, Any], _resp: dict[str, Any]) -> dict[str, Any]:
    """A SUSPENDED job's checkpoints are removed as a FAILED job's."""
    events = [{"shutdown": "FAILED"} if e == {"shutdown": "SUSPENDED"} else e for e in req["input"].get("events", [])]
    resp = dict(oracle.answer({**req, "input": {**req["input"], "events": events}}))
    out = resp.get("output")
    if isinstance(out, dict):
        for e, step in zip(req["input"].get("events", []), out["steps"], strict=False):
            if e == {"shutdown": "SUSPENDED"} and "shutdown" in step:
                step["shutdown"] = "SUSPENDED"
    return resp


def _counter_from_zero(req: dict[str, Any], _resp: dict[str, Any]) -> dict[str, Any]:
    """The checkpoint ID counter starts at 0 (Flink's starts at 1)."""
    resp = dict(oracle.answer(req))
    out = resp.get("output")
    if isinstance(out, dict):
        fresh = True
        for e, step in zip(req["input"].get("events", []), out["steps"], strict=False):
            if "set_count" in e or "recover" in e or "shutdown" in e:
                fresh = False
            if fresh and "counter" in e and isinstance(step.get("counter"), int):
                step["counter"] -= 1
    return resp


MUTANTS: list[Mutant] = [
    Mutant("cha-metadata-in-znode", AREA, "The checkpoint's metadata is stored in its znode (a byte handle): no "
           "file under high-availability.storageDir.", after=_handle_in_znode),
    Mutant("cha-retain-all", AREA, "state.checkpoints.num-retained is ignored: no checkpoint is ever subsumed.",
           after=_retain_all),
    Mutant("cha-suspend-deletes", AREA, "A SUSPENDED shutdown removes the checkpoints as a FAILED one does, so a "
           "new JobManager recovers none.", after=_suspend_deletes,
           undocumented="No documented rule says what a suspended job's store keeps in ZooKeeper; only "
           "DefaultCompletedCheckpointStore.shutdown decides that SUSPENDED releases the locks instead of removing."),
    Mutant("cha-counter-from-zero", AREA, "The checkpoint ID counter starts at 0 instead of 1.",
           after=_counter_from_zero,
           undocumented="No documented rule names the first checkpoint id; only ZooKeeperCheckpointIDCounter's "
           "SharedCount seed (1) decides it."),
]


class _DiscardedAtOnce:
    """``SUBSUMED_HELD`` as before FLINK-25872: no release has the checkpoints cleaner hold a subsumed checkpoint."""

    @staticmethod
    def before(_version: FlinkVersion) -> bool:
        return True


MUTANTS.append(historical(
    ha_oracle.SUBSUMED_HELD, AREA,
    "A subsumed checkpoint is discarded (its chk-N directory deleted) as soon as it is subsumed, as before "
    "FLINK-25872 had the checkpoints cleaner hold it until the oldest checkpoint the store keeps is newer: a "
    "checkpoint added with a lower id than the one it subsumes then outlives the state it may still refer to.",
    f"{PR}19448 (Flink 1.16.0)", "1.13-1.15",
    after=with_patches((ha_oracle, "SUBSUMED_HELD", _DiscardedAtOnce)),
    undocumented="No documented rule says when a subsumed checkpoint's directory is deleted; only "
    "DefaultCompletedCheckpointStore with CheckpointsCleaner.cleanSubsumedCheckpoints decides it."))
