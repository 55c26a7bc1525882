"""Protocol area ``checkpoint.snapshot``: what the snapshots of a keyed state backend hold, taken at a checkpoint
barrier in two parts (KSS-1 ... KSS-13, declared in :data:`RULES`; docs/protocol/checkpoint-snapshot.md).

The backend is the ``hashmap`` state backend's ``HeapKeyedStateBackend`` with asynchronous snapshots, one
``ValueState<String>`` per String key. ``HeapKeyedStateBackend.snapshot`` is the synchronous part: it takes a
copy-on-write snapshot of every registered state table (``CopyOnWriteStateTable.stateSnapshot``) and returns a
``RunnableFuture`` (``SnapshotStrategyRunner``: a ``FutureTask`` not yet run); running it is the asynchronous part,
which writes the state as it was at the synchronous part however the backend changed since; cancelling it before
it runs means no snapshot. A backend restored from a snapshot's handle holds exactly that state; the backend it
replaces is disposed, which cancels its snapshots not yet run.

With ``"backend": "rocksdb"`` (feature ``checkpoint.snapshot.rocksdb``) the backend is the
``RocksDBKeyedStateBackend`` with incremental checkpoints (RocksDB's automatic compactions off): each snapshot
refers to the backend's SST files, uploading those not in the last completed checkpoint and referring to the others
as placeholders (KSS-9 ... KSS-13); a restore gives the full state, base and increments.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

from oracle.changes import Change
from oracle.explain import INPUT, at, because
from oracle.protocol import AreaFn, BadRequest, NotModelled, Rejected, field, java_long
from oracle.rules import Declared
from oracle.versions import FlinkVersion, pick, v

SNAPSHOT = "checkpoint.snapshot"  # the protocol area (docs/protocol/checkpoint-snapshot.md)
BACKENDS = ("hashmap", "rocksdb")
Kind = Literal["put", "remove", "get", "snapshot", "run", "cancel", "complete", "restore"]
KINDS: tuple[Kind, ...] = ("put", "remove", "get", "snapshot", "run", "cancel", "complete", "restore")
KEY_KINDS = ("put", "remove", "get")

RULES: tuple[Declared, ...] = (
    Declared("KSS-1",
             "One ValueState<String> per key: put is update(value), remove is clear(), get is value() (null when "
             "the key has none); the first put, remove or get registers the state with the backend.",
             "HeapValueState.update, clear, value; HeapKeyedStateBackend.getPartitionedState "
             "(createOrUpdateInternalState registers the state table)"),
    Declared("KSS-2",
             "snapshot(checkpointId, ...) runs the synchronous part at once (a copy-on-write snapshot of every "
             "registered state table) and returns a RunnableFuture that is not done: the heap backend's snapshots "
             "are asynchronous (the asynchronous part runs only when the future is run).",
             "HeapKeyedStateBackend.snapshot, SnapshotStrategyRunner.snapshot (SnapshotExecutionType.ASYNCHRONOUS),"
             " HeapSnapshotStrategy.syncPrepareResources, CopyOnWriteStateTable.stateSnapshot, "
             "AsyncSnapshotCallable.toAsyncSnapshotFutureTask"),
    Declared("KSS-3",
             "Running the future writes every key's value as it was at the synchronous part: puts and removes after "
             "it (before or after other snapshots) do not change what the snapshot holds (copy on write).",
             "HeapSnapshotStrategy.asyncSnapshot, CopyOnWriteStateMapSnapshot, CopyOnWriteStateMap.put / remove "
             "(entries of an older snapshotVersion are copied, not changed)"),
    Declared("KSS-4",
             "With no state registered at the synchronous part, the snapshot's result is empty "
             "(SnapshotResult.empty(): no state handle).",
             "HeapSnapshotStrategy.asyncSnapshot (metaInfoSnapshots.isEmpty())"),
    Declared("KSS-5",
             "The future is a FutureTask: cancel returns true only while it has neither run nor been cancelled; a "
             "cancelled task does nothing when run, and its get throws CancellationException; cancelling after it "
             "ran returns false and keeps its result; running it again changes nothing.",
             "AsyncSnapshotCallable.AsyncSnapshotTask (a java.util.concurrent.FutureTask): cancel, run, get"),
    Declared("KSS-6",
             "Restoring builds a new backend from the snapshot's handle: it holds exactly the snapshot's keys and "
             "values, with the state registered (its meta info is in the snapshot); from an empty result, an empty "
             "backend with no state registered. Later events act on the restored backend.",
             "HeapKeyedStateBackendBuilder.build, HeapRestoreOperation.restore"),
    Declared("KSS-8",
             "Restoring disposes the old backend: closing its cancelStreamRegistry cancels every snapshot task of it "
             "that has neither run nor been cancelled (each task registers itself there and unregisters when done),"
             " so those snapshots then answer as cancelled ones (KSS-5) and cannot be restored.",
             "AbstractKeyedStateBackend.dispose (IOUtils.closeQuietly(cancelStreamRegistry)), "
             "AsyncSnapshotCallable.AsyncSnapshotTask (registerCloseable(() -> cancel(true)), done)"),
    Declared("KSS-7",
             "notifyCheckpointComplete changes nothing the heap backend holds or will snapshot.",
             "HeapKeyedStateBackend.notifyCheckpointComplete (empty)"),
    Declared("KSS-9",
             "rocksdb: the synchronous part takes a native RocksDB checkpoint, which flushes the memtable into one new "
             "SST file when the state was written (put or remove) since the last flush; with automatic compactions "
             "off no SST file is ever deleted, so a snapshot refers to every SST file of the backend's database "
             "(those it was restored with included). The snapshot task is asynchronous as the heap backend's; with no"
             " state registered its result is empty (KSS-4).",
             "RocksIncrementalSnapshotStrategy.syncPrepareResources, RocksDBSnapshotStrategyBase."
             "takeDBNativeCheckpoint (org.rocksdb.Checkpoint.createCheckpoint), RocksDBSnapshotStrategyBase."
             "asyncSnapshot (stateMetaInfoSnapshots.isEmpty())"),
    Declared("KSS-10",
             "rocksdb: running the task uploads each SST file not in the base the synchronous part chose (the files "
             "of the last completed checkpoint) and refers to each file in it by a PlaceholderStreamStateHandle; it "
             "then records its files (uploaded and placeholders) under its checkpoint id. Before any checkpoint "
             "completed the base is empty.",
             "RocksIncrementalSnapshotStrategy.snapshotMetaData (uploadedSstFiles.get(lastCompletedCheckpointId); "
             "1.13-1.14: materializedSstFiles), RocksDBIncrementalSnapshotOperation.get / uploadSstFiles "
             "(uploadedSstFiles.put), PreviousSnapshot.getUploaded"),
    Declared("KSS-11",
             "rocksdb: notifyCheckpointComplete(id) counts only if id is greater than the last completed checkpoint "
             "id (-1 on a new backend) and id's files are recorded (its task ran): then the files recorded under "
             "smaller ids are forgotten and id is the last completed checkpoint. Otherwise it changes nothing.",
             "RocksIncrementalSnapshotStrategy.notifyCheckpointComplete"),
    Declared("KSS-12",
             "rocksdb, 2.0.2+ (2.1.2+ on 2.1; 2.2.0+): the base leaves out each file of the last completed "
             "checkpoint that a checkpoint of a greater id, run since, uploaded again (not as a placeholder); before, "
             "the base is all of the last completed checkpoint's files.",
             "RocksDBSnapshotStrategyBase.PreviousSnapshot.pruneFirstCheckpointSstFiles "
             "(uploadedSstFiles.tailMap(lastCompletedCheckpointId))"),
    Declared("KSS-13",
             "rocksdb: restoring takes the snapshot's handle as the JobManager holds it, its placeholders replaced by "
             "the handles registered before (SharedStateRegistry), and rebuilds the database from all its files: the "
             "backend holds the snapshot's whole state (base and increments), its database those SST files, its last"
             " completed checkpoint the restored one with those files recorded. Before 1.15 a new SST file of a "
             "restored backend is not modelled (REGISTRY_REPLACES): the registry could give a checkpoint another "
             "backend's file of the same name.",
             "IncrementalRemoteKeyedStateHandle.registerSharedStates, SharedStateRegistryImpl.registerReference, "
             "RocksDBIncrementalRestoreOperation.restore, RocksDBKeyedStateBackendBuilder.build "
             "(lastCompletedCheckpointId, uploadedSstFiles of the restore result)"),
)

# Flink's changes in this area, each written once; the table below reads them
_PRUNE_WITNESS = {"backend": "rocksdb", "events": [
    {"kind": "put", "key": "a", "value": "x"}, {"kind": "snapshot", "checkpoint": 1},
    {"kind": "run", "checkpoint": 1}, {"kind": "snapshot", "checkpoint": 2}, {"kind": "run", "checkpoint": 2},
    {"kind": "complete", "checkpoint": 1}, {"kind": "snapshot", "checkpoint": 3}, {"kind": "run", "checkpoint": 3}]}
_PRUNE_WHAT = ("rocksdb incremental snapshots: files of the last completed checkpoint that a later checkpoint "
               "uploaded again are uploaded again too, not referred to as placeholders "
               "(PreviousSnapshot.pruneFirstCheckpointSstFiles)")
PRUNE = Change(since="2.0.2", what=_PRUNE_WHAT + " (backported to 2.0.2)", witnesses=(_PRUNE_WITNESS,))
PRUNE_2_1 = Change(since="2.1.2", regressed="2.1.0", what=_PRUNE_WHAT + " (2.1.0 and 2.1.1 were released without it)",
                   witnesses=(_PRUNE_WITNESS,))
REGISTRY_REPLACES = Change(
    since="1.15", issue="FLINK-24611",
    what="rocksdb incremental snapshots of restored backends: before 1.15 the JobManager's SharedStateRegistry "
    "keyed an uploaded SST file by the backend's id, which a restored backend keeps, and the file's name, which a "
    "backend restored again from the same checkpoint gives its own new files too; it kept the first handle "
    "registered under a key and dropped a later, different one as a duplicate, so a checkpoint could hold another "
    "backend's file (a stale value; a restore failing with RocksDB's 'Sst file size mismatch'). From 1.15 (the "
    "registry reworked) each checkpoint holds its own files",
    unseen="the oracle does not model the earlier registry: before 1.15 it answers 'not modelled' to a rocksdb "
    "request in which a restored backend writes a new SST file, so none of its answers shows the change")
CHANGES: dict[str, tuple[Change, ...]] = {SNAPSHOT: (PRUNE, PRUNE_2_1, REGISTRY_REPLACES)}
# whether the base of an incremental snapshot leaves out files re-uploaded by later checkpoints (KSS-12)
PRUNES: dict[FlinkVersion, bool] = {**PRUNE.table(False, True), v("2.1.0"): False, PRUNE_2_1.at: True}


@attrs.frozen
class Event:
    kind: Kind
    key: str = ""
    value: str = ""
    checkpoint: int = 0


@attrs.frozen
class Request:
    events: tuple[Event, ...]
    rocksdb: bool = False


def java_sorted(state: Mapping[str, str]) -> list[list[str]]:
    """[key, value] pairs in String.compareTo's order of the keys (UTF-16 code units)."""
    return [[k, state[k]] for k in sorted(state, key=lambda s: s.encode("utf-16-be", "surrogatepass"))]


