"""Real Flink's recorded answers: the implementation under test gives each of them, byte for byte.

``properties/recorded/<area>.jsonl.gz`` holds inputs drawn by the suite's strategies and the answer
the jar of each Flink version gave (``flinkspec record --impl flink``; the header of each file
says how it was made). This is the differential check against real Flink without a JVM: it runs
on every test run, and it is the test of the oracle's mutation score (``python -m
flinkspec.tools.mutation_score``). Messages are compared too for the oracle (it matches Flink byte for byte);
for another implementation only with ``--strict-messages``.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from oracle.versions import FlinkVersion
from properties.areas import AREAS, EXTRA_CORPORA, area_of_corpus
from properties.compare import compare
from properties.recordings import RECORDED, read
from properties.under_test import Implementation, Judged

BATCH = 200  # answers judged per batch; the test stops after the first batch that differs
# FLINKSPEC_RECORDED_LIMIT="area=N,..." judges only the first N records of each version of those
# areas (the mutation score's second pass runs hundreds of surviving mutants through them)
LIMITS = {a: int(n) for a, _, n in (x.partition("=") for x in os.environ.get("FLINKSPEC_RECORDED_LIMIT", "").split(","))
          if n}
SHOWN = 3


@cache
def _recorded(area: str) -> dict[str, list[dict[str, Any]]]:
    path: Path = RECORDED / f"{area}.jsonl.gz"
    if not path.exists():
        return {}
    _, records = read(path)
    out: dict[str, list[dict[str, Any]]] = {}
    for rec in records:
        out.setdefault(rec["flink"], []).append(rec)
    return out


@pytest.mark.parametrize("corpus", [*AREAS, *EXTRA_CORPORA])
def test_gives_real_flinks_recorded_answers(impl: Implementation, gate: Judged, flink_version: FlinkVersion,
                                            corpus: str, request: pytest.FixtureRequest) -> None:
    """The oracle gives every recorded answer byte for byte; any other implementation is judged on
    the recorded inputs as every route judges (:class:`flinkspec.plugin.gate.Gate`), the oracle standing
    for the recorded answers it gives."""
    records = _recorded(corpus).get(str(flink_version))
    if corpus in LIMITS and records:
        records = records[:LIMITS[corpus]]
    if not records:
        pytest.skip(f"no recorded answers of Flink {flink_version} for {corpus} in {RECORDED}")
    area = area_of_corpus(corpus)
    spec = request.config.getoption("--impl")
    if spec != "oracle":
        found = gate.judge_all(area, flink_version, [r["input"] for r in records if not r.get("oracle_refuses")])
        if found:
            pytest.fail(f"{len(found)} divergence(s) on Flink {flink_version}'s recorded inputs of {corpus}:\n\n"
                        + "\n\n".join(found[:SHOWN]))
        return
    strict = spec == "oracle" or bool(request.config.getoption("--strict-messages"))
    norm = AREAS[area].normalize
    for start in range(0, len(records), BATCH):
        chunk = records[start:start + BATCH]
        reqs = [{"id": start + i + 1, "area": area, "flink": str(flink_version), "input": rec["input"]}
                for i, rec in enumerate(chunk)]
        differing = []
        for req, rec, actual in zip(reqs, chunk, impl.answer_many(reqs), strict=True):
            if rec.get("oracle_refuses") and actual.get("error", {}).get("type") == "BadRequest":
                continue  # an input the oracle does not model (flinkspec.tools.record): refusing it is allowed
            diff = compare(norm(rec["answer"]), norm(actual), strict_messages=strict)
            if diff:
                differing.append(f"{diff}\n    replay: {gate.replay(req, strict=strict)}")
        if differing:
            shown = "\n  ".join(differing[:SHOWN])
            pytest.fail(f"{len(differing)} of {len(chunk)} answers (records {start + 1}-{start + len(chunk)}) "
                        f"differ from Flink {flink_version}'s recorded ones, e.g.\n  {shown}")
