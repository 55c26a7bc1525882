"""The watermark areas: the status valve of one input, the combined watermark of a multi-input
operator, event-time timers, and what the built-in watermark generators emit."""

from __future__ import annotations

from oracle import combined, timers, valve
from oracle import watermark as names
from oracle import watermark_assigner as assigner
from oracle import watermark_async as async_queue
from oracle import watermark_generation as generation
from oracle import watermark_join as join
from oracle import watermark_output as output
from oracle import watermark_windows as windows
from oracle.versions import pick
from oracle.watermark import SUBPARTITIONS_SINCE
from properties.area import AnswerShape, Area, Checked, OracleRules, checked, over_inputs
from properties.features import (
    Feature,
    Request,
    event_field_used,
    events_of,
    input_of,
    without_event_field,
    without_field,
)
from properties.mutant import of_area
from properties.watermark import (
    assigner_invariants,
    assigner_mutants,
    assigner_strategies,
    async_invariants,
    async_mutants,
    async_strategies,
    generation_invariants,
    generation_mutants,
    generation_strategies,
    invariants,
    join_invariants,
    join_mutants,
    join_strategies,
    mutants,
    output_invariants,
    output_mutants,
    output_strategies,
    strategies,
    windows_invariants,
    windows_mutants,
    windows_strategies,
)
from properties.watermark import exhaustive as enumerated


def _subpartitions_used(req: Request) -> bool:
    return "subpartitions" in input_of(req) or event_field_used("subpartition")(req)


def _strip_subpartitions(req: Request) -> Request:
    stripped = without_event_field("subpartition")(req)
    return without_field("subpartitions")(stripped)


EMITS_STATUS = AnswerShape(enum_fields=("status",))
_EXAMPLES = "properties/test_oracle_watermark_examples.py::"
TIMERS_EX = _EXAMPLES + "test_timers_fire_in_flinks_order"
VALVE_EX = _EXAMPLES + "test_valve_emits_what_flink_emits"
COMBINED_EX = _EXAMPLES + "test_combined_operator_emits_what_flink_emits"
VALVE_MACHINE = "properties/watermark/test_valve_machine.py::test_valve_machine"
_TIE_NOTE = ("TIMER-EQ compares the timers one watermark fires with equal timestamps sorted (docs/protocol/v1.md's tie "
             "rule), so the heap order is checked only by the pinned examples, recorded from real Flink of every "
             "version")

