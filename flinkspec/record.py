"""Recorded answers of real Flink: generated inputs and what the jar of each version answered.

``flinkspec record`` draws each area's inputs from the suite's strategies (:mod:`flinkspec.corpus`,
fixed seed), asks an implementation (real Flink, normally) and writes one gzipped JSON line per
answer to ``<out>/<area>.jsonl.gz``: ``{"flink", "input", "answer"}``. The files let the
suite hold any implementation (the oracle, or the oracle's mutants in the mutation score) to
real Flink's answers without starting a JVM; ``properties/test_recorded_answers.py`` does so.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from flinkspec.impls import Implementation
from flinkspec.options import CommaJoined
from oracle.versions import SELECT_HELP, FlinkVersion

RECORDED = Path(__file__).resolve().parent.parent / "properties" / "recorded"
HEADER_KEYS = ("recorded_from", "area", "seed", "examples_per_version", "versions")
BATCH = 200


def record_area(impl: Implementation, impl_spec: str, area: str, versions: Sequence[FlinkVersion],
                n: int, seed: int, out: Path) -> Path:
    """Ask ``impl`` the distinct inputs among ``n`` generated for ``area`` per version; write the answers."""
    from flinkspec import corpus
    from flinkspec.check import versions_for
    from properties.areas import area_of_corpus

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


def _oracle_refuses(req: dict[str, Any]) -> bool:
    """Whether the oracle answers this request with a BadRequest: an input it does not model (a YAML
    list value outside its subset, say). Such a record holds Flink's answer all the same: the oracle
    may keep refusing it, but a change that makes it answer must answer as Flink did."""
    import oracle

    refuses: bool = oracle.answer({"id": 0, **req}).get("error", {}).get("type") == "BadRequest"
    return refuses


class RecordingError(ValueError):
    """A recorded-answers file that is not what :func:`record_area` writes."""


def read(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header of a recorded file and its records; a malformed file is a RecordingError."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise RecordingError(f"{path}: not a recorded-answers file ({exc})") from None
    try:
        header = json.loads(lines[0]) if lines else None
    except json.JSONDecodeError as exc:
        raise RecordingError(f"{path}:1: {exc}") from None
    if not isinstance(header, dict):
        raise RecordingError(f"{path}: the first line must be the header object")
    missing = [k for k in HEADER_KEYS if k not in header]
    if missing:
        raise RecordingError(f"{path}: header lacks {', '.join(missing)}")
    records = []
    for lineno, line in enumerate(lines[1:], start=2):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordingError(f"{path}:{lineno}: {exc}") from None
        if not isinstance(rec, dict) or not {"flink", "input", "answer"} <= rec.keys():
            raise RecordingError(f"{path}:{lineno}: a record needs flink, input and answer")
        records.append(rec)
    return header, records


def add_parser(sub: Any) -> None:
    p = sub.add_parser("record", allow_abbrev=False,
                       help="record an implementation's answers (real Flink's, normally) to generated inputs")
    p.add_argument("--impl", default="flink", help="the implementation to record (default: flink)")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds per request")
    p.add_argument("--area", action=CommaJoined,
                   help="comma-separated areas or extra corpora (classloading.values: the class-loading "
                        "options' values fuzzed); default: all of them")
    p.add_argument("--flink", action=CommaJoined, help=f"{SELECT_HELP} (default: the impl's own release, else all)")
    p.add_argument("--examples", type=int, default=300, help="generated inputs per area and version")
    p.add_argument("--seed", type=int, default=0, help="seed of the generated inputs (default 0)")
    p.add_argument("--out", default=str(RECORDED), help=f"directory (default: {RECORDED})")
    p.set_defaults(fn=cmd_record)


def cmd_record(args: Any) -> int:
    import time

    from flinkspec.cli import _areas, _open, _versions
    from flinkspec.impls import pinned_version

    areas = _areas(args.area, extra=True)
    impl = _open(args.impl, args.timeout)
    try:
        versions = _versions(args.flink, pinned_version(impl))
        for area in areas:
            started = time.monotonic()
            path = record_area(impl, args.impl, area, versions, args.examples, args.seed, Path(args.out))
            print(f"{area}: {path} ({path.stat().st_size:,} bytes, {time.monotonic() - started:.1f} s)")
    finally:
        impl.close()
    return 0
