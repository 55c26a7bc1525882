"""Every Flink release on PyPI against the oracle, every area: writes docs/evidence/releases.md.

    python docs/evidence/release_scan.py --out DIR [--examples 1000] [--seed 0] [RELEASE ...]

For each release (default: all of ``oracle.versions.RELEASES``) it runs

    flinkspec check --impl flink:X.Y.Z --flink X.Y.Z --examples N --seed S --strict-messages --report DIR/X.Y.Z

(the release's own jar, downloaded and compiled on first use, against the oracle at that release), keeps
each report in DIR, and then writes the table of releases x areas (cases checked, verdict) from the
reports, with the patch-level changes the oracle models (``flinkspec.engine.diff_versions.KNOWN``). With
``--table-only`` it runs nothing and tabulates the reports already in DIR.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from flinkspec.engine.diff_versions import KNOWN
from oracle import AREAS
from oracle.versions import RELEASES, select_versions

FLINKSPEC = shutil.which("flinkspec") or str(Path(sys.executable).with_name("flinkspec"))
OUT = Path(__file__).with_name("releases.md")
SUMMARY = Path(__file__).with_name("releases.json")  # the reports' runs, without their rule lists
SHORT = {"memory.taskmanager": "TM", "memory.jobmanager": "JM", "watermark.valve": "valve",
         "watermark.timers": "timers", "watermark.combined": "combined", "classloading.resolve": "classloading",
         "checkpoint.alignment": "align", "checkpoint.coordinator": "coord", "checkpoint.recovery": "recovery"}


def scan(release: str, out: Path, examples: int, seed: int) -> None:
    """Check one release's jar against the oracle at that release; its report goes to ``out/release``."""
    subprocess.run([FLINKSPEC, "jars", "fetch", release], check=True, stdout=subprocess.DEVNULL)
    started = time.monotonic()
    with (out / f"{release}.out").open("w") as log:
        rc = subprocess.run([FLINKSPEC, "check", "--impl", f"flink:{release}",
                             "--flink", release, "--examples", str(examples), "--seed", str(seed),
                             "--strict-messages", "--report", str(out / release)],
                            stdout=log, stderr=subprocess.STDOUT).returncode
    print(f"{release}: exit {rc} in {time.monotonic() - started:.0f} s", flush=True)


def cell(run: dict[str, Any] | None) -> str:
    if run is None:
        return "–"
    verdict = {"valid": "ok"}.get(run["verdict"], f"**{run['verdict']}**")
    extra = f" ({run['divergences']} div)" if run["divergences"] else ""
    return f"{run['checked']:,} {verdict}{extra}"


def table(out: Path, releases: list[str], command: str) -> str:
    areas = [a for a in SHORT if a in AREAS]
    lines = [
        "# Every release against the oracle",
        "",
        f"Written by `{command}`: for each of the {len(releases)} releases, "
        "`flinkspec check --impl flink:X.Y.Z --flink X.Y.Z --examples N --seed S --strict-messages`, the release's "
        "own jar against the oracle at that release, every area, seed 0 (`--table-only` then tabulates every report "
        "in DIR). Cells: cases checked and the verdict.",
        "",
        "| release | " + " | ".join(SHORT[a] for a in areas) + " | verdict |",
        "|---|" + "---|" * (len(areas) + 1),
    ]
    totals = {"cases": 0, "valid": 0}
    for release in releases:
        path = out / release / "report.json"
        if not path.is_file():
            lines.append(f"| {release} | " + " | ".join("–" for _ in areas) + " | not run |")
            continue
        report = json.loads(path.read_text())
        runs = {r["area"]: r for r in report["runs"]}
        totals["cases"] += report["checked_cases"]
        totals["valid"] += report["verdict"] == "valid"
        verdict = report["verdict"] if report["verdict"] == "valid" else f"**{report['verdict']}**"
        lines.append(f"| {release} | " + " | ".join(cell(runs.get(a)) for a in areas) + f" | {verdict} |")
    lines += ["", f"{totals['valid']} of {len(releases)} releases valid, {totals['cases']:,} cases checked.", "",
              "## Changes the oracle models at a patch release", "",
              "From `flinkspec.engine.diff_versions.KNOWN` (each has a witness that `flinkspec diff-versions` "
              "confirms on both real jars):", ""]
    lines += [f"- {k.area} at {k.step}: {k.text}" for k in KNOWN if k.step.patch]
    return "\n".join(lines) + "\n"


def summary(out: Path, releases: list[str]) -> list[dict[str, Any]]:
    """Per release, what each report says of each run (area, cases checked, verdict, seconds, errors)."""
    rows = []
    for release in releases:
        report = json.loads((out / release / "report.json").read_text())
        rows.append({"release": release, "verdict": report["verdict"], "impl": report["impl"], "seed": report["seed"],
                     "runs": [{k: r.get(k) for k in ("area", "flink", "checked", "verdict", "divergences", "seconds",
                                                     "infra_error")} for r in report["runs"]]})
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="release_scan", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="where the reports go")
    p.add_argument("--examples", type=int, default=1000, help="cases per area and release (default 1000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--table-only", action="store_true", help="run nothing: tabulate the reports in --out")
    p.add_argument("releases", nargs="*", help="releases (default: all-patches)")
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    releases = [v.release for v in select_versions(",".join(args.releases) or "all-patches")]
    if not args.table_only:
        for release in releases:
            scan(release, out, args.examples, args.seed)
    everything = [r.release for r in RELEASES]
    shown = [r for r in everything if (out / r / "report.json").is_file()] if args.table_only else releases
    command = "python docs/evidence/release_scan.py --out DIR [--examples N] [RELEASE ...]"
    OUT.write_text(table(out, shown, command))
    SUMMARY.write_text(json.dumps(summary(out, shown), indent=1) + "\n")
    print(f"wrote {OUT} and {SUMMARY}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