# what checks each rule of the oracle's valve, combined watermark and timer service
_VALVE_CHECKED: tuple[Checked, ...] = (
    checked("SWV-1", "WM-6", "WM-8", VALVE_EX, VALVE_MACHINE),
    checked("SWV-2", "WM-8", VALVE_EX, VALVE_MACHINE),
    checked("SWV-3", "WM-4", VALVE_EX, VALVE_MACHINE),
    checked("SWV-4", "WM-2", "WM-3", "WM-4", VALVE_EX, VALVE_MACHINE),
    checked("SWV-5",
            "WM-5", "WM-7", VALVE_EX, VALVE_MACHINE,
            note="the flush condition is the quirk behind WM-7, which real Flink of every version breaks"),
    checked("SWV-6", "WM-4", VALVE_EX, VALVE_MACHINE),
    checked("SWV-7", "WM-5", "WM-6", VALVE_EX, VALVE_MACHINE),
    checked("SWV-8", "WM-5", VALVE_EX, VALVE_MACHINE),
    checked("SWV-9", VALVE_EX, VALVE_MACHINE),
    checked("SWV-10",
            _EXAMPLES + "test_valve_routes_internal_watermarks_to_their_subpartition",
            _EXAMPLES + "test_valve_status_on_a_shared_channel_is_rejected",
            _EXAMPLES + "test_invalid_subpartitions_before_1_19", eq=False,
            note="the generated requests carry no subpartitions, so WM-EQ never meets this rule; the pinned "
            "examples (recorded from real Flink 1.19+) do"),
    checked("SWV-11", _EXAMPLES + "test_valve_unaligned_channel_going_idle_throws_in_1_17_0"),
)
_COMBINED_CHECKED: tuple[Checked, ...] = (
    checked("CWS-1", "CWM-4", COMBINED_EX),
    checked("CWS-2", "CWM-2", "CWM-3", "CWM-4", COMBINED_EX),
    checked("CWS-3", "CWM-5", "CWM-6", "CWM-7", COMBINED_EX),
    checked("CWS-4", "CWM-5", COMBINED_EX),
    checked("CWS-5", "CWM-5", COMBINED_EX),
    checked("CWS-6", "CWM-2", "CWM-3", COMBINED_EX),
    checked("CWS-7", "CWM-5", COMBINED_EX),
    checked("CWS-8", COMBINED_EX),
)
_TIMERS_CHECKED: tuple[Checked, ...] = (
    checked("ITS-1", "TIMER-2", TIMERS_EX),
    checked("ITS-2", "TIMER-2", TIMERS_EX),
    checked("ITS-3", "TIMER-1", "TIMER-2", TIMERS_EX),
    checked("ITS-4", "TIMER-3", TIMERS_EX),
    checked("ITS-5", TIMERS_EX, eq=False, note=_TIE_NOTE),
    checked("ITS-6", TIMERS_EX, eq=False, note=_TIE_NOTE),
    checked("ITS-7", "TIMER-1", "TIMER-2", TIMERS_EX),
)

VALVE = Area(
    size_bar=6,
    name=names.VALVE, prefix="WM", rules=invariants.BOOK, page="v1.md#watermarkvalve",
    description="the watermarks and statuses a StatusWatermarkValve emits for its channels' events",
    requests=lambda ver: strategies.requests(names.VALVE, ver),
    size=strategies.event_count, corpus_key=lambda ver: ver >= SUBPARTITIONS_SINCE, shape=EMITS_STATUS,
    oracle={"valve": OracleRules(rules=valve.RULES, files=("oracle/valve.py", "oracle/watermark.py"),
                                 checked=_VALVE_CHECKED)},
    machine=VALVE_MACHINE, examples=VALVE_EX,
    exhaustive=over_inputs("channel", "channels"), mutants=of_area(mutants.MUTANTS, names.VALVE),
    bridge="WatermarkArea", changes=names.CHANGES[names.VALVE],
    features=(Feature(f"{names.VALVE}.subpartitions", 2, names.VALVE, "channels consuming several subpartitions, "
                      "Flink 1.19+", _subpartitions_used, _strip_subpartitions),),
)
COMBINED = Area(
    size_bar=6,
    name=names.COMBINED, prefix="CWM", rules=invariants.BOOK, page="v2.md#new-area-watermarkcombined", protocol=2,
    description="the combined watermark and status of a multi-input operator",
    requests=lambda ver: strategies.requests(names.COMBINED, ver),
    size=strategies.event_count,
    # before idle inputs were ignored, operators saw no status
    corpus_key=lambda ver: ver < names.IDLE_INPUTS_IGNORED.at,
    shape=EMITS_STATUS,
    oracle={"combined": OracleRules(rules=combined.RULES, files=("oracle/combined.py",), checked=_COMBINED_CHECKED)},
    examples=COMBINED_EX,
    exhaustive=over_inputs("input", "inputs"), mutants=of_area(mutants.MUTANTS, names.COMBINED),
    bridge="WatermarkArea", changes=names.CHANGES[names.COMBINED],
)
TIMERS = Area(
    size_bar=6,
    name=names.TIMERS, prefix="TIMER", rules=invariants.BOOK, page="v1.md#watermarktimers",
    description="the event-time timers a watermark fires, in Flink's order",
    requests=lambda ver: strategies.requests(names.TIMERS, ver),
    size=strategies.event_count, normalize=invariants.timers_normalize,
    shape=AnswerShape(optional_fields=("namespace",)),
    oracle={"timers": OracleRules(rules=timers.RULES, files=("oracle/timers.py",), checked=_TIMERS_CHECKED)},
    examples=TIMERS_EX, mutants=of_area(mutants.MUTANTS, names.TIMERS),
    bridge="TimersArea", changes=names.CHANGES[names.TIMERS],
    features=(Feature(f"{names.TIMERS}.namespace", 2, names.TIMERS, "timers registered and deleted in a namespace",
                      event_field_used("namespace"), without_event_field("namespace")),),
)

