"""``flinkspec diff-versions``: known changes are found with minimal witnesses, and they are Flink's."""

from __future__ import annotations

import json

import pytest

from flinkspec.cli.main import main
from flinkspec.engine import diff_versions as dv
from oracle.versions import parse_version
from properties.area import AnswerShape

V = parse_version


def _diff(a: str, b: str, areas: list[str], examples: int = 40) -> dv.DiffResult:
    return dv.diff(V(a), V(b), areas, examples=examples, seed=0)


def test_network_max_default_between_1_16_and_1_17() -> None:
    result = _diff("1.16", "1.17", ["memory.taskmanager"])
    network = [c for c in result.changes if any("network.max" in k for k in c.known)]
    assert network and all(c.step == "1.17.0" and c.before == "1.16" for c in network)
    smallest = min(network, key=lambda c: c.size)
    assert smallest.witness.input == {"config": {"taskmanager.memory.flink.size": "16g"}}
    assert smallest.witness.answer_a["output"]["network"] == 2**30  # capped at the old 1g default
    assert smallest.witness.answer_b["output"]["network"] > 2**30
    [default] = result.defaults
    assert default.option == "taskmanager.memory.network.max" and default.witness is not None
    assert default.value_a.startswith("1024.000mb") and default.value_b == "Long.MAX_VALUE bytes"


def test_parent_first_splitting_between_1_14_and_1_15() -> None:
    result = _diff("1.14", "1.15", ["classloading.resolve"])
    assert result.changes and {c.step for c in result.changes} == {"1.15.0"}
    assert all(any("Guava split" in k for k in c.known) for c in result.changes)
    trimmed = [c for c in result.changes if c.witness.input == {
        "config": {"classloader.parent-first-patterns.additional": "a.; b."}}]  # a directed input (SEEDS)
    assert trimmed and " b." in trimmed[0].witness.answer_a["output"]["patterns"]
    assert " b." not in trimmed[0].witness.answer_b["output"]["patterns"]
    for c in result.changes:
        assert c.witness.answer_a != c.witness.answer_b
        assert c.size <= 2  # config keys: minimal
        assert c.witness.steps == ("1.15.0",)


@pytest.mark.parametrize("known", dv.KNOWN, ids=lambda k: f"{k.area}@{k.since}")
def test_every_known_change_has_a_directed_witness(known: dv.Known) -> None:
    """The directed inputs alone show each known change at its version, so no report misses one for want of a draw."""
    before = V(dv._previous(str(known.step)))
    found = dv.area_changes(known.area, before, known.step, dv.SEEDS.get(known.area, ()), [0], shrink_calls=0)
    assert any(known.text in c.known for c in found), [(c.step, c.what) for c in found]


def test_a_change_that_the_ends_agree_on_is_reported_apart() -> None:
    """1.16 and 1.18 answer FLINK-31628's witness alike: the table of changes cannot show it, the undone
    changes do, with the one release (1.17.0) that answers otherwise."""
    result = dv.diff(parse_version("1.16"), parse_version("1.18"), ["watermark.valve"], examples=50)
    assert not result.changes
    [(change, odd)] = result.undone
    assert (change.before, change.step, odd) == ("1.17.0", "1.17.1", "1.17.0")
    assert "FLINK-31628" in change.known[0]
    assert "Changes inside this range that Flink 1.16 and 1.18 agree on" in dv.render_markdown(result)


def test_a_version_against_itself_has_no_changes() -> None:
    result = _diff("1.17", "1.17", list(dv.AREAS))
    assert result.changes == () and result.defaults == () and result.cases == 0


def test_steps_between_distant_versions_are_named() -> None:
    result = _diff("1.13", "2.3", ["watermark.combined", "memory.jobmanager"])
    steps = {(c.area, c.step) for c in result.changes}
    assert {("watermark.combined", "1.14.0"), ("watermark.combined", "2.2.0"), ("memory.jobmanager", "2.0.0")} <= steps
    dropped = "message prefix 'JobManager memory configuration failed: ' dropped"
    prefix = [c for c in result.changes if c.what == dropped]
    assert prefix and prefix[0].known


def test_describe_reports_the_first_difference() -> None:
    assert dv.describe({"output": {"a": [1, 2]}}, {"output": {"a": [1, 3]}}, "1.13", "1.14", AnswerShape()) == (
        "output", "output.a[]", "output.a[1]: 2 at 1.13, 3 at 1.14")
    bad = {"error": {"type": "BadRequest", "message": "x"}}
    assert dv.describe(bad, {"error": {"type": "BadRequest", "message": "y"}}, "1.13", "1.14", AnswerShape()) is None
    kind, what, _ = dv.describe(bad, {"output": {}}, "1.18", "1.19", AnswerShape())
    assert kind == "rejected-before" and what.startswith("1.18 rejects")


def test_cli_json_and_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff-versions", "1.16", "1.17", "--area", "memory.taskmanager", "--examples", "20",
                 "--no-confirm", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["a"] == "1.16" and out["changes"] and out["unconfirmed"] == 0
    assert main(["diff-versions", "1.12", "2.3", "--no-confirm"]) == 2
    assert "unknown Flink version '1.12'" in capsys.readouterr().err
    assert main(["diff-versions", "1.16", "1.17", "--area", "memory.nope", "--no-confirm"]) == 2
    assert "unknown area(s) memory.nope" in capsys.readouterr().err


@pytest.mark.flink
def test_witnesses_reproduce_on_the_real_jars() -> None:
    result = _diff("1.16", "1.17", ["memory.taskmanager", "checkpoint.coordinator"], examples=30)
    assert {c.area for c in result.changes} == {"memory.taskmanager", "checkpoint.coordinator"}
    confirmed = dv.confirm(result, timeout=120.0)
    assert confirmed.unconfirmed == ()
    assert all(c.confirmation is not None and c.confirmation.ok for c in confirmed.changes)
    # and a witness doctored to claim another answer is reported, never hidden
    first = confirmed.changes[0]
    fake = dv.attrs.evolve(first.witness, answer_b=first.witness.answer_a)
    doctored = dv.attrs.evolve(result, changes=(dv.attrs.evolve(first, witness=fake, confirmation=None),))
    [judged] = dv.confirm(doctored, timeout=120.0).changes
    assert judged.confirmation is not None and not judged.confirmation.confirmed
    assert "Flink 1.17" in judged.confirmation.detail
