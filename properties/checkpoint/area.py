"""The checkpoint areas: barrier alignment in a task, the coordinator's checkpoints, and a job's
recovery from its latest checkpoint."""

from __future__ import annotations

from oracle import alignment, coordinator
from oracle import recovery as recovery_oracle
from oracle.versions import v
from properties.area import AnswerShape, Area, ExtraCorpus, OracleRules
from properties.checkpoint import (
    alignment_invariants,
    alignment_strategies,
    coordinator_invariants,
    coordinator_strategies,
    recovery,
)
from properties.watermark.strategies import event_count

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
    examples=_SCENARIO,
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
    examples=_SCENARIO,
)
RECOVERY = Area(
    name=recovery_oracle.RECOVERY, prefix="RCV", rules=recovery.BOOK, protocol=2,
    page="v2.md#new-area-checkpointrecovery",
    description="a job failing after fail_after events and recovering from its latest checkpoint",
    requests=recovery.requests, size=event_count, adapt=recovery.from_alignment, corpus_of=alignment.ALIGNMENT,
    shape=AnswerShape(data_maps=("counts",)),
    oracle={"recovery": OracleRules(rules=recovery_oracle.RULES, files=("oracle/recovery.py",))},
)