_GEN_META = "properties/watermark/test_generation_meta.py::"
# what checks each rule of the oracle's watermark generators
_GENERATION_CHECKED: tuple[Checked, ...] = (
    checked("WG-1", "WMG-2", f"{_GEN_META}test_the_first_watermark_is_long_min"),
    checked("WG-2", "WMG-2"),
    checked("WG-3", "WMG-2", f"{_GEN_META}test_a_repeated_watermark_is_emitted_again"),
    checked("WG-4", "WMG-2"),
    checked("WG-5", note="the bridge's own punctuated generator: WMG-EQ only"),
    checked("WG-6", f"{_GEN_META}test_a_timeout_whose_nanoseconds_overflow_never_idles",
            note="the rejections: WMG-EQ with --strict-messages"),
    checked("WG-7", "WMG-4"),
    checked("WG-8", "WMG-3", "WMG-4", "WMG-5", f"{_GEN_META}test_idle_once_since_1_15_3",
            f"{_GEN_META}test_a_clock_at_zero_leaves_the_inactivity_unstarted"),
    checked("WG-9", "WMG-3", f"{_GEN_META}test_a_strategy_reads_the_context_clock_since_flink_35886",
            note="the rejection order: WMG-EQ with --strict-messages"),
)

GENERATION = Area(
    name=generation.GENERATION, prefix="WMG", rules=generation_invariants.BOOK, protocol=4,
    page="watermark-generation.md",
    description="what Flink's built-in watermark generators (bounded out-of-orderness, monotonous, with idleness)"
    " emit to their WatermarkOutput for records, periodic emits and processing time (flink-core eventtime)",
    requests=generation_strategies.requests, size=generation_strategies.size,
    corpus_key=lambda ver: ver >= generation.IDLE_ONCE.at, shape=EMITS_STATUS,
    oracle={"watermark_generation": OracleRules(rules=generation.RULES, files=("oracle/watermark_generation.py",),
                                                checked=_GENERATION_CHECKED)},
    mutants=tuple(generation_mutants.MUTANTS), bridge="GenerationArea", exhaustive=enumerated.GENERATION,
    changes=generation.CHANGES[generation.GENERATION], strict_messages=True,
)

_WIN_META = "properties/watermark/test_windows_meta.py::"
# what checks each rule of the oracle's window operator
_WINDOWS_CHECKED: tuple[Checked, ...] = (
    checked("WW-1", "WMW-ACCEPTED", f"{_WIN_META}test_the_assigners_refuse_what_flink_refuses",
            note="the messages: WMW-EQ with --strict-messages"),
    checked("WW-2", "WMW-3", "WMW-4", "WMW-6", f"{_WIN_META}test_window_start_before_and_after_flink_26334"),
    checked("WW-3", "WMW-3", "WMW-4", "WMW-6"),
    checked("WW-4", "WMW-4", f"{_WIN_META}test_the_cleanup_time_overflow_guard"),
    checked("WW-5", "WMW-2", "WMW-4"),
    checked("WW-6", "WMW-4", "WMW-5"),
    checked("WW-7", "WMW-2", "WMW-6", f"{_WIN_META}test_several_keys_fire_on_one_watermark"),
    checked("WW-8", "WMW-3", f"{_WIN_META}test_sessions_merge"),
    checked("WW-9", f"{_WIN_META}test_sessions_merge",
            note="the merge's UnsupportedOperationException needs a cleanup time that overflows: WMW-EQ"),
    checked("WW-10", "WMW-3", note="the values' order: WMW-EQ only"),
)

