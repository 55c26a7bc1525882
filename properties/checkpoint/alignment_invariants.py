"""The documented barrier-alignment rules, as checks on any implementation's own trace.

Sources: a seed article on fault tolerance (a Japanese translation of Flink's former "Data Streaming
Fault Tolerance" page: barriers, alignment, exactly-once against at-least-once), Flink's documentation
"Stateful Stream Processing / Checkpointing" (barrier alignment: "records from streams that already
delivered barrier n are buffered ... once the last stream delivered barrier n the operator emits all
pending outgoing records, snapshots, emits barrier n"; at-least-once: "alignment ... is skipped"),
and the Javadoc of ``SingleCheckpointBarrierHandler`` / ``CheckpointBarrierTracker``. Each check
replays the arrivals against the trace: which records had arrived before a barrier on each channel,
and which the task had processed when it snapshotted.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from oracle.alignment import AFTER_FINISH_ON, CHANNEL_SETS
from oracle.alignment import ALIGNMENT as AREA
from oracle.versions import FlinkVersion
from properties.rules import Request, Response, RuleBook, Violation

BOOK = RuleBook()  # the rules this module declares, named by its areas' declarations

ART = "seed article on fault tolerance"
DOCS = "Flink docs, Checkpointing (barrier alignment)"
REASONS = {"CHECKPOINT_DECLINED_SUBSUMED", "CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER",
           "CHECKPOINT_DECLINED_INPUT_END_OF_STREAM"}
BOOK.differential(AREA, "ALIGN")


def accepted(resp: Response) -> bool:
    """The answer is an output, no error: any error answer, of whatever type or shape and even next to
    an output, is a refusal, and no rule judges its output."""
    return "output" in resp and resp.get("error") is None


def _trace(resp: Response) -> list[dict[str, Any]] | None:
    out = resp.get("output")
    trace = out.get("trace") if accepted(resp) and isinstance(out, dict) else None
    return trace if isinstance(trace, list) and not _malformed(trace) else None


def _pair(value: object, second: type) -> bool:
    """``[int, second]``: a process step's [channel, record], an abort's [checkpoint, reason]."""
    return (isinstance(value, list) and len(value) == 2 and type(value[0]) is int
            and isinstance(value[1], second))


def _malformed(trace: list[Any]) -> str | None:
    for i, step in enumerate(trace):
        ok = isinstance(step, dict) and len(step) == 1 and (
            ("process" in step and _pair(step["process"], str))
            or (type(step.get("snapshot")) is int) or (type(step.get("emit_barrier")) is int)
            or ("abort" in step and _pair(step["abort"], str))
            or isinstance(step.get("fail"), str))
        if not ok:
            return f"trace[{i}] = {step!r} is not a process, snapshot, emit_barrier, abort or fail step"
        if "snapshot" in step and (i + 1 >= len(trace) or trace[i + 1] != {"emit_barrier": step["snapshot"]}):
            return f"trace[{i}] snapshot {step['snapshot']} is not followed by emit_barrier {step['snapshot']}"
        if "fail" in step and i != len(trace) - 1:
            return f"trace[{i}] fail is not the last step"
    return None


@BOOK.invariant("ALIGN-1", AREA, "The trace is a list of process [channel, record], snapshot n immediately followed by "
           "emit_barrier n, abort [n, reason] and (last) fail steps.", "docs/protocol/v1.md checkpoint.alignment")
def shape(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    if not accepted(resp):
        return []
    out = resp["output"]
    trace = out.get("trace") if isinstance(out, dict) else None
    if not isinstance(trace, list):
        return [Violation("ALIGN-1", "the output must hold a trace list")]
    problem = _malformed(trace)
    return [Violation("ALIGN-1", problem)] if problem else []


def _arrivals(req: Request) -> dict[tuple[int, str], int]:
    """Each record (channel, value) -> its arrival index (records are unique in generated requests)."""
    return {(e["channel"], e["record"]): i for i, e in enumerate(req["input"]["events"]) if "record" in e}


def _unique_records(req: Request) -> bool:
    recs = [(e["channel"], e["record"]) for e in req["input"]["events"] if "record" in e]
    return len(recs) == len(set(recs))


@BOOK.invariant("ALIGN-2", AREA, "Every record is processed at most once, and the records of one channel in their "
           "arrival order; at-least-once processes every record, in arrival order (it never blocks).",
           f"{ART} (translated): 'it processes the records from the input buffer before the records from the streams'; "
           "without alignment 'the operator keeps processing all inputs, even if some checkpoint barriers for "
           f"checkpoint n have arrived'; {DOCS}")
def records_in_order(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    trace = _trace(resp)
    if trace is None or not _unique_records(req):
        return []
    arrival = _arrivals(req)
    done = [tuple(s["process"]) for s in trace if "process" in s]
    if len(done) != len(set(done)):
        return [Violation("ALIGN-2", "a record is processed twice")]
    unknown = [d for d in done if d not in arrival]
    if unknown:
        return [Violation("ALIGN-2", f"processed {list(unknown[0])}, which never arrived")]
    last: dict[int, int] = {}
    for ch, rec in done:
        if arrival[(ch, rec)] < last.get(ch, -1):
            return [Violation("ALIGN-2", f"channel {ch}: record {rec!r} processed after a later record")]
        last[ch] = arrival[(ch, rec)]
    failed = any("fail" in s for s in trace)
    if req["input"]["mode"] == "at_least_once" and not failed:
        want = sorted(arrival, key=arrival.__getitem__)
        if done != want:
            first = next(i for i, (d, w) in enumerate(zip([*done, None], want, strict=False)) if d != w)
            return [Violation("ALIGN-2", f"at-least-once: the record processed at position {first} is not the "
                                         f"record that arrived there ({list(want[first])})")]
    return []


def _snapshots(req: Request, trace: list[dict[str, Any]]) -> Iterator[tuple[int, set[tuple[int, str]]]]:
    """Each snapshot id with the records processed before it."""
    done: set[tuple[int, str]] = set()
    for step in trace:
        if "process" in step:
            done.add(tuple(step["process"]))
        elif "snapshot" in step:
            yield step["snapshot"], set(done)


def _before_barrier(req: Request, cid: int) -> tuple[dict[int, set[tuple[int, str]]], set[int]]:
    """Per channel, the records that arrived before its first barrier ``cid`` (or its end), and the
    channels that delivered neither."""
    before: dict[int, set[tuple[int, str]]] = {}
    closed: set[int] = set()
    for e in req["input"]["events"]:
        ch = e["channel"]
        if ch in closed:
            continue
        if "record" in e:
            before.setdefault(ch, set()).add((ch, e["record"]))
        elif e.get("barrier") == cid or "end" in e:
            closed.add(ch)
    return before, set(range(req["input"]["channels"])) - closed


@BOOK.invariant("ALIGN-3", AREA,
                "Exactly-once: the snapshot for checkpoint n reflects exactly the records that arrived "
           "before barrier n on every channel (no record after barrier n on its channel is processed before the "
           "snapshot, none before it is left out); every channel delivered barrier n or ended.",
           f"{ART}: 'all updates to the state from records before the barriers will have been made, and no updates "
           f"that depend on records from after the barriers have been applied'; {DOCS}")
def exactly_once_snapshot(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    trace = _trace(resp)
    if trace is None or req["input"]["mode"] != "exactly_once" or not _unique_records(req):
        return []
    for cid, done in _snapshots(req, trace):
        before, missing = _before_barrier(req, cid)
        if missing:
            return [Violation("ALIGN-3", f"snapshot {cid} before channel(s) {sorted(missing)} delivered barrier "
                                         f"{cid} or ended")]
        want = set().union(*before.values()) if before else set()
        extra, lost = done - want, want - done
        if extra:
            return [Violation("ALIGN-3", f"snapshot {cid} includes {sorted(extra)[0]}, which arrived after barrier "
                                         f"{cid} on its channel")]
        if lost:
            return [Violation("ALIGN-3", f"snapshot {cid} misses {sorted(lost)[0]}, which arrived before barrier "
                                         f"{cid} on its channel")]
    return []


@BOOK.invariant("ALIGN-4", AREA, "At-least-once, each channel delivering barriers in increasing id order: the snapshot "
           "for checkpoint n includes every record that arrived before barrier n on every channel (it may include "
           "later ones); it comes only once every open channel delivered barrier n.",
           f"{ART}: 'Checkpoint snapshots are still drawn as soon as an operator has seen the checkpoint barrier "
           f"from each input'; {DOCS}")
def at_least_once_snapshot(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    trace = _trace(resp)
    if (trace is None or req["input"]["mode"] != "at_least_once" or not _unique_records(req)
            or not monotonic_barriers(req)):
        return []
    for cid, done in _snapshots(req, trace):
        before, missing = _before_barrier(req, cid)
        if missing:
            return [Violation("ALIGN-4", f"snapshot {cid} before channel(s) {sorted(missing)} delivered barrier "
                                         f"{cid} or ended")]
        lost = (set().union(*before.values()) if before else set()) - done
        if lost:
            return [Violation("ALIGN-4", f"snapshot {cid} misses {sorted(lost)[0]}, which arrived before barrier "
                                         f"{cid}")]
    return []


@BOOK.invariant("ALIGN-5", AREA, "Exactly-once: checkpoints are snapshotted in increasing id order, each at most once, "
           "and a checkpoint is either snapshotted or aborted, never both.",
           f"{ART} (translated): 'barriers never overtake records; the flow is strictly in line'; "
           "SingleCheckpointBarrierHandler Javadoc")
def exactly_once_ids(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    trace = _trace(resp)
    if trace is None or req["input"]["mode"] != "exactly_once":
        return []
    snapped: list[int] = []
    aborted: set[int] = set()
    for step in trace:
        if "snapshot" in step:
            cid = step["snapshot"]
            if snapped and cid <= snapped[-1]:
                return [Violation("ALIGN-5", f"snapshot {cid} after snapshot {snapped[-1]}")]
            if cid in aborted:
                return [Violation("ALIGN-5", f"checkpoint {cid} is snapshotted after it was aborted")]
            snapped.append(cid)
        elif "abort" in step:
            cid = step["abort"][0]
            if cid in snapped:
                return [Violation("ALIGN-5", f"checkpoint {cid} is aborted after its snapshot")]
            aborted.add(cid)
    return []


@BOOK.invariant("ALIGN-6", AREA, "Aborts name a CheckpointFailureReason of barrier handling (subsumed, cancellation "
           "barrier, end of input).", "CheckpointFailureReason; CheckpointBarrierHandler.notifyAbort")
def abort_reasons(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    trace = _trace(resp)
    for step in trace or []:
        if "abort" in step and step["abort"][1] not in REASONS:
            return [Violation("ALIGN-6", f"abort reason {step['abort'][1]!r}")]
    return []


def monotonic_barriers(req: Request) -> bool:
    """Each channel delivers barriers in increasing id order, as every upstream task emits them."""
    last: dict[int, int] = {}
    for e in req["input"]["events"]:
        if "barrier" in e:
            if e["barrier"] <= last.get(e["channel"], 0):
                return False
            last[e["channel"]] = e["barrier"]
    return True


@BOOK.invariant("ALIGN-7", AREA, "Barrier handling never fails the task when each channel delivers barriers in "
           "increasing id order (as every upstream task emits them).", f"{ART} (translated): 'several barriers from "
           "different snapshots can be in the stream at the same time'; CheckpointBarrierHandler Javadoc")
def never_fails(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    trace = _trace(resp)
    if trace is None or not monotonic_barriers(req):
        return []
    failed = next((s["fail"] for s in trace if "fail" in s), None)
    return [Violation("ALIGN-7", f"the task failed with {failed}")] if failed else []


BOOK.flink_violates("ALIGN-7",
               "at-least-once, 2 channels, checkpoints after finish on: B0:1, E0, B1:2, E1 fails the task with "
               "IllegalStateException (CheckpointBarrierTracker ends an alignment the single-channel fast path "
               "already closed: 'Alignment time is less than zero')", since="1.14")


def finished_inputs_excluded(inp: Request, version: FlinkVersion) -> bool:
    """Whether an input that ended no longer holds a checkpoint back: checkpointing with finished tasks,
    "possible starting from Flink 1.14" and "enabled by default since 1.15" (Flink docs, Checkpointing
    with parts of the graph finished): the request's ``checkpoints_after_finish``, else that default."""
    if version < CHANNEL_SETS.at:
        return False
    flag = inp.get("checkpoints_after_finish")
    return flag if isinstance(flag, bool) else version >= AFTER_FINISH_ON.at


