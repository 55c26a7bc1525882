"""The documented rules of a keyed state backend's snapshots, as checks on any implementation's own answers.

Sources: the seed's "Asynchronous State Snapshots" and "Operator Snapshot Implementation" (Flink's documentation
"Stateful Stream Processing / Data Streaming Fault Tolerance"), the state backends page ("HashMapStateBackend ...
asynchronous snapshots"), the javadoc of ``ValueState`` and of ``java.util.concurrent.FutureTask`` (what a
``RunnableFuture`` returned by ``Snapshotable.snapshot`` promises), and the protocol page for the answer's shape.
Each check replays the request's puts and removes on a plain map of its own; none reads the oracle.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise
from typing import Any

from oracle.checkpoint_snapshot import KINDS, REGISTRY_REPLACES, SNAPSHOT
from oracle.versions import FlinkVersion
from properties.rules import Request, Response, RuleBook, Violation, output_steps

BOOK = RuleBook()  # the rules this module declares, named by the area's declaration
BOOK.differential(SNAPSHOT, "CSN")

SEED = "Flink docs: Data Streaming Fault Tolerance (Asynchronous State Snapshots, Operator Snapshot Implementation)"
FUTURE = "java.util.concurrent.FutureTask javadoc (cancel, run, get); Snapshotable.snapshot returns a RunnableFuture"
RECOVERY = "Flink docs: Data Streaming Fault Tolerance (Recovery); State Backends (HashMapStateBackend)"
VALUE = "Flink docs: Working with State (ValueState: update, value, clear); ValueState javadoc"
INCREMENTAL = ("Flink docs: State Backends (Incremental Checkpoints: 'only the changes since the last completed "
               "checkpoint' are uploaded; the checkpoint builds on the files of earlier checkpoints, placeholders "
               "resolved by the JobManager's shared state registry); Large State Tuning (Incremental Checkpoints)")


def _pairs(x: Any) -> bool:
    return isinstance(x, list) and all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(s, str) for s in p) for p in x)


def _count(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _step_ok(kind: Any, step: Any, rocksdb: bool = False) -> bool:
    if not isinstance(step, Mapping):
        return False
    if kind in ("put", "remove", "complete"):
        return dict(step) == {}
    if kind == "get":
        return set(step) == {"value"} and (step["value"] is None or isinstance(step["value"], str))
    if kind == "snapshot":
        return set(step) == {"done"} and isinstance(step["done"], bool)
    if kind == "cancel":
        return set(step) == {"cancelled"} and isinstance(step["cancelled"], bool)
    if kind == "run":
        if rocksdb and set(step) == {"state", "uploaded", "placeholders"}:
            return _pairs(step["state"]) and _count(step["uploaded"]) and _count(step["placeholders"])
        return dict(step) == {"cancelled": True} or (set(step) == {"state"} and (
            step["state"] is None or (not rocksdb and _pairs(step["state"]))))
    return kind == "restore" and set(step) == {"state"} and _pairs(step["state"])


@BOOK.invariant("CSN-1", SNAPSHOT, "The answer holds one step per event: {} for a put, remove or complete; a get's "
                "{value} (a string or null); a snapshot's {done}; a cancel's {cancelled}; a run's {state} (its "
                "[key, value] pairs, or null for an empty result) or {cancelled: true}, for rocksdb its pairs with "
                "the counts of SST files it {uploaded} and referred to as {placeholders}; a restore's {state}.",
                "docs/protocol/checkpoint-snapshot.md")
def shape(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    if "output" not in resp or resp.get("error") is not None:
        return []
    steps = output_steps(resp)
    events = req.get("input", {}).get("events", [])
    if steps is None or len(steps) != len(events):
        return [Violation("CSN-1", "output.steps must be a list with one entry per event")]
    rocksdb = _rocksdb(req)
    for i, (ev, step) in enumerate(zip(events, steps, strict=True)):
        if ev.get("kind") in KINDS and not _step_ok(ev["kind"], step, rocksdb):
            return [Violation("CSN-1", f"output.steps[{i}] = {step!r} is not the step of a {ev['kind']}")]
    return []


def _rocksdb(req: Request) -> bool:
    return bool(req.get("input", {}).get("backend") == "rocksdb")


def _replay(req: Request, resp: Response) -> list[tuple[int, Mapping[str, Any], Mapping[str, Any],
                                                     dict[str, str], dict[int, dict[str, str]]]] | None:
    """Each step with its event, the backend's state after it (a restore's state taken from the answer: CSN-5
    judges it) and each snapshot's state at its synchronous part, by a plain map of the puts and removes."""
    steps = output_steps(resp)
    if steps is None or shape(req, resp, None) != []:  # type: ignore[arg-type]
        return None
    state: dict[str, str] = {}
    taken: dict[int, dict[str, str]] = {}
    out = []
    for i, (ev, step) in enumerate(zip(req["input"]["events"], steps, strict=True)):
        kind = ev.get("kind")
        if kind == "put":
            state[ev["key"]] = ev["value"]
        elif kind == "remove":
            state.pop(ev["key"], None)
        elif kind == "snapshot":
            taken[ev["checkpoint"]] = dict(state)
        elif kind == "restore":
            state = {k: v for k, v in step["state"]}
        out.append((i, ev, step, dict(state), taken))
    return out