WINDOWS = Area(
    name=windows.WINDOWS, prefix="WMW", rules=windows_invariants.BOOK, protocol=4,
    page="watermark-windows.md",
    description="what Flink's WindowOperator with an event-time assigner (tumbling, sliding, session) and the "
    "EventTimeTrigger emits for keyed records and watermarks: fired windows, late records, numLateRecordsDropped",
    requests=windows_strategies.requests, size=windows_strategies.size, normalize=windows_invariants.normalize,
    corpus_key=lambda ver: (ver >= windows.WINDOW_START.at, ver >= windows.SLIDING_CAP.at),
    shape=AnswerShape(),
    oracle={"watermark_windows": OracleRules(rules=windows.RULES, files=("oracle/watermark_windows.py",),
                                             checked=_WINDOWS_CHECKED)},
    mutants=tuple(windows_mutants.MUTANTS), bridge="WindowsArea", exhaustive=enumerated.WINDOWS,
    changes=windows.CHANGES[windows.WINDOWS], strict_messages=True,
)

_ASYNC_META = "properties/watermark/test_async_meta.py::"
# what checks each rule of the oracle's async queues and operator loop
_ASYNC_CHECKED: tuple[Checked, ...] = (
    checked("AQ-1", note="the rejection: WMA-EQ with --strict-messages"),
    checked("AQ-2", "WMA-5", f"{_ASYNC_META}test_a_full_queue_holds_the_next_input"),
    checked("AQ-3", "WMA-2", f"{_ASYNC_META}test_ordered_waits_for_the_head"),
    checked("AQ-4", "WMA-3", f"{_ASYNC_META}test_unordered_reorders_only_between_watermarks"),
    checked("AQ-5", "WMA-4"),
    checked("AQ-6", "WMA-5", "WMA-6", f"{_ASYNC_META}test_end_waits_for_the_queue_to_drain"),
    checked("AQ-7", "WMA-7", f"{_ASYNC_META}test_a_timeout_fails_the_task_once_processing_time_reaches_it",
            f"{_ASYNC_META}test_a_timeout_override_completes_with_its_results"),
    checked("AQ-8", "WMA-8", f"{_ASYNC_META}test_a_failed_request_fails_the_task_and_frees_its_slot",
            note="the outer exception's message: WMA-EQ with --strict-messages"),
    checked("AQ-9", "WMA-4", "WMA-7", f"{_ASYNC_META}test_a_late_completion_after_a_timeout_is_ignored"),
)


def _timeouts_used(req: Request) -> bool:
    inp = input_of(req)
    return "timeout" in inp or "timeout_results" in inp or any(
        isinstance(e, dict) and e.get("kind") in ("advance", "fail") for e in events_of(req))

ASYNC = Area(
    name=async_queue.ASYNC, prefix="WMA", rules=async_invariants.BOOK, protocol=4,
    page="watermark-async.md",
    description="what an AsyncWaitOperator emits in ordered and unordered mode with a capacity, for records whose "
    "requests the request completes, watermarks and end of input (Flink's async stream element queues)",
    requests=async_strategies.requests, size=async_strategies.size,
    shape=AnswerShape(empty_when_absent=("admitted", "failures"), optional_fields=("held", "timestamp")),
    oracle={"watermark_async": OracleRules(rules=async_queue.RULES, files=("oracle/watermark_async.py",),
                                           checked=_ASYNC_CHECKED)},
    mutants=tuple(async_mutants.MUTANTS), bridge="AsyncArea", exhaustive=enumerated.ASYNC,
    changes=async_queue.CHANGES[async_queue.ASYNC], strict_messages=True,
    # an implementation that does not speak timeouts is never sent them: a request without its timeout, advances
    # and failures would be another request (its completions come in other steps), so it is not checked
    features=(Feature(f"{async_queue.ASYNC}.timeouts", 4, async_queue.ASYNC, "a timeout with processing-time "
                      "advances (AsyncFunction.timeout, default or overridden) and requests that fail "
                      "(completeExceptionally failing the task)", _timeouts_used),),
)

