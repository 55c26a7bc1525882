"""The rules the oracle encodes, as registry entries (docs/rules.md).

``oracle/*.py`` numbers the rules it encodes in its docstrings and comments (``CC-3``, ``AL-4``,
...). Some of those numbers coincide with invariant IDs of other meaning (the timers' ``TM-1`` is not
the TaskManager's ``TM-1``), so in the registry an oracle rule is ``oracle:<its ID in the code>``:
``oracle:TM-1`` is rule ``TM-1`` of ``oracle/timers.py``. Each entry says what the rule is, which
Flink code it was read from (classes at the released jars, ``1.13.6`` ... ``2.3.0``, see
``oracle.versions.SUPPORTED``), and what checks it: the area's ``-EQ`` rule (the oracle against
real Flink), the invariants that state it, the pinned examples and the Flink tests transcribed in
``properties/checkpoint/*_examples.json``.

The memory oracle (``oracle/memory*.py``, ``memsize.py``, ``javanum.py``) numbers none of its
rules: the memory rules' IDs are the invariants' (``TM-1`` ... ``TM-10``, ``JM-1`` ... ``JM-6``).
"""

from __future__ import annotations

from collections.abc import Mapping

from properties.rules import EXAMPLES, MACHINES, ORACLE, Rule

PREFIX = "oracle:"

# which area and oracle module(s) each oracle ID prefix belongs to
ORACLE_PREFIXES: Mapping[str, tuple[str, tuple[str, ...]]] = {
    "TM": ("watermark.timers", ("oracle/timers.py",)),
    "WM": ("watermark.valve", ("oracle/valve.py", "oracle/watermark.py")),
    "CWM": ("watermark.combined", ("oracle/combined.py",)),
    "CL": ("classloading.resolve", ("oracle/classloading.py", "oracle/classloading_config.py")),
    "IN": ("checkpoint.alignment", ("oracle/alignment.py",)),
    "AL": ("checkpoint.alignment", ("oracle/alignment.py", "oracle/alignment_handlers.py")),
    "ALO": ("checkpoint.alignment", ("oracle/alignment.py", "oracle/alignment_handlers.py")),
    "CC": ("checkpoint.coordinator", ("oracle/coordinator.py", "oracle/coordinator_machine.py",
                                      "oracle/coordinator_rules.py")),
    "RC": ("checkpoint.recovery", ("oracle/recovery.py",)),
}
EQ = {"watermark.timers": "TIMER-EQ", "watermark.valve": "WM-EQ", "watermark.combined": "CWM-EQ",
      "classloading.resolve": "CLR-EQ", "checkpoint.alignment": "ALIGN-EQ",
      "checkpoint.coordinator": "CCR-EQ", "checkpoint.recovery": "RCV-EQ"}

ALL = "1.13.6-2.3.0 jars"
SINCE_114 = "1.14.6-2.3.0 jars"
ONLY_113 = "1.13.6 jar"

_WM_EX = "properties/test_oracle_watermark_examples.py::"
_CC_EX = "properties/checkpoint/test_coordinator_patch_releases.py::"
TIMERS_EX = EXAMPLES["watermark.timers"]
VALVE_EX = EXAMPLES["watermark.valve"]
COMBINED_EX = EXAMPLES["watermark.combined"]
VALVE_MACHINE = MACHINES["watermark.valve"]
ALIGN_MACHINE = MACHINES["checkpoint.alignment"]
COORD_MACHINE = MACHINES["checkpoint.coordinator"]
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


def oracle_rule(oid: str, text: str, source: str, *checks: str, eq: bool = True, note: str = "") -> Rule:
    """Rule ``oid`` of the oracle: checked by its area's ``-EQ`` rule (unless ``eq`` is false) and
    ``checks``."""
    area, files = ORACLE_PREFIXES[oid.rsplit("-", 1)[0]]
    return Rule(PREFIX + oid, area, text, f"{source} (encoded in {', '.join(files)})", documented=False,
                kind=ORACLE, checked_by=((EQ[area],) if eq else ()) + checks, note=note)


_TIE_NOTE = ("TIMER-EQ compares the timers one watermark fires with equal timestamps sorted (docs/protocol/v1.md's tie "
             "rule), so the heap order is checked only by the pinned examples, recorded from real Flink of every "
             "version")
_RECOVERY_NOTE = ("a model rule: RCV-EQ's real-Flink side (RecoveryArea.java) does the same bookkeeping over the "
                  "trace of Flink's own barrier handler, so RCV-EQ checks the trace; the documented guarantees "
                  "RCV-2 ... RCV-4 check the outcome")
_INPUT_NOTE = ("the harness's input model, the same in the bridge's AlignmentArea.java: ALIGN-EQ checks that "
               "oracle and bridge agree on it, the invariants that the traces it yields are sound")