@BOOK.invariant("CSN-2", SNAPSHOT, "A snapshot's synchronous part returns a task whose asynchronous part is still "
                "pending: the future is not done until it is run.", SEED + "; State Backends (HashMapStateBackend "
                "takes asynchronous snapshots)")
def pending_after_sync(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    for i, ev, step, _, _ in _replay(req, resp) or ():
        if ev.get("kind") == "snapshot" and step["done"] is not False:
            return [Violation("CSN-2", f"step {i}: the snapshot of checkpoint {ev['checkpoint']} was done before "
                              "its asynchronous part ran")]
    return []


@BOOK.invariant("CSN-3", SNAPSHOT, "Copy on write: a snapshot holds the state as it was when its synchronous part "
                "ran; records processed after it (puts and removes) do not change what it holds, whenever its "
                "asynchronous part runs.", SEED)
def copy_on_write(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    for i, ev, step, _, taken in _replay(req, resp) or ():
        if ev.get("kind") != "run" or "state" not in step:
            continue
        want = taken.get(ev["checkpoint"])
        held = step["state"]
        if want is None or (held is None and not want):
            continue
        if held is None or {k: v for k, v in held} != want or len(held) != len(want):
            return [Violation("CSN-3", f"step {i}: checkpoint {ev['checkpoint']} holds {held}, the state at its "
                              f"synchronous part was {sorted(want.items())}")]
    return []


@BOOK.invariant("CSN-4", SNAPSHOT, "The snapshot task is cancelable: cancelling it before it ran succeeds, and it "
                "then never yields a snapshot (running it does nothing); cancelling it once it ran (or again) fails "
                "and a run snapshot keeps its result. A restore disposes the old backend, releasing its resources: "
                "its tasks not yet run are cancelled.",
                SEED + " ('The tasks are cancelable, in order to release streams and other resource consuming "
                "handles'); " + FUTURE + "; AbstractKeyedStateBackend.dispose closes the registry the tasks are in")
def cancelable(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    first: dict[int, str] = {}  # checkpoint id -> what ended its task first: run, cancel or restore
    pending: set[int] = set()
    for i, ev, step, _, _ in _replay(req, resp) or ():
        kind, cid = ev.get("kind"), ev.get("checkpoint")
        if kind == "snapshot" and isinstance(cid, int):
            pending.add(cid)
        elif kind == "restore":
            first.update((c, "restore") for c in pending)
            pending.clear()
        if kind not in ("run", "cancel") or not isinstance(cid, int):
            continue
        was = first.get(cid)
        if was is None:
            first[cid] = was = kind
            pending.discard(cid)
            if kind == "cancel" and step["cancelled"] is not True:
                return [Violation("CSN-4", f"step {i}: cancelling checkpoint {cid} before its task ran answered "
                                  "false")]
        elif kind == "cancel" and step["cancelled"] is not False:
            return [Violation("CSN-4", f"step {i}: cancelling checkpoint {cid} answered true, its task ended "
                              f"before ({'run' if was == 'run' else 'cancelled'})")]
        if kind == "run" and ("cancelled" in step) != (was != "run"):
            return [Violation("CSN-4", f"step {i}: running checkpoint {cid} answered {dict(step)}, its task "
                              f"{'run before' if was == 'run' else 'cancelled before'}")]
    return []


@BOOK.invariant("CSN-5", SNAPSHOT, "Restoring from a snapshot gives a backend that holds exactly the snapshot's "
                "state, and later reads see it.", RECOVERY)
def restore(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    for i, ev, step, _, taken in _replay(req, resp) or ():
        want = taken.get(ev["checkpoint"]) if ev.get("kind") == "restore" else None
        if want is not None and ({k: v for k, v in step["state"]} != want or len(step["state"]) != len(want)):
            return [Violation("CSN-5", f"step {i}: restoring checkpoint {ev['checkpoint']} gave {step['state']}, it "
                              f"holds {sorted(taken[ev['checkpoint']].items())}")]
    return []


@BOOK.invariant("CSN-6", SNAPSHOT, "A ValueState read answers the key's last update, or null when it has none or "
                "was cleared since (snapshots, completions and cancels change nothing the backend holds).", VALUE)
def value_semantics(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    before: dict[str, str] = {}
    for i, ev, step, after, _ in _replay(req, resp) or ():
        if ev.get("kind") == "get" and step["value"] != before.get(ev["key"]):
            return [Violation("CSN-6", f"step {i}: key {ev['key']!r} read {step['value']!r}, its value is "
                              f"{before.get(ev['key'])!r}")]
        before = after
    return []


@BOOK.invariant("CSN-7", SNAPSHOT, "A snapshot's and a restored backend's [key, value] pairs come sorted by key in "
                "Java's String order, each key once.", "docs/protocol/checkpoint-snapshot.md")
def sorted_pairs(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    for i, _, step, _, _ in _replay(req, resp) or ():
        pairs = step.get("state") if isinstance(step, Mapping) else None
        if isinstance(pairs, list):
            keys = [k.encode("utf-16-be", "surrogatepass") for k, _ in pairs]
            if any(a >= b for a, b in pairwise(keys)):
                return [Violation("CSN-7", f"step {i}: the pairs {pairs} are not sorted by key, each once")]
    return []


def _incremental(req: Request, resp: Response) -> list[tuple[int, Mapping[str, Any], Mapping[str, Any], bool]]:
    """For a rocksdb request: each run step that holds a handle, with its event and whether a checkpoint could
    have completed (a completion or a restore came before) at its snapshot's synchronous part."""
    if not _rocksdb(req):
        return []
    out = []
    completed = False
    at_sync: dict[int, bool] = {}
    for i, ev, step, _, _ in _replay(req, resp) or ():
        kind = ev.get("kind")
        if kind in ("complete", "restore"):
            completed = True
        elif kind == "snapshot":
            at_sync[ev["checkpoint"]] = completed
        elif kind == "run" and "uploaded" in step:
            out.append((i, ev, step, at_sync[ev["checkpoint"]]))
    return out


@BOOK.invariant("CSN-8", SNAPSHOT, "rocksdb (incremental): a snapshot taken before any checkpoint of its backend "
                "completed (no completion, the backend not restored) has no earlier checkpoint to build on: it "
                "uploads every SST file it refers to, none is a placeholder.", INCREMENTAL)
def nothing_to_build_on(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    for i, ev, step, completed in _incremental(req, resp):
        if not completed and step["placeholders"] != 0:
            return [Violation("CSN-8", f"step {i}: checkpoint {ev['checkpoint']}, taken before any checkpoint "
                              f"completed, refers to {step['placeholders']} file(s) as placeholders")]
    return []


@BOOK.invariant("CSN-9", SNAPSHOT, "rocksdb (incremental): once a checkpoint completed, the next snapshot uploads "
                "only the changes since: taken on a new backend after exactly one earlier snapshot, which ran and "
                "then completed (a positive checkpoint id, as Flink's are), it refers to every file that one "
                "uploaded as a placeholder.", INCREMENTAL)
def builds_on_completed(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    if not _rocksdb(req):
        return []
    first: int | None = None  # the first snapshot's checkpoint id
    uploaded: int | None = None  # what its first run uploaded
    confirmed = False  # it ran, then completed
    for i, ev, step, _, _ in _replay(req, resp) or ():
        kind, cid = ev.get("kind"), ev.get("checkpoint")
        if kind == "restore":
            return []
        if kind == "snapshot" and first is None:
            first = cid
        elif kind == "run" and cid == first and uploaded is None and "uploaded" in step:
            uploaded = step["uploaded"]
        elif kind == "complete" and cid == first and uploaded is not None and isinstance(cid, int) and cid > 0:
            confirmed = True
        elif kind == "snapshot":
            if not confirmed:
                return []
            second = cid
            for j, later, lstep, _, _ in _replay(req, resp) or ():
                if j > i and later.get("kind") == "run" and later.get("checkpoint") == second:
                    if "uploaded" in lstep and lstep["placeholders"] != uploaded:
                        return [Violation("CSN-9", f"step {j}: checkpoint {second}, taken after checkpoint {first} "
                                          f"(which uploaded {uploaded} file(s)) completed, refers to "
                                          f"{lstep['placeholders']} file(s) as placeholders")]
                    return []
            return []
    return []


# Documented rules that real Flink itself breaks (docs/documented-rules.md)
BOOK.flink_violates("CSN-3", "rocksdb, a backend restored twice from checkpoint 1, each time writing a and taking a "
                    "checkpoint: the second checkpoint holds the first restored backend's value of a, not its own "
                    "(the JobManager's SharedStateRegistry drops the new SST file as a duplicate of the one of the "
                    "same name); from 1.15 each checkpoint holds its own", before=REGISTRY_REPLACES)
