"""``flinkspec check`` reports every distinct divergence once, plainly, and never a false one."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from flinkspec.engine.check import AreaRun, Counterexample, dissolve
from flinkspec.judge.divergence import differing_paths, parts, signature, template
from flinkspec.reports.console import Printer
from oracle.explain import Decision, Explanation
from properties.area import AnswerShape
from properties.areas import AREAS as REGISTRY

ROOT = Path(__file__).resolve().parent.parent
PLANTED = f"cmd:{sys.executable} {ROOT / 'tests' / 'planted_bugs.py'}"
AREAS = ("memory.jobmanager", "watermark.valve", "checkpoint.coordinator", "classloading.resolve", "watermark.timers")


def flinkspec(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "flinkspec.cli", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=900)


def _plain(value: Any) -> bool:
    """No padding, tabs or capitals in a configuration value."""
    return not isinstance(value, str) or (value == value.strip() and "\t" not in value and value == value.lower())


def test_five_planted_bugs_are_five_divergences_with_plain_values(tmp_path: Path) -> None:
    """tests/planted_bugs.py plants five independent bugs of five kinds (a value left out, an
    emission missing, an off-by-one in a list, a valid request refused, an event kind ignored);
    the report shows exactly five divergences, one per bug, each shrunk to plain values, with its
    case count, its rules and a replay line that reproduces it."""
    done = flinkspec("check", "--impl", PLANTED, "--flink", "2.3", "--area", ",".join(AREAS),
                     "--report", str(tmp_path / "r"), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    found = report["counterexamples"]
    assert report["divergences"] == len(found) == 5, [(c["area"], c["signature"], c["rules"]) for c in found]
    by_area = {c["area"]: c for c in found}
    assert set(by_area) == set(AREAS)
    assert "output.jvm_args.MaxDirectMemorySize is missing" in by_area["memory.jobmanager"]["signature"]
    assert by_area["classloading.resolve"]["signature"].startswith("refuses a valid request as a BadRequest")
    assert "CLR-REFUSED" in by_area["classloading.resolve"]["rules"]
    assert "output.steps[].retained" in by_area["checkpoint.coordinator"]["signature"]
    assert report["failing_cases"] == sum(c["cases"] for c in found) > 5
    for c in found:
        config = c["request"]["input"].get("config", {})
        assert all(_plain(v) for v in config.values()), c["request"]
        assert c["rule"] == (c["explained_by"] or c["rules"])[0] and c["rule_text"]
        assert len(c["messages"]) == len(c["rules"])
    out = done.stdout + done.stderr
    assert "5 distinct divergences" in out and f"report: {tmp_path / 'r' / 'report.html'}" in out
    assert out.count("replay:  flinkspec replay --impl") == 5
    timers = by_area["watermark.timers"]
    replay = flinkspec("replay", "--impl", PLANTED, "--request", json.dumps(timers["request"]), cwd=tmp_path)
    assert replay.returncode == 1 and "): fails" in replay.stdout


def _bad_request(req: dict[str, Any]) -> dict[str, Any]:
    return {"id": req.get("id"), "error": {"type": "BadRequest", "message": "no"}}


def test_an_implementation_refusing_everything_is_never_told_it_accepted(tmp_path: Path) -> None:
    """Every answer a BadRequest: each area shows one divergence, "refuses a valid request", and no
    rule says the configuration was accepted."""
    done = flinkspec("check", "--impl", "python:tests.test_divergences:_bad_request", "--flink", "2.3",
                     "--examples", "60", "--report", str(tmp_path / "r"), cwd=ROOT)
    assert done.returncode == 1, done.stderr
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    assert len(report["counterexamples"]) == len(report["runs"]) >= 7  # one divergence per area checked
    for c in report["counterexamples"]:
        assert c["signature"] == "refuses a valid request as a BadRequest (no)", c
        assert c["rules"][0].endswith("-REFUSED")
        assert not any(re.search(r"\b(was|were|is|been) accepted", m) for m in c["messages"]), c["messages"]


@pytest.mark.parametrize(("message", "same", "other"), [
    ("Could not parse value '0,1' for key 'taskmanager.memory.managed.fraction'.",
     "Could not parse value '1;2' for key 'taskmanager.memory.managed.fraction'.",
     "Could not parse value '0,1' for key 'taskmanager.memory.network.fraction'."),
    ("Sum of configured Framework Heap Memory (128mb (134217728 bytes)) exceeds (0 bytes)",
     "Sum of configured Framework Heap Memory (1gb (1073741824 bytes)) exceeds (2 bytes)",
     "Configured Framework Heap Memory (128mb (134217728 bytes)) exceeds (0 bytes)"),
])
def test_a_message_template_keeps_the_cause_and_drops_the_values(message: str, same: str, other: str) -> None:
    assert template(message) == template(same) != template(other)


def test_signatures_tell_causes_apart_and_keep_one_cause_together() -> None:
    """Different fields, an error where Flink answers, a refusal: different divergences; the same
    field of another event: the same divergence."""
    req = {"area": "watermark.valve", "flink": "2.3", "input": {"channels": 1, "events": []}}
    flink = {"output": {"emitted": [[{"watermark": 1}], [], [{"watermark": 2}]]}}
    late = {"output": {"emitted": [[], [{"watermark": 1}], [{"watermark": 2}]]}}
    wrong = {"output": {"emitted": [[{"watermark": 1}], [], [{"watermark": 3}]]}}
    also_wrong = {"output": {"emitted": [[{"watermark": 7}], [], [{"watermark": 2}]]}}
    refused = {"error": {"type": "BadRequest", "message": "nope"}}
    sigs = [signature(req, a, flink, ["WM-EQ"]) for a in (late, wrong, also_wrong, refused)]
    assert sigs[1] == sigs[2] and len({sigs[0], sigs[1], sigs[3]}) == 3
    assert differing_paths([[1], [2], [3]], [[1], [5]], AnswerShape(), "x") == ["x[][]"]  # the first departure only
    assert differing_paths([[1], [2]], [[1]], AnswerShape(), "x") == ["x lacks an element"]
    extra = ["x[] has an extra element"]
    none = AnswerShape()
    assert differing_paths([["a"]], [["b", "a"]], none, "x") == differing_paths([[]], [["b"]], none, "x") == extra


def test_one_bug_met_by_different_rules_is_one_cause_and_an_optional_field_is_no_kind() -> None:
    """The same departure explained by different rules (the aligner's and the tracker's, one release's
    splitter or another's) is one cause; a fired timer with and without its namespace is one kind."""
    flink = {"output": {"fired": [{"key": "a", "namespace": "n", "timestamp": 1}, {"key": "a", "timestamp": 2}]}}
    late = {"output": {"fired": []}}
    req = {"area": "watermark.timers", "flink": "2.3", "input": {"events": []}}
    one, other = (Explanation((Decision(("fired",), rules),)) for rules in (("ITS-3",), ("ITS-4",)))
    a, b = (signature(req, late, flink, ["ITS-EQ"], explanation=e) for e in (one, other))
    assert a.key == b.key and a.where == "output.fired lacks a {key, timestamp}", a
    assert a.explains == ("ITS-3",) and b.explains == ("ITS-4",)
    unlocated = signature(req, late, None, ["WM-3", "WM-EQ"]), signature(req, late, None, ["WM-4", "WM-EQ"])
    assert unlocated[0].key != unlocated[1].key  # without Flink's answer, the rules broken tell causes apart


@pytest.mark.parametrize(("where", "made_of"), [
    ("output.emitted[] lacks a {status} and a {watermark}",
     ("output.emitted[] lacks a {status}", "output.emitted[] lacks a {watermark}")),
    ("output.fired[] has an extra {key, timestamp} and a {watermark}",
     ("output.fired[] has an extra {key, timestamp}", "output.fired[] has an extra {watermark}")),
    ("output.emitted[] has a {watermark} where Flink has a {status}", ()),
    ("output.emitted[] has an extra {status}", ()),
    ("output.task_heap", ()),
    ("error: InvalidConfiguration IllegalArgumentException", ()),
])
def test_a_composite_departure_is_made_of_single_ones(where: str, made_of: tuple[str, ...]) -> None:
    assert parts(where) == made_of


def test_a_composite_of_known_causes_is_counted_under_each_and_opens_none() -> None:
    def found(where: str, cases: int, flink: str) -> Counterexample:
        return Counterexample(area="watermark.valve", flink=flink, rule="SWV-5", rule_text="", request={},
                              expected=None, actual={}, difference="", replay="", cases=cases,
                              cause=("differs", f"output.emitted[] {where}", ()), releases=(flink,))
    status, watermark = found("lacks a {status}", 10, "2.3"), found("lacks a {watermark}", 5, "2.3")
    both = found("lacks a {status} and a {watermark}", 2, "1.19")
    kept = dissolve([status, watermark, both])
    assert [(c.cause[1], c.cases, c.releases) for c in kept] == [
        ("output.emitted[] lacks a {status}", 12, ("2.3", "1.19")),
        ("output.emitted[] lacks a {watermark}", 7, ("2.3", "1.19"))]
    assert dissolve([status, both]) == [status, both]  # a part not seen on its own: the composite is a cause


def test_the_console_prints_a_composite_of_known_causes_as_counted_under_each() -> None:
    """Seen at a later release than its parts, a composite is a line naming them, not a new divergence."""
    def found(where: str, flink: str) -> Counterexample:
        return Counterexample(area="watermark.valve", flink=flink, rule="SWV-5", rule_text="",
                              request={"input": {"channels": 1}}, expected=None, actual={}, difference="",
                              replay="flinkspec replay ...", cases=3,
                              cause=("differs", f"output.emitted[] {where}", ()))
    out = io.StringIO()
    printer = Printer(out)
    printer.run(AreaRun("watermark.valve", "2.2", counterexamples=[found("lacks a {status}", "2.2"),
                                                                    found("lacks a {watermark}", "2.2")]))
    printer.run(AreaRun("watermark.valve", "2.3", counterexamples=[found("lacks a {status} and a {watermark}", "2.3")]))
    text = out.getvalue()
    assert "  [1] and [2] together at Flink 2.3: 3 failing cases, counted under each" in text, text
    assert "[3]" not in text, text


@pytest.mark.flink
def test_a_strict_version_1_implementation_with_real_flink_behind_passes_every_area(tmp_path: Path) -> None:
    """tests/v1_impl.py speaks exactly docs/protocol/v1.md version 1 (no capabilities answer, a BadRequest
    for anything else) with real Flink 2.3 behind it: `check` sends it nothing it cannot know, so it is
    valid; the areas added since are "not checked (needs protocol 2 ...)" (or 4), never failures."""
    strict = f"cmd:{sys.executable} {ROOT / 'tests' / 'v1_impl.py'} --behind flink:2.3"
    done = flinkspec("check", "--impl", strict, "--flink", "2.3", "--examples", "200", "--report", str(tmp_path / "r"),
                     cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    assert report["verdict"] == "valid" and report["cases"] >= 7 * 200 - report["not_checked_cases"]
    assert {r["area"] for r in report["runs"]} >= {name for name, area in REGISTRY.items() if area.protocol == 1}
    assert report["speaks"]["protocol"] == 1
    not_checked = {u["area"]: u["why"] for u in report["unsupported"]}
    # every area added since protocol 1 (the registry's declarations), and no other
    assert set(not_checked) == {name for name, area in REGISTRY.items() if area.protocol > 1}
    assert all(why.startswith(("needs protocol 2", "needs protocol 4")) for why in not_checked.values())
