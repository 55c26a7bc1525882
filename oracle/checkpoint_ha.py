"""Protocol area ``checkpoint.ha``: ZooKeeper high availability's completed checkpoint store and checkpoint ID
counter (docs/protocol/checkpoint-ha.md).

One JobManager of one job (``JOB``) on a fresh ZooKeeper: ``ZooKeeperUtils.startCuratorFramework`` (its
namespace ``/<root>/<cluster-id>``), the job's namespace ``/<job id>``, ``createCompletedCheckpoints`` (a
``DefaultCompletedCheckpointStore`` over a ``ZooKeeperStateHandleStore``: each checkpoint's metadata is
written to a file under ``high-availability.storageDir``, its znode holds only a handle to that file) and
``createCheckpointIDCounter``. Events add completed checkpoints, read them, drive the counter, shut the
store down with a job status, or start a new store on the same ZooKeeper (a JobManager's recovery). The
answer: what each event did, then the znodes, the handles they hold and the files left. HA-* in
:data:`RULES`.

Every release: from 1.17 flink-dist bundles ZooKeeper's server and Curator (the bridge runs an in-process
server); 1.13-1.16 ship them in the distribution's lib/flink-shaded-zookeeper jar, which the bridge runs with
(1.13 and 1.14's ZooKeeper 3.4.14 client with the bridge's patch of ZOOKEEPER-3779, without which it never
connects on JDK 17).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, TypedDict

import attrs

from oracle.changes import Change
from oracle.explain import at, because, rejected_because
from oracle.javanum import JavaException
from oracle.memory_options import ConfigOption, Configuration, FallbackKey
from oracle.protocol import AreaFn, BadRequest, NotModelled, Rejected, string_map
from oracle.rules import Declared
from oracle.versions import FlinkVersion, pick

HA = "checkpoint.ha"  # the protocol area (docs/protocol)

JOB = "0123456789abcdef0123456789abcdef"  # the job's id (its znode)
STORAGE = "<storageDir>"  # the storage directory the bridge gives high-availability.storageDir
CHECKPOINTS = "<checkpoints>"  # where each checkpoint's own metadata goes (its storage location)
HANDLE = "RetrievableStreamStateHandle"
BAD_STORAGE = (f"input.config: high-availability.storageDir must be {STORAGE}[/dir] (a directory the implementation "
               "chooses)")
RETENTIONS = ("NEVER_RETAIN_AFTER_TERMINATION", "RETAIN_ON_FAILURE", "RETAIN_ON_CANCELLATION")
STATUSES = ("FINISHED", "CANCELED", "FAILED", "SUSPENDED")
INT_MAX = 2**31 - 1

RULES: tuple[Declared, ...] = (
    Declared("HA-1",
             "The store's znodes live under the Curator namespace /<root>/<cluster-id> (each of high-availability."
             "zookeeper.path.root, default /flink, and high-availability.cluster-id, default /default, trimmed of "
             "slashes, an empty one left out), then /<job id>: checkpoints under /checkpoints (high-availability."
             "zookeeper.path.checkpoints is not read), the counter at /checkpoint_id_counter.",
             "ZooKeeperUtils.startCuratorFramework / generateZookeeperPath / getCheckpointsPath, "
             "ZooKeeperCheckpointRecoveryFactory (1.13: JOB_NAMESPACE)"),
    Declared("HA-2",
             "Adding checkpoint N writes its metadata to a file <storageDir>/<cluster-id>/completedCheckpoint<random> "
             "and a znode /checkpoints/<N as 19 digits> whose data is a serialized RetrievableStreamStateHandle "
             "of that file, with a /locks child (an ephemeral lock node, gone with the JobManager's session).",
             "ZooKeeperStateHandleStore.addAndLock, FileSystemStateStorageHelper, ZooKeeperCheckpointStoreUtil"),
    Declared("HA-3",
             "The store retains state.checkpoints.num-retained checkpoints (default 1; a value below 1 is 1 with a "
             "warning; one that does not parse is IllegalArgumentException(\"Could not parse value '<v>' for key "
             "'<key>'.\")): adding one beyond it subsumes the oldest added, removing its znode and its file "
             "(the checkpoint itself is discarded as HA-8 says).",
             "DefaultCompletedCheckpointStoreUtils.getMaximumNumberOfRetainedCheckpoints, CheckpointSubsumeHelper"),
    Declared("HA-4",
             "Adding a checkpoint whose znode exists fails: AlreadyExistException(\"ZooKeeper node /<N as 19 "
             "digits> already exists.\"), its file deleted; a negative id is IllegalArgumentException (no "
             "message), before a store shut down refuses: IllegalStateException(\"Checkpoint store has already been "
             "shutdown.\").",
             "DefaultCompletedCheckpointStore.addCheckpointAndSubsumeOldestOne, ZooKeeperStateHandleStore"),
    Declared("HA-8",
             "A subsumed checkpoint is discarded (its chk-N directory deleted) only once the oldest checkpoint the "
             "store keeps has a higher id (at a globally terminal shutdown: the lowest one it keeps on the file "
             "system, or any); until then the checkpoints cleaner holds it, across a new store too. Before 1.16 it is "
             "discarded as soon as it is subsumed.",
             "CheckpointsCleaner.addSubsumedCheckpoint / cleanSubsumedCheckpoints, "
             "DefaultCompletedCheckpointStore.findLowest (before 1.16: CheckpointsCleaner.cleanCheckpoint at once)"),
    Declared("HA-5",
             "A globally terminal shutdown (FINISHED, CANCELED, FAILED) removes every checkpoint's znode and file, "
             "the /checkpoints znode and the counter's znode, and discards each checkpoint whose retention policy "
             "does not keep it for that status; SUSPENDED keeps them all, releasing the locks; a store shut down "
             "holds no checkpoint and a second shutdown does nothing.",
             "DefaultCompletedCheckpointStore.shutdown, CheckpointProperties.shouldBeDiscardedOnShutdown, "
             "ZooKeeperCheckpointIDCounter.shutdown"),
    Declared("HA-6",
             "A new store on the same ZooKeeper recovers every checkpoint whose znode is there, by id, and its "
             "counter the stored count (1 if its znode is gone).",
             "DefaultCompletedCheckpointStoreUtils.retrieveCompletedCheckpoints, SharedCount"),
    Declared("HA-7",
             "The counter starts at 1; getAndIncrement answers the count and adds one, failing with Exception("
             "\"Checkpoint counter overflow. ZooKeeper checkpoint counter only supports checkpoints Ids up to "
             "2147483647\") if it would go negative; setCount sets it; once shut down, a change is "
             "IllegalStateException(\"not started\").",
             "ZooKeeperCheckpointIDCounter, Curator SharedCount"),
)

NUM_RETAINED_KEYS = Change(
    since="1.20", issue="FLINK-34482",
    what="state.checkpoints.num-retained renamed execution.checkpointing.num-retained (the old key deprecated): "
    "a value that does not parse names the new key",
    witnesses=({"config": {"high-availability.storageDir": STORAGE, "state.checkpoints.num-retained": "x"},
                "events": []},))
JOB_NAMESPACE = Change(
    since="1.14", issue="FLINK-22636",
    what="the store's znodes moved into the job's own znode: /<job id>/checkpoints and /<job id>/checkpoint_id_counter "
    "(high-availability.zookeeper.path.checkpoints and .checkpoint-counter no longer read); in 1.13 they are "
    "<path.checkpoints, default /checkpoints>/<job id> and <path.checkpoint-counter, default /checkpoint-counter>/"
    "<job id>, and a globally terminal shutdown deletes the checkpoints' znode with every znode still under it "
    "(their files left)",
    witnesses=({"config": {"high-availability.storageDir": STORAGE}, "events": [{"add": 1}]},))
STORE_REFUSES_WHEN_DOWN = Change(
    since="1.14",
    what="a completed checkpoint store shut down refuses to add: IllegalStateException(\"Checkpoint store has "
    "already been shutdown.\"); in 1.13 it adds as any store (after a globally terminal shutdown its znode is "
    "gone: NoNodeException \"KeeperErrorCode = NoNode\")",
    witnesses=({"config": {"high-availability.storageDir": STORAGE},
                "events": [{"shutdown": "SUSPENDED"}, {"add": 1}]},))
LOCKS_CHILD = Change(
    since="1.15", issue="FLINK-26284",
    what="a checkpoint's lock moved under its znode's /locks child (deleting /locks marks the checkpoint for "
    "deletion); before, the lock is the checkpoint znode's own ephemeral child, gone with the session",
    witnesses=({"config": {"high-availability.storageDir": STORAGE}, "events": [{"add": 1}]},))
SUBSUMED_HELD = Change(
    since="1.16", issue="FLINK-25872",
    what="a subsumed checkpoint is held by the checkpoints cleaner until the oldest checkpoint the store keeps has "
    "a higher id (HA-8); before, it was discarded as soon as it was subsumed",
    witnesses=({"config": {"high-availability.storageDir": STORAGE}, "events": [{"add": 1}, {"add": 0}]},))
_RETAINED_OPTION = NUM_RETAINED_KEYS.table(
    ConfigOption("state.checkpoints.num-retained", "int", 1, "1"),
    ConfigOption("execution.checkpointing.num-retained", "int", 1, "1",
                 (FallbackKey("state.checkpoints.num-retained", True),)))
STORAGE_DIR = ConfigOption("high-availability.storageDir", "string", None, "null",
                           (FallbackKey("high-availability.zookeeper.storageDir", True),
                            FallbackKey("recovery.zookeeper.storageDir", True)))
PATH_CHECKPOINTS = ConfigOption("high-availability.zookeeper.path.checkpoints", "string", "/checkpoints",
                                "/checkpoints", (FallbackKey("recovery.zookeeper.path.checkpoints", True),))
PATH_COUNTER = ConfigOption("high-availability.zookeeper.path.checkpoint-counter", "string", "/checkpoint-counter",
                            "/checkpoint-counter", (FallbackKey("recovery.zookeeper.path.checkpoint-counter", True),))
ROOT = ConfigOption("high-availability.zookeeper.path.root", "string", "/flink", "/flink",
                    (FallbackKey("recovery.zookeeper.path.root", True),))
CLUSTER_ID = ConfigOption("high-availability.cluster-id", "string", "/default", "/default",
                          (FallbackKey("high-availability.zookeeper.path.namespace", True),
                           FallbackKey("recovery.zookeeper.path.namespace", True)))


class HaOutput(TypedDict):
    retained_max: int
    steps: list[dict[str, Any]]
    znodes: list[str]
    handles: dict[str, dict[str, str]]
    files: list[str]


@attrs.define
class _Checkpoint:
    id: int
    retention: str


@attrs.define
class _State:
    """ZooKeeper's and the file system's contents, and the JobManager's store and counter."""

    retain: int
    held: bool  # HA-8: the cleaner holds subsumed checkpoints (1.16 on)
    locks: bool  # a checkpoint's lock under its /locks child (1.15 on: LOCKS_CHILD)
    refuses_when_down: bool  # a store shut down refuses to add (1.14 on: STORE_REFUSES_WHEN_DOWN)
    checkpoints: str  # the znode holding the checkpoints' znodes
    counter_path: str  # the counter's znode
    storage: str  # <storageDir>/<cluster-id>
    znodes: set[str] = attrs.Factory(set)
    counter_node: int | None = None  # the counter's stored count (None: no znode)
    metadata: set[int] = attrs.Factory(set)  # chk-N/_metadata files
    store: list[_Checkpoint] = attrs.Factory(list)  # the store's checkpoints, in the order added
    in_zk: dict[int, _Checkpoint] = attrs.Factory(dict)  # checkpoints with a znode (and an HA file)
    left: int = 0  # HA files whose znode went with the checkpoints' znode (1.13)
    pending: list[int] = attrs.Factory(list)  # subsumed checkpoints the cleaner has not discarded yet
    running: bool = True  # the store and the counter are not shut down (both are, by one shutdown event)
    counter: int = 1  # the counter's cached count

    def open(self) -> None:
        """A new store and counter (HA-1, HA-6)."""
        for path in (self.checkpoints, self.counter_path.rsplit("/", 1)[0]):
            parts = path.strip("/").split("/")
            for i in range(len(parts)):
                self.znodes.add("/" + "/".join(parts[: i + 1]))
        if self.counter_node is None:
            self.counter_node = 1
            self.znodes.add(self.counter_path)
        self.store = [self.in_zk[i] for i in sorted(self.in_zk)]
        self.counter = self.counter_node
        self.running = True

    def node(self, cid: int) -> str:
        return f"{self.checkpoints}/{cid:019d}"


