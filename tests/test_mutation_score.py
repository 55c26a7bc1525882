"""The mutation score's bookkeeping: mutmut's verdict files summed per area, second-pass verdicts merged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flinkspec import mutation_score as ms

ROOT = Path(__file__).resolve().parents[1]


def test_every_oracle_module_belongs_to_an_area() -> None:
    for path in (ROOT / "oracle").glob("*.py"):
        assert ms.area_of(path.stem)
    with pytest.raises(KeyError, match="belongs to no area"):
        ms.area_of("nothing_like_it")


def test_every_area_has_tests_that_exist() -> None:
    for area in ms.AREA_OF_FILE:
        for test in ms.area_tests(area):
            assert (ROOT / test.split("::")[0]).exists(), test


def test_verdicts_scores_and_the_second_pass(tmp_path: Path) -> None:
    (tmp_path / "valve.py.meta").write_text(json.dumps({"exit_code_by_key": {
        "oracle.valve.x_a__mutmut_1": 1, "oracle.valve.x_a__mutmut_2": 0, "oracle.valve.x_a__mutmut_3": 36}}))
    (tmp_path / "memsize.py.meta").write_text(json.dumps({"exit_code_by_key": {
        "oracle.memsize.x_b__mutmut_1": 0, "oracle.memsize.x_b__mutmut_2": 33, "oracle.memsize.x_b__mutmut_3": None}}))
    found = ms.verdicts(tmp_path)
    assert found["oracle.valve.x_a__mutmut_3"] == ("valve", "timeout")
    assert ms.survivors(found) == ["oracle.memsize.x_b__mutmut_1", "oracle.memsize.x_b__mutmut_2",
                                   "oracle.valve.x_a__mutmut_2"]
    rows = {r.area: r for r in ms.scores(found)}
    assert rows["watermark"].killed == 2 and rows["watermark"].score == pytest.approx(2 / 3)
    assert rows["memory"].score == 0.0 and rows["memory"].counts["not checked"] == 1
    again = ms.merged(found, {"oracle.memsize.x_b__mutmut_1": "killed"})
    assert {r.area: r for r in ms.scores(again)}["memory"].score == pytest.approx(1 / 2)
    table = ms.markdown(ms.scores(again))
    assert "| memory | 3 | 1 | 1 | 0 | 0 | 1 | 50.0% |" in table
    assert table.splitlines()[-1].startswith("| all | 6 | 1 |")


def test_without_a_run_it_says_what_is_missing(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="run with --run first"):
        ms.verdicts(tmp_path / "absent")
