"""Protocol area ``checkpoint.snapshot``: what the snapshots of a keyed state backend hold, taken at a checkpoint
barrier in two parts (KSS-1 ... KSS-8, declared in :data:`RULES`; docs/protocol/checkpoint-snapshot.md).

The backend is the ``hashmap`` state backend's ``HeapKeyedStateBackend`` with asynchronous snapshots, one
``ValueState<String>`` per String key. ``HeapKeyedStateBackend.snapshot`` is the synchronous part: it takes a
copy-on-write snapshot of every registered state table (``CopyOnWriteStateTable.stateSnapshot``) and returns a
``RunnableFuture`` (``SnapshotStrategyRunner``: a ``FutureTask`` not yet run); running it is the asynchronous part,
which writes the state as it was at the synchronous part however the backend changed since; cancelling it before
it runs means no snapshot. A backend restored from a snapshot's handle holds exactly that state; the backend it
replaces is disposed, which cancels its snapshots not yet run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

from oracle.changes import Change
from oracle.explain import INPUT, at, because
from oracle.protocol import AreaFn, BadRequest, NotModelled, Rejected, field, java_long
from oracle.rules import Declared
from oracle.versions import FlinkVersion

SNAPSHOT = "checkpoint.snapshot"  # the protocol area (docs/protocol/checkpoint-snapshot.md)
BACKENDS = ("hashmap",)
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
)

# the heap backend's snapshots are the same from 1.13 to 2.3: no change of Flink's in this area yet
CHANGES: dict[str, tuple[Change, ...]] = {SNAPSHOT: ()}


@attrs.frozen
class Event:
    kind: Kind
    key: str = ""
    value: str = ""
    checkpoint: int = 0


@attrs.frozen
class Request:
    events: tuple[Event, ...]


def java_sorted(state: Mapping[str, str]) -> list[list[str]]:
    """[key, value] pairs in String.compareTo's order of the keys (UTF-16 code units)."""
    return [[k, state[k]] for k in sorted(state, key=lambda s: s.encode("utf-16-be", "surrogatepass"))]


@attrs.define
class Snapshot:
    """One snapshot's future: the state copied at its synchronous part (None: no state registered, KSS-4)."""

    state: dict[str, str] | None
    ran: bool = False
    cancelled: bool = False


class Backend:
    """A ``HeapKeyedStateBackend`` with its one ``ValueState``, and the futures of its snapshots."""

    def __init__(self, state: dict[str, str] | None = None) -> None:
        self.registered = state is not None
        self.state: dict[str, str] = dict(state or {})

    def register(self) -> None:
        because("KSS-1")
        self.registered = True

    def snapshot(self) -> Snapshot:
        because("KSS-2", "KSS-4")
        return Snapshot(dict(self.state) if self.registered else None)

    def contents(self) -> list[list[str]]:
        return java_sorted(self.state)


class Run:
    """The events replayed on one backend, replaced on restore."""

    def __init__(self) -> None:
        self.backend = Backend()
        self.snapshots: dict[int, Snapshot] = {}

    def step(self, event: Event) -> dict[str, Any]:
        b = self.backend
        if event.kind in KEY_KINDS:
            b.register()
            if event.kind == "put":
                b.state[event.key] = event.value
                return {}
            if event.kind == "remove":
                b.state.pop(event.key, None)
                return {}
            return {"value": b.state.get(event.key)}
        if event.kind == "snapshot":
            self.snapshots[event.checkpoint] = b.snapshot()
            return {"done": False}
        snap = self.snapshots.get(event.checkpoint)
        if event.kind == "run":
            assert snap is not None
            return self.run(snap)
        if event.kind == "cancel":
            assert snap is not None
            return {"cancelled": self.cancel(snap)}
        if event.kind == "complete":
            because("KSS-7")
            return {}
        assert snap is not None and snap.ran and not snap.cancelled
        for other in self.snapshots.values():
            if not (other.ran or other.cancelled):
                because("KSS-8")
                other.cancelled = True
        because("KSS-6")
        self.backend = Backend(snap.state)
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
    if "backend" in inp:
        backend = field(inp, "backend", str, "input")
        if backend not in BACKENDS:
            raise NotModelled("input.backend", f"the backend {backend!r} (only hashmap)")
    raw = field(inp, "events", list, "input")
    seen: dict[int, str] = {}
    return Request(tuple(_event(e, i, seen) for i, e in enumerate(raw)))


def snapshot_area(inp: Mapping[str, Any], version: FlinkVersion) -> dict[str, Any] | Rejected:
    """Per event, what it answered: a get's value, whether a snapshot's future was done, what a run snapshot holds
    (or that it was cancelled), whether a cancel cancelled, a restored backend's whole state."""
    req = parse(inp)
    at(*INPUT)
    run = Run()
    steps: list[dict[str, Any]] = []
    for i, event in enumerate(req.events):
        at("steps", i)
        steps.append(run.step(event))
    return {"steps": steps}


ENTRIES: dict[str, AreaFn] = {SNAPSHOT: snapshot_area}
