"""``python -m flinkspec.tools.catch_rate``: the seeds that catch each mutant, counted the way `check` runs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from flinkspec.tools import catch_rate

ROOT = Path(__file__).resolve().parents[1]


def test_a_historical_mutant_is_planned_at_its_fix_and_at_the_newest_release() -> None:
    tasks = catch_rate.plan(["flink-8455", "valve-no-flush"], seeds=2, examples=50)
    assert [(t.mutant, t.version, t.seed) for t in tasks] == [
        ("flink-8455", "1.13", 0), ("flink-8455", "1.13", 1), ("flink-8455", "2.3", 0), ("flink-8455", "2.3", 1),
        ("valve-no-flush", "2.3", 0), ("valve-no-flush", "2.3", 1)]


def test_every_seed_catches_the_mutant(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "rates.json"
    assert catch_rate.main(["--mutants", "flink-30472", "--seeds", "2", "--json", str(out)]) == 0
    rates = json.loads(out.read_text())
    assert [(r["version"], r["caught"], r["seeds"], r["rules"]) for r in rates] == [
        ("1.17.0", 2, 2, ["TM-12"]), ("2.3", 2, 2, ["TM-12"])]
    assert "4 of 4 checks caught their mutant" in capsys.readouterr().out


def test_a_seed_that_lets_the_mutant_escape_fails_the_run(capsys: pytest.CaptureFixture[str]) -> None:
    """One request cannot show FLINK-7721 (it needs a channel idle, another resumed behind the output)."""
    assert catch_rate.main(["--mutants", "flink-7721", "--seeds", "1", "--examples", "1"]) == 1
    text = capsys.readouterr().out
    assert "0/1" in text and "0 of 2 checks caught their mutant" in text


def test_processes_count_what_one_process_counts() -> None:
    """Seeds, not the process, decide the draws: --jobs 2 (fresh interpreters) gives the same outcomes."""
    tasks = catch_rate.plan(["flink-23649"], seeds=2, examples=100)
    alone, spread = catch_rate.run_all(tasks, 1), catch_rate.run_all(tasks, 2)
    assert [(o.caught, o.cases, o.rule) for o in alone] == [(o.caught, o.cases, o.rule) for o in spread]


def test_bad_usage_exits_2() -> None:
    for argv in (["--mutants", "no-such-*"], ["--seeds", "0"], ["--jobs", "0"]):
        with pytest.raises(SystemExit) as exc:
            catch_rate.main(argv)
        assert exc.value.code == 2


def test_the_documented_level_lists_a_mutant_that_breaks_no_documented_rule_with_why(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A mutant whose ``undocumented`` says why is not checked at the documented level: it is listed with why."""
    from flinkspec.mutants import MUTANTS

    assert catch_rate.plan(["align-no-subsume"], seeds=2, examples=10, conformance="documented") == []
    assert len(catch_rate.plan(["align-no-subsume"], seeds=2, examples=10)) == 2  # the flink level checks it
    out = tmp_path / "rates.json"
    assert catch_rate.main(["--mutants", "align-no-subsume", "--conformance", "documented", "--json", str(out)]) == 0
    [row] = json.loads(out.read_text())
    assert (row["mutant"], row["seeds"], row["undocumented"]) == (
        "align-no-subsume", 0, MUTANTS["align-no-subsume"].undocumented)
    out_text = capsys.readouterr().out
    assert "breaks no documented rule: align-no-subsume (2.3): Neither the seed article on fault tolerance" in out_text


def test_every_mutant_says_whether_it_breaks_a_documented_rule() -> None:
    """An ``undocumented`` reason is a sentence that names where the documents are silent, never a bare flag."""
    from flinkspec.mutants import MUTANTS

    for name, m in MUTANTS.items():
        assert not m.undocumented or (len(m.undocumented) > 80 and "document" in m.undocumented.lower()), name


ROOT = Path(__file__).resolve().parent.parent
MUTANTS_PAGE = ROOT / "docs" / "mutants.md"  # the page `--readme-from` fills by default
EVIDENCE = ROOT / "docs" / "evidence" / "catch-rate-documented.json"


def _rate(mutant: str, version: str, caught: int, rules: tuple[str, ...] = (), why: str = "") -> catch_rate.Rate:
    return catch_rate.Rate(mutant, "a", version, caught, 0 if why else 10, 1, 1.0, (), rules, why)


