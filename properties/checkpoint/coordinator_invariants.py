"""The documented checkpoint-coordinator rules, as checks on any implementation's own steps.

Sources: a seed article on the design of Flink's distributed snapshots (how the CheckpointCoordinator
triggers, acknowledges, completes and subsumes),
the Javadoc of ``CheckpointCoordinator``, ``PendingCheckpoint`` and ``CompletedCheckpointStore``, and
Flink's checkpointing configuration docs (max concurrent checkpoints, checkpoint timeout, retained
checkpoints). Each check replays the steps: which ids are pending, which tasks acknowledged them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from oracle.coordinator import CONFIG_DEFAULTS
from oracle.coordinator import COORDINATOR as AREA
from oracle.coordinator_machine import AckResult
from oracle.coordinator_rules import SAVEPOINTS_NOT_STORED
from oracle.versions import FlinkVersion
from properties.rules import Request, Response, RuleBook, Violation

BOOK = RuleBook()  # the rules this module declares, named by its areas' declarations

ART = "seed article on checkpoint coordination"
KEYS = ("triggered", "queued", "rejected", "ack", "completed", "aborted", "retained", "job_failed", "was_pending",
        "notified")
ACKS: tuple[AckResult, ...] = ("SUCCESS", "DUPLICATE", "UNKNOWN", "DISCARDED")
BOOK.differential(AREA, "CCR")


def accepted(resp: Response) -> bool:
    """The answer is an output, no error: any error answer, of whatever type or shape and even next to
    an output, is a refusal, and no rule judges its output."""
    return "output" in resp and resp.get("error") is None


def _steps(req: Request, resp: Response) -> list[dict[str, Any]] | None:
    """The answer's steps, one per event and each well formed (CCR-1); None where they are not.
    Every invariant of the area asks this of the same answer: the last answer's is kept (by identity,
    the answer held so that it cannot be another's), not validated again for each."""
    global _LAST
    last = _LAST
    if last[0] is req and last[1] is resp:
        return last[2]
    out = resp.get("output")
    steps = out.get("steps") if accepted(resp) and isinstance(out, dict) else None
    if not isinstance(steps, list) or len(steps) != len(req["input"]["events"]) or _bad_step(steps):
        steps = None
    _LAST = (req, resp, steps)
    return steps


_LAST: tuple[object, object, list[dict[str, Any]] | None] = (None, None, None)


def _bad_step(steps: list[Any]) -> str | None:
    for i, s in enumerate(steps):
        if not isinstance(s, dict) or any(k not in KEYS for k in s):
            return f"steps[{i}] = {s!r} has keys outside {KEYS}"
        lists = [s.get(k, []) for k in ("triggered", "completed", "retained")]
        if not all(_ids(ids) for ids in lists) or not _aborts(s.get("aborted", {})):
            return f"steps[{i}]: ids must be lists of integers and aborted an object of id to reason"
        if "ack" in s and s["ack"] not in ACKS:
            return f"steps[{i}]: ack {s['ack']!r} is not one of {ACKS}"
        if "notified" in s and not _notes(s["notified"]):
            return (f"steps[{i}]: notified must be a list of {{task, complete[, last_subsumed]}} and {{task, aborted}} "
                    "objects")
    return None


def _notes(value: object) -> bool:
    """``notified``: a list of notifications, each naming a task and the checkpoint completed or aborted."""
    def note(n: object) -> bool:
        if not isinstance(n, dict) or not isinstance(n.get("task"), str):
            return False
        keys = set(n) - {"task"}
        return (keys in ({"complete"}, {"complete", "last_subsumed"}, {"aborted"})
                and all(type(n[k]) is int for k in keys))
    return isinstance(value, list) and all(note(n) for n in value)


def _ids(value: object) -> bool:
    """A list of checkpoint ids (JSON integers; a bool is none)."""
    return isinstance(value, list) and all(type(x) is int for x in value)