def settled(inp: Request, version: FlinkVersion, upto: int | None = None) -> list[tuple[int, int]]:
    """The checkpoints whose alignment the documents settle among ``events[:upto]``, each with the index
    of the arrival that completes it: barrier n arrives on every channel (a channel that ended counts as
    having delivered it when finished inputs are excluded; otherwise no end may come first), nothing
    but records (and those ends) arrives between the first and the last of them, and neither a newer
    barrier nor a cancel marker of n or newer arrives before. What a newer barrier, a cancel marker or
    an end does to a pending checkpoint otherwise is Flink's code, not its documentation."""
    events, channels = inp["events"][:upto], inp["channels"]
    excluded = finished_inputs_excluded(inp, version)
    out: list[tuple[int, int]] = []
    for n in sorted({e["barrier"] for e in events if "barrier" in e}):
        delivered: set[int] = set()
        started = False
        for i, e in enumerate(events):
            started = started or e.get("barrier") == n
            if "record" in e:
                continue
            if "end" in e and excluded:
                delivered.add(e["channel"])
            elif not started and e.get("barrier", e.get("cancel", n)) < n:
                continue  # an older barrier or cancel marker before: n still starts afresh
            elif started and e.get("barrier") == n and e["channel"] not in delivered:
                delivered.add(e["channel"])
            else:
                break
            if started and len(delivered) == channels:
                out.append((n, i))
                break
    return out


