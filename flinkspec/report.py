"""Reports of a check: ``report.json`` (machines), ``report.md`` and ``report.html`` (people), JUnit XML (CI).

``report.json`` schema 1 (stable; new keys may be added, none removed; docs/report-schema.md)::

    {"schema": 1, "impl": str, "conformance": "flink"|"documented", "seed": int,
     "verdict": "valid"|"invalid"|"unknown", "cases": int,
     "divergences": int, "failing_cases": int, "not_checked_cases": int,
     "runs": [{"area", "flink", "cases", "seconds", "verdict", "infra_error", "failing", "divergences",
               "not_checked": {why: cases}}],
     "counterexamples": [{"area", "flink", "rule", "rule_text", "request", "expected", "actual",
                          "difference", "replay", "rules", "signature", "cases", "features", "messages"}],
     "unsupported": [{"area", "flink", "rule", "why", "source"}],
     "rules": [{"id", "area", "text", "documented", "flink_violates"}]}
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from flinkspec.capabilities import EVERYTHING, Capabilities
from flinkspec.check import AreaRun


def overall_verdict(runs: Sequence[AreaRun]) -> str:
    if any(r.counterexamples for r in runs):
        return "invalid"
    return "unknown" if any(r.infra_error for r in runs) else "valid"


def to_json(runs: Sequence[AreaRun], impl: str, conformance: str, seed: int,
            capabilities: Capabilities | None = None, skipped: Sequence[tuple[str, str, str]] = ()) -> dict[str, Any]:
    """The report; ``skipped`` lists the (area, version, why) the implementation does not support."""
    return {
        "schema": 1,
        "impl": impl,
        "conformance": conformance,
        "seed": seed,
        "verdict": overall_verdict(runs),
        "cases": sum(r.cases for r in runs),
        "divergences": sum(len(r.counterexamples) for r in runs),
        "failing_cases": sum(r.failing for r in runs),
        "not_checked_cases": sum(sum(r.not_checked.values()) for r in runs),
        "runs": [
            {"area": r.area, "flink": r.flink, "cases": r.cases, "seconds": round(r.seconds, 3),
             "verdict": r.verdict, "infra_error": r.infra_error, "failing": r.failing,
             "divergences": len(r.counterexamples), "not_checked": dict(r.not_checked)}
            for r in runs
        ],
        "counterexamples": [c.to_json() for r in runs for c in r.counterexamples],
        "speaks": (capabilities or EVERYTHING).speaks.to_json(),
        **_support(runs, capabilities, skipped),
    }


def _support(runs: Sequence[AreaRun], caps: Capabilities | None,
             skipped: Sequence[tuple[str, str, str]]) -> dict[str, Any]:
    from properties.rules import RULES

    unsupported = [{"area": a, "flink": f, "rule": None, "why": why, "source": "capabilities"} for a, f, why in skipped]
    for r in runs:
        for rule in sorted(caps.rules_unsupported(r.area, r.flink) if caps else ()):
            why = (caps.why(r.area, r.flink, rule) if caps else None) or ""
            unsupported.append({"area": r.area, "flink": r.flink, "rule": rule, "why": why, "source": "capabilities"})
    areas = {r.area for r in runs} | {a for a, _, _ in skipped}
    rules = [{"id": r.id, "area": r.area, "text": r.text, "documented": r.documented,
              "flink_violates": list(r.flink_violates)} for r in RULES.values() if r.area in areas]
    return {"unsupported": unsupported, "rules": rules}


def to_markdown(report: dict[str, Any]) -> str:
    lines = [
        f"# flinkspec check: {report['impl']}",
        "",
        f"Verdict: **{report['verdict']}** - {report['cases']} cases, conformance level "
        f"`{report['conformance']}`, seed {report['seed']}.",
        "",
        "| area | Flink | cases | seconds | verdict |",
        "|---|---|---|---|---|",
    ]
    for r in report["runs"]:
        verdict = r["verdict"] + (f" ({r['infra_error']})" if r["infra_error"] else "")
        lines.append(f"| {r['area']} | {r['flink']} | {r['cases']} | {r['seconds']} | {verdict} |")
    for u in report.get("unsupported", []):
        what = f"rule {u['rule']}" if u["rule"] else "everything"
        lines.append(f"| {u['area']} | {u['flink']} | 0 | 0 | not supported: {what} ({u['why']}) |")
    for i, c in enumerate(report["counterexamples"], 1):
        lines += [
            "",
            f"## {i}. {c['rule']} at Flink {c['flink']} ({c['area']})",
            "",
            f"> {c['rule_text']}",
            "",
            f"What differs: {c['difference']}",
            "",
            "Minimal request:",
            "```json",
            json.dumps(c["request"], indent=2),
            "```",
            "Flink (oracle) answers:" if c["expected"] is not None else "",
            "```json" if c["expected"] is not None else "",
            json.dumps(c["expected"], indent=2) if c["expected"] is not None else "",
            "```" if c["expected"] is not None else "",
            "The implementation answers:",
            "```json",
            json.dumps(c["actual"], indent=2),
            "```",
            "Replay:",
            "```",
            c["replay"],
            "```",
        ]
    return "\n".join(line for line in lines if line is not None) + "\n"


def to_junit(report: dict[str, Any]) -> str:
    suite = ET.Element("testsuite", name=f"flinkspec {report['impl']}")
    by_run: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for c in report["counterexamples"]:
        by_run.setdefault((c["area"], c["flink"]), []).append(c)
    failures = errors = 0
    for r in report["runs"]:
        case = ET.SubElement(suite, "testcase", classname=f"flinkspec.{r['area']}", name=f"flink-{r['flink']}",
                             time=str(r["seconds"]))
        for c in by_run.get((r["area"], r["flink"]), []):
            failures += 1
            f = ET.SubElement(case, "failure", message=f"{c['rule']}: {c['difference']}")
            f.text = f"{c['rule_text']}\nrequest: {json.dumps(c['request'])}\nreplay: {c['replay']}"
        if r["infra_error"]:
            errors += 1
            ET.SubElement(case, "error", message=r["infra_error"])
    skipped = [u for u in report.get("unsupported", []) if u["rule"] is None]
    for u in skipped:
        case = ET.SubElement(suite, "testcase", classname=f"flinkspec.{u['area']}", name=f"flink-{u['flink']}",
                             time="0")
        ET.SubElement(case, "skipped", message=f"not supported: {u['why']}")
    suite.set("tests", str(len(report["runs"]) + len(skipped)))
    suite.set("skipped", str(len(skipped)))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    return ET.tostring(suite, encoding="unicode")


def write(report: dict[str, Any], directory: Path | None, junit: Path | None) -> None:
    """Write the report files; called after every (area, version) so nothing found is ever lost."""
    if directory is not None:
        directory.mkdir(parents=True, exist_ok=True)
        tmp = directory / "report.json.part"
        tmp.write_text(json.dumps(report, indent=2) + "\n")
        tmp.replace(directory / "report.json")
        (directory / "report.md").write_text(to_markdown(report))
        from flinkspec.html_report import render

        (directory / "report.html").write_text(render([report]))
    if junit is not None:
        junit.parent.mkdir(parents=True, exist_ok=True)
        junit.write_text(to_junit(report))
