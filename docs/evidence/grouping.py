"""How many divergences one cause gives: writes docs/evidence/grouping.json.

    python docs/evidence/grouping.py [--examples 100] [--seed 0] [--jobs 2] [--mutants GLOB]

Each built-in mutant is one planted cause (a few have two symptoms, e.g. a cap that makes one
configuration's answer smaller and another's rejected). For each, this runs

    flinkspec check --impl mutant:NAME --area AREA --flink all --examples N --seed S --report DIR

(every minor release's newest patch, the oracle at that release as Flink) and records the
divergences the report names: their cause keys, the releases each was seen at, and the failing
cases. It then runs the same check on implementations written outside the oracle: the protocol-1
valve written from the protocol pages (tests/docs_valve.py) with each of its planted bugs, and with
two and three of them planted together (each departs at its own rule, so together they should be
as many divergences as bugs). The summary counts the implementations by how many divergences they got.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from flinkspec.mutants import MUTANTS

ROOT = Path(__file__).resolve().parents[2]
FLINKSPEC = shutil.which("flinkspec") or str(Path(sys.executable).with_name("flinkspec"))
OUT = Path(__file__).with_name("grouping.json")
DOCS_VALVE_BUGS = ("no-flush", "no-idle", "reemit")


def measure(label: str, impl: str, area: str, examples: int, seed: int) -> dict[str, Any]:
    """One check of ``impl`` at every minor release; what its report says about divergences."""
    with tempfile.TemporaryDirectory() as out:
        proc = subprocess.run([FLINKSPEC, "check", "--impl", impl, "--area", area, "--flink", "all",
                               "--examples", str(examples), "--seed", str(seed), "--report", out],
                              capture_output=True, text=True, cwd=ROOT)
        report_path = Path(out) / "report.json"
        if not report_path.exists():
            raise SystemExit(f"{label}: check wrote no report (exit {proc.returncode}): {proc.stderr[-400:]}")
        report = json.loads(report_path.read_text())
    row = {"implementation": label, "area": area, "exit": proc.returncode,
           "requests": sum(r["cases"] for r in report["runs"]), "failing_cases": report["failing_cases"],
           "divergences": report["divergences"],
           "causes": [{"cause": c["cause"], "explained_by": c["explained_by"], "releases": c["releases"],
                       "cases": c["cases"], "signature": c["signature"]} for c in report["counterexamples"]]}
    print(f"{label}: {row['divergences']} divergence(s), {row['failing_cases']} failing cases "
          f"({row['requests']} requests, shrinking included) at {len(report['runs'])} release(s)", flush=True)
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--examples", type=int, default=100, help="generated requests per area and release")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--mutants", default="*", help="glob over the built-in mutants' names")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    todo = [(f"mutant:{m.name}", f"mutant:{m.name}", m.area) for m in sorted(MUTANTS.values(), key=lambda m: m.name)
            if fnmatch.fnmatch(m.name, args.mutants)]
    for bugs in (*([bug] for bug in DOCS_VALVE_BUGS), DOCS_VALVE_BUGS[:2], DOCS_VALVE_BUGS[1:], DOCS_VALVE_BUGS):
        flags = " ".join(f"--bug {bug}" for bug in bugs)
        todo.append((f"docs_valve {flags}", f"cmd:{sys.executable} tests/docs_valve.py {flags}", "watermark.valve"))
    with ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(lambda t: measure(*t, args.examples, args.seed), todo))
    caught = [r for r in rows if r["divergences"]]
    summary = {"command": f"python docs/evidence/grouping.py --examples {args.examples} --seed {args.seed}",
               "implementations": len(rows), "caught": len(caught),
               "by_divergences": dict(sorted(Counter(r["divergences"] for r in caught).items())),
               "seen_at_several_releases_as_one": sum(1 for r in caught for c in r["causes"]
                                                      if len(c["releases"]) > 1)}
    args.out.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1) + "\n")
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
