"""What ``flinkspec check`` and ``flinkspec fanout`` print: each divergence as it is found, with its
replay line, then the summary and where the report is."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from flinkspec.engine.check import AreaRun, Counterexample, made_of
from flinkspec.judge.divergence import parts
from flinkspec.reports.html_report import jar_text, plural


def run_line(run: AreaRun) -> str:
    """One (area, version): cases, failing cases, divergences, what was not checked."""
    text = f"{plural(run.checked, 'case')} checked"
    if run.cases > run.checked:
        text += f" (+{run.cases - run.checked:,} requests sent while shrinking)"
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
    """A divergence as a reader needs it: where it departs from Flink (Flink's answer and the
    implementation's), the rules that explain it, how often, the plain request, the replay."""
    where = at or f"{c.area} at Flink {versions_text(list(c.seen_at))}"
    explained = c.explained_by or tuple(r for r in c.rules if r.endswith("-EQ")) or c.rules or (c.rule,)
    lines = [f"  [{number}] {where}: {c.signature or c.difference}"]
    if c.difference and c.difference != c.signature:
        lines.append(f"      {c.difference}")
    lines += [
        f"      explained by {', '.join(explained)} ({rule_words(explained[0])})",
        f"      {plural(c.cases, 'failing case')}; breaks {', '.join(c.rules or (c.rule,))}",
        f"      request: {json.dumps(c.request['input'], ensure_ascii=False)}",
        f"      replay:  {c.replay}",
    ]
    return lines


def rule_words(rule_id: str, limit: int = 110) -> str:
    """A rule's text, cut to fit a console line."""
    from flinkspec.engine.check import rule_text

    text = rule_text(rule_id)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Printer:
    """Prints each (area, version) as it is checked and each divergence once: in full the first
    time it is seen, and as one line at every further release it shows at."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out
        self.numbers: dict[tuple[str, tuple[str, str, tuple[str, ...]]], int] = {}

    def run(self, run: AreaRun) -> None:
        out = self.out or sys.stderr
        print(f"  {run_line(run)}", file=out)
        # single departures first: a composite is dissolved once its parts are known, here as in the
        # report (divergences())
        for c in sorted(run.counterexamples, key=lambda c: bool(parts(c.cause[1]))):
            key = (c.area, c.cause)
            if key in self.numbers:
                print(f"  [{self.numbers[key]}] again at Flink {c.flink}: {plural(c.cases, 'failing case')}", file=out)
                continue
            if under := made_of(c, self.numbers):
                both = " and ".join(f"[{self.numbers[k]}]" for k in under)
                print(f"  {both} together at Flink {c.flink}: {plural(c.cases, 'failing case')}, counted under each",
                      file=out)
                continue
            self.numbers[key] = len(self.numbers) + 1
            print("\n".join(divergence_lines(c, self.numbers[key])), file=out)
        out.flush()


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


def versions_text(flinks: Sequence[str]) -> str:
    return ", ".join(flinks) if len(flinks) <= 3 else f"{flinks[0]} ... {flinks[-1]} ({len(flinks)} versions)"
