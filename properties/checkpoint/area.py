"""The checkpoint areas: barrier alignment in a task, the coordinator's checkpoints, and a job's
recovery from its latest checkpoint."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from oracle import alignment, coordinator
from oracle import recovery as recovery_oracle
from oracle.versions import v
from properties.area import AnswerShape, Area, ExtraCorpus, OracleRules
from properties.checkpoint import (
    alignment_invariants,
    alignment_strategies,
    coordinator_invariants,
    coordinator_strategies,
    mutants,
    recovery,
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


def _drop_was_pending(out: Output) -> Output:
    return {**out, "steps": [{k: v for k, v in s.items() if k != "was_pending"} if isinstance(s, Mapping) else s
                             for s in _listed(out, "steps")]}


_SCENARIO = "properties/checkpoint/test_examples.py::test_flinks_own_scenario"

ALIGNMENT = Area(
    name=alignment.ALIGNMENT, prefix="ALIGN", rules=alignment_invariants.BOOK, page="checkpoint-alignment.md",
    description="what a task's barrier handler does with records, barriers, cancel markers and ends of input",
    requests=alignment_strategies.requests, size=event_count, adapt=alignment_strategies.adapt,
    # short alignment runs where barriers, cancel markers and ends of partition meet (ALO-11's failure)
    corpora=(ExtraCorpus(name=f"{alignment.ALIGNMENT}.ends", requests=alignment_strategies.ending_requests,
                         corpus_key=lambda ver: ver >= v("1.14")),),
    oracle={"alignment": OracleRules(rules=alignment.RULES,
                                     files=("oracle/alignment.py", "oracle/alignment_handlers.py"))},
    machine="properties/checkpoint/test_alignment_machine.py::test_alignment_machine",
    examples=_SCENARIO, mutants=of_area(mutants.MUTANTS, alignment.ALIGNMENT), bridge="AlignmentArea",
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
                      empty_when_absent=("triggered", "rejected", "completed", "aborted", "retained")),
    oracle={"coordinator": OracleRules(rules=coordinator.RULES, files=(
        "oracle/coordinator.py", "oracle/coordinator_machine.py", "oracle/coordinator_rules.py"))},
    machine="properties/checkpoint/test_coordinator_machine.py::test_coordinator_machine",
    examples=_SCENARIO, mutants=of_area(mutants.MUTANTS, coordinator.COORDINATOR),
    bridge="CoordinatorArea",
    features=(Feature(f"{coordinator.COORDINATOR}.config-defaults", 2, coordinator.COORDINATOR,
                      "config settings left out, taking their defaults", _coordinator_defaults_used,
                      _fill_coordinator_defaults),
              Feature(f"{coordinator.COORDINATOR}.sources", 2, coordinator.COORDINATOR,
                      "checkpoints triggered on some of the tasks only", has_field("sources"),
                      without_field("sources"))),
    answer_features=(AnswerFeature(f"{coordinator.COORDINATOR}.was-pending", 2, coordinator.COORDINATOR,
                                   "was_pending in a step: a late ack Flink still accepted",
                                   lambda out: any(isinstance(s, Mapping) and "was_pending" in s
                                                   for s in _listed(out, "steps")),
                                   _drop_was_pending),),
)
RECOVERY = Area(
    name=recovery_oracle.RECOVERY, prefix="RCV", rules=recovery.BOOK, protocol=2,
    page="v2.md#new-area-checkpointrecovery",
    description="a job failing after fail_after events and recovering from its latest checkpoint",
    requests=recovery.requests, size=event_count, adapt=recovery.from_alignment, corpus_of=alignment.ALIGNMENT,
    shape=AnswerShape(data_maps=("counts",)),
    oracle={"recovery": OracleRules(rules=recovery_oracle.RULES, files=("oracle/recovery.py",))},
    mutants=of_area(mutants.MUTANTS, recovery_oracle.RECOVERY), bridge="RecoveryArea",
)