def _aborts(value: object) -> bool:
    """``aborted``: an object of checkpoint id (an integer's decimal digits, as JSON keys are strings) to
    reason."""
    return isinstance(value, dict) and all(_id_key(k) and isinstance(r, str) for k, r in value.items())


def _id_key(key: object) -> bool:
    return isinstance(key, str) and key.isascii() and key.lstrip("-").isdigit() and str(int(key)) == key


@BOOK.invariant("CCR-1", AREA,
                "The answer holds one step per event; a step's keys are triggered, queued, rejected, ack "
           "(SUCCESS, DUPLICATE, UNKNOWN, DISCARDED), completed, aborted, retained, job_failed.",
           "docs/protocol/v1.md checkpoint.coordinator")
def shape(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    if not accepted(resp):
        return []
    out = resp["output"]
    steps = out.get("steps") if isinstance(out, dict) else None
    if not isinstance(steps, list) or len(steps) != len(req["input"]["events"]):
        return [Violation("CCR-1", "the output must hold one step per event")]
    problem = _bad_step(steps)
    return [Violation("CCR-1", problem)] if problem else []


def _walk(req: Request, steps: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], dict[str, Any], dict[int, int]]]:
    """(event, step, pending id -> trigger time) after each step."""
    pending: dict[int, int] = {}
    for event, step in zip(req["input"]["events"], steps, strict=True):
        for cid in step.get("triggered", []):
            pending[cid] = event["at"]
        for cid in [*step.get("completed", []), *(int(k) for k in step.get("aborted", {}))]:
            pending.pop(cid, None)
        yield event, step, pending


@BOOK.invariant("CCR-2", AREA, "Checkpoint ids only increase: every checkpoint gets a new id, larger than all before.",
           f"{ART} (translated): 'the globally increasing checkpointID'; CheckpointCoordinator Javadoc")
