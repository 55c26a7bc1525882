"""What checks each rule the oracle encodes, as registry entries (docs/rules.md).

The rules are declared once, beside the code that implements them: the ``RULES`` tuple of each
oracle module (:class:`oracle.rules.Declared`: a unique ID, what the rule is, the Flink code it was
read from and the released jars it was proven against). Their IDs never coincide with a documented
invariant's (``SWV-5`` is the valve's code, ``WM-5`` the documented rule an invariant checks;
tests/test_rules_registry.py holds that no ID and no rule text is declared twice). This module adds
what checks each: the area's ``-EQ`` rule (the oracle against real Flink), the invariants that state
it, the pinned examples and the Flink tests transcribed in ``properties/checkpoint/*_examples.json``.

The memory oracle (``oracle/memory*.py``, ``memsize.py``, ``javanum.py``) declares no rules of its
own: the memory rules are the documented invariants (``TM-1`` ... ``TM-12``, ``JM-1`` ... ``JM-7``).
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from oracle.rules import Declared
from properties.checkpoint.area import ALIGNMENT, COORDINATOR
from properties.rules import ORACLE, Rule
from properties.watermark.area import COMBINED, TIMERS, VALVE

_WM_EX = "properties/test_oracle_watermark_examples.py::"
_CC_EX = "properties/checkpoint/test_coordinator_patch_releases.py::"
TIMERS_EX, VALVE_EX, COMBINED_EX = (str(a.examples) for a in (TIMERS, VALVE, COMBINED))
VALVE_MACHINE, ALIGN_MACHINE, COORD_MACHINE = (str(a.machine) for a in (VALVE, ALIGNMENT, COORDINATOR))
CL_BAD = "properties/classloading/test_bad_input.py::"
CC_BAD = "properties/checkpoint/test_bad_input.py::"

_AT = "AlignedCheckpointsTest#"
_BT = "CheckpointBarrierTrackerTest#"
_CT = "CheckpointCoordinatorTest#"
_DT = "CheckpointRequestDeciderTest#"
_FT = "CheckpointFailureManagerTest#"
_ST = "DefaultCompletedCheckpointStoreTest#"


def scenarios(*names: str) -> tuple[str, ...]:
    return tuple(f"scenario:{n}" for n in names)


@attrs.frozen
class Checked:
    """What checks oracle rule ``oid`` (declared in its module's ``RULES``): its area's ``-EQ`` rule
    (unless ``eq`` is false) and ``checks``, with a ``note`` on what they leave out."""

    oid: str
    checks: tuple[str, ...]
    eq: bool = True
    note: str = ""


def checked(oid: str, *checks: str, eq: bool = True, note: str = "") -> Checked:
    return Checked(oid, checks, eq, note)


_TIE_NOTE = ("TIMER-EQ compares the timers one watermark fires with equal timestamps sorted (docs/protocol/v1.md's tie "
             "rule), so the heap order is checked only by the pinned examples, recorded from real Flink of every "
             "version")
_RECOVERY_NOTE = ("a model rule: RCV-EQ's real-Flink side (RecoveryArea.java) does the same bookkeeping over the "
                  "trace of Flink's own barrier handler, so RCV-EQ checks the trace; the documented guarantees "
                  "RCV-2 ... RCV-4 check the outcome")
_INPUT_NOTE = ("the harness's input model, the same in the bridge's AlignmentArea.java: ALIGN-EQ checks that "
               "oracle and bridge agree on it, the invariants that the traces it yields are sound")

CHECKED: tuple[Checked, ...] = (
    # ---- watermark.timers: oracle/timers.py -------------------------------------------------
    checked("ITS-1", "TIMER-2", TIMERS_EX),
    checked("ITS-2",
                "TIMER-2", TIMERS_EX),
    checked("ITS-3",
                "TIMER-1", "TIMER-2", TIMERS_EX),
    checked("ITS-4", "TIMER-3", TIMERS_EX),
    checked("ITS-5",
                TIMERS_EX, eq=False, note=_TIE_NOTE),
    checked("ITS-6",
                TIMERS_EX, eq=False, note=_TIE_NOTE),
    checked("ITS-7",
                "TIMER-1", "TIMER-2", TIMERS_EX),
    # ---- watermark.valve: oracle/valve.py, oracle/watermark.py --------------------------------
    checked("SWV-1", "WM-6", "WM-8", VALVE_EX, VALVE_MACHINE),
    checked("SWV-2", "WM-8", VALVE_EX, VALVE_MACHINE),
    checked("SWV-3", "WM-4", VALVE_EX, VALVE_MACHINE),
    checked("SWV-4",
                "WM-2", "WM-3", "WM-4", VALVE_EX, VALVE_MACHINE),
    checked("SWV-5",
                "WM-5", "WM-7", VALVE_EX, VALVE_MACHINE,
                note="the flush condition is the quirk behind WM-7, which real Flink of every version breaks"),
    checked("SWV-6", "WM-4", VALVE_EX, VALVE_MACHINE),
    checked("SWV-7", "WM-5", "WM-6", VALVE_EX, VALVE_MACHINE),
    checked("SWV-8", "WM-5", VALVE_EX, VALVE_MACHINE),
    checked("SWV-9",
                VALVE_EX, VALVE_MACHINE),
    checked("SWV-10",
                _WM_EX + "test_valve_routes_internal_watermarks_to_their_subpartition",
                _WM_EX + "test_valve_status_on_a_shared_channel_is_rejected",
                _WM_EX + "test_invalid_subpartitions_before_1_19", eq=False,
                note="the generated requests carry no subpartitions, so WM-EQ never meets this rule; the pinned "
                     "examples (recorded from real Flink 1.19+) do"),
    checked("SWV-11",
                _WM_EX + "test_valve_unaligned_channel_going_idle_throws_in_1_17_0"),
    # ---- watermark.combined: oracle/combined.py -------------------------------------------------
    checked("CWS-1", "CWM-4", COMBINED_EX),
    checked("CWS-2", "CWM-2", "CWM-3", "CWM-4",
                COMBINED_EX),
    checked("CWS-3",
                "CWM-5", "CWM-6", "CWM-7", COMBINED_EX),
    checked("CWS-4", "CWM-5", COMBINED_EX),
    checked("CWS-5",
                "CWM-5", COMBINED_EX),
    checked("CWS-6",
                "CWM-2", "CWM-3", COMBINED_EX),
    checked("CWS-7", "CWM-5", COMBINED_EX),
    checked("CWS-8", COMBINED_EX),
    # ---- classloading.resolve: oracle/classloading_config.py, oracle/classloading.py -------------
    checked("CL-1", "CLR-9"),
    checked("CL-2",
                "CLR-9"),
    checked("CL-3", "CLR-9"),
    checked("CL-4", "CLR-9"),
    checked("CL-5", "CLR-10",
                CL_BAD + "test_unknown_resolve_order_is_rejected_by_flink"),
    checked("CL-6",
                note="CLR-EQ compares the message only with --strict-messages (tests/test_real_flink.py sets it)"),
    checked("CL-7", "CLR-2", "CLR-3", "CLR-4", "CLR-8"),
    checked("CL-8", "CLR-5"),
    checked("CL-9",
                "CLR-3", "CLR-5", "CLR-6"),
    checked("CL-10", "CLR-7"),
    checked("CL-11",
                "CLR-7"),
    checked("CL-12", "CLR-7"),
    checked("CL-13",
                "CLR-11"),
    checked("CL-14", "CLR-12"),
    # ---- checkpoint.alignment: oracle/alignment.py, oracle/alignment_handlers.py ----------------
    checked("IN-1",
                "ALIGN-2", ALIGN_MACHINE, note=_INPUT_NOTE),
    checked("IN-2",
                "ALIGN-3", ALIGN_MACHINE, note=_INPUT_NOTE),
    checked("IN-3",
                "ALIGN-2", ALIGN_MACHINE, note=_INPUT_NOTE),
    checked("IN-4", "ALIGN-1", ALIGN_MACHINE,
                note=_INPUT_NOTE),
    checked("IN-5",
                "ALIGN-1", ALIGN_MACHINE, note=_INPUT_NOTE),
    checked("IN-6",
                "ALIGN-1", "ALIGN-7", ALIGN_MACHINE, note=_INPUT_NOTE),
    checked("AL-1", ALIGN_MACHINE,
                *scenarios(_AT + "testMultiChannelWithBarriers")),
    checked("AL-2", "ALIGN-5", ALIGN_MACHINE,
                *scenarios(_AT + "testMultiChannelAbortCheckpoint", _AT + "testAbortOnCanceledBarriers")),
    checked("AL-3",
                "ALIGN-5", "ALIGN-6", ALIGN_MACHINE,
                *scenarios(_AT + "testMultiChannelJumpingOverCheckpoint",
                           _AT + "testIgnoreCancelBarrierIfCheckpointSubsumed")),
    checked("AL-4",
                "ALIGN-3", "ALIGN-5", ALIGN_MACHINE, *scenarios(_AT + "testMultiChannelWithBarriers")),
    checked("AL-5", "ALIGN-6", ALIGN_MACHINE,
                *scenarios(_AT + "testSingleChannelAbortCheckpoint", _AT + "testMultiChannelAbortCheckpoint",
                           _AT + "testAbortOnCanceledBarriers", _AT + "testIgnoreCancelBarrierIfCheckpointSubsumed")),
    checked("AL-6", "ALIGN-5", "ALIGN-6", ALIGN_MACHINE,
                *scenarios(_AT + "testMultiChannelAbortCheckpoint")),
    checked("AL-7", "ALIGN-6", ALIGN_MACHINE),
    checked("AL-8", "ALIGN-3", ALIGN_MACHINE,
                *scenarios(_AT + "testTriggerCheckpointsWithEndOfPartition",
                           _AT + "testDeduplicateChannelsWithBothBarrierAndEndOfPartition",
                           _AT + "testTriggerCheckpointsAfterReceivedEndOfPartition")),
    checked("AL-9",
                ALIGN_MACHINE),
    checked("ALO-1", "ALIGN-2", ALIGN_MACHINE),
    checked("ALO-2", "ALIGN-4", ALIGN_MACHINE,
                *scenarios(_BT + "testSingleChannelWithSkippedBarriers",
                           _BT + "testNoFastPathWithChannelFinishedDuringCheckpoints")),
    checked("ALO-3", "ALIGN-4",
                ALIGN_MACHINE, *scenarios(_BT + "testCompleteCheckpointsOnLateBarriers",
                                          _BT + "testMultiChannelSkippingCheckpoints")),
    checked("ALO-4", "ALIGN-4",
                ALIGN_MACHINE, *scenarios(_BT + "testCompleteCheckpointsOnLateBarriers")),
    checked("ALO-5", ALIGN_MACHINE,
                *scenarios(_BT + "testCompleteCheckpointsOnLateBarriers")),
    checked("ALO-6", "ALIGN-6", ALIGN_MACHINE),
    checked("ALO-7", "ALIGN-6",
                ALIGN_MACHINE, *scenarios(_BT + "testMultiChannelAbortCheckpoint",
                                          _BT + "testInterleavedCancellationBarriers")),
    checked("ALO-8", "ALIGN-6", ALIGN_MACHINE,
                *scenarios(_BT + "testAbortCheckpointsAfterEndOfPartitionReceived")),
    checked("ALO-9", ALIGN_MACHINE,
                *scenarios(_BT + "testTriggerCheckpointsWithEndOfPartition",
                           _BT + "testNoFastPathWithChannelFinishedDuringCheckpoints")),
    checked("ALO-10", ALIGN_MACHINE),
    checked("ALO-11", "ALIGN-7", ALIGN_MACHINE,
                note="ALIGN-7 (never fail the task) is the documented rule real Flink 1.14+ breaks this way"),
    # ---- checkpoint.coordinator: oracle/coordinator*.py ---------------------------------------
    checked("CC-1", COORD_MACHINE,
                *scenarios(_DT + "testQueueSizeLimit", _DT + "testQueueSizeLimitPriority")),
    checked("CC-2", "CCR-4", COORD_MACHINE,
                *scenarios(_DT + "testSavepointPrioritized+testUserSubmittedPrioritized",
                           _CT + "testConcurrentSavepoints", _CT + "testMaxConcurrentAttempts2")),
    checked("CC-3",
                COORD_MACHINE, *scenarios(_DT + "testCheckpointTiming+testSavepointTiming",
                                          _CT + "testMinDelayBetweenSavepoints")),
    checked("CC-4", COORD_MACHINE,
                *scenarios(_CT + "testPeriodicSchedulingWithInactiveTasks")),
    checked("CC-5", "CCR-2", "CCR-7", COORD_MACHINE,
                *scenarios(_CT + "testCheckpointTimeoutIsolated")),
    checked("CC-6",
                "CCR-3", "CCR-8", COORD_MACHINE, *scenarios(_CT + "testTriggerAndConfirmSimpleCheckpoint")),
    checked("CC-7", "CCR-5",
                COORD_MACHINE, *scenarios(_CT + "testSavepointsAreNotSubsumed",
                                          _CT + "testMaxConcurrentAttempsWithSubsumption")),
    checked("CC-8", "CCR-3",
                COORD_MACHINE, *scenarios(_CT + "testTriggerAndDeclineCheckpointSimple",
                                          "PendingCheckpointTest#testSyncSavepointCannotBeSubsumed")),
    checked("CC-9", "CCR-7", COORD_MACHINE,
                *scenarios(_CT + "testCheckpointTimeoutIsolated")),
    checked("CC-10", COORD_MACHINE, *scenarios(_CT + "testMaxConcurrentAttempts2")),
    checked("CC-11", COORD_MACHINE,
                *scenarios(_FT + "testContinuousFailure")),
    checked("CC-12", "CCR-1", COORD_MACHINE,
                CC_BAD + "test_invalid_checkpoint_input_is_a_bad_request"),
    checked("CC-13", COORD_MACHINE,
                *scenarios(_FT + "testContinuousFailure", _FT + "testBreakContinuousFailure")),
    checked("CC-14", COORD_MACHINE, _CC_EX + "test_savepoint_failures_count_until_1_14_2"),
    checked("CC-15",
                COORD_MACHINE, *scenarios(_CT + "testExpiredCheckpointExceedsTolerableFailureNumber",
                                          _FT + "testContinuousFailure")),
    checked("CC-16", "CCR-6", COORD_MACHINE,
                *scenarios(_ST + "testAtLeastOneCheckpointRetained", _ST + "testNotSubsumedIfNotNeeded")),
    checked("CC-17", "CCR-6", COORD_MACHINE,
                *scenarios(_ST + "testSubsumeAfterStoppingWithSavepoint")),
    checked("CC-18", COORD_MACHINE,
                *scenarios(_CT + "testHandleMessagesForNonExistingCheckpoints")),
    checked("CC-19", CC_BAD + "test_a_negative_timeout_is_flinks_verdict"),
    # ---- checkpoint.recovery: oracle/recovery.py ----------------------------------------------
    checked("RC-1", "RCV-4",
                note=_RECOVERY_NOTE),
    checked("RC-2",
                "RCV-4", note=_RECOVERY_NOTE),
    checked("RC-3",
                "RCV-2", "RCV-3", note=_RECOVERY_NOTE),
    checked("RC-4",
                "RCV-2", "RCV-3", "RCV-4", note=_RECOVERY_NOTE),
    checked("RC-5",
                "RCV-1", "RCV-2", "RCV-3", note=_RECOVERY_NOTE),
)



def oracle_rules(declared: Mapping[str, tuple[Declared, str, tuple[str, ...]]],
                 prefixes: Mapping[str, str]) -> dict[str, Rule]:
    """Every declared oracle rule (its declaration, its area and the files that encode it, by ID: the
    registry's ``DECLARED``) as a registry entry with what checks it; ``prefixes``: each area's rule
    prefix."""
    out: dict[str, Rule] = {}
    for c in CHECKED:
        if c.oid in out:
            raise ValueError(f"oracle rule {c.oid} is given its checks twice")
        rule, area, files = declared[c.oid]
        source = f"{rule.source} (holds in {rule.releases}; encoded in {', '.join(files)})"
        out[c.oid] = Rule(c.oid, area, rule.text, source, documented=False, kind=ORACLE,
                          checked_by=((f"{prefixes[area]}-EQ",) if c.eq else ()) + c.checks, note=c.note)
    if set(out) != set(declared):
        raise ValueError(f"oracle rules without checks: {sorted(set(declared) - set(out))}")
    return out