@BOOK.invariant("ALIGN-8", AREA,
                "A checkpoint whose barrier n arrives on every channel, with nothing but records between "
           "the first and the last of them and no barrier or cancel marker of n or newer before them, is snapshotted "
           "(unless the task failed: ALIGN-7); with checkpoints after finish on (1.14+, by default from 1.15), a "
           "channel that ended (before or among them) counts as having delivered it, with it off no end may come "
           "first. Each channel delivering barriers in increasing id order. What a newer barrier, a cancel marker "
           "or an end does to a pending checkpoint otherwise only Flink's code decides.",
           "Flink docs, Stateful Stream Processing (also in the seed article on fault tolerance): 'Once the last "
           "stream has received barrier n, the operator emits all pending outgoing records, and then emits snapshot n "
           "barriers itself'; at-least-once: 'Checkpoint snapshots are still drawn as soon as an operator has seen the "
           "checkpoint barrier from each input'. Flink docs, Checkpointing with parts of the graph finished: 'Starting "
           "from Flink 1.14 it is possible to continue performing checkpoints even if parts of the job graph have "
           "finished processing all data ... enabled by default since 1.15 ... Once the tasks/subtasks are finished, "
           "they do not contribute to the checkpoints any longer'")
def settled_snapshotted(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    trace = _trace(resp)
    if trace is None or any("fail" in s for s in trace) or not monotonic_barriers(req):
        return []
    snapped = {s["snapshot"] for s in trace if "snapshot" in s}
    for n, i in settled(req["input"], version):
        if n not in snapped:
            return [Violation("ALIGN-8", f"checkpoint {n} is never snapshotted, though every channel delivered "
                                         f"barrier {n} or ended by event {i}")]
    return []


BOOK.accepted("ALIGN-ACCEPTED", AREA, lambda _req, _v: True, "of barrier handling",
              "docs/protocol/v1.md checkpoint.alignment: any arrival order of records, barriers and ends of input; "
              "what Flink's handler does with one it cannot handle is part of the answer (a fail step), not a "
              "rejection")
