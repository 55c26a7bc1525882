"""The mutation score's bookkeeping: mutmut's verdict files summed per area, second-pass verdicts merged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flinkspec.tools import mutation_score as ms

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


def test_a_module_is_spared_only_the_recorded_answers_that_never_call_it() -> None:
    coordinator, alignment = ms.module_tests("coordinator_machine"), ms.module_tests("alignment")
    assert any(t.endswith("-checkpoint.coordinator]") for t in coordinator)
    assert not any(t.endswith(("-checkpoint.alignment]", "-checkpoint.recovery]")) for t in coordinator)
    assert any(t.endswith("-checkpoint.alignment]") for t in alignment)
    assert not any(t.endswith("-checkpoint.coordinator]") for t in alignment)
    # only the recovery area's entry point imports oracle/recovery.py: the other checkpoint corpora never call it
    recorded = "properties/test_recorded_answers.py::"
    assert ms.module_tests("recovery") == [t for t in ms.area_tests("checkpoint")
                                           if not t.startswith(recorded) or t.endswith("-checkpoint.recovery]")]
    assert any(t.endswith("-checkpoint.recovery]") for t in ms.module_tests("recovery"))
    assert ms.module_tests("javadtoa") == ["properties/test_java_numbers.py"]


def test_the_protocol_modules_judge_every_corpus_cut_short() -> None:
    limits = dict(x.split("=") for x in ms._record_limits("versions").split(","))
    assert {"memory.taskmanager", "watermark.valve", "classloading.values", "checkpoint.coordinator"} <= set(limits)
    assert set(limits.values()) == {str(ms.SECOND_PASS_PROTOCOL_RECORDS)}
    assert ms._record_limits("valve") == f"checkpoint.coordinator={ms.SECOND_PASS_COORDINATOR_RECORDS}"


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
    assert "| memory | 3 | 1 | 1 | 0 | 0 | 1 | 50.0% | **50.0%** |" in table
    assert table.splitlines()[-1].startswith("| all | 6 | 1 |")
    marked = {**again, "oracle.memsize.x_b__mutmut_2": ("memsize", "equivalent: exception cause")}
    memory = {r.area: r for r in ms.scores(marked)}["memory"]
    assert (memory.equivalent, memory.survived, memory.score, memory.raw_score) == (1, 0, 1.0, 0.5)


def _diff(function: str, removed: str, added: str) -> ms.MutantDiff:
    return ms.MutantDiff(f"oracle.nowhere.x_{function}__mutmut_1", "nowhere", function, (removed,), (added,), 1)


@pytest.mark.parametrize(("diff", "why"), [
    (_diff("f", "    raise X(prefix + exc.message, exc) from exc", "    raise X(prefix + exc.message, None) from exc"),
     "exception cause"),
    (_diff("f", "    raise X(prefix + exc.message, exc) from exc", "    raise X(prefix + exc.message, ) from exc"),
     "exception cause"),
    (_diff("f", '        cause = "fraction must be in range [0, 1)"', "        cause = None"), "exception cause"),
    (_diff("_kind_name", '    names = {str: "a string"}', '    names = {str: "XXa stringXX"}'), "refusal text"),
    (_diff("f", '    cfg = string_map(payload, "config", "input")', '    cfg = string_map(payload, "config", "INPUT")'),
     "refusal text"),
    (_diff("f", '    cfg = string_map(payload, "config", "input")', '    cfg = string_map(payload, "config", None)'),
     "refusal text"),
    (_diff("escaped_split", '    raise _split_error(f"Illegal quoting at position: {nxt[2] - 1}")',
           '    raise _split_error(f"Illegal quoting at position: {nxt[2] + 1}")'), "exception cause"),
    # not equivalent: a bound, a key read, the text of an answer of Flink's
    (_diff("f", "    if size < 4096:", "    if size <= 4096:"), None),
    (_diff("f", '    cfg = string_map(payload, "config", "input")', '    cfg = string_map(payload, "CONFIG", "input")'),
     None),
    (_diff("f", '    msg = "long overflow"', '    msg = "LONG OVERFLOW"'), None),
])
def test_what_changes_no_answer_of_flinks(diff: ms.MutantDiff, why: str | None) -> None:
    assert ms.classify(diff) == why


def test_without_a_run_it_says_what_is_missing(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="run with --run first"):
        ms.verdicts(tmp_path / "absent")


def test_two_passes_at_once_keep_each_others_verdicts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ms, "SECOND_PASS", tmp_path / "second-pass.json")
    ms._save_verdict("oracle.valve.x_a__mutmut_1", "killed", {"oracle.old.x_b__mutmut_1": "survived"})
    ms._save_verdict("oracle.javanum.x_c__mutmut_2", "survived", {})  # a pass started before the first wrote
    assert json.loads(ms.SECOND_PASS.read_text()) == {
        "oracle.old.x_b__mutmut_1": "survived", "oracle.valve.x_a__mutmut_1": "killed",
        "oracle.javanum.x_c__mutmut_2": "survived"}


def test_a_mutant_of_the_package_itself_is_of_its_init() -> None:
    assert ms._module_and_local("oracle.x_answer__mutmut_21") == ("__init__", "x_answer__mutmut_21")
    assert ms._module_and_local("oracle.valve.xǁValveǁinput__mutmut_2") == ("valve", "xǁValveǁinput__mutmut_2")
    assert ms._local_names("oracle.x_answer__mutmut_21") == ("x_answer__mutmut_21", "x_answer__mutmut_orig")