@attrs.define
class Snapshot:
    """One snapshot's future: the state copied at its synchronous part (None: no state registered, KSS-4); for
    rocksdb, the SST files it refers to and the base it chose (KSS-9, KSS-10)."""

    state: dict[str, str] | None
    ran: bool = False
    cancelled: bool = False
    files: tuple[int, ...] | None = None  # None: the heap backend's
    base: frozenset[int] = frozenset()
    backend: Backend | None = None


class Backend:
    """A ``HeapKeyedStateBackend`` with its one ``ValueState``, and the futures of its snapshots; with ``sst`` (the
    writes flushed into each SST file, by file, shared by the backends of one request), a ``RocksDBKeyedStateBackend``
    with incremental checkpoints."""

    def __init__(self, state: dict[str, str] | None = None, sst: dict[int, dict[str, str | None]] | None = None,
                 files: tuple[int, ...] = (), restored: int | None = None, prunes: bool = False,
                 shared_names: bool = False) -> None:
        self.registered = state is not None
        self.state: dict[str, str] = dict(state or {})
        self.sst = sst
        self.prunes = prunes
        self.shared_names = shared_names  # before 1.15: a restored backend's new files may share a registry key
        self.restored_from = restored
        self.files = list(files)  # the database's SST files
        self.memtable: dict[str, str | None] = {}  # written since the last flush (None: removed)
        self.uploaded: dict[int, dict[int, bool]] = {}  # checkpoint id -> its files (True: a placeholder)
        self.last_completed = -1
        if restored is not None:
            because("KSS-13")
            self.uploaded[restored] = dict.fromkeys(files, False)
            self.last_completed = restored

    def register(self) -> None:
        because("KSS-1")
        self.registered = True

    def write(self, key: str, value: str | None) -> None:
        if value is None:
            self.state.pop(key, None)
        else:
            self.state[key] = value
        self.memtable[key] = value

    def snapshot(self) -> Snapshot:
        because("KSS-2", "KSS-4")
        if self.sst is None or not self.registered:
            return Snapshot(dict(self.state) if self.registered else None)
        because("KSS-9", "KSS-10")
        if self.memtable:
            if self.shared_names and self.restored_from is not None:
                because("KSS-13")
                raise NotModelled("input.events", "before Flink 1.15, a new SST file of a rocksdb backend restored "
                                  "from a checkpoint (the JobManager's registry may give a checkpoint another "
                                  "backend's file of the same name: FLINK-24611)")
            self.sst[len(self.sst)] = self.memtable
            self.files.append(len(self.sst) - 1)
            self.memtable = {}
        return Snapshot(dict(self.state), files=tuple(self.files), base=self.base(), backend=self)

    def base(self) -> frozenset[int]:
        """The files of the last completed checkpoint a new snapshot refers to as placeholders (KSS-10, KSS-12)."""
        if self.last_completed not in self.uploaded:
            return frozenset()
        base = set(self.uploaded[self.last_completed])
        if self.prunes:
            for cid, files in self.uploaded.items():
                if cid > self.last_completed and any(not placeholder for placeholder in files.values()):
                    because("KSS-12")
                    base -= {f for f, placeholder in files.items() if not placeholder}
        return frozenset(base)

    def complete(self, cid: int) -> None:
        if self.sst is None:
            because("KSS-7")
            return
        because("KSS-11")
        if cid > self.last_completed and cid in self.uploaded:
            self.uploaded = {c: files for c, files in self.uploaded.items() if c >= cid}
            self.last_completed = cid

    def restored(self, snap: Snapshot, cid: int) -> Backend:
        """A new backend of this kind restored from ``snap`` (checkpoint ``cid``)."""
        because("KSS-6")
        if self.sst is None or snap.files is None:
            return Backend(snap.state, self.sst, prunes=self.prunes)
        return Backend(snap.state, self.sst, snap.files, cid, self.prunes, self.shared_names)

    def contents(self) -> list[list[str]]:
        return java_sorted(self.state)


