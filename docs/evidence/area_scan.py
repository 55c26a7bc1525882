"""One area, every Flink release: N generated requests each to the oracle and to the release's own jar.

The shared half of ``storage_scan.py`` (and of any other area's scan). For each release it draws N requests
from the area's strategy (seeded), sends them to real Flink of that release through the bridge
(``flinkspec.impls.open_impl("flink:X.Y.Z")``, the jar downloaded and the bridge compiled on first use)
and to ``oracle.answer``, and compares the two answers exactly: the whole output, or the error's type,
exception simple name and message. Two BadRequests agree on their type alone (their texts are each
implementation's own); the strategies send none. The JSON report holds, per release, the counts and the
first disagreements with both answers.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

import oracle
from flinkspec.impls import open_impl
from oracle.versions import FlinkVersion, select_versions
from properties.corpus import draw

Strategy = Callable[[FlinkVersion], st.SearchStrategy[dict[str, Any]]]
BATCH = 500
KEEP = 5  # disagreements kept per release


def agree(mine: dict[str, Any], theirs: dict[str, Any]) -> bool:
    if "output" in mine or "output" in theirs:
        return mine.get("output") == theirs.get("output") and "error" not in mine and "error" not in theirs
    a, b = mine["error"], theirs["error"]
    if a.get("type") == b.get("type") == "BadRequest":
        return True
    return bool(a == b)


def scan_release(area: str, strategy: Strategy, release: FlinkVersion, n: int, seed: int) -> dict[str, Any]:
    started = time.monotonic()
    drawn = draw(strategy(release), n, seed)
    requests = [{"id": i, **r, "flink": release.release} for i, r in enumerate(drawn)]
    impl = open_impl(f"flink:{release.release}")
    try:
        answers: list[dict[str, Any]] = []
        for at in range(0, len(requests), BATCH):
            answers += impl.answer_many(requests[at: at + BATCH])
    finally:
        impl.close()
    kinds: Counter[str] = Counter()
    examples: list[dict[str, Any]] = []
    disagree = 0
    for request, theirs in zip(requests, answers, strict=True):
        mine = oracle.answer(request)
        error = mine.get("error", {})
        kinds["output" if "output" in mine else f"{error.get('type')}:{error.get('exception', '')}"] += 1
        if not agree(mine, theirs):
            disagree += 1
            if len(examples) < KEEP:
                examples.append({"request": request, "oracle": mine, "flink": theirs})
    return {"release": release.release, "requests": len(requests), "agree": len(requests) - disagree,
            "disagree": disagree, "answers": dict(sorted(kinds.items())), "seconds": round(time.monotonic() - started),
            "disagreements": examples}


def record_pinned(area: str, path: Path, releases: list[FlinkVersion], command: str) -> None:
    """Ask every release's jar the requests of a pinned-examples file and write the answers into it, each
    answer once with the releases that gave it."""
    data = json.loads(path.read_text())
    examples = data["examples"]
    answers: list[dict[str, list[str]]] = [{} for _ in examples]
    for release in releases:
        impl = open_impl(f"flink:{release.release}")
        try:
            got = impl.answer_many([{"id": i, "area": area, "flink": release.release, "input": ex["input"]}
                                    for i, ex in enumerate(examples)])
        finally:
            impl.close()
        for i, resp in enumerate(got):
            key = json.dumps({k: resp[k] for k in ("output", "error") if k in resp}, sort_keys=True)
            answers[i].setdefault(key, []).append(release.release)
        print(f"{release.release}: recorded", flush=True)
    for ex, by_answer in zip(examples, answers, strict=True):
        ex["answers"] = [{"releases": rel, "answer": json.loads(key)} for key, rel in by_answer.items()]
    data["recorded_by"] = command
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")


def main(area: str, strategy: Strategy, default_out: Path, argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=f"{area}: the oracle against every release's jar")
    parser.add_argument("--n", type=int, default=1000, help="requests per release (default 1000)")
    parser.add_argument("--full", action="store_true",
                        help="20000 requests at the newest patch of each minor (N at the others)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--flink", default="all-patches", help="the releases (default all-patches)")
    parser.add_argument("--out", type=Path, default=default_out)
    parser.add_argument("--record-pinned", type=Path, metavar="FILE",
                        help="instead: record every release's answers to the requests of a pinned-examples file")
    args = parser.parse_args(argv)
    command = "python docs/evidence/" + Path(sys.argv[0]).name + " " + " ".join(sys.argv[1:])
    releases = select_versions(args.flink)
    if args.record_pinned:
        record_pinned(area, args.record_pinned, releases, command.strip())
        return 0
    runs = []
    for release in releases:
        n = 20_000 if args.full and release.is_newest_patch else args.n
        run = scan_release(area, strategy, release, n, args.seed)
        runs.append(run)
        print(f"{release.release}: {run['agree']} of {run['requests']} agree, {run['disagree']} disagree "
              f"({run['seconds']} s)", flush=True)
        report = {"area": area, "command": command.strip(), "seed": args.seed,
                  "compared": "whole answers: output, or error type + exception + message (BadRequest: type)",
                  "releases": runs,
                  "total": {"releases": len(runs), "requests": sum(r["requests"] for r in runs),
                            "disagree": sum(r["disagree"] for r in runs),
                            "releases_with_disagreements": [r["release"] for r in runs if r["disagree"]]}}
        args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    return 1 if any(r["disagree"] for r in runs) else 0