def test_the_readme_column_is_added_once_and_filled_per_version() -> None:
    table = ("text\n\n| mutant | area | seeds |\n|---|---|---|\n| `m-1` | a | 10/10 |\n| `flink-1` | a | 9/10 |\n"
             "| `other` | a | 1/1 |\n\nmore\n")
    rates = [_rate("flink-1", "2.3", 10, ("CCR-10",)), _rate("flink-1", "1.13", 0, why="silent docs"),
             _rate("m-1", "2.3", 7, ("TM-12",))]
    once = catch_rate.fill_readme(table, rates, "e.json")
    assert catch_rate.fill_readme(once, rates, "e.json") == once
    assert once.split("\n")[2:9] == [
        "<!-- documented-level column: python -m flinkspec.tools.catch_rate --readme-from e.json -->",
        f"| mutant | area | seeds | {catch_rate.DOCUMENTED_COLUMN} |", "|---|---|---|---|",
        "| `m-1` | a | 10/10 | 7/10 (TM-12) |", "| `flink-1` | a | 9/10 | no documented rule, 10/10 (CCR-10) |",
        "| `other` | a | 1/1 | not measured |", ""]


def test_the_mutants_pages_documented_level_column_is_the_evidence() -> None:
    """docs/mutants.md's column is what `--readme-from docs/evidence/catch-rate-documented.json` writes (never
    typed), in both of its mutant tables."""
    rates = catch_rate.read_rates(EVIDENCE)
    text = MUTANTS_PAGE.read_text()
    assert text.count(catch_rate.DOCUMENTED_COLUMN) == 2
    assert catch_rate.DOCUMENTED_COLUMN in text
    assert catch_rate.fill_readme(text, rates, "docs/evidence/catch-rate-documented.json") == text


def test_readme_from_fills_the_mutants_page_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from the repository root, `--readme-from` with no `--readme` rewrites docs/mutants.md (to itself)."""
    (tmp_path / "docs" / "evidence").mkdir(parents=True)
    (tmp_path / "docs" / "mutants.md").write_text(MUTANTS_PAGE.read_text())
    (tmp_path / "docs" / "evidence" / EVIDENCE.name).write_text(EVIDENCE.read_text())
    monkeypatch.chdir(tmp_path)
    assert catch_rate.main(["--readme-from", "docs/evidence/catch-rate-documented.json"]) == 0
    assert (tmp_path / "docs" / "mutants.md").read_text() == MUTANTS_PAGE.read_text()


def test_the_evidence_measures_every_mutant_at_the_documented_level() -> None:
    """docs/evidence/catch-rate-documented.json holds every (mutant, version) catch_rate plans, or says why not."""
    measured = {(r.mutant, r.version) for r in catch_rate.read_rates(EVIDENCE)}
    planned = {(t.mutant, t.version) for t in catch_rate.plan(["*"], 1, 1, "documented")}
    assert measured == planned | {(r.mutant, r.version) for r in catch_rate.excluded(["*"], "documented")}


def test_every_mutant_that_breaks_a_documented_rule_is_caught_by_every_seed_in_the_evidence() -> None:
    """Issue 18's bar, as measured: at the documented level, 10 of 10 seeds catch each (mutant, version) that
    breaks a documented rule; the others carry why they break none."""
    rates = catch_rate.read_rates(EVIDENCE)
    assert [(r.mutant, r.version, r.escaped) for r in rates if not r.undocumented and r.caught < r.seeds] == []
    assert all(r.seeds == 10 for r in rates if not r.undocumented)
    assert all(r.seeds == 0 and r.undocumented for r in rates if r.undocumented)


FIGURE = re.compile(r"\*\*([\d,]+) of ([\d,]+) checks catch their (?:built-in )?mutant\*\*\s*\(\[evidence/([\w.-]+)\]")


@pytest.mark.parametrize("page", ["mutants.md", "historical-mutants.md"])
def test_the_docs_figures_are_what_the_evidence_holds(page: str) -> None:
    """Every "N of M checks catch their mutant" of a page is the sum over the catch-rate JSON it links."""
    text = (ROOT / "docs" / page).read_text().replace("\n", " ")
    found = FIGURE.findall(text)
    assert found, f"docs/{page} states no catch rate"
    for caught, checks, evidence in found:
        rates = json.loads((ROOT / "docs" / "evidence" / evidence).read_text())
        assert (int(caught.replace(",", "")), int(checks.replace(",", ""))) == (
            sum(r["caught"] for r in rates), sum(r["seeds"] for r in rates)), evidence