def _trim(part: str) -> str:
    return part.strip("/")


def _discarded_on_shutdown(retention: str, status: str) -> bool:
    """``CheckpointProperties.shouldBeDiscardedOnShutdown`` of ``forCheckpoint(retention)``."""
    if status == "FINISHED":
        return True
    if status == "CANCELED":
        return retention != "RETAIN_ON_CANCELLATION"
    return retention == "NEVER_RETAIN_AFTER_TERMINATION"  # FAILED


def _events(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    events = payload.get("events")
    if not isinstance(events, list):
        raise BadRequest("input.events must be an array")
    for i, e in enumerate(events):
        where = f"input.events[{i}]"
        if not isinstance(e, dict):
            raise BadRequest(f"{where} must be an object")
        with_retention = len(e) == 2 and isinstance(e.get("retention"), str)
        if "add" in e and type(e["add"]) is int and (len(e) == 1 or with_retention):
            if len(e) == 2 and e["retention"] not in RETENTIONS:
                raise BadRequest(f"{where}.retention must be one of {', '.join(RETENTIONS)}")
            continue
        if len(e) == 1 and (e.get("get") in ("latest", "all") or e.get("counter") == "next" or e.get("recover") is True
                            or type(e.get("set_count")) is int):
            continue
        if len(e) == 1 and isinstance(e.get("shutdown"), str):
            if e["shutdown"] in STATUSES:
                continue
            raise BadRequest(f"{where}.shutdown must be one of {', '.join(STATUSES)}")
        raise BadRequest(f"{where} must be one of {{add[, retention]}}, {{get: latest|all}}, {{counter: next}}, "
                         "{set_count}, {shutdown}, {recover: true}")
        # (the bridge's message, word for word)
    for e in events:
        for key in ("add", "set_count"):
            if key in e and not -(2**63) <= e[key] < 2**63:
                raise BadRequest(f"input.events: {key} = {e[key]} does not fit a signed 64-bit long")
    return events


def ha_area(payload: Mapping[str, Any], version: FlinkVersion) -> HaOutput | Rejected:
    """What each event does to the store and the counter, then what ZooKeeper and the file system hold."""
    if not isinstance(payload, Mapping):
        raise BadRequest("input must be an object")
    raw_config = string_map(payload, "config", "input")
    if any(v.strip() and not v.startswith(STORAGE) for k, v in raw_config.items() if k in STORAGE_DIR.keys):
        raise BadRequest(BAD_STORAGE)  # never a directory of the caller's: Flink would write there
    config = Configuration(raw_config)
    events = _events(payload)
    at("retained_max")
    because("HA-3")
    try:  # HA-3
        retained = config.get(pick(_RETAINED_OPTION, version))
    except JavaException as exc:
        rejected_because("HA-3")
        return Rejected(exc.simple_name, exc.message)
    retain = retained if retained >= 1 else 1
    storage_dir = config.raw(STORAGE_DIR)
    if not isinstance(storage_dir, str) or not storage_dir.strip():
        rejected_because("HA-2")
        return Rejected("IllegalConfigurationException",
                        f"Configuration is missing the mandatory parameter: {STORAGE_DIR}")
    root, cluster = (_string(config, opt) for opt in (ROOT, CLUSTER_ID))
    if not cluster.strip("/") or "//" in cluster or "//" in storage_dir:
        raise NotModelled("input.config", "an empty cluster-id or doubled slashes in it or the storage directory")
    namespace = "/".join(p for p in (_trim(root), _trim(cluster)) if p)
    base = f"/{namespace}" if namespace else ""
    if JOB_NAMESPACE.before(version):  # 1.13: <path.checkpoints>/<job id>, <path.checkpoint-counter>/<job id>
        paths = [_string(config, opt) for opt in (PATH_CHECKPOINTS, PATH_COUNTER)]  # "" too, as Flink reads it
        if not all(re.fullmatch(r"(/[^/]+)*", p) for p in paths):
            raise NotModelled("input.config", "at 1.13, a checkpoints or checkpoint-counter path other than "
                                              "empty or /name[/name...]")
        checkpoints, counter_path = (f"{base}{p}/{JOB}" for p in paths)
    else:
        checkpoints, counter_path = f"{base}/{JOB}/checkpoints", f"{base}/{JOB}/checkpoint_id_counter"
    state = _State(retain=retain, held=not SUBSUMED_HELD.before(version), locks=not LOCKS_CHILD.before(version),
                   refuses_when_down=not STORE_REFUSES_WHEN_DOWN.before(version), checkpoints=checkpoints,
                   counter_path=counter_path, storage=storage_dir.rstrip("/") + "/" + _trim(cluster))
    state.open()
    steps = []
    for i, e in enumerate(events):
        at("steps", i)
        steps.append(_step(state, e))
    at("znodes")
    because("HA-1", "HA-2", *(("HA-5",) if not state.running else ()))
    at("handles")
    because("HA-2")
    at("files")
    because("HA-2", "HA-8", *(("HA-5",) if not state.running else ()))
    file = f"{state.storage}/completedCheckpoint<hex>"
    handles = {state.node(i): {"class": HANDLE, "file": file} for i in sorted(state.in_zk)}
    files = [f"{CHECKPOINTS}/chk-{i}/_metadata" for i in state.metadata] + [file] * (len(handles) + state.left)
    return {"retained_max": retain, "steps": steps, "znodes": sorted(state.znodes),
            "handles": dict(sorted(handles.items())), "files": sorted(files)}


def _string(config: Configuration, option: ConfigOption) -> str:
    """A string option's value as ``Configuration.getString`` gives it: the raw one, an empty one too, or the
    default."""
    raw = config.raw(option)
    return str(option.default if raw is None else raw)


def _error(exception: str, message: str | None) -> dict[str, Any]:
    return {"error": {"exception": exception, "message": message}}


def _remove(state: _State, cid: int) -> None:
    """The checkpoint's znode (and its /locks child) and its file go."""
    del state.in_zk[cid]
    state.znodes.discard(state.node(cid))
    state.znodes.discard(state.node(cid) + "/locks")


def _clean_subsumed(state: _State, up_to: int) -> None:
    """``CheckpointsCleaner.cleanSubsumedCheckpoints``: the subsumed checkpoints below ``up_to`` are discarded."""
    for cid in [i for i in state.pending if i < up_to]:
        state.pending.remove(cid)
        state.metadata.discard(cid)


def _step(state: _State, event: dict[str, Any]) -> dict[str, Any]:
    if "add" in event:
        cid = event["add"]
        state.metadata.add(cid)  # the checkpoint's own metadata, written before it reaches the store
        because("HA-4")
        if cid < 0:  # HA-4: the checkpoint itself refuses a negative id
            return _error("IllegalArgumentException", None)
        if not state.running and state.refuses_when_down:
            return _error("IllegalStateException", "Checkpoint store has already been shutdown.")
        if state.checkpoints not in state.znodes:  # 1.13, after a globally terminal shutdown
            because("HA-5")
            return _error("NoNodeException", "KeeperErrorCode = NoNode")
        if cid in state.in_zk:
            return _error("AlreadyExistException", f"ZooKeeper node /{cid:019d} already exists.")
        because("HA-2", "HA-3")
        checkpoint = _Checkpoint(cid, event.get("retention", RETENTIONS[0]))
        state.in_zk[cid] = checkpoint  # HA-2
        node = state.node(cid)
        state.znodes |= {node, node + "/locks"} if state.locks else {node}
        before = [c.id for c in state.store]
        state.store.append(checkpoint)
        subsumed = state.store[: max(0, len(state.store) - state.retain)]  # HA-3: the oldest added go
        for old in subsumed:
            _remove(state, old.id)
            state.pending.append(old.id)
        state.store = state.store[len(subsumed):]
        # HA-8: below the oldest one the store keeps (before 1.16: each at once)
        _clean_subsumed(state, state.store[0].id if state.held else 2**63)
        after = [c.id for c in state.store]
        return {"subsumed": [i for i in before if i not in after], "retained": after}
    if "get" in event:
        because("HA-3")
        if event["get"] == "latest":
            return {"latest": state.store[-1].id if state.store else None}
        return {"all": [c.id for c in state.store]}
    if "counter" in event:  # HA-7
        because("HA-7")
        if state.counter + 1 > INT_MAX or state.counter + 1 < 0:
            return _error("Exception", "Checkpoint counter overflow. ZooKeeper checkpoint counter only supports "
                                       f"checkpoints Ids up to {INT_MAX}")
        if not state.running:
            return _error("IllegalStateException", "not started")
        value = state.counter
        state.counter += 1
        state.counter_node = state.counter
        return {"counter": value}
    if "set_count" in event:
        because("HA-7")
        value = event["set_count"]
        if value > INT_MAX or value < -(2**31):
            raise BadRequest("input.events: the oracle models set_count within a Java int")
        if not state.running:
            return _error("IllegalStateException", "not started")
        state.counter = state.counter_node = value
        return {"counter": value}
    if "shutdown" in event:  # HA-5
        because("HA-5")
        status = event["shutdown"]
        terminal = status != "SUSPENDED"
        if terminal and (state.running or not state.refuses_when_down):
            lowest_kept = 2**63 - 1
            for c in state.store:
                _remove(state, c.id)
                if _discarded_on_shutdown(c.retention, status):
                    state.metadata.discard(c.id)
                else:
                    lowest_kept = min(lowest_kept, c.id)
            _clean_subsumed(state, lowest_kept)  # HA-8
            for cid in list(state.in_zk):  # 1.13: the znodes still under the checkpoints' znode, files left
                _remove(state, cid)
                state.left += 1
            state.znodes.discard(state.checkpoints)
        if terminal and state.running:
            state.znodes.discard(state.counter_path)
            state.counter_node = None
        state.store = []
        state.running = False
        return {"shutdown": status}
    because("HA-6")
    state.open()  # HA-6: a new JobManager's store and counter
    return {"recovered": [c.id for c in state.store], "counter": state.counter}


# the areas this module answers, by name (oracle.AREAS)
ENTRIES: dict[str, AreaFn] = {HA: ha_area}

CHANGES: dict[str, tuple[Change, ...]] = {
    HA: (JOB_NAMESPACE, STORE_REFUSES_WHEN_DOWN, LOCKS_CHILD, SUBSUMED_HELD, NUM_RETAINED_KEYS)}
