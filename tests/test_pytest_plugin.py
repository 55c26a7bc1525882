"""The pytest route (``pytest --pyargs properties --impl ...``, flinkspec/plugin) as a third
party runs it: in a subprocess, from a directory outside this repository, so that neither this
repository's pyproject.toml (its markers) nor its conftest.py is in play.

A failure must show the request as JSON with its values, the divergence and a replay command;
``--area`` selects areas and names the known ones when wrong; an implementation's capabilities
answer turns the areas it does not implement into skips with the why.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from properties.areas import AREAS

HERE = Path(__file__).resolve().parent
ONE_AREA = HERE / "one_area_impl.py"
SEEDS = range(5)  # the valve mutant is caught by most Hypothesis seeds within the dev profile's 40 examples


def run_pytest(cwd: Path, *args: str, module: str = "properties.test_conformance") -> subprocess.CompletedProcess[str]:
    """``pytest --pyargs MODULE ARGS`` in ``cwd`` with the quick Hypothesis profile."""
    # CI=true as on a CI runner, where Hypothesis derandomizes by default: the seeds given must still count
    env = {**os.environ, "HYPOTHESIS_PROFILE": "dev", "CI": "true"}
    cmd = [sys.executable, "-m", "pytest", "--pyargs", module, "-p", "flinkspec.plugin",
           "-p", "no:cacheprovider", "-ra", *args]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def output(proc: subprocess.CompletedProcess[str]) -> str:
    return proc.stdout + proc.stderr


def line_after(text: str, heading: str) -> str:
    """The line after the failure message's ``heading`` line, without pytest's ``E`` prefix."""
    lines = [ln.removeprefix("E").strip() for ln in text.splitlines()]
    return lines[lines.index(heading) + 1]


VALVE = ("--impl", "mutant:valve-reemit-on-active", "--area", "watermark.valve", "--flink", "2.3")


@pytest.fixture(scope="module")
def valve_failure(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, subprocess.CompletedProcess[str]]:
    """The first of a few fixed Hypothesis seeds whose run finds the valve mutant, and that run."""
    cwd = tmp_path_factory.mktemp("valve")
    for seed in SEEDS:
        proc = run_pytest(cwd, *VALVE, f"--hypothesis-seed={seed}")
        if proc.returncode != 0:
            return seed, proc
    pytest.fail(f"no seed of {list(SEEDS)} found the valve mutant:\n{output(proc)}")


def test_a_failure_shows_the_request_the_divergence_and_the_replay(
        valve_failure: tuple[int, subprocess.CompletedProcess[str]]) -> None:
    _, proc = valve_failure
    text = output(proc)
    assert proc.returncode == 1, text
    request = json.loads(line_after(text, "request:"))
    assert request["area"] == "watermark.valve" and request["flink"] == "2.3", request
    assert request["input"]["events"], request
    assert "watermark.valve at Flink 2.3: differs in output.emitted" in text
    assert "; breaks WM-" in text  # Signature.text(): what differs, then every rule broken
    assert json.loads(line_after(text, "Flink answers:"))["output"]
    assert json.loads(line_after(text, "the implementation answers:"))["output"]
    replay = line_after(text, "replay:")
    assert replay.startswith("flinkspec replay --impl mutant:valve-reemit-on-active --request "), replay
    assert json.loads(shlex.split(replay)[-1]) == request
    assert 'Draw 1 (request): {"area": "watermark.valve", "flink": "2.3"' in text
    assert "str(version)" not in text and "Unknown pytest.mark" not in text


def test_the_replay_command_of_a_failure_reproduces_it(
        valve_failure: tuple[int, subprocess.CompletedProcess[str]]) -> None:
    argv = shlex.split(line_after(output(valve_failure[1]), "replay:"))
    flinkspec = Path(sys.executable).parent / "flinkspec"
    replayed = subprocess.run([str(flinkspec), *argv[1:]], capture_output=True, text=True, timeout=300)
    assert replayed.returncode == 1, replayed.stdout + replayed.stderr


def test_rules_declared_unsupported_are_not_held_against_the_implementation(
        tmp_path: Path, valve_failure: tuple[int, subprocess.CompletedProcess[str]]) -> None:
    """The seed that found the mutant finds nothing once the rules it breaks are declared unsupported."""
    caps = tmp_path / "caps.json"
    caps.write_text(json.dumps({"unsupported": [{"area": "watermark.valve", "rule": ["WM-2", "WM-6"],
                                                 "why": "we re-emit on activation"}]}))
    proc = run_pytest(tmp_path, *VALVE, "--capabilities", str(caps), f"--hypothesis-seed={valve_failure[0]}")
    assert proc.returncode == 0, output(proc)


def test_the_oracle_passes_one_area_and_the_others_are_deselected(tmp_path: Path) -> None:
    proc = run_pytest(tmp_path, "--impl", "oracle", "--area", "memory.jobmanager", "--flink", "2.3")
    assert proc.returncode == 0, output(proc)
    assert f"1 passed, {len(AREAS) - 1} deselected" in proc.stdout


def test_an_implementation_of_one_area_passes_and_the_others_are_skipped_with_the_why(tmp_path: Path) -> None:
    impl = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(ONE_AREA))} memory.jobmanager"
    proc = run_pytest(tmp_path, "--impl", impl, "--flink", "2.3")
    text = output(proc)
    assert proc.returncode == 0, text
    assert f"1 passed, {len(AREAS) - 1} skipped" in proc.stdout
    for area in AREAS:
        if area != "memory.jobmanager":
            assert (f"{area} at Flink 2.3: not supported by the implementation "
                    "(this engine implements memory.jobmanager only)") in text, area


def test_an_area_declared_unsupported_in_a_file_is_skipped(tmp_path: Path) -> None:
    caps = tmp_path / "caps.json"
    caps.write_text(json.dumps({"unsupported": [{"area": "watermark.valve", "why": "no valve yet"}]}))
    proc = run_pytest(tmp_path, "--impl", "mutant:valve-reemit-on-active", "--area", "watermark.valve",
                      "--flink", "2.3", "--capabilities", str(caps))
    assert proc.returncode == 0, output(proc)
    assert "watermark.valve at Flink 2.3: not supported by the implementation (no valve yet)" in proc.stdout


def test_requests_the_implementation_cannot_be_sent_are_counted_not_failed(tmp_path: Path) -> None:
    caps = tmp_path / "caps.json"
    caps.write_text(json.dumps({"unmodelled_keys": ["jobmanager.memory.process.size"]}))
    proc = run_pytest(tmp_path, "--impl", "oracle", "--area", "memory.jobmanager", "--flink", "2.3",
                      "--capabilities", str(caps), "--hypothesis-seed=0")
    assert proc.returncode == 0, output(proc)
    assert ("memory.jobmanager at Flink 2.3: " in proc.stdout
            and "generated request(s) not sent (needs config key jobmanager.memory.process.size)" in proc.stdout)


@pytest.mark.parametrize(("option", "says"), [
    (("--area", "nope"), "--area: unknown area(s) nope; known: " + ", ".join(AREAS)),
    (("--area", ","), "--area names no area; known: "),
    (("--capabilities", "/nonexistent/caps.json"), "--capabilities /nonexistent/caps.json: cannot read it"),
])
def test_a_bad_option_is_a_usage_error_naming_what_is_accepted(tmp_path: Path, option: tuple[str, str],
                                                               says: str) -> None:
    proc = run_pytest(tmp_path, *option)
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR, output(proc)
    assert says in proc.stderr


def test_the_markers_of_the_package_are_registered_by_the_plugin(tmp_path: Path) -> None:
    """The markers the package's tests use (``flinkspec_self``, properties/classloading/test_bad_input.py)
    are known without this repository's pyproject."""
    proc = run_pytest(tmp_path, "--collect-only", "-q", "-W", "error::pytest.PytestUnknownMarkWarning",
                      module="properties.classloading.test_bad_input")
    assert proc.returncode == 0, output(proc)
    assert "Unknown pytest.mark" not in output(proc)
