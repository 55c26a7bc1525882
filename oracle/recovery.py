"""Protocol area ``checkpoint.recovery``: a job fails, recovers from its latest checkpoint, replays.

The job: ``channels`` sources, each reading its own log of records (the ``record`` events of its
channel, in order, over the whole request), feed one keyed counting operator (state: a count per
key; each processed record emits ``[key, new count]`` to the sink). Every request event before
``fail_after`` arrives at the operator as in the alignment area (same input model, same
handlers, so the same trace); then the job fails. Recovery: RC-* in :data:`RULES`.

Exactly-once (aligned) snapshots hold exactly the records before the barriers, so every record is
counted once after recovery; at-least-once snapshots may also hold records that arrived on a channel
after its barrier (it was not blocked), which the replay counts again: never fewer, maybe more.

Each rule is enforced where its ID appears below; ``because(ID)`` says so to an explanation
(:mod:`oracle.explain`), for each part of the answer in the order the job derives it: the checkpoint
restored, each source's offset, each replayed record's output, the counts after the replay (decided
on the answer as a whole, after the rest: their keys are records).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NotRequired, TypedDict, cast

import attrs

from oracle.alignment import AFTER_FINISH_ON, CHANNEL_SETS, AlignmentEvent, AlignmentInput, TraceEntry, parse, run
from oracle.changes import Change
from oracle.explain import at, because, tracing_active
from oracle.protocol import AreaFn, BadRequest
from oracle.rules import Declared
from oracle.versions import FlinkVersion

RECOVERY = "checkpoint.recovery"  # the protocol area (docs/protocol)


class RecoveryInput(AlignmentInput):
    """An input of the alignment area (AlignmentInput), and where the job fails (docs/protocol/v2.md)."""

    fail_after: NotRequired[int]  # 0 ... number of events (absent: all)


class RecoveryOutput(TypedDict):
    restored_from: int | None  # the checkpoint restored (None: none complete)
    offsets: list[int]  # per source: the records it emitted before the checkpoint's barrier
    counts: dict[str, int]  # the operator's state after the replay, by key
    output: list[list[str | int]]  # [key, count] per replayed record, as the operator emits them


# The rules this module encodes, each declared once (its area's declaration, properties/<group>/area.py, says
# what checks each).
RULES: tuple[Declared, ...] = (
    Declared("RC-1",
             "A checkpoint is complete when the operator snapshotted it and every channel delivered its barrier"
             " or ended before the failure.",
             "flinkspec's recovery model, docs/protocol/v2.md (bridge: RecoveryArea.java)"),
    Declared("RC-2",
             "The job restores the complete checkpoint with the highest id (a completed checkpoint subsumes "
             "every older one), or starts from scratch without one.",
             "CheckpointCoordinator.restoreLatestCheckpointedState, "
             "CompletedCheckpointStore.getLatestCheckpoint"),
    Declared("RC-3",
             "The restored state is the operator's at its snapshot: the count of every record processed before "
             "it.",
             "flinkspec's recovery model, docs/protocol/v2.md (bridge: RecoveryArea.java)"),
    Declared("RC-4",
             "Each source rewinds to its offset in the checkpoint (the records it emitted before the barrier, "
             "all once it ended) and replays the rest of its log.",
             "flinkspec's recovery model, docs/protocol/v2.md (bridge: RecoveryArea.java)"),
    Declared("RC-5",
             "The replayed records reach the operator in their original arrival order and are all processed, "
             "each emitting [key, count].",
             "flinkspec's recovery model, docs/protocol/v2.md (bridge: RecoveryArea.java)"),
)

Restore = Callable[[list[TraceEntry], list[AlignmentEvent], int], tuple[int | None, list[int], dict[str, int]]]


def recovery_area(payload: Mapping[str, Any], version: FlinkVersion) -> RecoveryOutput:
    """The checkpoint restored, the sources' offsets, the state after the replay and the sink's output."""
    return recover(payload, version)


def recover(payload: Mapping[str, Any], version: FlinkVersion, restore: Restore | None = None) -> RecoveryOutput:
    """:func:`recovery_area` with the restore step given (``restore(trace, arrivals before the failure,
    channels)``; the mutants plant bugs here)."""
    if not isinstance(payload, Mapping):
        raise BadRequest("input must be an object")
    events = payload.get("events")
    if not isinstance(events, list):
        raise BadRequest("input.events must be an array")
    fail_after = payload.get("fail_after", len(events))
    if type(fail_after) is not int or not 0 <= fail_after <= len(events):
        raise BadRequest(f"input.fail_after = {fail_after!r} must be an integer in [0, {len(events)}]")
    parsed = parse({k: val for k, val in payload.items() if k != "fail_after"}, version)  # validates all events
    trace = run(parsed, version, upto=fail_after)
    channels = payload["channels"]
    explaining = tracing_active()
    if explaining:
        at("restored_from")
    restored, offsets, state = (restore or restore_latest)(trace, events[:fail_after], channels)
    if explaining:
        for ch in range(channels):
            at("offsets", ch)
            because("RC-4", "RC-1")  # rewound to the checkpoint's offset: the barrier's, or all once it ended
    counts = dict(state)
    output: list[list[str | int]] = []
    position = [0] * channels
    for event in events:  # every source replays its log from its offset, in arrival order
        if "record" not in event:
            continue
        ch = event["channel"]
        position[ch] += 1
        if position[ch] > offsets[ch]:
            if explaining:
                at("output", len(output))
                if event["record"] in state:
                    because("RC-3")  # its count goes on from the restored one
                because("RC-5", "RC-4")  # the next record replayed
            counts[event["record"]] = counts.get(event["record"], 0) + 1
            output.append([event["record"], counts[event["record"]]])
    if explaining:
        at("output", len(output))  # a record replayed beyond Flink's departs here
        because("RC-5", "RC-4")
        # the counts, last: a map keyed by records (data), so it is decided as a part of the answer
        # as a whole, which then departs by which of its fields differ ("differs in counts")
        at()
        because("RC-3", "RC-5")  # the restored state, then the replay
    return {"restored_from": restored, "offsets": offsets, "counts": dict(sorted(counts.items())),
            "output": output}


def restore_latest(trace: list[TraceEntry], before: list[AlignmentEvent], channels: int,
                   ) -> tuple[int | None, list[int], dict[str, int]]:
    """RC-1 ... RC-4: the checkpoint restored (None: none), each source's offset, the restored counts."""
    return restore_from(trace, before, channels, latest=True)


