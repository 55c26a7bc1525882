"""A broken implementation (crash, hang, garbage) is reported clearly, with exit 2, and whatever
was found before it broke is kept in the report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

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
                    "--examples", "50", "--timeout", "10", "--report", str(tmp_path))
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
                    "--examples", "50", "--timeout", "10", "--report", str(tmp_path))
    assert res.returncode == 2, res.stdout + res.stderr
    replay = json.loads((tmp_path / "report.json").read_text())["runs"][0]["infra_replay"]
    assert replay.startswith("flinkspec replay --impl ") and '"area": "memory.jobmanager"' in replay
    assert f"replay the request it broke on: {replay}" in res.stderr


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("closeout", "closed its standard output before answering request 5 and kept running"),
        ("badutf8", "answered request 5 with a line that is not UTF-8 (byte 0xff at offset 24)"),
        ("nan", "answered request 5 with a line that is not JSON (NaN is not a JSON value)"),
        ("hugeint", "answered request 5 with a line that is not JSON (an integer of 5,000 digits"),
        ("deep", "answered request 5 with a line nested deeper than 64 levels"),
        ("deep900", "answered request 5 with a line nested deeper than 64 levels"),
        ("partial-eof", "exited with code 0 before answering request 5; it wrote 15 byte(s) of an unfinished line"),
        ("partial-hang", "gave no answer to request 5 within 10 s (hung?); it wrote 15 byte(s) of an unfinished line"),
        ("notobject", "answered request 5 with a list, not an object"),
    ],
)
def test_an_answer_that_does_not_arrive_or_decode_is_an_error_not_a_verdict(tmp_path: Path, mode: str,
                                                                           says: str) -> None:
    """Every way an answer can fail to arrive or to decode ends the check at once with exit 2 and one
    message naming it (never a traceback, never judged as divergences), the cases before it kept."""
    res = flinkspec("check", "--impl", faulty(mode, 5), "--area", "memory.jobmanager", "--flink", "2.3",
                    "--examples", "50", "--timeout", "10", "--report", str(tmp_path), timeout=120)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "Traceback" not in res.stderr and res.stderr.count(says) == 1, res.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["verdict"] == "unknown" and not report["counterexamples"]
    # the cases answered before request 5 are judged and kept (a case may also have sent a twin request)
    assert says in report["runs"][0]["infra_error"] and 1 <= report["runs"][0]["checked"] <= 4


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(alphabet="ab[]{}\\\""),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text("[]{}k", max_size=2), inner,
                                                                                 max_size=3), max_leaves=30)


@given(JSON, st.integers(1, 8))
def test_the_quick_depth_check_never_lets_a_deep_answer_through(value: object, limit: int) -> None:
    """The bracket count that spares most answers the walk never says "not deeper" of one that is
    (brackets inside strings only make it walk)."""
    from flinkspec.impls import _deeper, _maybe_deeper

    if _deeper(value, limit):
        assert _maybe_deeper(json.dumps(value).encode(), limit)


def test_a_break_ends_the_whole_check_with_one_message(tmp_path: Path) -> None:
    """Over several areas and versions, the first break ends the check: one message, the runs after it
    counted as not checked, instead of a restart and the same error for every (area, version)."""
    res = flinkspec("check", "--impl", faulty("crash", 5), "--area", "memory.jobmanager,watermark.valve",
                    "--flink", "2.2,2.3", "--examples", "50", "--report", str(tmp_path), timeout=120)
    assert res.returncode == 2, res.stdout + res.stderr
    assert res.stderr.count("exited with code 3") == 1, res.stderr
    assert "stopped there: 3 more (area, version) run(s) not checked" in res.stderr
    assert len(json.loads((tmp_path / "report.json").read_text())["runs"]) == 1


def test_the_answers_of_a_batch_before_the_break_are_judged(tmp_path: Path) -> None:
    """An implementation that exits in the middle of a pipelined batch: the answers it gave before
    are judged and counted, not dropped with the batch."""
    res = flinkspec("check", "--impl", faulty("crash", 50), "--area", "memory.jobmanager", "--flink", "2.3",
                    "--examples", "1100", "--timeout", "10", "--report", str(tmp_path), timeout=120)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "exited with code 3 before answering request 50" in res.stderr and "Traceback" not in res.stderr
    run = json.loads((tmp_path / "report.json").read_text())["runs"][0]
    assert run["checked"] == 49, run


@pytest.mark.parametrize(("mode", "says"), [("closeout", "closed its standard output"),
                                            ("deep", "nested deeper than 64 levels"),
                                            ("crash", "exited with code 3")])
def test_replay_and_serve_name_a_broken_implementation(mode: str, says: str) -> None:
    """`flinkspec replay` and `flinkspec serve` in front of a broken implementation: exit 2 and one
    line saying so, no traceback."""
    request = {"area": "memory.jobmanager", "flink": "2.3", "input": {"config": {"jobmanager.memory.heap.size": "1g"}}}
    res = flinkspec("replay", "--impl", faulty(mode, 1), "--request", json.dumps(request), timeout=120)
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert res.stderr.startswith("flinkspec replay: the implementation is broken: ") and says in res.stderr
    served = subprocess.run([sys.executable, "-m", "flinkspec.cli", "serve", "--impl", faulty(mode, 0)],
                            input=json.dumps({"id": 1, **request}) + "\n", capture_output=True, text=True,
                            timeout=120, cwd=ROOT)
    assert served.returncode == 2 and "Traceback" not in served.stderr, served.stderr
    assert served.stderr.startswith("flinkspec serve: the implementation is broken: ") and says in served.stderr


def test_the_pytest_route_fails_the_test_with_the_cause(tmp_path: Path) -> None:
    """Under `pytest --pyargs properties`, a broken implementation fails the test that met it with the
    cause and the replay line only: not a Hypothesis example shrunk for minutes, not a traceback."""
    env = {**os.environ, "HYPOTHESIS_PROFILE": "dev"}
    res = subprocess.run([sys.executable, "-m", "pytest", "--pyargs", "properties.test_conformance",
                          "-p", "flinkspec.plugin", "-p", "no:cacheprovider", "--impl", faulty("closeout", 3),
                          "--area", "memory.jobmanager", "--flink", "2.3"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    out = res.stdout + res.stderr
    assert res.returncode == 1, out
    assert "the implementation is broken (not a verdict): " in out and "closed its standard output" in out, out
    assert "replay the request it broke on: flinkspec replay --impl " in out
    assert "INTERNALERROR" not in out and "Failing test case" not in out and "impls/__init__.py" not in out, out


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
