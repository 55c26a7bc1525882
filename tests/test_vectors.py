"""Conformance test vectors (docs/vectors.md): exported, versioned, verified, run by the Java and
JavaScript runners, and their power against the mutants measured."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import oracle
from flinkspec.cli.main import main
from flinkspec.engine.diff_versions import KNOWN
from flinkspec.impls import features as feat
from flinkspec.impls.capabilities import NONE
from flinkspec.mutants import MUTANTS
from flinkspec.tools import vectors as vec
from flinkspec.tools import vectors_power as vp
from oracle.versions import SUPPORTED, parse_version

ROOT = Path(__file__).resolve().parent.parent
SMALL_AREAS = ["watermark.valve", "watermark.timers", "memory.jobmanager"]
SMALL_FLINK = ["1.20", "2.0", "2.3"]  # memory.jobmanager's known change is at 2.0
SERVE = [str(Path(sys.executable).parent / "flinkspec"), "serve", "--impl"]
MUTANT = "valve-no-flush"


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("vectors") / "bundle"
    vec.export(out, SMALL_AREAS, [parse_version(v) for v in SMALL_FLINK], random_n=10)
    return out


@pytest.fixture(scope="module")
def installed() -> dict[tuple[str, str], list[dict[str, Any]]]:
    return vec.load(vec.BUNDLE)


def _vectors(bundle: dict[tuple[str, str], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [v for vs in bundle.values() for v in vs]


def _oracle(v: dict[str, Any]) -> dict[str, Any]:
    resp = oracle.answer({"id": 0, **v["request"]})
    return {k: resp[k] for k in ("output", "error") if k in resp}


# ---- export -------------------------------------------------------------------------------------


def test_every_exported_answer_is_the_oracles_byte_for_byte(small: Path) -> None:
    vectors = _vectors(vec.load(small))
    assert len(vectors) > 100
    wrong = [v["id"] for v in vectors if _oracle(v) != v["answer"]]
    assert not wrong, wrong[:5]


def test_every_mutant_of_the_exported_areas_fails_a_vector_at_each_release_from_its_fix_on(small: Path) -> None:
    bundle = vec.load(small)
    for name, m in MUTANTS.items():
        if m.area not in SMALL_AREAS:
            continue
        for release in SMALL_FLINK:
            mine = bundle.get((m.area, release), [])
            chosen = [v for v in mine if any(w.get("mutant") == name for w in v["why"])]
            killing = [v["id"] for v in chosen
                       if vec.disagreement(m.area, v["answer"], vec.mutant_answer(name, v["request"]))]
            assert killing == [v["id"] for v in chosen], f"{name}: a vector chosen for it does not catch it"
            if m.first_fixed() is None or m.first_fixed() <= parse_version(release):
                assert killing, f"{name} at {release}: no vector catches it"


def test_known_changes_have_a_vector_on_both_sides(small: Path) -> None:
    bundle = vec.load(small)
    for known in KNOWN:
        before = str(max(v for v in SUPPORTED if v < parse_version(known.since)))
        if known.area not in SMALL_AREAS or not {before, known.since} <= set(SMALL_FLINK):
            continue
        sides = {}
        for release in (before, known.since):
            [v] = [v for v in bundle[(known.area, release)]
                   if any(w["kind"] == "change" and w["change"] == known.text for w in v["why"])]
            sides[release] = v
        assert sides[before]["request"]["input"] == sides[known.since]["request"]["input"]
        assert sides[before]["answer"] != sides[known.since]["answer"], known.text


def test_the_export_is_deterministic(tmp_path: Path) -> None:
    args = (["watermark.timers", "memory.jobmanager"], [parse_version("2.0"), parse_version("1.20")])
    vec.export(tmp_path / "a", *args, random_n=5)
    vec.export(tmp_path / "b", *args, random_n=5)
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert len(files) == 5  # manifest + 2 areas x 2 releases
    for f in files:
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f


def test_export_refuses_a_directory_that_is_not_a_bundle(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    assert main(["vectors", "export", "--out", str(tmp_path), "--area", "memory.jobmanager", "--flink", "2.3"]) == 2
    assert (tmp_path / "notes.txt").read_text() == "mine"


# ---- manifest -----------------------------------------------------------------------------------


def test_the_manifest_is_versioned_and_counts_every_file(small: Path) -> None:
    man = vec.read_manifest(small)
    assert man["format"] == vec.FORMAT and man["protocol"] == feat.CURRENT and man["suite"] == vec.suite_version()
    bundle = vec.load(small)
    assert man["vectors"] == sum(len(vs) for vs in bundle.values())
    for (area, release), vs in bundle.items():
        entry = man["areas"][area][release]
        assert entry["vectors"] == len(vs) and entry["protocol_1"] == sum(v["protocol"] == 1 for v in vs)
    assert vec.verify(small) == []


def test_verify_detects_a_tampered_missing_or_unlisted_file(small: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(small, copy)
    assert main(["vectors", "verify", str(copy)]) == 0
    target = copy / "watermark.valve" / "2.3.jsonl.gz"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 1
    target.write_bytes(bytes(data))
    (copy / "memory.jobmanager" / "2.0.jsonl.gz").unlink()
    (copy / "watermark.timers" / "9.9.jsonl.gz").write_bytes(b"")
    problems = vec.verify(copy)
    assert len(problems) == 3, problems
    assert any(p.startswith("watermark.valve/2.3.jsonl.gz: sha256") for p in problems)
    assert any(p == "memory.jobmanager/2.0.jsonl.gz: missing" for p in problems)
    assert any(p.startswith("watermark.timers/9.9.jsonl.gz: not in") for p in problems)
    assert main(["vectors", "verify", str(copy)]) == 1


# ---- the installed bundle -----------------------------------------------------------------------


def test_the_installed_bundle_is_intact_and_where_path_says(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vectors", "path"]) == 0
    assert Path(capsys.readouterr().out.strip()) == vec.BUNDLE
    assert vec.verify(vec.BUNDLE) == []
    assert vec.bundle_size(vec.BUNDLE) < 5 * 2**20


def test_every_installed_vector_gets_the_oracles_answer(installed: dict[tuple[str, str], list[dict[str, Any]]]) -> None:
    wrong = [v["id"] for v in _vectors(installed) if vec.disagreement(v["request"]["area"], v["answer"], _oracle(v))]
    assert not wrong, wrong[:5]


def test_protocol_marks_are_what_a_version_1_implementation_takes(
        installed: dict[tuple[str, str], list[dict[str, Any]]]) -> None:
    """A vector marked protocol 1 is sent to a version-1 implementation unchanged and its answer is
    held as it is; every other vector would be changed or not sent (Capabilities.fit)."""
    for v in _vectors(installed):
        sent, _ = NONE.fit(v["request"])
        held, _ = NONE.fit_answer(v["request"], v["answer"])
        plain = sent == v["request"] and held == v["answer"]
        assert (v["protocol"] == 1) == plain, v["id"]
        assert (v["protocol"] == 1) == (v["features"] == []), v["id"]


def test_the_power_evidence_and_the_doc_are_current(installed: dict[tuple[str, str], list[dict[str, Any]]]) -> None:
    ev = json.loads((ROOT / "docs/evidence/vectors-power.json").read_text())
    powers = vp.measure(installed, early=True)
    assert {p.name: (p.killed, p.killed_by_random) for p in powers} == {
        m["mutant"]: (m["killed"], m["killed_by_random_tier"]) for m in ev["mutants"]}
    assert ev["bundle"]["vectors"] == vec.read_manifest(vec.BUNDLE)["vectors"]
    section = vp.markdown(ev, vec.read_manifest(vec.BUNDLE))
    assert section in (ROOT / "docs/vectors.md").read_text()


@pytest.mark.flink
def test_a_sample_replays_on_the_real_jar(installed: dict[tuple[str, str], list[dict[str, Any]]]) -> None:
    """20 vectors per area at 2.3 (seeded): real Flink 2.3 gives each its answer, messages included."""
    from flinkspec.impls import open_impl

    rng = random.Random(0)
    sample = [v for (area, release), vs in sorted(installed.items()) if release == "2.3"
              for v in rng.sample(vs, min(20, len(vs)))]
    impl = open_impl("flink:2.3")
    try:
        answers = impl.answer_many([{"id": i, **v["request"]} for i, v in enumerate(sample)])
    finally:
        impl.close()
    for v, resp in zip(sample, answers, strict=True):
        jar = {k: resp[k] for k in ("output", "error") if k in resp}
        assert not vec.disagreement(v["request"]["area"], v["answer"], jar), v["id"]
        assert jar.get("error") == v["answer"].get("error"), v["id"]


# ---- the runners --------------------------------------------------------------------------------


def reversed_ties(request: dict[str, Any]) -> dict[str, Any]:
    """The oracle, with each list of fired timers reversed within equal timestamps (allowed)."""
    resp = oracle.answer(request)
    out = resp.get("output")
    if request.get("area") != "watermark.timers" or not isinstance(out, dict):
        return resp
    fired = [sorted(reversed(step), key=lambda t: t["timestamp"]) for step in out["fired"]]
    return {**resp, "output": {**out, "fired": fired}}


def reversed_timers(request: dict[str, Any]) -> dict[str, Any]:
    """The oracle, with each list of fired timers reversed (wrong wherever two timestamps differ)."""
    resp = oracle.answer(request)
    out = resp.get("output")
    if request.get("area") != "watermark.timers" or not isinstance(out, dict):
        return resp
    return {**resp, "output": {**out, "fired": [step[::-1] for step in out["fired"]]}}


def _failing(bundle: Path, answer: Any, area: str | None = None) -> set[str]:
    """The ids of the vectors ``answer`` (request -> response) fails, as flinkspec.tools.vectors compares."""
    return {v["id"] for (a, _), vs in vec.load(bundle).items() if area in (None, a) for v in vs
            if vec.disagreement(a, v["answer"], {k: r for k, r in answer({"id": 0, **v["request"]}).items()
                                                  if k != "id"})}


def _run(argv: list[str]) -> tuple[int, set[str], str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # python:tests.test_vectors:... in `flinkspec serve`
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
    lines = done.stdout.splitlines()
    failed = {line.split()[1] for line in lines if line.startswith("FAIL ")}
    return done.returncode, failed, lines[-1] if lines else done.stderr


@pytest.fixture(scope="module")
def java_runner(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    if shutil.which("javac") is None:
        pytest.skip("no javac")
    out = tmp_path_factory.mktemp("java")
    subprocess.run(["javac", "-d", str(out), str(ROOT / "runners/java/VectorsRunner.java")], check=True)
    return ["java", "-cp", str(out), "VectorsRunner"]


@pytest.fixture(scope="module")
def js_runner() -> list[str]:
    if shutil.which("node") is None:
        pytest.skip("no node")
    return ["node", str(ROOT / "runners/js/run.mjs")]


@pytest.mark.parametrize("runner", ["java_runner", "js_runner"])
def test_a_runner_passes_the_oracle_and_fails_a_mutant_where_python_does(
        runner: str, small: Path, request: pytest.FixtureRequest) -> None:
    argv = request.getfixturevalue(runner)
    total = vec.read_manifest(small)["vectors"]
    code, failed, last = _run([*argv, str(small), *SERVE, "oracle"])
    assert (code, failed, last) == (0, set(), f"{total} passed, 0 failed, 0 not checked")
    want = _failing(small, MUTANTS[MUTANT].answer)
    assert want  # the mutant is wrong somewhere in the bundle
    code, failed, last = _run([*argv, str(small), *SERVE, f"mutant:{MUTANT}"])
    assert (code, failed, last) == (1, want, f"{total - len(want)} passed, {len(want)} failed, 0 not checked")


@pytest.mark.parametrize("runner", ["java_runner", "js_runner"])
def test_a_runner_keeps_the_timers_tie_rule(runner: str, small: Path, request: pytest.FixtureRequest) -> None:
    """Equal timestamps in another order pass; distinct timestamps out of order fail, on the same vectors
    as in Python."""
    argv = [*request.getfixturevalue(runner), "--protocol", "2", "--area", "watermark.timers", str(small), *SERVE]
    code, failed, _ = _run([*argv, "python:tests.test_vectors:reversed_ties"])
    assert (code, failed) == (0, set())
    want = _failing(small, reversed_timers, "watermark.timers")
    assert want
    code, failed, _ = _run([*argv, "python:tests.test_vectors:reversed_timers"])
    assert (code, failed) == (1, want)


@pytest.mark.parametrize("runner", ["java_runner", "js_runner"])
def test_a_runner_skips_what_a_protocol_1_implementation_does_not_speak(
        runner: str, small: Path, request: pytest.FixtureRequest) -> None:
    vectors = _vectors(vec.load(small))
    plain = sum(v["protocol"] == 1 for v in vectors)
    code, failed, last = _run([*request.getfixturevalue(runner), "--protocol", "1", str(small), *SERVE, "oracle"])
    assert (code, failed, last) == (0, set(), f"{plain} passed, 0 failed, {len(vectors) - plain} not checked")


V1_IMPL = [sys.executable, str(ROOT / "tests" / "v1_impl.py"), "--behind", "oracle"]


@pytest.mark.parametrize("runner", ["java_runner", "js_runner"])
def test_a_runner_asks_what_the_implementation_speaks_and_passes_a_protocol_1_one(
        runner: str, small: Path, request: pytest.FixtureRequest) -> None:
    """Without --protocol, a runner sends the capabilities request: a strict protocol-1
    implementation (it answers BadRequest) passes every vector it speaks, and the others are
    counted as not checked, with why, never failed."""
    vectors = _vectors(vec.load(small))
    plain = sum(v["protocol"] == 1 for v in vectors)
    assert 0 < plain < len(vectors)
    done = subprocess.run([*request.getfixturevalue(runner), str(small), *V1_IMPL], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    assert lines[0] == ("the implementation speaks protocol 1, extra features: none "
                        "(it answers the capabilities request with an error)")
    assert lines[-1] == f"{plain} passed, 0 failed, {len(vectors) - plain} not checked"
    reasons = [line for line in lines if " not checked: needs protocol 2 feature " in line]
    assert sum(int(line.split()[0]) for line in reasons) == len(vectors) - plain, lines


def declaring(request: dict[str, Any]) -> dict[str, Any]:
    """The oracle, declaring protocol 1 plus timers' namespaces, no JobManagers and no WM-4 at 2.3."""
    if request.get("area") == "capabilities":
        return {"id": request["id"], "output": {"protocol": 1, "features": ["watermark.timers.namespace"],
                                                "unsupported": [{"area": "memory.jobmanager", "why": "no JMs"},
                                                                {"flink": "2.3", "rule": "WM-4"}]}}
    return oracle.answer(request)