def ids_increase(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    steps = _steps(req, resp)
    last = 0
    for i, step in enumerate(steps or []):
        for cid in step.get("triggered", []):
            if cid <= last:
                return [Violation("CCR-2", f"steps[{i}] triggers {cid} after {last}")]
            last = cid
    return []


@BOOK.invariant("CCR-3", AREA, "A checkpoint completes only after every task acknowledged it, and at most once; a "
           "checkpoint is completed or aborted, never both.",
           f"{ART} (translated): 'once a PendingCheckpoint has been fully acknowledged it can be turned into a "
           "CompletedCheckpoint'; CheckpointCoordinator Javadoc")
def complete_after_all_acks(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    steps = _steps(req, resp)
    if steps is None:
        return []
    tasks = set(req["input"]["tasks"])
    acked: dict[int, set[str]] = {}
    done: dict[int, str] = {}
    for i, (event, step) in enumerate(zip(req["input"]["events"], steps, strict=True)):
        if "ack" in event:
            acked.setdefault(event["checkpoint"], set()).add(event["ack"])
        ends = [(c, "completed") for c in step.get("completed", [])] + [(int(k), "aborted") for k in step.get("aborted",
                                                                                                           {})]
        for cid, how in ends:
            if cid in done:
                return [Violation("CCR-3", f"steps[{i}]: checkpoint {cid} {how} after it was {done[cid]}")]
            done[cid] = how
            if how == "completed" and acked.get(cid, set()) != tasks:
                missing = sorted(tasks - acked.get(cid, set()))
                return [Violation("CCR-3", f"steps[{i}]: checkpoint {cid} completed without acks from {missing}")]
    return []


def _savepoints(req: Request) -> bool:
    return any(e.get("trigger") in ("savepoint", "sync_savepoint") for e in req["input"]["events"])


@BOOK.invariant("CCR-4", AREA, "Without savepoints, at most max_concurrent checkpoints are pending at any time (more "
           "requests wait in the queue).", "CheckpointCoordinatorConfiguration max concurrent checkpoints; "
           f"{ART} (translated): a trigger is cancelled 'if it is not a forced checkpoint and the queued checkpoints "
           "already exceed the maximum number'")
def max_concurrent(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    steps = _steps(req, resp)
    if steps is None or _savepoints(req):
        return []
    limit = req["input"].get("config", {}).get("max_concurrent", 1)
    for i, (_e, _s, pending) in enumerate(_walk(req, steps)):
        if len(pending) > limit:
            return [Violation("CCR-4", f"steps[{i}]: {len(pending)} pending checkpoints {sorted(pending)}, "
                                       f"max_concurrent is {limit}")]
    return []


@BOOK.invariant("CCR-5", AREA,
                "Without savepoints, a completed checkpoint subsumes every older pending one: they end in "
           "the same step, aborted (CHECKPOINT_SUBSUMED, unless a timeout due earlier in that step ended them first).",
           f"{ART} (translated): 'if cckp1 is not a savepoint, store it in the CompletedCheckpointStore, and cancel "
           "the PendingCheckpoints whose checkpoint time is earlier than cckp1'; "
           "CheckpointCoordinator.dropSubsumedCheckpoints")
def completion_subsumes(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    steps = _steps(req, resp)
    if steps is None or _savepoints(req):
        return []
    before: dict[int, int] = {}
    for i, (_event, step, pending) in enumerate(_walk(req, steps)):
        for cid in step.get("completed", []):
            aborted = step.get("aborted", {})
            older = [p for p in before if p < cid and (str(p) not in aborted or aborted[str(p)] not in (
                "CHECKPOINT_SUBSUMED", "CHECKPOINT_EXPIRED"))]
            if older:
                return [Violation("CCR-5", f"steps[{i}]: checkpoint {cid} completed but older {older[0]} was not "
                                           "aborted as CHECKPOINT_SUBSUMED")]
        before = dict(pending)
    return []


@BOOK.invariant("CCR-6", AREA, "The completed-checkpoint store never holds more than `retained` checkpoints.",
           "CompletedCheckpointStore Javadoc; state.checkpoints.num-retained")
def store_bounded(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    retained = req["input"].get("config", {}).get("retained", 1)
    for i, step in enumerate(_steps(req, resp) or []):
        ids = step.get("retained")
        if ids is not None and len(ids) > retained:
            return [Violation("CCR-6", f"steps[{i}]: the store holds {ids}, retained is {retained}")]
    return []


def _intermediate_savepoints(req: Request, steps: list[dict[str, Any]]) -> set[int]:
    """The ids of intermediate savepoints (``"trigger": "savepoint"``) known for certain: a step of such an
    event that triggered exactly one checkpoint and rejected nothing, with no request queued before or after
    it (a timer's periodic checkpoint could otherwise be the one triggered)."""
    out: set[int] = set()
    queued_before = False
    for event, step in zip(req["input"]["events"], steps, strict=False):
        triggered = step.get("triggered", [])
        if (event.get("trigger") == "savepoint" and not queued_before and "queued" not in step
                and "rejected" not in step and len(triggered) == 1):
            out.add(triggered[0])
        queued_before = "queued" in step
    return out


@BOOK.invariant("CCR-10", AREA,
                "From Flink 1.15 an intermediate savepoint (one not taken by stop-with-savepoint) never "
           "enters the completed-checkpoint store, which recovery restores from.",
           "Flink docs, Savepoints: 'Starting from Flink 1.15 intermediate savepoints (savepoints other than created "
           "with stop-with-savepoint) are not used for recovery and do not commit any side effects'")
def savepoints_not_stored(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    steps = _steps(req, resp)
    if steps is None or SAVEPOINTS_NOT_STORED.before(version):
        return []
    savepoints = _intermediate_savepoints(req, steps)
    for i, step in enumerate(steps):
        stored = savepoints.intersection(step.get("retained", []))
        if stored:
            return [Violation("CCR-10", f"steps[{i}]: the store holds savepoint {min(stored)}: {step['retained']}")]
    return []


@BOOK.invariant("CCR-7", AREA,
                "A pending checkpoint that is neither completed nor aborted within timeout_ms of its trigger "
           "expires: no checkpoint stays pending at an event timeout_ms or more after its trigger.",
           "CheckpointCoordinator Javadoc (checkpoint timeout); execution.checkpointing.timeout")
def timeouts(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    steps = _steps(req, resp)
    if steps is None:
        return []
    timeout = req["input"].get("config", {}).get("timeout_ms", 600000)
    for i, (event, _step, pending) in enumerate(_walk(req, steps)):
        if not pending or event["at"] - min(pending.values()) < timeout:
            continue
        late = [c for c, t in pending.items() if event["at"] - t >= timeout]
        if late:
            return [Violation("CCR-7", f"steps[{i}] at {event['at']}: checkpoint {late[0]} is still pending "
                                       f"{event['at'] - pending[late[0]]} ms after its trigger (timeout {timeout})")]
    return []


@BOOK.invariant("CCR-8", AREA, "A task acknowledging a pending checkpoint it already acknowledged gets DUPLICATE.",
           "PendingCheckpoint.acknowledgeTask Javadoc")
def duplicate_acks(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    steps = _steps(req, resp)
    if steps is None:
        return []
    seen: set[tuple[int, str]] = set()
    restarted: set[str] = set()
    for i, (event, step) in enumerate(zip(req["input"]["events"], steps, strict=True)):
        if "restart" in event:
            restarted.add(event["restart"])
        if "ack" in event:
            key = (event["checkpoint"], event["ack"])
            if key in seen and "ack" in step and step["ack"] != "DUPLICATE" and event["ack"] not in restarted:
                return [Violation("CCR-8", f"steps[{i}]: a second ack of {key[0]} by {key[1]} answered {step['ack']}")]
            if step.get("ack") == "SUCCESS":
                seen.add(key)
    return []


BOOK.flink_violates("CCR-6", "1 task, retained 1: checkpoint 1, savepoint 2, ack 1, ack 2 leaves the "
               "store holding [1, 2] (up to 1.14 the store keeps savepoints, and a savepoint never subsumes the "
               "latest checkpoint)", before=SAVEPOINTS_NOT_STORED)


UNLIMITED = 2147483647  # CheckpointFailureManager.UNLIMITED_TOLERABLE_FAILURE_NUMBER


def _counted_reasons(version: FlinkVersion) -> frozenset[str]:
    """The abort reasons ``CheckpointFailureManager`` counts at ``version``: only Flink's code decides
    which ``CheckpointFailureReason`` values are 'IOException on the Job Manager, failures in the async
    phase on the Task Managers and checkpoint expiration due to a timeout'."""
    from oracle.coordinator_rules import rules_for

    return rules_for(version).counted


def _threshold_judgeable(req: Request, steps: list[dict[str, Any]]) -> tuple[int, int] | None:
    """The tolerable number and how many steps CCR-9 judges: a valid finite tolerance, and the steps before the
    first savepoint trigger (its failures count by other rules) and before the first step that refused a trigger
    before it had an id (such a failure counts in 1.14+ without being visible as an abort)."""
    n = req["input"].get("config", {}).get("tolerable_failures", 0)
    if type(n) is not int or not 0 <= n < UNLIMITED:
        return None
    limit = next((i for i, e in enumerate(req["input"]["events"])
                  if e.get("trigger") in ("savepoint", "sync_savepoint")), len(steps))
    return n, next((i for i, s in enumerate(steps[:limit]) if s.get("rejected")), min(limit, len(steps)))


@BOOK.invariant("CCR-9", AREA, "The job fails exactly on the (n+1)-th consecutive counted checkpoint failure "
           "(n = tolerable_failures): each checkpoint aborted for a counted reason counts once when its id is "
           "above the latest completed one; a completion of a newer checkpoint, and the job failure itself, "
           "reset the count (failures in the same step after the one that failed the job count anew). "
           "Which reasons count (declined, async exception, expired, IO exception 1.14+, "
           "finalize failure 1.15+) only Flink's code decides (CheckpointFailureManager); the steps from the "
           "first savepoint trigger or refused trigger on, and requests with a step where a completion and a "
           "counted abort meet, are not judged.",
           "execution.checkpointing.tolerable-failed-checkpoints (Flink configuration docs: 'The "
           "tolerable checkpoint consecutive failure number. If set to 0, that means we do not tolerance any "
           "checkpoint failure.'); CheckpointFailureManager")
def failure_threshold(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    steps = _steps(req, resp)
    judged = None if steps is None else _threshold_judgeable(req, steps)
    if steps is None or judged is None:
        return []
    n, limit = judged
    counted_reasons = _counted_reasons(version)
    count, last_success = 0, 0
    for i, step in enumerate(steps[:limit]):
        counted = [int(k) for k, r in step.get("aborted", {}).items() if r in counted_reasons and int(k) > last_success]
        newer = [c for c in step.get("completed", []) if c > last_success]
        if counted and newer:
            return []  # the order inside the step decides; only the trace of Flink's calls shows it
        count += len(counted)
        expected = count > n
        if expected != ("job_failed" in step):
            return [Violation("CCR-9", f"steps[{i}]: {count} consecutive counted failures with tolerable_failures "
                                       f"{n}, yet the job {'did not fail' if expected else 'failed'}")]
        if expected:
            # the job fails on the (n+1)-th failure and the count starts again: the step's failures after
            # that one already count towards the next run
            count -= n + 1
            if count > n:
                return []  # the job failed twice within one step, which a step shows once
        elif newer:
            count = 0
        last_success = max([last_success, *newer])
    return []


def _documented_config(req: Request, version: FlinkVersion) -> bool:
    """The coordinator settings Flink's documentation allows: a timeout of at least 10 ms
    (CheckpointConfig.MINIMAL_CHECKPOINT_TIME), a pause of at least 0, at least one concurrent
    checkpoint (only one with unaligned checkpoints), no negative number of tolerable failures, at
    least one retained checkpoint."""
    config = {**CONFIG_DEFAULTS, **req["input"].get("config", {})}
    return (config["timeout_ms"] >= 10 and config["min_pause_ms"] >= 0 and config["max_concurrent"] >= 1
            and config["tolerable_failures"] >= 0 and config["retained"] >= 1
            and not (config["unaligned"] and config["max_concurrent"] > 1))


BOOK.accepted("CCR-ACCEPTED", AREA, _documented_config, "whose settings the documentation allows",
              "CheckpointConfig Javadoc (setCheckpointTimeout: at least MINIMAL_CHECKPOINT_TIME, 10 ms; "
              "setMinPauseBetweenCheckpoints: not negative; setMaxConcurrentCheckpoints: positive; "
              "setTolerableCheckpointFailureNumber: not negative); Flink docs 'Unaligned checkpoints' (no concurrent "
              "checkpoints); state.checkpoints.num-retained: at least one")


# ---- the commit phase and the coordinator's end (protocol 4) --------------------------------------


def _told(step: dict[str, Any], kind: str) -> dict[int, list[str]]:
    """The tasks each checkpoint id was notified of, for ``kind`` ``complete`` or ``aborted``, in order."""
    out: dict[int, list[str]] = {}
    for note in step.get("notified", []):
        if kind in note:
            out.setdefault(note[kind], []).append(note["task"])
    return out


def _notifies(steps: list[dict[str, Any]]) -> bool:
    """Whether the answer shows notifications at all (an implementation that does not speak protocol 4's
    ``checkpoint.coordinator.notified`` sends none, and is not judged on them)."""
    return any("notified" in s for s in steps)


@BOOK.invariant("CCR-11", AREA,
                "After a checkpoint completes every task is told so, once, in the same step; no task is told of a "
                "completion that did not happen there. From 1.15 an intermediate savepoint tells no task to commit.",
                f"{ART} (translated): the commit phase, 'the coordinator sends notifyCheckpointComplete to all the "
                "vertices'; CheckpointListener.notifyCheckpointComplete Javadoc; Flink docs, Savepoints: 'Starting "
                "from Flink 1.15 intermediate savepoints ... do not commit any side effects'")
def commit_notified(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    steps = _steps(req, resp)
    if steps is None or not _notifies(steps):
        return []
    tasks = sorted(req["input"]["tasks"])
    savepoints = _savepoints(req)
    intermediate = set() if SAVEPOINTS_NOT_STORED.before(version) else _intermediate_savepoints(req, steps)
    for i, step in enumerate(steps):
        told = _told(step, "complete")
        completed = step.get("completed", [])
        for cid in told:
            if cid not in completed:
                return [Violation("CCR-11", f"steps[{i}]: tasks told that {cid} completed, which did not complete")]
        for cid in completed:
            if cid in intermediate and cid in told:
                return [Violation("CCR-11", f"steps[{i}]: tasks told to commit intermediate savepoint {cid}")]
            if not savepoints and sorted(told.get(cid, [])) != tasks:
                return [Violation("CCR-11", f"steps[{i}]: checkpoint {cid} completed; told {told.get(cid, [])}, "
                                            f"the tasks are {tasks}")]
    return []


@BOOK.invariant("CCR-12", AREA,
                "Every checkpoint aborted in a step is reported aborted to every task, once, in that step, and only "
                "an aborted one is.",
                "CheckpointListener.notifyCheckpointAborted Javadoc ('called once a checkpoint has been aborted'); "
                "CheckpointCoordinator.abortPendingCheckpoint")
def abort_notified(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    steps = _steps(req, resp)
    if steps is None or not _notifies(steps):
        return []
    tasks = sorted(req["input"]["tasks"])
    for i, step in enumerate(steps):
        told = _told(step, "aborted")
        aborted = {int(k) for k in step.get("aborted", {})}
        for cid in sorted(aborted | set(told)):
            if sorted(told.get(cid, [])) != (tasks if cid in aborted else []):
                return [Violation("CCR-12", f"steps[{i}]: checkpoint {cid} {'aborted' if cid in aborted else 'not'}"
                                            f" aborted; tasks told: {told.get(cid, [])}")]
    return []


@BOOK.invariant("CCR-13", AREA,
                "Once the coordinator is shut down nothing stays pending and no checkpoint is triggered or completed "
                "any more; once the checkpoint ID counter fails no checkpoint is triggered.",
                "CheckpointCoordinator.shutdown Javadoc ('After this method has been called, the coordinator does "
                f"not accept and further messages and cannot trigger any further checkpoints'); {ART} (translated): "
                "a trigger is refused when the coordinator is shut down, and fails when the ID counter fails")
def nothing_after_the_end(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    steps = _steps(req, resp)
    if steps is None:
        return []
    shut = counter = False
    for i, (event, step, pending) in enumerate(_walk(req, steps)):
        if shut and (step.get("triggered") or step.get("completed")):
            return [Violation("CCR-13", f"steps[{i}]: a checkpoint triggered or completed after the shutdown")]
        if counter and step.get("triggered"):
            return [Violation("CCR-13", f"steps[{i}]: checkpoint {step['triggered'][0]} triggered after the ID counter "
                                        "failed")]
        shut = shut or "shutdown" in event
        counter = counter or "id_counter" in event
        if shut and pending:
            return [Violation("CCR-13", f"steps[{i}]: checkpoints {sorted(pending)} still pending after the shutdown")]
    return []
