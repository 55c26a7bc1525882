"""docs/evidence.md's table of `flinkspec check` runs against real Flink says what the reports it links hold:
each report's cases per area and version, every run valid without an infrastructure error, and the total."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "evidence.md"
ROW = re.compile(r"^\s*\| (?P<area>[^|]+) \| (?P<reports>[^|]*\(evidence/check-[^|]*) \| (?P<per>[\d,]+) \| "
                 r"(?P<verdict>\w+) \|$", re.M)
TOTAL = re.compile(r"([\d,]+) requests in all, \*\*no counterexample and no infrastructure error\*\*")


def _reports(cell: str) -> list[dict[str, Any]]:
    return [json.loads((ROOT / "docs" / path).read_text()) for path in re.findall(r"\((evidence/check-[^)]+)\)", cell)]


def test_each_row_is_what_its_reports_hold() -> None:
    rows = list(ROW.finditer(PAGE.read_text()))
    assert rows, "no rows of check reports in docs/evidence.md"
    for row in rows:
        per = int(row["per"].replace(",", ""))
        for report in _reports(row["reports"]):
            assert report["verdict"] == row["verdict"] == "valid", row["area"]
            assert report["counterexamples"] == [] and report.get("failing_cases", 0) == 0, row["area"]
            assert {run["cases"] for run in report["runs"]} == {per}, (row["area"], per)
            assert not any(run["infra_error"] for run in report["runs"]), row["area"]


def test_the_total_is_the_sum_of_the_reports() -> None:
    text = PAGE.read_text()
    total = TOTAL.search(text)
    assert total is not None, "docs/evidence.md states no total"
    cases = sum(report["cases"] for row in ROW.finditer(text) for report in _reports(row["reports"]))
    assert int(total[1].replace(",", "")) == cases, f"the reports hold {cases:,} cases"