class Run:
    """The events replayed on one backend, replaced on restore."""

    def __init__(self, rocksdb: bool = False, version: FlinkVersion | None = None) -> None:
        self.backend = Backend(sst={} if rocksdb else None,
                               prunes=rocksdb and version is not None and pick(PRUNES, version),
                               shared_names=rocksdb and version is not None and REGISTRY_REPLACES.before(version))
        self.snapshots: dict[int, Snapshot] = {}

    def step(self, event: Event) -> dict[str, Any]:
        b = self.backend
        if event.kind in KEY_KINDS:
            b.register()
            if event.kind == "put":
                b.write(event.key, event.value)
                return {}
            if event.kind == "remove":
                b.write(event.key, None)
                return {}
            return {"value": b.state.get(event.key)}
        if event.kind == "snapshot":
            self.snapshots[event.checkpoint] = b.snapshot()
            return {"done": False}
        snap = self.snapshots.get(event.checkpoint)
        if event.kind == "run":
            assert snap is not None
            first = not (snap.ran or snap.cancelled)
            out = self.run(snap)
            if out.get("state") is not None and snap.files is not None:
                out |= self.upload(snap, event.checkpoint, first)
            return out
        if event.kind == "cancel":
            assert snap is not None
            return {"cancelled": self.cancel(snap)}
        if event.kind == "complete":
            b.complete(event.checkpoint)
            return {}
        assert snap is not None and snap.ran and not snap.cancelled
        for other in self.snapshots.values():
            if not (other.ran or other.cancelled):
                because("KSS-8")
                other.cancelled = True
        self.backend = b.restored(snap, event.checkpoint)
        return {"state": self.backend.contents()}

    @staticmethod
    def run(snap: Snapshot) -> dict[str, Any]:
        if snap.cancelled:
            because("KSS-5")
            return {"cancelled": True}
        snap.ran = True
        because("KSS-3", "KSS-4")
        return {"state": None if snap.state is None else java_sorted(snap.state)}

    @staticmethod
    def upload(snap: Snapshot, cid: int, first: bool) -> dict[str, int]:
        """What a rocksdb snapshot's task uploads and refers to as placeholders; its first run records its files
        with its backend (KSS-10)."""
        because("KSS-10")
        assert snap.files is not None and snap.backend is not None
        if first:
            snap.backend.uploaded[cid] = {f: f in snap.base for f in snap.files}
        placeholders = sum(f in snap.base for f in snap.files)
        return {"uploaded": len(snap.files) - placeholders, "placeholders": placeholders}

    @staticmethod
    def cancel(snap: Snapshot) -> bool:
        because("KSS-5")
        if snap.ran or snap.cancelled:
            return False
        snap.cancelled = True
        return True