_ASSIGNER_META = "properties/watermark/test_assigner_meta.py::"
# what checks each rule of the oracle's TimestampsAndWatermarksOperator
_ASSIGNER_CHECKED: tuple[Checked, ...] = (
    checked("TWO-1", f"{_ASSIGNER_META}test_without_progressive_watermarks_no_generator_is_built",
            note="the rejections and their order: WMS-EQ with --strict-messages"),
    checked("TWO-2", "WMS-2"),
    checked("TWO-3", "WMS-3", "WMS-5", f"{_ASSIGNER_META}test_an_equal_watermark_is_dropped"),
    checked("TWO-4", "WMS-5", f"{_ASSIGNER_META}test_idle_then_active_again"),
    checked("TWO-5", "WMS-6", f"{_ASSIGNER_META}test_one_advance_fires_the_timer_once"),
    checked("TWO-6", "WMS-4", f"{_ASSIGNER_META}test_only_the_max_watermark_passes_once"),
    checked("TWO-7", f"{_ASSIGNER_META}test_upstream_status_forwarded_only_in_1_14_0_to_1_14_4"),
    checked("TWO-8", f"{_ASSIGNER_META}test_end_of_input_emits_once_more"),
    checked("TWO-9", f"{_ASSIGNER_META}test_idle_through_the_operators_clock"),
)

ASSIGNER = Area(
    name=assigner.ASSIGNER, prefix="WMS", rules=assigner_invariants.BOOK, protocol=4,
    page="watermark-assigner.md",
    description="what Flink's TimestampsAndWatermarksOperator (assignTimestampsAndWatermarks) emits for records, "
    "upstream watermarks and statuses, processing time and end of input: its WatermarkEmitter around a strategy's "
    "generator and the auto-watermark interval's timer",
    requests=assigner_strategies.requests, size=assigner_strategies.size,
    # the strategy draws statuses where the operator has the method, small timeouts where it gives the clock
    corpus_key=lambda ver: (pick(assigner.FORWARDS_STATUS, ver), pick(generation.CONTEXT_CLOCK, ver)),
    shape=EMITS_STATUS,
    oracle={"watermark_assigner": OracleRules(rules=assigner.RULES, files=("oracle/watermark_assigner.py",),
                                              checked=_ASSIGNER_CHECKED)},
    mutants=tuple(assigner_mutants.MUTANTS), bridge="AssignerArea", exhaustive=enumerated.ASSIGNER,
    changes=assigner.CHANGES[assigner.ASSIGNER], strict_messages=True,
)

_JOIN_META = "properties/watermark/test_join_meta.py::"
# what checks each rule of the oracle's interval join
_JOIN_CHECKED: tuple[Checked, ...] = (
    checked("IJ-1", "WMJ-2", f"{_JOIN_META}test_exclusive_bounds_move_by_one",
            note="the rejection's message: WMJ-EQ with --strict-messages"),
    checked("IJ-2", f"{_JOIN_META}test_a_record_without_a_timestamp_is_flinks_exception"),
    checked("IJ-3", "WMJ-4", f"{_JOIN_META}test_a_record_at_the_watermark_is_not_late"),
    checked("IJ-4", "WMJ-2", "WMJ-3"),
    checked("IJ-5", "WMJ-3", f"{_JOIN_META}test_cleanup_at_the_upper_bound",
            f"{_JOIN_META}test_a_right_record_with_lower_long_min_is_never_cleaned"),
    checked("IJ-6", "WMJ-5"),
    checked("IJ-7", f"{_JOIN_META}test_the_pairs_of_one_record_by_timestamp_then_arrival", eq=False,
            note="WMJ-EQ compares each event's pairs sorted (docs/protocol/watermark-join.md's order rule): the map's "
            "iteration order is checked by the pinned example only"),
)

