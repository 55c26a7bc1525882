"""`flinkspec check` reports and `flinkspec replay` re-runs them; rules and mutants are listed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

ROOT = Path(__file__).resolve().parents[1]


def flinkspec(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "flinkspec.cli", *args], capture_output=True, text=True,
                          timeout=600, cwd=ROOT)


def test_report_json_markdown_junit_and_replay(tmp_path: Path) -> None:
    """A failing check writes report.json (schema 1), report.md and JUnit XML; replaying the report
    against the mutant fails again and against the oracle passes."""
    junit = tmp_path / "junit.xml"
    res = flinkspec("check", "--impl", "mutant:jm-direct-limit-always", "--area", "memory.jobmanager",
                    "--flink", "2.3", "--examples", "200", "--report", str(tmp_path), "--junit", str(junit))
    assert res.returncode == 1, res.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["schema"] == 1 and report["verdict"] == "invalid" and report["cases"] > 0
    case = report["counterexamples"][0]
    assert {"area", "flink", "rule", "request", "expected", "actual", "replay"} <= set(case)
    assert len(case["request"]["input"]["config"]) <= 3
    assert case["rule"] in (tmp_path / "report.md").read_text()
    suite = ET.parse(junit).getroot()
    assert suite.get("failures") != "0"
    assert flinkspec("replay", str(tmp_path / "report.json")).returncode == 1
    assert flinkspec("replay", str(tmp_path / "report.json"), "--impl", "oracle").returncode == 0


def test_same_seed_same_cases(tmp_path: Path) -> None:
    """Two runs with the same seed check the same cases and find the same counterexamples."""
    reports = []
    for name in ("a", "b"):
        flinkspec("check", "--impl", "mutant:timers-no-dedup", "--area", "watermark.timers", "--flink", "2.3",
                  "--examples", "200", "--seed", "5", "--report", str(tmp_path / name))
        reports.append(json.loads((tmp_path / name / "report.json").read_text()))
    assert reports[0]["counterexamples"] == reports[1]["counterexamples"]
    assert reports[0]["cases"] == reports[1]["cases"]


def test_rules_are_listed_with_their_status() -> None:
    """Every rule has an ID, an area, a text and a status; the known Flink deviations say so."""
    rules = json.loads(flinkspec("rules", "--json").stdout)
    ids = {r["id"] for r in rules}
    assert {"TM-2", "JM-2", "WM-2", "CWM-7", "TIMER-2", "TM-EQ"} <= ids
    wm7 = next(r for r in rules if r["id"] == "WM-7")
    assert "breaks it" in wm7["status"]
