"""The watermark areas: the status valve of one input, the combined watermark of a multi-input
operator, and event-time timers."""

from __future__ import annotations

from oracle import combined, timers, valve
from oracle import watermark as names
from oracle.versions import v
from oracle.watermark import SUBPARTITIONS_SINCE
from properties.area import AnswerShape, Area, Exhaustive, OracleRules
from properties.features import Feature, Request, event_field_used, input_of, without_event_field, without_field
from properties.mutant import of_area
from properties.watermark import invariants, mutants, strategies


def _subpartitions_used(req: Request) -> bool:
    return "subpartitions" in input_of(req) or event_field_used("subpartition")(req)


def _strip_subpartitions(req: Request) -> Request:
    stripped = without_event_field("subpartition")(req)
    return without_field("subpartitions")(stripped)


EMITS_STATUS = AnswerShape(enum_fields=("status",))
_EXAMPLES = "properties/test_oracle_watermark_examples.py::"

VALVE = Area(
    name=names.VALVE, prefix="WM", rules=invariants.BOOK, page="v1.md#watermarkvalve",
    description="the watermarks and statuses a StatusWatermarkValve emits for its channels' events",
    requests=lambda ver: strategies.requests(names.VALVE, ver),
    size=strategies.event_count, corpus_key=lambda ver: ver >= SUBPARTITIONS_SINCE, shape=EMITS_STATUS,
    oracle={"valve": OracleRules(rules=valve.RULES, files=("oracle/valve.py", "oracle/watermark.py"))},
    machine="properties/watermark/test_valve_machine.py::test_valve_machine",
    examples=_EXAMPLES + "test_valve_emits_what_flink_emits",
    exhaustive=Exhaustive(index="channel", count="channels"), mutants=of_area(mutants.MUTANTS, names.VALVE),
    bridge="WatermarkArea",
    features=(Feature(f"{names.VALVE}.subpartitions", 2, names.VALVE, "channels consuming several subpartitions, "
                      "Flink 1.19+", _subpartitions_used, _strip_subpartitions),),
)
COMBINED = Area(
    name=names.COMBINED, prefix="CWM", rules=invariants.BOOK, page="v2.md#new-area-watermarkcombined", protocol=2,
    description="the combined watermark and status of a multi-input operator",
    requests=lambda ver: strategies.requests(names.COMBINED, ver),
    size=strategies.event_count, corpus_key=lambda ver: ver < v("1.14"),  # 1.13 operators see no status
    shape=EMITS_STATUS,
    oracle={"combined": OracleRules(rules=combined.RULES, files=("oracle/combined.py",))},
    examples=_EXAMPLES + "test_combined_operator_emits_what_flink_emits",
    exhaustive=Exhaustive(index="input", count="inputs"), mutants=of_area(mutants.MUTANTS, names.COMBINED),
    bridge="WatermarkArea",
)
TIMERS = Area(
    name=names.TIMERS, prefix="TIMER", rules=invariants.BOOK, page="v1.md#watermarktimers",
    description="the event-time timers a watermark fires, in Flink's order",
    requests=lambda ver: strategies.requests(names.TIMERS, ver),
    size=strategies.event_count, normalize=invariants.timers_normalize,
    shape=AnswerShape(optional_fields=("namespace",)),
    oracle={"timers": OracleRules(rules=timers.RULES, files=("oracle/timers.py",))},
    examples=_EXAMPLES + "test_timers_fire_in_flinks_order", mutants=of_area(mutants.MUTANTS, names.TIMERS),
    bridge="TimersArea",
    features=(Feature(f"{names.TIMERS}.namespace", 2, names.TIMERS, "timers registered and deleted in a namespace",
                      event_field_used("namespace"), without_event_field("namespace")),),
)