JOIN = Area(
    name=join.JOIN, prefix="WMJ", rules=join_invariants.BOOK, protocol=4,
    page="watermark-join.md",
    description="what Flink's IntervalJoinOperator (KeyedStream.intervalJoin ... between) emits for keyed records "
    "and watermarks of its two inputs: joined pairs, late records on the side outputs (1.17+), the combined "
    "watermark",
    requests=join_strategies.requests, size=join_strategies.size, normalize=join_invariants.normalize,
    corpus_key=lambda ver: ver >= join.LATE_OUTPUTS.at, shape=AnswerShape(),
    oracle={"watermark_join": OracleRules(rules=join.RULES, files=("oracle/watermark_join.py",),
                                          checked=_JOIN_CHECKED)},
    mutants=tuple(join_mutants.MUTANTS), bridge="JoinArea", exhaustive=enumerated.JOIN,
    changes=join.CHANGES[join.JOIN], strict_messages=True,
)

_OUTPUT_META = "properties/watermark/test_output_meta.py::"
# what checks each rule of the oracle's RecordWriterOutput and source task end
_OUTPUT_CHECKED: tuple[Checked, ...] = (
    checked("RWO-1", "WMO-4"),
    checked("RWO-2", "WMO-2", f"{_OUTPUT_META}test_a_watermark_is_dropped_while_idle"),
    checked("RWO-3", f"{_OUTPUT_META}test_a_status_leaves_only_when_it_changes"),
    checked("RWO-4", f"{_OUTPUT_META}test_a_latency_marker_passes_an_idle_output"),
    checked("RWO-5", "WMO-3", f"{_OUTPUT_META}test_an_idle_finished_source_sends_nothing"),
    checked("RWO-6", f"{_OUTPUT_META}test_a_legacy_source_marks_active_first_only_in_1_13"),
    checked("RWO-7", "WMO-2", "WMO-4", f"{_OUTPUT_META}test_an_upstream_idle_holds_back_the_chains_watermarks",
            f"{_OUTPUT_META}test_the_chains_own_idleness_marks_the_output_active_again"),
)

OUTPUT = Area(
    size_bar=4,
    name=output.OUTPUT, prefix="WMO", rules=output_invariants.BOOK, protocol=4,
    page="watermark-output.md",
    description="what leaves a task through its network output (Flink's RecordWriterOutput over a RecordWriter): "
    "records, watermarks (dropped while idle), statuses (only changes), latency markers, and what a finished source "
    "task's advanceToEndOfEventTime sends",
    requests=output_strategies.requests, size=output_strategies.size, shape=EMITS_STATUS,
    # a chain's strategy draws small idle timeouts where the operator gives the generator its clock
    corpus_key=lambda ver: pick(generation.CONTEXT_CLOCK, ver),
    oracle={"watermark_output": OracleRules(rules=output.RULES, files=("oracle/watermark_output.py",),
                                            checked=_OUTPUT_CHECKED)},
    mutants=tuple(output_mutants.MUTANTS), bridge="OutputArea", exhaustive=enumerated.OUTPUT,
    changes=output.CHANGES[output.OUTPUT], strict_messages=True,
    # a request with a chain is about another task (its events are the chained operator's): not checked without it
    features=(Feature(f"{output.OUTPUT}.chain", 4, output.OUTPUT, "`chain`: a one-input task whose operator chain is"
                      " a TimestampsAndWatermarksOperator (watermark.assigner's input and events) in front of the "
                      "RecordWriterOutput", lambda req: "chain" in input_of(req)),),
)