def restore_from(trace: list[TraceEntry], before: list[AlignmentEvent], channels: int, *, latest: bool,
                 ) -> tuple[int | None, list[int], dict[str, int]]:
    """The latest (or, for a mutant, the oldest) complete checkpoint's id, offsets and counts."""
    snapshots: dict[int, dict[str, int]] = {}
    processed: dict[str, int] = {}
    for step in trace:
        if "process" in step:
            key = cast(str, step["process"][1])  # [channel, record]
            processed[key] = processed.get(key, 0) + 1
        elif "snapshot" in step:
            snapshots.setdefault(step["snapshot"], dict(processed))
    because("RC-2")  # the latest checkpoint that is complete (RC-1), else none
    for cid in sorted(snapshots, reverse=latest):
        offsets = _offsets(before, channels, cid)
        because("RC-1")
        if offsets is not None:
            return cid, offsets, snapshots[cid]
    return None, [0] * channels, {}


def _offsets(before: list[AlignmentEvent], channels: int, cid: int) -> list[int] | None:
    """Records each source emitted before barrier ``cid`` (all, if it ended); None if some source
    neither delivered barrier ``cid`` nor ended before the failure (RC-1: not complete)."""
    emitted = [0] * channels
    offsets: list[int | None] = [None] * channels
    for event in before:
        ch = event["channel"]
        if offsets[ch] is not None:
            continue
        if "record" in event:
            emitted[ch] += 1
        elif event.get("barrier") == cid or "end" in event:
            offsets[ch] = emitted[ch]
    if any(o is None for o in offsets):
        return None
    return [o for o in offsets if o is not None]


# the areas this module answers, by name (oracle.AREAS)
ENTRIES: dict[str, AreaFn] = {RECOVERY: recovery_area}

# the changes of Flink's behaviour in this area: the barrier handlers' (oracle.alignment), shown by
# recovery inputs
CHANGES: dict[str, tuple[Change, ...]] = {RECOVERY: (
    attrs.evolve(CHANNEL_SETS, what="barrier handlers track channel sets; checkpoints-after-finish option",
                 witnesses=({"mode": "at_least_once", "channels": 2, "fail_after": 3,
                             "events": [{"channel": 1, "end": True}, {"channel": 0, "barrier": 1},
                                        {"channel": 0, "record": "a"}]},
                            {"mode": "exactly_once", "channels": 2,
                             "events": [{"channel": 1, "barrier": 1}, {"channel": 0, "end": True}]})),
    AFTER_FINISH_ON,
)}
