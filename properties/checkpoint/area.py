"""The checkpoint areas: barrier alignment in a task, the coordinator's checkpoints, a job's
recovery from its latest checkpoint, where a job's checkpoints and savepoints go, and what a keyed state
backend's two-part snapshots hold."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from oracle import alignment, coordinator
from oracle import checkpoint_ha as ha_oracle
from oracle import checkpoint_snapshot as snapshot_oracle
from oracle import checkpoint_storage as storage_oracle
from oracle import recovery as recovery_oracle
from properties.area import AnswerShape, Area, Checked, ExtraCorpus, OptionDefault, OracleRules, checked, scenarios
from properties.checkpoint import (
    alignment_invariants,
    alignment_strategies,
    coordinator_invariants,
    coordinator_strategies,
    ha,
    mutants,
    recovery,
    snapshot_invariants,
    snapshot_mutants,
    snapshot_strategies,
    storage_invariants,
    storage_mutants,
    storage_strategies,
)
from properties.features import (
    AnswerFeature,
    Feature,
    Output,
    Request,
    events_of,
    has_field,
    input_of,
    with_input,
    without_field,
)
from properties.mutant import of_area
from properties.watermark.strategies import event_count


def _coordinator_defaults_used(req: Request) -> bool:
    inp = input_of(req)
    config = inp.get("config")
    if "config" not in inp:
        return True
    return isinstance(config, Mapping) and any(k not in config for k in coordinator.CONFIG_DEFAULTS)


def _fill_coordinator_defaults(req: Request) -> Request:
    """The settings ``CheckpointCoordinatorConfiguration`` gets when the config leaves them out (the values of
    docs/protocol/v1.md's own example, in its order)."""
    inp = input_of(req)
    config = inp.get("config", {})
    if not isinstance(config, Mapping):
        return req
    return with_input(req, {**inp, "config": {**coordinator.CONFIG_DEFAULTS, **config}})


def _cancel_used(req: Request) -> bool:
    return any(isinstance(e, Mapping) and "cancel" in e for e in events_of(req))


def _strip_cancel(req: Request) -> Request:
    """The events without the cancel markers; a recovery request's ``fail_after`` still cuts the
    sequence behind the same events."""
    inp = input_of(req)
    events = events_of(req)
    kept = [not (isinstance(e, Mapping) and "cancel" in e) for e in events]
    out: dict[str, Any] = {**inp, "events": [e for e, keep in zip(events, kept, strict=True) if keep]}
    fail_after = inp.get("fail_after")
    if type(fail_after) is int and 0 <= fail_after <= len(events):
        out["fail_after"] = sum(kept[:fail_after])
    return with_input(req, out)


def _listed(out: Output, name: str) -> list[Any]:
    items = out.get(name) if isinstance(out, Mapping) else None
    return items if isinstance(items, list) else []


def _end_used(req: Request) -> bool:
    """Whether an event shuts the coordinator down, stops its scheduler or fails its ID counter (protocol 4)."""
    return any(isinstance(e, Mapping) and any(k in e for k in coordinator.END_KINDS) for e in events_of(req))


def _drop_notified(out: Output) -> Output:
    return {**out, "steps": [{k: v for k, v in s.items() if k != "notified"} if isinstance(s, Mapping) else s
                             for s in _listed(out, "steps")]}


def _drop_was_pending(out: Output) -> Output:
    return {**out, "steps": [{k: v for k, v in s.items() if k != "was_pending"} if isinstance(s, Mapping) else s
                             for s in _listed(out, "steps")]}


_SCENARIO = "properties/checkpoint/test_examples.py::test_flinks_own_scenario"
ALIGN_MACHINE = "properties/checkpoint/test_alignment_machine.py::test_alignment_machine"
COORD_MACHINE = "properties/checkpoint/test_coordinator_machine.py::test_coordinator_machine"
_CC_EX = "properties/checkpoint/test_coordinator_patch_releases.py::"
CC_BAD = "properties/checkpoint/test_bad_input.py::"
_CC_META = "properties/checkpoint/test_coordinator_meta.py::"
_AT = "AlignedCheckpointsTest#"
_BT = "CheckpointBarrierTrackerTest#"
_CT = "CheckpointCoordinatorTest#"
_DT = "CheckpointRequestDeciderTest#"
_FT = "CheckpointFailureManagerTest#"
_ST = "DefaultCompletedCheckpointStoreTest#"
_RECOVERY_NOTE = ("a model rule: RCV-EQ's real-Flink side (RecoveryArea.java) does the same bookkeeping over the "
                  "trace of Flink's own barrier handler, so RCV-EQ checks the trace; the documented guarantees "
                  "RCV-2 ... RCV-4 check the outcome")
_INPUT_NOTE = ("the harness's input model, the same in the bridge's AlignmentArea.java: ALIGN-EQ checks that "
               "oracle and bridge agree on it, the invariants that the traces it yields are sound")

# what checks each rule of the oracle's barrier handlers, coordinator and recovery
_ALIGNMENT_CHECKED: tuple[Checked, ...] = (
    checked("IN-1", "ALIGN-2", ALIGN_MACHINE, note=_INPUT_NOTE),
    checked("IN-2", "ALIGN-3", ALIGN_MACHINE, note=_INPUT_NOTE),
    checked("IN-3", "ALIGN-2", ALIGN_MACHINE, note=_INPUT_NOTE),
    checked("IN-4", "ALIGN-1", ALIGN_MACHINE, note=_INPUT_NOTE),
    checked("IN-5", "ALIGN-1", ALIGN_MACHINE, note=_INPUT_NOTE),
    checked("IN-6", "ALIGN-1", "ALIGN-7", ALIGN_MACHINE, note=_INPUT_NOTE),
    checked("AL-1", ALIGN_MACHINE, *scenarios(_AT + "testMultiChannelWithBarriers")),
    checked("AL-2", "ALIGN-5", ALIGN_MACHINE,
            *scenarios(_AT + "testMultiChannelAbortCheckpoint", _AT + "testAbortOnCanceledBarriers")),
    checked("AL-3",
            "ALIGN-5", "ALIGN-6", ALIGN_MACHINE,
            *scenarios(_AT + "testMultiChannelJumpingOverCheckpoint",
            _AT + "testIgnoreCancelBarrierIfCheckpointSubsumed")),
    checked("AL-4", "ALIGN-3", "ALIGN-5", ALIGN_MACHINE, *scenarios(_AT + "testMultiChannelWithBarriers")),
    checked("AL-5", "ALIGN-6", ALIGN_MACHINE,
            *scenarios(_AT + "testSingleChannelAbortCheckpoint", _AT + "testMultiChannelAbortCheckpoint",
            _AT + "testAbortOnCanceledBarriers", _AT + "testIgnoreCancelBarrierIfCheckpointSubsumed")),
    checked("AL-6", "ALIGN-5", "ALIGN-6", ALIGN_MACHINE, *scenarios(_AT + "testMultiChannelAbortCheckpoint")),
    checked("AL-7", "ALIGN-6", ALIGN_MACHINE),
    checked("AL-8", "ALIGN-3", ALIGN_MACHINE,
            *scenarios(_AT + "testTriggerCheckpointsWithEndOfPartition",
            _AT + "testDeduplicateChannelsWithBothBarrierAndEndOfPartition",
            _AT + "testTriggerCheckpointsAfterReceivedEndOfPartition")),
    checked("AL-9", ALIGN_MACHINE),
    checked("ALO-1", "ALIGN-2", ALIGN_MACHINE),
    checked("ALO-2", "ALIGN-4", ALIGN_MACHINE,
            *scenarios(_BT + "testSingleChannelWithSkippedBarriers",
            _BT + "testNoFastPathWithChannelFinishedDuringCheckpoints")),
    checked("ALO-3", "ALIGN-4",
            ALIGN_MACHINE, *scenarios(_BT + "testCompleteCheckpointsOnLateBarriers",
            _BT + "testMultiChannelSkippingCheckpoints")),
    checked("ALO-4", "ALIGN-4", ALIGN_MACHINE, *scenarios(_BT + "testCompleteCheckpointsOnLateBarriers")),
    checked("ALO-5", ALIGN_MACHINE, *scenarios(_BT + "testCompleteCheckpointsOnLateBarriers")),
    checked("ALO-6", "ALIGN-6", ALIGN_MACHINE),
    checked("ALO-7", "ALIGN-6",
            ALIGN_MACHINE, *scenarios(_BT + "testMultiChannelAbortCheckpoint",
            _BT + "testInterleavedCancellationBarriers")),
    checked("ALO-8", "ALIGN-6", ALIGN_MACHINE, *scenarios(_BT + "testAbortCheckpointsAfterEndOfPartitionReceived")),
    checked("ALO-9", ALIGN_MACHINE,
            *scenarios(_BT + "testTriggerCheckpointsWithEndOfPartition",
            _BT + "testNoFastPathWithChannelFinishedDuringCheckpoints")),
    checked("ALO-10", ALIGN_MACHINE),
    checked("ALO-11", "ALIGN-7", ALIGN_MACHINE,
            note="ALIGN-7 (never fail the task) is the documented rule real Flink 1.14+ breaks this way"),
)
_COORDINATOR_CHECKED: tuple[Checked, ...] = (
    checked("CC-1", COORD_MACHINE, *scenarios(_DT + "testQueueSizeLimit", _DT + "testQueueSizeLimitPriority")),
    checked("CC-2", "CCR-4", COORD_MACHINE,
            *scenarios(_DT + "testSavepointPrioritized+testUserSubmittedPrioritized",
            _CT + "testConcurrentSavepoints", _CT + "testMaxConcurrentAttempts2")),
    checked("CC-3",
            COORD_MACHINE, *scenarios(_DT + "testCheckpointTiming+testSavepointTiming",
            _CT + "testMinDelayBetweenSavepoints")),
    checked("CC-4", COORD_MACHINE, *scenarios(_CT + "testPeriodicSchedulingWithInactiveTasks")),
    checked("CC-5", "CCR-2", "CCR-7", COORD_MACHINE, *scenarios(_CT + "testCheckpointTimeoutIsolated")),
    checked("CC-6", "CCR-3", "CCR-8", COORD_MACHINE, *scenarios(_CT + "testTriggerAndConfirmSimpleCheckpoint")),
    checked("CC-7", "CCR-5",
            COORD_MACHINE, *scenarios(_CT + "testSavepointsAreNotSubsumed",
            _CT + "testMaxConcurrentAttempsWithSubsumption")),
    checked("CC-8", "CCR-3",
            COORD_MACHINE, *scenarios(_CT + "testTriggerAndDeclineCheckpointSimple",
            "PendingCheckpointTest#testSyncSavepointCannotBeSubsumed")),
    checked("CC-9", "CCR-7", COORD_MACHINE, *scenarios(_CT + "testCheckpointTimeoutIsolated")),
    checked("CC-10", COORD_MACHINE, *scenarios(_CT + "testMaxConcurrentAttempts2")),
    checked("CC-11", COORD_MACHINE, *scenarios(_FT + "testContinuousFailure")),
    checked("CC-12", "CCR-1", COORD_MACHINE, CC_BAD + "test_invalid_checkpoint_input_is_a_bad_request"),
    checked("CC-13", COORD_MACHINE, *scenarios(_FT + "testContinuousFailure", _FT + "testBreakContinuousFailure")),
    checked("CC-14", COORD_MACHINE, _CC_EX + "test_savepoint_failures_count_until_1_14_2"),
    checked("CC-15",
            COORD_MACHINE, *scenarios(_CT + "testExpiredCheckpointExceedsTolerableFailureNumber",
            _FT + "testContinuousFailure")),
    checked("CC-16", "CCR-6", COORD_MACHINE,
            *scenarios(_ST + "testAtLeastOneCheckpointRetained", _ST + "testNotSubsumedIfNotNeeded")),
    checked("CC-17", "CCR-6", COORD_MACHINE, *scenarios(_ST + "testSubsumeAfterStoppingWithSavepoint")),
    checked("CC-18", COORD_MACHINE, *scenarios(_CT + "testHandleMessagesForNonExistingCheckpoints")),
    checked("CC-19", CC_BAD + "test_a_negative_timeout_is_flinks_verdict"),
    checked("CC-20", "CCR-11", COORD_MACHINE, _CC_META + "test_completions_tell_the_last_subsumed_checkpoint"),
    checked("CC-21", "CCR-12", COORD_MACHINE, _CC_META + "test_strategy_reaches_the_end_events"),
    checked("CC-22", "CCR-13", COORD_MACHINE, _CC_META + "test_strategy_reaches_the_end_events"),
    checked("CC-23", COORD_MACHINE, _CC_META + "test_strategy_reaches_the_end_events"),
    checked("CC-24", "CCR-13", COORD_MACHINE, _CC_META + "test_strategy_reaches_the_end_events"),
)
_RECOVERY_CHECKED: tuple[Checked, ...] = (
    checked("RC-1", "RCV-4", note=_RECOVERY_NOTE),
    checked("RC-2", "RCV-4", note=_RECOVERY_NOTE),
    checked("RC-3", "RCV-2", "RCV-3", note=_RECOVERY_NOTE),
    checked("RC-4", "RCV-2", "RCV-3", "RCV-4", note=_RECOVERY_NOTE),
    checked("RC-5", "RCV-1", "RCV-2", "RCV-3", note=_RECOVERY_NOTE),
)

ALIGNMENT = Area(
    name=alignment.ALIGNMENT, prefix="ALIGN", rules=alignment_invariants.BOOK, page="checkpoint-alignment.md",
    description="what a task's barrier handler does with records, barriers, cancel markers and ends of input",
    requests=alignment_strategies.requests, size=event_count, adapt=alignment_strategies.adapt,
    # short alignment runs where barriers, cancel markers and ends of partition meet (ALO-11's failure)
    corpora=(ExtraCorpus(name=f"{alignment.ALIGNMENT}.ends", requests=alignment_strategies.ending_requests,
                         corpus_key=lambda ver: ver >= alignment.CHANNEL_SETS.at),),
    oracle={"alignment": OracleRules(rules=alignment.RULES,
                                     files=("oracle/alignment.py", "oracle/alignment_handlers.py"),
                                     checked=_ALIGNMENT_CHECKED)},
    machine=ALIGN_MACHINE,
    examples=_SCENARIO, mutants=of_area(mutants.MUTANTS, alignment.ALIGNMENT), bridge="AlignmentArea",
    changes=alignment.CHANGES[alignment.ALIGNMENT],
    defaults=(OptionDefault(option="execution.checkpointing.checkpoints-after-tasks-finish",
                            table=alignment.AFTER_FINISH_DEFAULT,
                            show=lambda val: "(no such option)" if val is None else str(val).lower()),),
    # recovery's inputs are alignment inputs: they can carry these too
    features=(Feature(f"{alignment.ALIGNMENT}.cancel", 2, alignment.ALIGNMENT, "cancel checkpoint markers: cancel "
                      "events", _cancel_used, _strip_cancel, also=(recovery_oracle.RECOVERY,)),
              Feature(f"{alignment.ALIGNMENT}.checkpoints-after-finish", 2, alignment.ALIGNMENT,
                      "the checkpoints_after_finish option", has_field("checkpoints_after_finish"),
                      without_field("checkpoints_after_finish"), also=(recovery_oracle.RECOVERY,))),
    answer_features=(AnswerFeature(f"{alignment.ALIGNMENT}.fail", 2, alignment.ALIGNMENT,
                                   "a fail entry in the trace: the barrier handler threw",
                                   lambda out: any(isinstance(s, Mapping) and "fail" in s
                                                   for s in _listed(out, "trace"))),),
)
COORDINATOR = Area(
    name=coordinator.COORDINATOR, prefix="CCR", rules=coordinator_invariants.BOOK, page="checkpoint-coordinator.md",
    description="the CheckpointCoordinator's triggers, acknowledgements, timeouts and completed store",
    requests=coordinator_strategies.requests, size=event_count, adapt=coordinator_strategies.adapt,
    shape=AnswerShape(data_maps=("aborted",),
                      empty_when_absent=("triggered", "rejected", "completed", "aborted", "retained", "notified")),
    oracle={"coordinator": OracleRules(rules=coordinator.RULES, files=(
        "oracle/coordinator.py", "oracle/coordinator_machine.py", "oracle/coordinator_rules.py"),
        checked=_COORDINATOR_CHECKED)},
    machine=COORD_MACHINE,
    examples=_SCENARIO, mutants=of_area(mutants.MUTANTS, coordinator.COORDINATOR),
    bridge="CoordinatorArea", changes=coordinator.CHANGES[coordinator.COORDINATOR],
    features=(Feature(f"{coordinator.COORDINATOR}.config-defaults", 2, coordinator.COORDINATOR,
                      "config settings left out, taking their defaults", _coordinator_defaults_used,
                      _fill_coordinator_defaults),
              Feature(f"{coordinator.COORDINATOR}.sources", 2, coordinator.COORDINATOR,
                      "checkpoints triggered on some of the tasks only", has_field("sources"),
                      without_field("sources")),
              Feature(f"{coordinator.COORDINATOR}.end", 4, coordinator.COORDINATOR,
                      "shutdown, stop_scheduler and id_counter events: the coordinator's end and a failing ID counter",
                      _end_used)),
    answer_features=(AnswerFeature(f"{coordinator.COORDINATOR}.was-pending", 2, coordinator.COORDINATOR,
                                   "was_pending in a step: a late ack Flink still accepted",
                                   lambda out: any(isinstance(s, Mapping) and "was_pending" in s
                                                   for s in _listed(out, "steps")),
                                   _drop_was_pending),
                     AnswerFeature(f"{coordinator.COORDINATOR}.notified", 4, coordinator.COORDINATOR,
                                   "notified in a step: the commit and abort notifications sent to the tasks",
                                   lambda out: any(isinstance(s, Mapping) and "notified" in s
                                                   for s in _listed(out, "steps")),
                                   _drop_notified)),
)
RECOVERY = Area(
    name=recovery_oracle.RECOVERY, prefix="RCV", rules=recovery.BOOK, protocol=2,
    page="v2.md#new-area-checkpointrecovery",
    description="a job failing after fail_after events and recovering from its latest checkpoint",
    requests=recovery.requests, size=event_count, adapt=recovery.from_alignment, corpus_of=alignment.ALIGNMENT,
    shape=AnswerShape(data_maps=("counts",)),
    oracle={"recovery": OracleRules(rules=recovery_oracle.RULES, files=("oracle/recovery.py",),
                                    checked=_RECOVERY_CHECKED)},
    mutants=of_area(mutants.MUTANTS, recovery_oracle.RECOVERY), bridge="RecoveryArea",
    changes=recovery_oracle.CHANGES[recovery_oracle.RECOVERY],
)

_PINNED = "properties/checkpoint/test_storage_pinned.py::test_the_oracle_answers_as_flink_did"
_PATHS = "properties/checkpoint/test_storage_oracle.py::test_a_path_prints_as_flink_prints_it"
CST_BAD = "properties/checkpoint/test_storage_bad_input.py::"
# what checks each rule of the oracle's checkpoint storage
_STORAGE_CHECKED: tuple[Checked, ...] = (
    checked("CST-1", "CSR-ACCEPTED", _PINNED),
    checked("CST-2", _PINNED, note="the legacy MemoryStateBackend (until 1.20): no documented rule says it is its "
            "own storage; CSR-EQ and the pinned answers check it"),
    checked("CST-3", "CSR-2", "CSR-3", "CSR-4", _PINNED),
    checked("CST-4", "CSR-5", _PINNED),
    checked("CST-5", "CSR-4", _PINNED),
    checked("CST-6", _PINNED, note="Flink's messages for a directory without a scheme or at the root: CSR-EQ"),
    checked("CST-7", _PINNED),
    checked("CST-8", _PINNED),
    checked("CST-9", "CSR-9", _PINNED),
    checked("CST-10", "CSR-6"),
    checked("CST-11", "CSR-6", "CSR-7", _PINNED),
    checked("CST-12", "CSR-8", _PINNED),
    checked("CST-13", _PINNED),
    checked("CST-14", "CSR-7", _PATHS, _PINNED),
    checked("CST-15", _PINNED),
)

STORAGE = Area(
    size_bar=3,
    name=storage_oracle.STORAGE, prefix="CSR", rules=storage_invariants.BOOK, protocol=4,
    page="checkpoint-storage.md",
    description="the state backend and checkpoint storage a configuration gives a job, and where its checkpoints "
    "and savepoints go",
    requests=storage_strategies.requests, corpus_key=storage_strategies.corpus_key,
    oracle={"checkpoint_storage": OracleRules(rules=storage_oracle.RULES,
                                              files=("oracle/checkpoint_storage.py", "oracle/flinkpath.py"),
                                              checked=_STORAGE_CHECKED)},
    mutants=tuple(storage_mutants.MUTANTS), bridge="StorageArea",
    changes=storage_oracle.CHANGES[storage_oracle.STORAGE],
    defaults=(OptionDefault(option="state.backend.type", table=storage_oracle.BACKEND_DEFAULTS,
                            show=lambda val: "(none)" if val is None else str(val)),),
)

_SNAPSHOT_META = "properties/checkpoint/test_snapshot_meta.py::"
# what checks each rule of the oracle's heap keyed state backend snapshots
_SNAPSHOT_CHECKED: tuple[Checked, ...] = (
    checked("KSS-1", "CSN-6", f"{_SNAPSHOT_META}test_the_oracle_answers_flinks_pinned_requests"),
    checked("KSS-2", "CSN-2", "CSN-3", f"{_SNAPSHOT_META}test_the_oracle_answers_flinks_pinned_requests"),
    checked("KSS-3", "CSN-3", f"{_SNAPSHOT_META}test_the_oracle_answers_flinks_pinned_requests"),
    checked("KSS-4", f"{_SNAPSHOT_META}test_the_oracle_answers_flinks_pinned_requests",
            note="no documented rule says an empty snapshot has no handle (null, not []): CSN-EQ"),
    checked("KSS-5", "CSN-4", f"{_SNAPSHOT_META}test_the_oracle_answers_flinks_pinned_requests"),
    checked("KSS-6", "CSN-5", "CSN-6", f"{_SNAPSHOT_META}test_the_oracle_answers_flinks_pinned_requests"),
    checked("KSS-8", "CSN-4", f"{_SNAPSHOT_META}test_the_oracle_answers_flinks_pinned_requests"),
    checked("KSS-7", "CSN-6", note="a completion changes nothing on the heap backend: CSN-EQ and CSN-3 after it"),
    checked("KSS-9", "CSN-3", "CSN-8", f"{_SNAPSHOT_META}test_the_oracle_answers_flinks_pinned_rocksdb_requests",
            note="one SST file per flush with writes, none deleted (compactions off): CSN-EQ"),
    checked("KSS-10", "CSN-8", "CSN-9", f"{_SNAPSHOT_META}test_the_oracle_answers_flinks_pinned_rocksdb_requests"),
    checked("KSS-11", "CSN-9", f"{_SNAPSHOT_META}test_the_oracle_answers_flinks_pinned_rocksdb_requests",
            note="a completion of an id not above the last completed one, or of a snapshot not yet run, is ignored:"
            " CSN-EQ"),
    checked("KSS-12", f"{_SNAPSHOT_META}test_the_oracle_answers_flinks_pinned_rocksdb_requests",
            note="files re-uploaded by a later checkpoint left out of the base (2.0.2, 2.1.2, 2.2.0+): CSN-EQ"),
    checked("KSS-13", "CSN-5", f"{_SNAPSHOT_META}test_the_oracle_answers_flinks_pinned_rocksdb_requests"),
)

SNAPSHOT = Area(
    size_bar=7,  # a restore of an increment: put, snapshot, run, complete, snapshot, run, restore
    name=snapshot_oracle.SNAPSHOT, prefix="CSN", rules=snapshot_invariants.BOOK, protocol=4,
    page="checkpoint-snapshot.md",
    description="what the two-part (synchronous, then asynchronous) snapshots of the hashmap keyed state backend "
    "hold while records keep changing the state, cancelled snapshots, and the state a backend restored from one "
    "holds (HeapKeyedStateBackend, copy-on-write state tables); with the rocksdb backend, incremental snapshots "
    "(RocksDBKeyedStateBackend)",
    features=(Feature(f"{snapshot_oracle.SNAPSHOT}.rocksdb", 4, snapshot_oracle.SNAPSHOT,
                      "the rocksdb backend's incremental snapshots (RocksDBKeyedStateBackend): the SST files a run "
                      "snapshot uploads and refers to as placeholders, and restores of base and increments",
                      lambda req: input_of(req).get("backend") == "rocksdb"),),
    requests=snapshot_strategies.requests, size=snapshot_strategies.size, corpus_key=snapshot_strategies.corpus_key,
    shape=AnswerShape(),
    oracle={"checkpoint_snapshot": OracleRules(rules=snapshot_oracle.RULES, files=("oracle/checkpoint_snapshot.py",),
                                               checked=_SNAPSHOT_CHECKED)},
    mutants=tuple(snapshot_mutants.MUTANTS), bridge="SnapshotArea",
    changes=snapshot_oracle.CHANGES[snapshot_oracle.SNAPSHOT],
)

_HA_META = "properties/checkpoint/test_ha_meta.py::test_the_oracle_answers_flinks_pinned_requests"
# what checks each rule of the oracle's ZooKeeper high availability
_HA_CHECKED: tuple[Checked, ...] = (
    checked("HA-1", "CHA-2", _HA_META),
    checked("HA-2", "CHA-2", _HA_META),
    checked("HA-3", "CHA-3", _HA_META),
    checked("HA-4", _HA_META, note="Flink's exceptions for a duplicate, a negative id and a store shut down: CHA-EQ"),
    checked("HA-5", _HA_META, note="what each job status removes and keeps: CHA-EQ"),
    checked("HA-6", _HA_META, note="what a new store recovers: CHA-EQ"),
    checked("HA-7", _HA_META, note="the counter's values and its overflow: CHA-EQ"),
    checked("HA-8", _HA_META, note="when a subsumed checkpoint's directory goes: CHA-EQ"),
)

HA = Area(
    size_bar=4,
    name=ha_oracle.HA, prefix="CHA", rules=ha.BOOK, protocol=4,
    page="checkpoint-ha.md",
    description="ZooKeeper high availability's completed checkpoint store and checkpoint ID counter: the znodes "
    "holding handles, the metadata files under high-availability.storageDir, subsumption, shutdown by job status "
    "and recovery",
    requests=ha.requests, size=ha.size,
    oracle={"checkpoint_ha": OracleRules(rules=ha_oracle.RULES, files=("oracle/checkpoint_ha.py",),
                                         checked=_HA_CHECKED)},
    mutants=tuple(ha.MUTANTS), bridge="HaArea",
    changes=ha_oracle.CHANGES[ha_oracle.HA],
    strict_messages=True,
)