# ------------------------------------------------------------------ reading the request

def _event(raw: Any, i: int, seen: dict[int, str]) -> Event:
    """One event, checked; ``seen`` tracks each checkpoint id: pending, run or cancelled (which comes first)."""
    where = f"input.events[{i}]"
    if not isinstance(raw, Mapping):
        raise BadRequest(f"{where} must be an object")
    kind = field(raw, "kind", str, where)
    if kind == "put":
        return Event("put", key=field(raw, "key", str, where), value=field(raw, "value", str, where))
    if kind in ("remove", "get"):
        return Event(kind, key=field(raw, "key", str, where))
    if kind not in KINDS:
        raise BadRequest(f"{where}.kind must be one of {', '.join(KINDS)}, got {kind!r}")
    cid = java_long(raw, "checkpoint", where)
    if kind == "snapshot":
        if cid in seen:
            raise BadRequest(f"{where}.checkpoint {cid} names an earlier snapshot")
        seen[cid] = "pending"
    elif kind in ("run", "cancel"):
        if cid not in seen:
            raise BadRequest(f"{where}.checkpoint {cid} names no earlier snapshot")
        if seen[cid] == "pending":
            seen[cid] = kind
    elif kind == "restore":
        if seen.get(cid) != "run":
            raise BadRequest(f"{where}.checkpoint {cid} names no snapshot whose asynchronous part has run "
                             "(uncancelled)")
        for other, was in seen.items():  # KSS-8: the old backend's pending snapshots are cancelled
            seen[other] = "cancel" if was == "pending" else was
    return Event(kind, checkpoint=cid)


def parse(inp: Mapping[str, Any]) -> Request:
    """The request's input, checked (BadRequest naming the field otherwise)."""
    backend = "hashmap"
    if "backend" in inp:
        backend = field(inp, "backend", str, "input")
        if backend not in BACKENDS:
            raise NotModelled("input.backend", f"the backend {backend!r} (only hashmap and rocksdb)")
    raw = field(inp, "events", list, "input")
    seen: dict[int, str] = {}
    return Request(tuple(_event(e, i, seen) for i, e in enumerate(raw)), rocksdb=backend == "rocksdb")


def snapshot_area(inp: Mapping[str, Any], version: FlinkVersion) -> dict[str, Any] | Rejected:
    """Per event, what it answered: a get's value, whether a snapshot's future was done, what a run snapshot holds
    (or that it was cancelled), whether a cancel cancelled, a restored backend's whole state."""
    req = parse(inp)
    at(*INPUT)
    run = Run(req.rocksdb, version)
    steps: list[dict[str, Any]] = []
    for i, event in enumerate(req.events):
        at("steps", i)
        steps.append(run.step(event))
    return {"steps": steps}


ENTRIES: dict[str, AreaFn] = {SNAPSHOT: snapshot_area}
