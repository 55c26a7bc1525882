"""Verdicts on an implementation written outside this project: writes docs/evidence/external-memory-calculator.json.

    python docs/evidence/external.py PATH/TO/flink-memory-calculator/index.html [--examples 2000] [--seed 0]

Robert Metzger's TaskManager memory calculator (https://github.com/rmetzger/flink-memory-calculator,
a JavaScript port of Flink's TaskExecutorFlinkMemoryUtils / ProcessMemoryUtils) is checked through
its adapter, runners/external/memory-calculator.mjs (its own code is loaded from the path given,
never copied here), at the newest patch of every minor and at both conformance levels:

    flinkspec check --impl "cmd:node runners/external/memory-calculator.mjs PATH" --area memory.taskmanager \
        --flink all --examples N --seed S [--conformance documented] --report DIR

Then every counterexample is replayed on real Flink of its release (``flinkspec replay --impl flink
--strict-messages REPORT``): a divergence counts as confirmed only where real Flink answers the request
exactly as the oracle did, so the calculator, not the suite, differs from Flink there.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FLINKSPEC = shutil.which("flinkspec") or str(Path(sys.executable).with_name("flinkspec"))
OUT = Path(__file__).with_name("external-memory-calculator.json")
PAGE = ROOT / "docs" / "mutants.md"
BEGIN, END = "<!-- external: python docs/evidence/external.py -->", "<!-- end external -->"
ADAPTER = "runners/external/memory-calculator.mjs"
CASE = re.compile(r"^case (\d+) \(.*\): (passes|fails)", re.MULTILINE)


def run(page: str, conformance: str, examples: int, seed: int) -> dict[str, Any]:
    impl = f"cmd:node {ADAPTER} {page}"
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([FLINKSPEC, "check", "--impl", impl, "--area", "memory.taskmanager", "--flink", "all",
                        "--examples", str(examples), "--seed", str(seed), "--conformance", conformance,
                        "--report", out], capture_output=True, text=True, cwd=ROOT, check=False)
        report_path = Path(out) / "report.json"
        if not report_path.exists():
            raise SystemExit(f"{conformance}: check wrote no report")
        report = json.loads(report_path.read_text())
        replay = subprocess.run([FLINKSPEC, "replay", "--impl", "flink", "--strict-messages", str(report_path)],
                                capture_output=True, text=True, cwd=ROOT, check=False).stdout
    flink_says = {int(n): verdict == "passes" for n, verdict in CASE.findall(replay)}
    causes = [{"releases": c["releases"], "rule": c["rule"], "rules": c["rules"], "explained_by": c["explained_by"],
               "cases": c["cases"], "difference": c["difference"], "request": c["request"]["input"],
               "real_flink_answers_as_the_oracle": flink_says.get(i + 1)}
              for i, c in enumerate(report["counterexamples"])]
    row = {"conformance": conformance, "verdict": report["verdict"], "checked_cases": report["checked_cases"],
           "failing_cases": report["failing_cases"], "divergences": report["divergences"],
           "releases": [r["flink"] for r in report["runs"]],
           "confirmed_by_real_flink": sum(1 for c in causes if c["real_flink_answers_as_the_oracle"]),
           "causes": causes}
    print(f"{conformance}: {row['verdict']}, {row['checked_cases']} cases, {row['failing_cases']} failing, "
          f"{row['divergences']} divergences, {row['confirmed_by_real_flink']} confirmed by real Flink", flush=True)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page", nargs="?", help="the calculator's index.html")
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--doc-only", action="store_true",
                        help=f"run nothing: rewrite {PAGE.name}'s section from {OUT.name}")
    args = parser.parse_args(argv)
    if not args.doc_only:
        if args.page is None:
            parser.error("give the calculator's index.html (or --doc-only)")
        commit = subprocess.run(["git", "-C", str(Path(args.page).parent), "rev-parse", "HEAD"], capture_output=True,
                                text=True, check=False).stdout.strip() or None
        rows = [run(args.page, level, args.examples, args.seed) for level in ("flink", "documented")]
        OUT.write_text(json.dumps({"implementation": "https://github.com/rmetzger/flink-memory-calculator",
                                   "commit": commit, "adapter": ADAPTER, "examples": args.examples, "seed": args.seed,
                                   "runs": rows}, indent=1) + "\n")
    text = PAGE.read_text()
    head, rest = text.split(BEGIN)
    PAGE.write_text(f"{head}{BEGIN}\n{section(json.loads(OUT.read_text()))}{END}{rest.split(END, 1)[1]}")
    return 0


def section(data: dict[str, Any]) -> str:
    """The page's tables: each level's verdict, then every divergence of each level."""
    lines = ["| level | releases | cases | failing | divergences | confirmed on real Flink |",
             "|---|---|---|---|---|---|"]
    for r in data["runs"]:
        lines.append(f"| {r['conformance']} | {len(r['releases'])} | {r['checked_cases']:,} | {r['failing_cases']:,} | "
                     f"{r['divergences']} | {r['confirmed_by_real_flink']} of {len(r['causes'])} |")
    lines += ["", "| level | rule | releases | cases | the smallest request (`input.config`) | where it departs |",
              "|---|---|---|---|---|---|"]
    for r in data["runs"]:
        for c in r["causes"]:
            config = json.dumps(c["request"].get("config", c["request"])).replace("|", "\\|")
            diff = c["difference"].replace("|", "\\|").replace("\n", " ")
            diff = diff if len(diff) <= 160 else diff[:157] + "..."
            seen = sorted(c["releases"], key=lambda r: tuple(int(x) for x in r.split(".")))
            releases = seen[0] if len(seen) == 1 else f"{seen[0]} ... {seen[-1]}"
            lines.append(f"| {r['conformance']} | {c['rule']} | {releases} ({len(c['releases'])}) | {c['cases']:,} | "
                         f"`{config}` | {diff} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
