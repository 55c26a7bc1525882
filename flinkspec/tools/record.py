"""Recorded answers of real Flink: generated inputs and what the jar of each version answered.

``flinkspec record`` draws each area's inputs from the suite's strategies (:mod:`properties.corpus`,
fixed seed), asks an implementation (real Flink, normally) and writes one gzipped JSON line per
answer to ``<out>/<area>.jsonl.gz``: ``{"flink", "input", "answer"}``. The files let the
suite hold any implementation (the oracle, or the oracle's mutants in the mutation score) to
real Flink's answers without starting a JVM; ``properties/test_recorded_answers.py`` does so.

``flinkspec record --pinned FILE`` asks instead the inputs of a pinned-examples file (named requests
chosen by hand, one or more per rule: ``properties/checkpoint/storage_pinned.json``) and writes each
version's answer into it, each distinct answer once with the versions that gave it.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from flinkspec.engine.check import versions_for
from flinkspec.impls import Implementation
from oracle.versions import FlinkVersion
from properties import corpus
from properties.areas import area_of_corpus

BATCH = 200


def record_area(impl: Implementation, impl_spec: str, area: str, versions: Sequence[FlinkVersion],
                n: int, seed: int, out: Path) -> Path:
    """Ask ``impl`` the distinct inputs among ``n`` generated for ``area`` per version; write the answers."""
    request_area = area_of_corpus(area)  # an extra corpus asks its area's questions
    chosen = versions_for(request_area, versions)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{area}.jsonl.gz"
    tmp = path.with_suffix(".tmp")
    with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=9) as f:
        header = {"recorded_from": impl_spec, "area": area, "seed": seed, "examples_per_version": n,
                  "versions": [str(v) for v in chosen]}
        f.write(json.dumps(header, sort_keys=True) + "\n")
        for version in chosen:
            seen: set[str] = set()
            inputs = []
            for inp in corpus.inputs(area, version, n, seed):  # early draws repeat; keep each input once
                key = json.dumps(inp, sort_keys=True)
                if key not in seen:
                    seen.add(key)
                    inputs.append(inp)
            for start in range(0, len(inputs), BATCH):
                reqs = [{"id": start + i + 1, "area": request_area, "flink": str(version), "input": inp}
                        for i, inp in enumerate(inputs[start:start + BATCH])]
                for req, ans in zip(reqs, impl.answer_many(reqs), strict=True):
                    kept = {k: ans[k] for k in ("output", "error") if k in ans}
                    rec: dict[str, Any] = {"flink": req["flink"], "input": req["input"], "answer": kept}
                    if _oracle_refuses(req):
                        rec["oracle_refuses"] = True
                    f.write(json.dumps(rec, sort_keys=True, separators=(",", ":")) + "\n")
    tmp.replace(path)
    return path


def record_pinned(impl: Implementation, area: str, versions: Sequence[FlinkVersion], path: Path,
                  command: str) -> int:
    """Ask ``impl`` the inputs of the pinned-examples file ``path`` at each version and write the answers
    into it; returns the number of examples."""
    data = json.loads(path.read_text())
    examples = data["examples"]
    answers: list[dict[str, list[str]]] = [{} for _ in examples]
    for version in versions_for(area, versions):
        reqs = [{"id": i + 1, "area": area, "flink": str(version), "input": ex["input"]}
                for i, ex in enumerate(examples)]
        for i, ans in enumerate(impl.answer_many(reqs)):
            key = json.dumps({k: ans[k] for k in ("output", "error") if k in ans}, sort_keys=True)
            answers[i].setdefault(key, []).append(version.release)
    for ex, by_answer in zip(examples, answers, strict=True):
        ex["answers"] = [{"releases": rel, "answer": json.loads(key)} for key, rel in by_answer.items()]
    data["recorded_by"] = command
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    tmp.replace(path)
    return len(examples)


def _oracle_refuses(req: dict[str, Any]) -> bool:
    """Whether the oracle answers this request with a BadRequest: an input it does not model (a YAML
    list value outside its subset, say). Such a record holds Flink's answer all the same: the oracle
    may keep refusing it, but a change that makes it answer must answer as Flink did."""
    import oracle

    refuses: bool = oracle.answer({"id": 0, **req}).get("error", {}).get("type") == "BadRequest"
    return refuses
