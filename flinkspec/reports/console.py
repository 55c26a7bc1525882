"""What ``flinkspec check`` and ``flinkspec fanout`` print: each divergence as it is found, with its
replay line, then the summary and where the report is."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from flinkspec.engine.check import AreaRun, Counterexample
from flinkspec.reports.html_report import jar_text, plural


def run_line(run: AreaRun) -> str:
    """One (area, version): cases, failing cases, divergences, what was not checked."""
    text = f"{plural(run.checked, 'case')} checked"
    if run.cases > run.checked:
        text += f" (+{run.cases - run.checked:,} shrinking)"
    text += f" in {run.seconds:.1f} s"
    if run.counterexamples:
        text += f": {run.failing:,} failing in {plural(len(run.counterexamples), 'distinct divergence')}"
    if run.not_checked:
        text += f"; {sum(run.not_checked.values()):,} not checked ({'; '.join(run.not_checked)})"
    if run.infra_error:
        text += f"; {run.verdict}: {run.infra_error}"
        if run.infra_replay:
            text += f"\n    replay the request it broke on: {run.infra_replay}"
    elif not run.counterexamples:
        text += f": {run.verdict}" + ("" if run.checked else " (no case was checked)")
    return text


def divergence_lines(c: Counterexample, number: int, *, at: str | None = None) -> list[str]:
    """A divergence as a reader needs it: what differs, how often, the rules, the plain request, the replay."""
    where = at or f"{c.area} at Flink {c.flink}"
    return [
        f"  [{number}] {where}: {c.signature or c.difference}",
        f"      {plural(c.cases, 'failing case')}; breaks {', '.join(c.rules or (c.rule,))}",
        f"      request: {json.dumps(c.request['input'], ensure_ascii=False)}",
        f"      replay:  {c.replay}",
    ]


def print_run(run: AreaRun, start: int, out: TextIO | None = None) -> int:
    """Print one (area, version)'s line and its divergences numbered from ``start`` (on stderr as it
    is when called, unless ``out``); returns the next number."""
    out = out or sys.stderr
    print(f"  {run_line(run)}", file=out)
    for i, c in enumerate(run.counterexamples, start):
        print("\n".join(divergence_lines(c, i)), file=out)
    out.flush()
    return start + len(run.counterexamples)


def summary(report: dict[str, Any], seconds: float, report_dir: Path | None, junit: Path | None) -> str:
    """The last lines: the verdict with the number of distinct divergences, and where the report is."""
    errors = sum(1 for r in report["runs"] if r.get("infra_error"))
    lines = [] if report["checked_cases"] or report["divergences"] else [
        "nothing was checked: no generated case could be sent to the implementation (see above why); "
        "that is not a pass"]
    lines += [f"{report['verdict']}: {plural(report['divergences'], 'distinct divergence')} "
             f"({report['failing_cases']:,} failing of {plural(report['checked_cases'], 'case')} checked"
             + (f", {report['not_checked_cases']:,} not checked" if report.get("not_checked_cases") else "")
             + f"), {plural(errors, 'infrastructure error')} in {seconds:.1f} s"]
    if (jar := jar_text(report)) is not None:
        lines.append(jar)
    if report_dir is not None:
        lines.append(f"report: {report_dir / 'report.html'} (and report.md, report.json; "
                     f"`flinkspec replay {report_dir / 'report.json'} --impl IMPL` re-runs every divergence)")
    if junit is not None:
        lines.append(f"JUnit: {junit}")
    return "\n".join(lines)


def grouped(runs: Sequence[AreaRun]) -> list[tuple[Counterexample, list[str]]]:
    """Divergences that repeat across versions (the same signature and representative) once, with the versions."""
    seen: dict[tuple[str, str, tuple[str, ...], str], tuple[Counterexample, list[str]]] = {}
    for run in runs:
        for c in run.counterexamples:
            key = (c.area, c.signature, c.rules, json.dumps(c.request["input"], sort_keys=True))
            seen.setdefault(key, (c, []))[1].append(c.flink)
    return list(seen.values())


def versions_text(flinks: Sequence[str]) -> str:
    return ", ".join(flinks) if len(flinks) <= 3 else f"{flinks[0]} ... {flinks[-1]} ({len(flinks)} versions)"
