"""A broken implementation (crash, hang, garbage) is reported clearly, with exit 2, and whatever
was found before it broke is kept in the report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

FAULTY = Path(__file__).with_name("faulty_impl.py")
ROOT = Path(__file__).resolve().parents[1]


def flinkspec(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "flinkspec.cli", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def faulty(mode: str, after: int, mutant: str | None = None) -> str:
    return f"cmd:{sys.executable} {FAULTY} {mode} {after}" + (f" {mutant}" if mutant else "")


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("crash", "exited with code 3"),
        ("hang", "gave no answer to request"),
        ("garbage", "not JSON"),
        ("wrongid", "with id -5"),
        ("bridgeerror", "BridgeError"),
    ],
)
def test_broken_implementation_exits_2_and_names_the_cause(tmp_path: Path, mode: str, says: str) -> None:
    """Each kind of breakage ends the check with exit 2 and an error naming what happened."""
    res = flinkspec("check", "--impl", faulty(mode, 5), "--area", "memory.jobmanager", "--flink", "2.3",
                    "--examples", "50", "--timeout", "2", "--report", str(tmp_path))
    assert res.returncode == 2, res.stdout + res.stderr
    assert says in res.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["verdict"] == "unknown"
    assert says in report["runs"][0]["infra_error"]


@pytest.mark.parametrize("mode", ["bridgeerror", "garbage", "crash"])
def test_the_request_an_implementation_broke_on_is_kept_with_a_replay_line(tmp_path: Path, mode: str) -> None:
    """The request the implementation broke on (an unknown error, garbage, or exiting on it) is kept:
    report.json's run has its replay line, the console prints it, and replaying it breaks the same way."""
    res = flinkspec("check", "--impl", faulty(mode, 5), "--area", "memory.jobmanager", "--flink", "2.3",
                    "--examples", "50", "--timeout", "2", "--report", str(tmp_path))
    assert res.returncode == 2, res.stdout + res.stderr
    replay = json.loads((tmp_path / "report.json").read_text())["runs"][0]["infra_replay"]
    assert replay.startswith("flinkspec replay --impl ") and '"area": "memory.jobmanager"' in replay
    assert f"replay the request it broke on: {replay}" in res.stderr


def test_counterexamples_found_before_a_crash_are_kept(tmp_path: Path) -> None:
    """A mutant that crashes after a while still leaves its counterexample in the report."""
    impl = faulty("crash-after-bugs", 3, "jm-xmx-total-flink")
    res = flinkspec("check", "--impl", impl, "--area", "memory.jobmanager", "--flink", "2.3", "--examples", "300",
                    "--report", str(tmp_path))
    assert res.returncode == 2, res.stdout + res.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["counterexamples"], "the counterexample found before the crash was lost"
    assert "exited with code 3" in report["runs"][0]["infra_error"]


def test_unknown_impl_area_and_version_are_usage_errors() -> None:
    """Bad options name what was wrong and exit 2, never a traceback."""
    for args, says in [
        (("--impl", "nope"), "names no implementation"),
        (("--impl", "oracle", "--area", "memory.nope"), "unknown area"),
        (("--impl", "oracle", "--flink", "1.9"), "unknown Flink version"),
        (("--impl", "mutant:nope"), "unknown mutant"),
        (("--impl", "python:nomodule:fn"), "cannot load"),
    ]:
        res = flinkspec("check", *args, "--examples", "5")
        assert res.returncode == 2, (args, res.stderr)
        assert says in res.stderr and "Traceback" not in res.stderr


def test_serve_answers_malformed_lines_with_bad_request() -> None:
    """`flinkspec serve` turns a malformed line into a BadRequest answer and keeps serving."""
    lines = "not json\n[1]\n" + json.dumps({"id": 3, "area": "memory.nope", "input": {}}) + "\n"
    res = subprocess.run([sys.executable, "-m", "flinkspec.cli", "serve", "--impl", "oracle"], input=lines,
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    answers = [json.loads(line) for line in res.stdout.splitlines()]
    assert [a["error"]["type"] for a in answers] == ["BadRequest"] * 3
    assert answers[2]["id"] == 3 and "unknown area" in answers[2]["error"]["message"]