@pytest.mark.parametrize("runner", ["java_runner", "js_runner"])
def test_a_runner_honours_declared_features_and_unsupported_parts(
        runner: str, small: Path, request: pytest.FixtureRequest) -> None:
    """What an implementation declares in its capabilities answer decides what it is held to: a
    declared feature is sent, an unsupported area or rule is not checked (docs/protocol/v2.md)."""
    vectors = _vectors(vec.load(small))

    def why_not(v: dict[str, Any]) -> str | None:  # docs/vectors.md's rule, written out for this declaration
        missing = [f for f in v["features"] if f != "watermark.timers.namespace"]
        if v["protocol"] > 1 and missing:
            return "feature"
        if v["request"]["area"] == "memory.jobmanager":
            return "area"
        if v["request"]["flink"] == "2.3" and "WM-4" in v["rules"]:
            return "rule"
        return None

    held = [v for v in vectors if why_not(v) is None]
    assert any(v["features"] == ["watermark.timers.namespace"] for v in held)
    assert {"feature", "area", "rule"} <= {why_not(v) for v in vectors}
    code, failed, last = _run([*request.getfixturevalue(runner), str(small), *SERVE,
                               "python:tests.test_vectors:declaring"])
    assert (code, failed, last) == (0, set(), f"{len(held)} passed, 0 failed, {len(vectors) - len(held)} not checked")


def test_serve_answers_the_capabilities_request_as_the_suite_sees_the_implementation() -> None:
    """A built-in implementation speaks the suite's protocol; a `python:` one answers for itself."""
    ask = json.dumps({"id": 0, "area": "capabilities", "input": {}}) + "\n"
    from flinkspec.impls.features import CURRENT

    for impl, want in [("oracle", {"id": 0, "output": {"protocol": CURRENT}}),
                       ("python:tests.test_vectors:declaring", declaring({"id": 0, "area": "capabilities"}))]:
        done = subprocess.run([*SERVE, impl], input=ask, capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert json.loads(done.stdout) == want, done.stderr


def test_a_runner_refuses_a_tampered_bundle(small: Path, tmp_path: Path, js_runner: list[str]) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(small, copy)
    (copy / "watermark.timers" / "2.3.jsonl.gz").write_bytes(b"\x1f\x8b")
    code, _, _ = _run([*js_runner, str(copy), *SERVE, "oracle"])
    assert code != 0