_RULES: tuple[Rule, ...] = (
    # ---- watermark.timers: oracle/timers.py -------------------------------------------------
    oracle_rule("TM-1", "A timer is (timestamp, key, namespace); registering one that is already queued is a no-op.",
                f"HeapPriorityQueueSet.add, TimerHeapInternalTimer.equals, InternalTimerServiceImpl."
                f"registerEventTimeTimer, {ALL}", "TIMER-2", TIMERS_EX),
    oracle_rule("TM-2", "Deleting a timer removes the queued timer equal to it, if any.",
                f"HeapPriorityQueueSet.remove, InternalTimerServiceImpl.deleteEventTimeTimer, {ALL}",
                "TIMER-2", TIMERS_EX),
    oracle_rule("TM-3", "advanceWatermark(t) sets the current watermark to t (even backwards) and fires, one poll at "
                "a time, every queued timer with timestamp <= t.",
                f"InternalTimerServiceImpl.advanceWatermark / tryAdvanceWatermark, {ALL}",
                "TIMER-1", "TIMER-2", TIMERS_EX),
    oracle_rule("TM-4", "A timer's priority is its timestamp alone.",
                f"TimerHeapInternalTimer.comparePriorityTo, {ALL}", "TIMER-3", TIMERS_EX),
    oracle_rule("TM-5", "The timer queue is a 1-based binary heap: an insertion appends and sifts up while strictly "
                "less than its parent.", f"HeapPriorityQueue.addInternal / siftUp, {ALL}",
                TIMERS_EX, eq=False, note=_TIE_NOTE),
    oracle_rule("TM-6", "Sifting down takes the right child only if strictly less than the left and moves while that "
                "child is strictly less; removing index i moves the last element to i, sifts it down, and up only "
                "if it did not move, so equal timestamps fire in heap order, not registration order.",
                f"HeapPriorityQueue.siftDown / removeInternal / adjustModifiedElement, {ALL}",
                TIMERS_EX, eq=False, note=_TIE_NOTE),
    oracle_rule("TM-7", "Registering a timer at or below the current watermark does not fire it; it fires at the next "
                "watermark.", f"InternalTimerServiceImpl.registerEventTimeTimer / advanceWatermark, {ALL}",
                "TIMER-1", "TIMER-2", TIMERS_EX),
    # ---- watermark.valve: oracle/valve.py, oracle/watermark.py --------------------------------
    oracle_rule("WM-1", "A watermark is ignored unless both the valve and its channel are ACTIVE.",
                f"StatusWatermarkValve.inputWatermark, {ALL}", "WM-6", "WM-8", VALVE_EX, VALVE_MACHINE),
    oracle_rule("WM-2", "A watermark is ignored unless it is strictly greater than its channel's watermark.",
                f"StatusWatermarkValve.inputWatermark, {ALL}", "WM-8", VALVE_EX, VALVE_MACHINE),
    oracle_rule("WM-3", "An unaligned channel becomes aligned when its new watermark is >= the last output watermark.",
                f"StatusWatermarkValve.inputWatermark, {ALL}", "WM-4", VALVE_EX, VALVE_MACHINE),
    oracle_rule("WM-4", "The valve emits the minimum watermark over the aligned channels when it exceeds the last "
                "output.", f"StatusWatermarkValve.findAndOutputNewMinWatermarkAcrossAlignedChannels, {ALL}",
                "WM-2", "WM-3", "WM-4", VALVE_EX, VALVE_MACHINE),
    oracle_rule("WM-5", "IDLE on an ACTIVE channel unaligns it; if it was the last active channel the valve first "
                "flushes the maximum over all channels (only if that channel's watermark equals the last output), "
                "then emits IDLE.",
                f"StatusWatermarkValve.inputWatermarkStatus / findAndOutputMaxWatermarkAcrossAllChannels, {ALL}",
                "WM-5", "WM-7", VALVE_EX, VALVE_MACHINE,
                note="the flush condition is the quirk behind WM-7, which real Flink of every version breaks"),
    oracle_rule("WM-6", "IDLE on an ACTIVE channel that was not the last active one re-evaluates the minimum, but "
                "only if that channel's watermark equals the last output.",
                f"StatusWatermarkValve.inputWatermarkStatus, {ALL}", "WM-4", VALVE_EX, VALVE_MACHINE),
    oracle_rule("WM-7", "ACTIVE on an IDLE channel realigns it when its watermark is >= the last output and emits "
                "ACTIVE if the valve was IDLE; it never emits a watermark.",
                f"StatusWatermarkValve.inputWatermarkStatus, {ALL}", "WM-5", "WM-6", VALVE_EX, VALVE_MACHINE),
    oracle_rule("WM-8", "IDLE on an IDLE channel and ACTIVE on an ACTIVE channel change nothing.",
                f"StatusWatermarkValve.inputWatermarkStatus, {ALL}", "WM-5", VALVE_EX, VALVE_MACHINE),
    oracle_rule("WM-9", "The valve starts ACTIVE with every channel ACTIVE and aligned at Long.MIN_VALUE.",
                f"StatusWatermarkValve constructor, InputChannelStatus / SubpartitionStatus, {ALL}",
                VALVE_EX, VALVE_MACHINE),
    oracle_rule("WM-10", "From 1.19 a channel may consume several subpartitions: the valve keeps one status per "
                "subpartition, routes each InternalWatermark to its subpartition, and rejects every status input "
                "with IllegalStateException.",
                "StatusWatermarkValve(numInputChannels, subpartitions) and inputWatermarkStatus's "
                "checkState(!isInputChannelShared), FLINK-33743, 1.19.3-2.3.0 jars",
                _WM_EX + "test_valve_routes_internal_watermarks_to_their_subpartition",
                _WM_EX + "test_valve_status_on_a_shared_channel_is_rejected",
                _WM_EX + "test_invalid_subpartitions_before_1_19", eq=False,
                note="the generated requests carry no subpartitions, so WM-EQ never meets this rule; the pinned "
                     "examples (recorded from real Flink 1.19+) do"),
    oracle_rule("WM-11", "In 1.17.0 only, IDLE on an active channel that is not aligned throws "
                "ArrayIndexOutOfBoundsException (the valve removes it from its heap of aligned channels, where it "
                "is not).",
                "StatusWatermarkValve.markWatermarkUnaligned and InputChannelStatus.removeFrom (no heap index "
                "check until FLINK-31628), HeapPriorityQueue.removeInternal, 1.17.0 and 1.17.1 jars",
                _WM_EX + "test_valve_unaligned_channel_going_idle_throws_in_1_17_0"),
    # ---- watermark.combined: oracle/combined.py -------------------------------------------------
    oracle_rule("CWM-1", "Each input keeps a partial watermark that is only ever raised and an idle flag; a watermark "
                "on an input raises its partial and marks the input active.",
                f"IndexedCombinedWatermarkStatus.updateWatermark, CombinedWatermarkStatus.PartialWatermark."
                f"setWatermark, {SINCE_114}", "CWM-4", COMBINED_EX),
    oracle_rule("CWM-2", "The combined watermark is the minimum over the non-idle inputs; it is emitted when it "
                "exceeds the last combined watermark.",
                f"CombinedWatermarkStatus.updateCombinedWatermark, {SINCE_114}", "CWM-2", "CWM-3", "CWM-4",
                COMBINED_EX),
    oracle_rule("CWM-3", "When every input is idle the combined status is idle; up to 2.1 no watermark is derived "
                "then, from 2.2 (FLINK-38454) the maximum over all inputs is, and emitted if it exceeds the last "
                "one.", f"CombinedWatermarkStatus.updateCombinedWatermark, {SINCE_114}; FLINK-38454 (2.2.1, 2.3.0)",
                "CWM-5", "CWM-6", "CWM-7", COMBINED_EX),
    oracle_rule("CWM-4", "A status event first emits the combined watermark if it advanced, then forwards the "
                "incoming status if the combined idleness flipped.",
                f"AbstractStreamOperator.processWatermarkStatus1/2, AbstractStreamOperatorV2.processWatermarkStatus, "
                f"{SINCE_114}", "CWM-5", COMBINED_EX),
    oracle_rule("CWM-5", "A watermark event never emits a status, even when it ends combined idleness.",
                f"AbstractStreamOperator.processWatermark1/2, AbstractStreamOperatorV2.reportWatermark, {SINCE_114}",
                "CWM-5", COMBINED_EX),
    oracle_rule("CWM-6", "In 1.13 each input's last watermark is stored as is (it may go down) and the minimum over "
                "all inputs is emitted when it exceeds the last combined watermark.",
                f"AbstractStreamOperator.processWatermark1/2, AbstractStreamOperatorV2.reportWatermark, {ONLY_113}",
                "CWM-2", "CWM-3", COMBINED_EX),
    oracle_rule("CWM-7", "In 1.13 the task combines statuses: ACTIVE on any input makes it ACTIVE, IDLE makes it IDLE "
                "once every input's last status is IDLE, and a status is emitted only when the task's changes.",
                f"StreamTwoInputProcessorFactory.StreamStatusTracker, StreamMultipleInputProcessorFactory."
                f"MultiStreamStreamStatusTracker, StreamStatusMaintainer, {ONLY_113}", "CWM-5", COMBINED_EX),
    oracle_rule("CWM-8", "Every input starts ACTIVE at Long.MIN_VALUE, and so does the combined watermark.",
                f"IndexedCombinedWatermarkStatus.forInputsCount ({SINCE_114}); AbstractStreamOperator's "
                f"input watermark fields ({ONLY_113})", COMBINED_EX),
    # ---- classloading.resolve: oracle/classloading_config.py, oracle/classloading.py -------------
    oracle_rule("CL-1", "The parent-first patterns in force are the entries of classloader.parent-first-patterns."
                "default (deprecated key classloader.parent-first-patterns; per-version default) followed by those "
                "of classloader.parent-first-patterns.additional, not trimmed beyond the splitter, de-duplicated or "
                "sorted.", f"CoreOptions.getParentFirstLoaderPatterns, ALWAYS_PARENT_FIRST_LOADER_PATTERNS"
                f"(_ADDITIONAL), {ALL}", "CLR-9"),
    oracle_rule("CL-2", "1.13-1.14 split a pattern list with Guava's Splitter.on(';').omitEmptyStrings(): no trimming, "
                "no quoting.", "CoreOptions (String options) with flink-shaded Guava Splitter, 1.13.6-1.14.6 jars",
                "CLR-9"),
    oracle_rule("CL-3", "1.15-1.18 split a pattern list with StructuredOptionsSplitter.splitEscaped(value, ';'): "
                "unquoted tokens Java-trimmed, quotes with doubled-quote escapes, an inner empty piece kept as \"\", "
                "a leading one dropped, malformed quoting an error.",
                "StructuredOptionsSplitter.splitEscaped (List<String> options), 1.15.4-1.18.1 jars (and the 1.19+ "
                "fallback)", "CLR-9"),
    oracle_rule("CL-4", "From 1.19 a list value is first parsed as a YAML sequence (1.19-1.20 only while the "
                "configuration is standard YAML); anything else, a null item or a YAML error (a character outside "
                "YAML's printable set anywhere, a comment included) falls back to CL-3. NEL, LS and PS separate "
                "tokens like line breaks but are text inside a comment or a plain item.",
                "YamlParserUtils.convertToObject(value, List.class), GlobalConfiguration.isStandardYaml, "
                "1.19.3-2.3.0 jars", "CLR-9"),
    oracle_rule("CL-5", "ResolveOrder.fromString compares with equalsIgnoreCase and does not trim: anything but "
                "child-first or parent-first is IllegalArgumentException(\"Unknown resolve order: <value>\").",
                f"FlinkUserCodeClassLoaders.ResolveOrder.fromString, {ALL}", "CLR-10",
                CL_BAD + "test_unknown_resolve_order_is_rejected_by_flink"),
    oracle_rule("CL-6", "A value that does not parse is IllegalArgumentException(\"Could not parse value '<raw>' for "
                "key '<key>'.\"), naming the option's own key even when the value came from a deprecated key.",
                f"Configuration.getOptional / ConfigurationUtils.convertValue, {ALL}",
                note="CLR-EQ compares the message only with --strict-messages (tests/test_real_flink.py sets it)"),
    oracle_rule("CL-7", "Child-first: a class the loader already defined is returned; a name starting with any "
                "pattern (plain startsWith) takes standard parent delegation; any other is looked up in the user "
                "jar first, then by standard delegation.",
                f"ChildFirstClassLoader.loadClassWithoutExceptionHandling, {ALL}", "CLR-2", "CLR-3", "CLR-4", "CLR-8"),
    oracle_rule("CL-8", "Parent-first: every name is looked up in the parent, then in the user jar; patterns play no "
                "part.", f"FlinkUserCodeClassLoaders.ParentFirstClassLoader (a URLClassLoader), {ALL}", "CLR-5"),
    oracle_rule("CL-9", "The parent side is the JDK (boot and platform loaders) first, then the parent jar.",
                "URLClassLoader over the parent jar above the JDK 17 platform class loader (ClassLoader.loadClass)",
                "CLR-3", "CLR-5", "CLR-6"),
    oracle_rule("CL-10", "No loader but the platform loader may define a class in java.*: SecurityException "
                "(\"Prohibited package name\") on either side; a jar entry a/b/C.class that is no class file is a "
                "ClassFormatError.", "ClassLoader.preDefineClass / defineClass, JDK 17", "CLR-7"),
    oracle_rule("CL-11", "Defining a user class resolves java.lang.Object through the user-code loader itself, so "
                "with no pattern covering it a user jar holding java/lang/Object.class fails every user class with "
                "SecurityException.", f"ChildFirstClassLoader.loadClass on defineClass's superclass, JDK 17, {ALL}",
                "CLR-7"),
    oracle_rule("CL-12", "Only ClassNotFoundException moves the search on; any other error ends the lookup.",
                f"ChildFirstClassLoader.loadClassWithoutExceptionHandling, ClassLoader.loadClass, {ALL}", "CLR-7"),
    oracle_rule("CL-13", "getResources lists every user-jar match, then what the parent finds (JDK, then parent jar) "
                "child-first, the parent's first parent-first; patterns do not apply, and a class's .class file is a "
                "resource of its jar.", f"ChildFirstClassLoader.getResources, ClassLoader.getResources, {ALL}",
                "CLR-11"),
    oracle_rule("CL-14", "getResource is the first element of getResources, in both resolve orders.",
                f"ChildFirstClassLoader.getResource, ClassLoader.getResource, {ALL}"),
    # ---- checkpoint.alignment: oracle/alignment.py, oracle/alignment_handlers.py ----------------
    oracle_rule("IN-1", "Each event is appended to its channel's queue when it arrives.",
                "flinkspec's input model, docs/protocol/checkpoint-alignment.md (bridge: AlignmentArea.java)",
                "ALIGN-2", ALIGN_MACHINE, note=_INPUT_NOTE),
    oracle_rule("IN-2", "A channel is blocked from the handler's blockConsumption until its resumeConsumption.",
                f"CheckpointableInput.blockConsumption / resumeConsumption as the handlers call them, {ALL}",
                "ALIGN-3", ALIGN_MACHINE, note=_INPUT_NOTE),
    oracle_rule("IN-3", "After each arrival the task consumes, one at a time, the earliest-arrived queued event of any "
                "unblocked channel until none is left; what a never-resumed channel queued is never consumed.",
                "flinkspec's input model, docs/protocol/checkpoint-alignment.md (bridge: AlignmentArea.java)",
                "ALIGN-2", ALIGN_MACHINE, note=_INPUT_NOTE),
    oracle_rule("IN-4", "A consumed record is processed; a barrier, cancel marker or end of partition goes to the "
                "barrier handler.", f"CheckpointedInputGate.handleEvent, {ALL}", "ALIGN-1", ALIGN_MACHINE,
                note=_INPUT_NOTE),
    oracle_rule("IN-5", "A trigger is recorded as snapshot then emit_barrier, an abort as abort.",
                f"SubtaskCheckpointCoordinatorImpl.checkpointState, abortCheckpointOnBarrier, {ALL}",
                "ALIGN-1", ALIGN_MACHINE, note=_INPUT_NOTE),
    oracle_rule("IN-6", "An exception thrown by the handler fails the task: a fail step ends the trace and nothing "
                "more is consumed.", "flinkspec's input model (a task fails on an exception in its mailbox)",
                "ALIGN-1", "ALIGN-7", ALIGN_MACHINE, note=_INPUT_NOTE),
    oracle_rule("AL-1", "Exactly-once: the handler starts with current = last completed-or-cancelled = -1, and a "
                "checkpoint is pending while current != last and current >= 0.",
                f"SingleCheckpointBarrierHandler.isCheckpointPending, {ALL}", ALIGN_MACHINE,
                *scenarios(_AT + "testMultiChannelWithBarriers")),
    oracle_rule("AL-2", "Exactly-once: a barrier with id < current, or = current while nothing is pending, is "
                "obsolete: its channel is resumed and nothing else happens.",
                f"SingleCheckpointBarrierHandler.processBarrier, {ALL}", "ALIGN-5", ALIGN_MACHINE,
                *scenarios(_AT + "testMultiChannelAbortCheckpoint", _AT + "testAbortOnCanceledBarriers")),
    oracle_rule("AL-3", "Exactly-once: a barrier with id > current first aborts a pending checkpoint with "
                "CHECKPOINT_DECLINED_SUBSUMED, then starts checkpoint id targeting the open channels.",
                f"SingleCheckpointBarrierHandler.checkNewCheckpoint / cancelSubsumedCheckpoint, {ALL}",
                "ALIGN-5", "ALIGN-6", ALIGN_MACHINE,
                *scenarios(_AT + "testMultiChannelJumpingOverCheckpoint",
                           _AT + "testIgnoreCancelBarrierIfCheckpointSubsumed")),
    oracle_rule("AL-4", "Exactly-once: the barrier's channel joins the aligned set and is blocked; once the set "
                "reaches the target the checkpoint is triggered, every blocked channel resumed, and it counts as "
                "completed.",
                f"SingleCheckpointBarrierHandler.markCheckpointAlignedAndTransformState, "
                f"WaitingForFirstBarrier / CollectingBarriers.barrierReceived, triggerGlobalCheckpoint, {ALL}",
                "ALIGN-3", "ALIGN-5", ALIGN_MACHINE, *scenarios(_AT + "testMultiChannelWithBarriers")),
    oracle_rule("AL-5", "Exactly-once: a cancel marker with id > current, or = current while some channel is aligned, "
                "aborts id with CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER; any other is ignored, and an older "
                "pending checkpoint is dropped without an abort of its own.",
                f"SingleCheckpointBarrierHandler.processCancellationBarrier, {ALL}", "ALIGN-6", ALIGN_MACHINE,
                *scenarios(_AT + "testSingleChannelAbortCheckpoint", _AT + "testMultiChannelAbortCheckpoint",
                           _AT + "testAbortOnCanceledBarriers", _AT + "testIgnoreCancelBarrierIfCheckpointSubsumed")),
    oracle_rule("AL-6", "Exactly-once abort: current = max(current, id), last = max(last, id), the aligned set "
                "cleared, every blocked channel resumed, then the abort notified.",
                f"SingleCheckpointBarrierHandler.abortInternal, {ALL}", "ALIGN-5", "ALIGN-6", ALIGN_MACHINE,
                *scenarios(_AT + "testMultiChannelAbortCheckpoint")),
    oracle_rule("AL-7", "Exactly-once, checkpoints after finish off: an end of partition leaves one channel fewer open "
                "and aborts a pending checkpoint with CHECKPOINT_DECLINED_INPUT_END_OF_STREAM.",
                f"SingleCheckpointBarrierHandler.processEndOfPartition, {ALL}", "ALIGN-6", ALIGN_MACHINE),
    oracle_rule("AL-8", "Exactly-once, checkpoints after finish on: an end of partition leaves one channel fewer open "
                "and counts as aligned for a pending checkpoint, which it may trigger.",
                f"SingleCheckpointBarrierHandler.processEndOfPartition, AbstractAlignedBarrierHandlerState."
                f"endOfPartitionReceived, {SINCE_114}", "ALIGN-3", ALIGN_MACHINE,
                *scenarios(_AT + "testTriggerCheckpointsWithEndOfPartition",
                           _AT + "testDeduplicateChannelsWithBothBarrierAndEndOfPartition",
                           _AT + "testTriggerCheckpointsAfterReceivedEndOfPartition")),
    oracle_rule("AL-9", "1.13 has no checkpoints after finish (AL-7 always); its barrier counter decides as 1.14+'s "
                "channel set does.", f"SingleCheckpointBarrierHandler (numBarriersReceived), {ONLY_113}",
                ALIGN_MACHINE),
    oracle_rule("ALO-1", "At-least-once: no channel is ever blocked, everything is consumed in arrival order.",
                f"CheckpointBarrierTracker, {ALL}", "ALIGN-2", ALIGN_MACHINE),
    oracle_rule("ALO-2", "At-least-once: a barrier with id > the latest pending id while one channel is open triggers "
                "at once and is not tracked (1.13: whenever the task has one channel).",
                f"CheckpointBarrierTracker.processBarrier, {ALL}", "ALIGN-4", ALIGN_MACHINE,
                *scenarios(_BT + "testSingleChannelWithSkippedBarriers",
                           _BT + "testNoFastPathWithChannelFinishedDuringCheckpoints")),
    oracle_rule("ALO-3", "At-least-once: a barrier of a tracked checkpoint counts its channel; at the entry's target "
                "the entry and every older one are removed (the older silently) and it is triggered unless aborted.",
                f"CheckpointBarrierTracker.processBarrier / triggerCheckpointOnAligned, {ALL}", "ALIGN-4",
                ALIGN_MACHINE, *scenarios(_BT + "testCompleteCheckpointsOnLateBarriers",
                                          _BT + "testMultiChannelSkippingCheckpoints")),
    oracle_rule("ALO-4", "At-least-once: a barrier with a new id > the latest pending id starts an entry; beyond 50 "
                "entries the oldest is dropped silently.",
                f"CheckpointBarrierTracker.processBarrier, MAX_CHECKPOINTS_TO_TRACK, {ALL}", "ALIGN-4",
                ALIGN_MACHINE, *scenarios(_BT + "testCompleteCheckpointsOnLateBarriers")),
    oracle_rule("ALO-5", "At-least-once: any other barrier (older, untracked) is ignored.",
                f"CheckpointBarrierTracker.processBarrier, {ALL}", ALIGN_MACHINE,
                *scenarios(_BT + "testCompleteCheckpointsOnLateBarriers")),
    oracle_rule("ALO-6", "At-least-once: a cancel marker with id > the latest pending id while one channel is open "
                "aborts id at once and changes nothing else (1.13: whenever the task has one channel).",
                f"CheckpointBarrierTracker.processCancellationBarrier, {ALL}", "ALIGN-6", ALIGN_MACHINE),
    oracle_rule("ALO-7", "At-least-once: otherwise a cancel marker removes every older entry, notifying each not yet "
                "aborted one, aborts (once) an entry of its id that then counts the channel, and tracks a newer id "
                "as an aborted entry.", f"CheckpointBarrierTracker.processCancellationBarrier, {ALL}", "ALIGN-6",
                ALIGN_MACHINE, *scenarios(_BT + "testMultiChannelAbortCheckpoint",
                                          _BT + "testInterleavedCancellationBarriers")),
    oracle_rule("ALO-8", "At-least-once, checkpoints after finish off: an end of partition leaves one channel fewer "
                "open and removes every entry, aborting each not yet aborted one with "
                "CHECKPOINT_DECLINED_INPUT_END_OF_STREAM.",
                f"CheckpointBarrierTracker.processEndOfPartition, {ALL}", "ALIGN-6", ALIGN_MACHINE,
                *scenarios(_BT + "testAbortCheckpointsAfterEndOfPartitionReceived")),
    oracle_rule("ALO-9", "At-least-once, checkpoints after finish on: an end of partition counts its channel in each "
                "entry from the newest back to the first it completes, which is removed with every older one and "
                "triggered unless aborted.",
                f"CheckpointBarrierTracker.checkAlignmentOnEndOfPartitionIfEnabled, {SINCE_114}", ALIGN_MACHINE,
                *scenarios(_BT + "testTriggerCheckpointsWithEndOfPartition",
                           _BT + "testNoFastPathWithChannelFinishedDuringCheckpoints")),
    oracle_rule("ALO-10", "At-least-once in 1.13: entries count barriers (a repeated barrier counts again) against the "
                "task's fixed channel count, and an end of partition never lowers it and always does ALO-8.",
                f"CheckpointBarrierTracker (totalNumberOfInputChannels), {ONLY_113}", ALIGN_MACHINE),
    oracle_rule("ALO-11", "At-least-once: the task fails with IllegalStateException(\"Alignment time is less than "
                "zero\") when the latest pending checkpoint completes while no alignment is in progress.",
                f"CheckpointBarrierHandler.markAlignmentStartAndEnd / markAlignmentEnd / resetAlignment, "
                f"{SINCE_114}", "ALIGN-7", ALIGN_MACHINE,
                note="ALIGN-7 (never fail the task) is the documented rule real Flink 1.14+ breaks this way"),
    # ---- checkpoint.coordinator: oracle/coordinator*.py ---------------------------------------
    oracle_rule("CC-1", "A trigger is queued in the request decider (at most 1000): at a full queue whose last request "
                "is not periodic it fails TOO_MANY_CHECKPOINT_REQUESTS, otherwise it is queued and, past 1000, the "
                "last one is dropped with that reason.",
                f"CheckpointRequestDecider.chooseRequestToExecute, {ALL}", COORD_MACHINE,
                *scenarios(_DT + "testQueueSizeLimit", _DT + "testQueueSizeLimitPriority")),
    oracle_rule("CC-2", "The queue orders savepoints, then forced, then non-periodic requests, then the oldest; "
                "savepoints are forced unless unaligned checkpoints are on, nothing starts while a trigger is in "
                "progress, and at max_concurrent pending checkpoints only a forced head starts.",
                f"CheckpointRequestDecider (queue order, chooseRequestToExecute), CheckpointProperties.forSavepoint, "
                f"{ALL}", "CCR-4", COORD_MACHINE,
                *scenarios(_DT + "testSavepointPrioritized+testUserSubmittedPrioritized",
                           _CT + "testConcurrentSavepoints", _CT + "testMaxConcurrentAttempts2")),
    oracle_rule("CC-3", "A periodic, non-forced head less than min_pause_ms (capped at 365 days) after the last "
                "completion fails MINIMUM_TIME_BETWEEN_CHECKPOINTS and the periodic trigger is rescheduled; manual "
                "checkpoints and savepoints ignore the pause.",
                f"CheckpointRequestDecider.chooseRequestToExecute, CheckpointCoordinator.rescheduleTrigger, {ALL}",
                COORD_MACHINE, *scenarios(_DT + "testCheckpointTiming+testSavepointTiming",
                                          _CT + "testMinDelayBetweenSavepoints")),
    oracle_rule("CC-4", "The checkpoint plan needs its tasks RUNNING (1.13: the tasks to trigger, 1.14+: every task to "
                "wait for); otherwise the request fails NOT_ALL_REQUIRED_TASKS_RUNNING and takes no id.",
                f"DefaultCheckpointPlanCalculator.calculateCheckpointPlan, {ALL}", COORD_MACHINE,
                *scenarios(_CT + "testPeriodicSchedulingWithInactiveTasks")),
    oracle_rule("CC-5", "Checkpoint ids come from the ID counter (1, 2, ...) only once the plan exists; the pending "
                "checkpoint's canceller is due timeout_ms later.",
                f"StandaloneCheckpointIDCounter, CheckpointCoordinator.createPendingCheckpoint, "
                f"PendingCheckpoint.setCancellerHandle, {ALL}", "CCR-2", "CCR-7", COORD_MACHINE,
                *scenarios(_CT + "testCheckpointTimeoutIsolated")),
    oracle_rule("CC-6", "An acknowledgement is SUCCESS for an expected attempt, DUPLICATE for one that already "
                "acknowledged, UNKNOWN for another attempt; the last one completes the checkpoint.",
                f"PendingCheckpoint.acknowledgeTask, CheckpointCoordinator.receiveAcknowledgeMessage, {ALL}",
                "CCR-3", "CCR-8", COORD_MACHINE, *scenarios(_CT + "testTriggerAndConfirmSimpleCheckpoint")),
    oracle_rule("CC-7", "A completed checkpoint or synchronous savepoint (1.13-1.14: any completion) aborts every "
                "older pending non-savepoint with CHECKPOINT_SUBSUMED; the min pause counts from the completion.",
                f"CheckpointCoordinator.completePendingCheckpoint / dropSubsumedCheckpoints, {ALL}", "CCR-5",
                COORD_MACHINE, *scenarios(_CT + "testSavepointsAreNotSubsumed",
                                          _CT + "testMaxConcurrentAttempsWithSubsumption")),
    oracle_rule("CC-8", "A decline aborts the pending checkpoint with the task's reason (task-level); a savepoint "
                "declined with CHECKPOINT_SUBSUMED is aborted but the abort throws before the failure manager hears "
                "of it.", f"CheckpointCoordinator.receiveDeclineMessage, PendingCheckpoint.abort, {ALL}", "CCR-3",
                COORD_MACHINE, *scenarios(_CT + "testTriggerAndDeclineCheckpointSimple",
                                          "PendingCheckpointTest#testSyncSavepointCannotBeSubsumed")),
    oracle_rule("CC-9", "Before each event due timers fire in due-time order (ties in scheduling order): an expired "
                "pending checkpoint is aborted with CHECKPOINT_EXPIRED (job-level), a rescheduled periodic trigger "
                "requests a checkpoint.",
                f"CheckpointCoordinator.CheckpointCanceller, ScheduledTrigger, {ALL}", "CCR-7", COORD_MACHINE,
                *scenarios(_CT + "testCheckpointTimeoutIsolated")),
    oracle_rule("CC-10", "Every dispose (abort or completion), every scheduleTriggerRequest and (1.16+) every subsumed "
                "stored checkpoint queue one run of executeQueuedRequest.",
                f"CheckpointCoordinator.executeQueuedRequest / scheduleTriggerRequest, CheckpointsCleaner (1.16+), "
                f"{ALL}", COORD_MACHINE, *scenarios(_CT + "testMaxConcurrentAttempts2")),
    oracle_rule("CC-11", "restart (a region failover) aborts every pending checkpoint with JOB_FAILOVER_REGION "
                "(job-level) and gives the task a new attempt.",
                f"SchedulerBase.restoreState, CheckpointCoordinator.abortPendingCheckpoints, {ALL}", COORD_MACHINE,
                *scenarios(_FT + "testContinuousFailure")),
    oracle_rule("CC-12", "Decline reasons are the version's CheckpointFailureReason values.",
                "CheckpointFailureReason enum of each of the 1.13.6-2.3.0 jars", "CCR-1", COORD_MACHINE,
                CC_BAD + "test_invalid_checkpoint_input_is_a_bad_request"),
    oracle_rule("CC-13", "The failure manager counts each checkpoint id once, only above the last success and only for "
                "the counted reasons of the version; a newer success resets the count; tolerable_failures = "
                "2147483647 disables counting.",
                f"CheckpointFailureManager.checkFailureCounter / handleCheckpointSuccess, {ALL}", COORD_MACHINE,
                *scenarios(_FT + "testContinuousFailure", _FT + "testBreakContinuousFailure")),
    oracle_rule("CC-14", "1.14.3+: a pre-flight reason or a failure without a task is job-level and ignored for "
                "savepoints, a task-level failure of a synchronous savepoint fails the job; 1.13-1.14.2: every "
                "non-pre-flight failure of a synchronous savepoint fails the job and savepoint failures count.",
                f"CheckpointFailureManager.handleJobLevelCheckpointException / handleTaskLevelCheckpointException / "
                f"handleSynchronousSavepointFailure (CheckpointCoordinator.abortPendingCheckpoint up to 1.14.2, "
                f"handleCheckpointException with the CheckpointProperties from 1.14.3), {ALL} and the 1.14.0-1.14.3 "
                f"jars", COORD_MACHINE, _CC_EX + "test_savepoint_failures_count_until_1_14_2"),
    oracle_rule("CC-15", "The job fails when the count exceeds tolerable_failures (\"Exceeded checkpoint tolerable "
                "failure threshold.\", 1.17+ with the latest reason's message), and the count resets.",
                f"CheckpointFailureManager (FailJobCallback, EXCEEDED_CHECKPOINT_TOLERABLE_FAILURE_MESSAGE), {ALL}",
                COORD_MACHINE, *scenarios(_CT + "testExpiredCheckpointExceedsTolerableFailureNumber",
                                          _FT + "testContinuousFailure")),
    oracle_rule("CC-16", "The completed-checkpoint store keeps `retained` checkpoints; 1.15+ stores no savepoints.",
                f"StandaloneCompletedCheckpointStore, CheckpointSubsumeHelper.subsume, {ALL}", "CCR-6", COORD_MACHINE,
                *scenarios(_ST + "testAtLeastOneCheckpointRetained", _ST + "testNotSubsumedIfNotNeeded")),
    oracle_rule("CC-17", "1.13-1.14 store savepoints too: an older entry is dropped iff it is not the latest and is a "
                "savepoint, or the latest is a synchronous savepoint, or a newer checkpoint exists.",
                "StandaloneCompletedCheckpointStore.addCheckpoint(AndSubsumeOldestOne), CheckpointSubsumeHelper, "
                "1.13.6-1.14.6 jars", "CCR-6", COORD_MACHINE,
                *scenarios(_ST + "testSubsumeAfterStoppingWithSavepoint")),
    oracle_rule("CC-18", "An acknowledgement for a checkpoint no longer pending returns true iff its id is among the "
                "last 16 ids removed from pending (up to 1.18) or expired (1.19+).",
                f"CheckpointCoordinator.receiveAcknowledgeMessage, recentPendingCheckpoints / "
                f"recentExpiredCheckpoints, {ALL}", COORD_MACHINE,
                *scenarios(_CT + "testHandleMessagesForNonExistingCheckpoints")),
    oracle_rule("CC-19", "The configuration rejects timeout < 10, min pause < 0, max concurrent < 1, tolerable < 0 "
                "(IllegalArgumentException) and unaligned with max concurrent > 1; the store rejects retained < 1.",
                f"CheckpointCoordinatorConfiguration constructor, StandaloneCompletedCheckpointStore constructor, "
                f"{ALL}", CC_BAD + "test_a_negative_timeout_is_flinks_verdict"),
    # ---- checkpoint.recovery: oracle/recovery.py ----------------------------------------------
    oracle_rule("RC-1", "A checkpoint is complete when the operator snapshotted it and every channel delivered its "
                "barrier or ended before the failure.",
                "flinkspec's recovery model, docs/protocol/v2.md (bridge: RecoveryArea.java)", "RCV-4",
                note=_RECOVERY_NOTE),
    oracle_rule("RC-2", "The job restores the complete checkpoint with the highest id (a completed checkpoint subsumes "
                "every older one), or starts from scratch without one.",
                "CheckpointCoordinator.restoreLatestCheckpointedState, CompletedCheckpointStore.getLatestCheckpoint",
                "RCV-4", note=_RECOVERY_NOTE),
    oracle_rule("RC-3", "The restored state is the operator's at its snapshot: the count of every record processed "
                "before it.", "flinkspec's recovery model, docs/protocol/v2.md (bridge: RecoveryArea.java)",
                "RCV-2", "RCV-3", note=_RECOVERY_NOTE),
    oracle_rule("RC-4", "Each source rewinds to its offset in the checkpoint (the records it emitted before the "
                "barrier, all once it ended) and replays the rest of its log.",
                "flinkspec's recovery model, docs/protocol/v2.md (bridge: RecoveryArea.java)",
                "RCV-2", "RCV-3", "RCV-4", note=_RECOVERY_NOTE),
    oracle_rule("RC-5", "The replayed records reach the operator in their original arrival order and are all "
                "processed, each emitting [key, count].",
                "flinkspec's recovery model, docs/protocol/v2.md (bridge: RecoveryArea.java)",
                "RCV-1", "RCV-2", "RCV-3", note=_RECOVERY_NOTE),
)

ORACLE_RULES: Mapping[str, Rule] = {r.id: r for r in _RULES}
if len(ORACLE_RULES) != len(_RULES):
    raise ValueError("an oracle rule ID is declared twice")


def oracle_id(rule: Rule) -> str:
    """``oracle:CC-3`` -> ``CC-3``: the ID as ``oracle/*.py`` writes it."""
    return rule.id.removeprefix(PREFIX)

