"""``python -m flinkspec.tools.smallest``: the smallest counterexample of each built-in mutant, written into
docs/mutants.md's table by a command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flinkspec.tools import smallest

PAGE = """intro

| mutant | area | verdict | rule of the smallest counterexample | its size (keys / events / class names) | x |
|---|---|---|---|---|---|
| `valve-idle-before-flush` | watermark.valve | caught | OLD | 99 | 10/10 (WM-7) |
| `other` | a | caught | KEEP | 7 | y |

| mutant | area | rule it breaks |
|---|---|---|
| `valve-idle-before-flush` | watermark.valve | WM-EQ |
"""


def test_a_mutant_is_measured_and_its_row_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "smallest.json"
    assert smallest.main(["--mutants", "valve-idle-before-flush", "--json", str(out)]) == 0
    [row] = json.loads(out.read_text())
    assert row["caught"] and 0 < row["size"] <= row["bar"] and row["rule"]
    assert "1 of 1 built-in mutants caught within their area's size bar" in capsys.readouterr().out
    page = tmp_path / "mutants.md"
    page.write_text(PAGE)
    assert smallest.main(["--readme-from", str(out), "--readme", str(page)]) == 0
    lines = page.read_text().splitlines()
    cells = f"{row['rule']} | {row['size']}"
    assert lines[4] == f"| `valve-idle-before-flush` | watermark.valve | caught | {cells} | 10/10 (WM-7) |"
    assert lines[5] == "| `other` | a | caught | KEEP | 7 | y |"  # not measured: kept
    assert lines[9] == "| `valve-idle-before-flush` | watermark.valve | WM-EQ |"  # another table: untouched


def test_no_matching_mutant_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as exc:
        smallest.main(["--mutants", "no-such-*"])
    assert exc.value.code == 2
