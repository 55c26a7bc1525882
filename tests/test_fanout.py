"""`flinkspec fanout` on embedded Spark: it finds what `check` finds, the same seed gives the same
counterexamples whatever the partitioning, declared capabilities are not failures, and no fault
(an implementation that crashes, hangs or answers garbage; a Python worker killed mid-task) loses
a counterexample.

Run as a script (``python tests/test_fanout.py``) this module is a small JSON-lines engine that
declares capabilities (see :func:`partial_engine`).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
FAULTY = ROOT / "tests" / "faulty_impl.py"
MUTANT = "mutant:valve-no-flush"

pytestmark = pytest.mark.spark
if __name__ != "__main__":
    pytest.importorskip("pyspark")  # the suite's `spark` extra


def partial_engine(request: dict[str, Any]) -> dict[str, Any]:
    """An engine that has no timers, knows it does not flush idle valves at 2.3 (SWV-5, WM-EQ), and
    also carries an undeclared memory bug (the JobManager heap is the whole Flink memory)."""
    from flinkspec.mutants import MUTANTS

    if request.get("area") == "capabilities":
        return {"id": request["id"], "output": {"unsupported": [
            {"area": "watermark.timers", "why": "no event-time timers yet"},
            {"area": "watermark.valve", "flink": "2.3", "rule": ["SWV-5", "WM-EQ"], "why": "no all-idle flush"}]}}
    if request.get("area") == "watermark.valve":
        return MUTANTS["valve-no-flush"].answer(request)
    return MUTANTS["jm-xmx-total-flink"].answer(request)


def fanout(capsys: pytest.CaptureFixture[str], report: Path, *args: str) -> tuple[int, str, dict[str, Any]]:
    """`flinkspec fanout` in this process (the Spark gateway JVM is started once per process)."""
    from flinkspec.cli.main import main

    code = main(["fanout", *args, "--report", str(report), "--progress", "1"])
    err = capsys.readouterr().err
    data = json.loads((report / "report.json").read_text()) if (report / "report.json").exists() else {}
    return code, err, data


def essence(report: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return [(c["area"], c["flink"], c["rule"], json.dumps(c["request"], sort_keys=True))
            for c in report["counterexamples"]]


VALVE = ("--area", "watermark.valve", "--flink", "2.3", "--seed", "4")


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A clean run of the mutant: 1,500 valve cases on local[2] (three chunks, three partitions)."""
    out = tmp_path_factory.mktemp("reference")
    res = subprocess.run([sys.executable, "-m", "flinkspec.cli", "fanout", "--impl", MUTANT, *VALVE, "--cases", "1500",
                          "--master", "local[2]", "--report", str(out)], capture_output=True, text=True,
                         timeout=600, cwd=ROOT)
    assert res.returncode == 1, res.stderr
    return json.loads((out / "report.json").read_text())


def test_fanout_finds_the_mutant_and_writes_every_report(reference: dict[str, Any]) -> None:
    """The planted bug is found, shrunk to three events, and reported in JSON (schema 1, fanout
    section), Markdown, HTML and JUnit; the case count is exactly what was asked for."""
    assert reference["schema"] == 1 and reference["verdict"] == "invalid"
    assert reference["fanout"]["checked_cases"] == 1500 and reference["fanout"]["partitions"] == 3
    rules = {c["rule"] for c in reference["counterexamples"]}
    assert rules == {"SWV-5"}, rules  # the oracle's flush rule decided the part the mutant departs from
    smallest = min(len(c["request"]["input"]["events"]) for c in reference["counterexamples"])
    assert smallest <= 3


def test_same_seed_same_cases_whatever_the_master_and_partitioning(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], reference: dict[str, Any]) -> None:
    """One partition on local[1] checks the same cases and finds the same counterexamples as three
    partitions on local[2]; progress goes to stderr while it runs."""
    code, err, report = fanout(capsys, tmp_path, "--impl", MUTANT, *VALVE, "--cases", "1500", "--master", "local[1]",
                               "--partitions", "1")
    assert code == 1, err
    assert essence(report) == essence(reference)
    assert report["fanout"]["checked_cases"] == reference["fanout"]["checked_cases"]
    assert "cases/s" in err and "divergences so far" in err
    html = (tmp_path / "report.html").read_text()
    assert html.count("<svg") >= 1 and "WM-EQ" in html
    assert "<failure" in __import__("flinkspec.reports.report", fromlist=["to_junit"]).to_junit(report)


def test_declared_capabilities_are_not_supported_and_the_rest_still_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An engine answering the capabilities request: its unsupported area is skipped and its
    unsupported rule is no failure (valve valid), while its undeclared bug is still found; a
    capabilities file adds to what it answers."""
    caps = tmp_path / "caps.json"
    caps.write_text(json.dumps({"unsupported": [{"area": "memory.taskmanager", "why": "no TaskManagers"}]}))
    engine = f"cmd:{sys.executable} {Path(__file__).resolve()}"
    code, err, report = fanout(capsys, tmp_path, "--impl", engine, "--flink", "2.3", "--cases", "1200",
                               "--area", "watermark.valve,watermark.timers,memory.jobmanager,memory.taskmanager",
                               "--capabilities", str(caps), "--master", "local[2]", "--junit", str(tmp_path / "j.xml"))
    assert code == 1, err
    runs = {r["area"]: r["verdict"] for r in report["runs"]}
    assert runs == {"watermark.valve": "valid", "memory.jobmanager": "invalid"}, runs
    unsupported = {(u["area"], u["rule"]) for u in report["unsupported"]}
    assert unsupported == {("watermark.timers", None), ("memory.taskmanager", None), ("watermark.valve", "SWV-5"),
                           ("watermark.valve", "WM-EQ")}
    assert {c["area"] for c in report["counterexamples"]} == {"memory.jobmanager"}
    assert "n/s" in (tmp_path / "report.html").read_text()
    junit = (tmp_path / "j.xml").read_text()
    # skipped: the two unsupported areas, and the valve's cases only the declared SWV-5 would judge
    assert 'skipped="3"' in junit and "not supported: no TaskManagers" in junit and "<failure" in junit
    assert "explained only by SWV-5, declared unsupported" in junit


def test_check_honours_a_capabilities_file(tmp_path: Path) -> None:
    """`flinkspec check --capabilities`: the declared rule is not supported, not a failure."""
    caps = tmp_path / "caps.json"
    caps.write_text(json.dumps({"unsupported": [{"rule": ["SWV-5", "WM-EQ"], "why": "no all-idle flush"}]}))
    res = subprocess.run([sys.executable, "-m", "flinkspec.cli", "check", "--impl", MUTANT, *VALVE, "--examples",
                          "300", "--capabilities", str(caps), "--report", str(tmp_path)], capture_output=True,
                         text=True, timeout=600, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["verdict"] == "valid" and [u["rule"] for u in report["unsupported"]] == ["SWV-5", "WM-EQ"]
    assert "n/s" in (tmp_path / "report.html").read_text()  # check writes the HTML report too
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"unsupported": [{"rule": "WM-99"}]}))
    res = subprocess.run([sys.executable, "-m", "flinkspec.cli", "check", "--impl", MUTANT, "--capabilities", str(bad)],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert res.returncode == 2 and "unsupported[0].rule: unknown rule(s) WM-99" in res.stderr


@pytest.mark.parametrize(("mode", "says"), [("crash-after-bugs", "exited with code 3"),
                                            ("hang", "gave no answer"), ("garbage", "not JSON")])
def test_a_broken_implementation_keeps_what_was_found(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      mode: str, says: str) -> None:
    """An implementation that crashes, hangs or answers garbage mid-partition: the counterexamples
    found before are kept, the break is the run's one error (with the request it broke on), the rest
    is accounted for as not checked, and the run exits 2."""
    impl = f"cmd:{sys.executable} {FAULTY} {mode} {2 if mode == 'crash-after-bugs' else 40} jm-xmx-total-flink"
    code, err, report = fanout(capsys, tmp_path, "--impl", impl, "--area", "memory.jobmanager", "--flink", "2.3",
                               "--cases", "1000", "--timeout", "30", "--master", "local[2]")
    assert code == 2, err
    assert report["counterexamples"], "counterexamples found before the fault were lost"
    assert report["runs"][0]["verdict"] == "invalid" and report["runs"][0]["infra_error"]
    broke = report["fanout"]["broke"]
    assert says in broke["cause"] and broke["request"]["area"] == "memory.jobmanager", broke
    assert err.count("flinkspec fanout: the implementation is broken: ") == 1 and "Traceback" not in err, err
    unchecked = sum(e["unchecked"] for e in report["fanout"]["infra_errors"])
    lost = sum(x["cases"] for x in report["fanout"]["lost_partitions"])
    assert report["fanout"]["checked_cases"] + unchecked + lost == 1000  # every case is checked or accounted for


def test_a_broken_implementation_ends_the_run_at_once(tmp_path: Path) -> None:
    """An implementation that breaks on its second request, fanned out over six partitions on two
    task slots: the first break ends the run (no restart, no Spark retry, no partition started after
    it asks the implementation anything), with one message, no traceback, exit 2."""
    out = tmp_path / "report"
    res = subprocess.run([sys.executable, "-m", "flinkspec.cli", "fanout", "--impl", f"cmd:{sys.executable} {FAULTY} "
                          "crash 1", "--area", "memory.jobmanager", "--flink", "2.3", "--cases", "3000", "--partitions",
                          "6", "--master", "local[2]", "--report", str(out)], capture_output=True, text=True,
                         timeout=600, cwd=ROOT)
    assert res.returncode == 2, res.stderr
    err = res.stderr
    assert "Traceback" not in err and "Exception" not in err and "ERROR" not in err, err
    assert err.count("flinkspec fanout: the implementation is broken: ") == 1, err
    assert "exited with code 3 before answering request 2" in err
    assert "replay the request it broke on: flinkspec replay --impl " in err
    report = json.loads((out / "report.json").read_text())
    fan = report["fanout"]
    assert not fan["retried_partitions"] and report["verdict"] == "unknown"
    broke = [e for e in fan["infra_errors"] if e["broke"]]
    assert 1 <= len(broke) <= 2, broke  # at most the tasks already running when it broke
    assert fan["checked_cases"] == len(broke)  # each answered one request, then broke: nothing restarted
    unchecked = sum(e["unchecked"] for e in fan["infra_errors"]) + sum(x["cases"] for x in fan["lost_partitions"])
    assert fan["checked_cases"] + unchecked == 3000


def test_a_python_worker_that_dies_mid_task_is_retried_and_loses_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], reference: dict[str, Any]) -> None:
    """The worker of partition 0 exits halfway through its first attempt (as if OOM-killed): Spark
    retries the task, and the run ends with exactly the clean run's cases and counterexamples."""
    code, err, report = fanout(capsys, tmp_path, "--impl", MUTANT, *VALVE, "--cases", "1500", "--master", "local[2]",
                               "--x-fault", "exit:0")
    assert code == 1, err
    assert report["fanout"]["retried_partitions"] == [0]
    assert report["fanout"]["checked_cases"] == 1500 and not report["fanout"]["lost_partitions"]
    assert essence(report) == essence(reference)


def test_a_partition_that_always_dies_is_reported_and_the_rest_is_kept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], reference: dict[str, Any]) -> None:
    """Partition 1 kills its worker on every attempt: Spark gives up on the job, the driver keeps the
    partitions that finished, runs the others again one job each, and reports partition 1 as lost
    (an infrastructure error with Spark's cause and its 500 cases), with everything else found."""
    code, err, report = fanout(capsys, tmp_path, "--impl", MUTANT, *VALVE, "--cases", "1500", "--master", "local[2]",
                               "--x-fault", "exit-always:1")
    assert code == 2, err
    lost = report["fanout"]["lost_partitions"]
    assert [x["partition"] for x in lost] == [1] and lost[0]["cases"] == 500 and lost[0]["cause"], lost
    assert report["fanout"]["checked_cases"] == 1000
    assert "500 case(s) unchecked: partition 1 lost" in report["runs"][0]["infra_error"]
    assert report["counterexamples"] and report["verdict"] == "invalid"
    assert "a Spark job failed" in err


def _children(pid: int) -> dict[int, tuple[int, str]]:
    """Every process below ``pid``: {pid: (parent, command line)}."""
    procs: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            procs[int(entry.name)] = (int(stat.rsplit(")", 1)[1].split()[1]), cmd)
    below: dict[int, tuple[int, str]] = {}
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        for p, (pp, cmd) in procs.items():
            if pp == parent and p not in below:
                below[p] = (pp, cmd)
                frontier.append(p)
    return below


def test_killing_python_workers_from_outside_loses_nothing(tmp_path: Path, reference: dict[str, Any]) -> None:
    """While a run is going, every busy PySpark worker process is killed with SIGKILL: the tasks are
    retried and the report equals the clean run's."""
    proc = subprocess.Popen([sys.executable, "-m", "flinkspec.cli", "fanout", "--impl", MUTANT, *VALVE, "--cases",
                             "1500", "--master", "local[2]", "--partitions", "3", "--report", str(tmp_path),
                             "--progress", "0.5"], stderr=subprocess.PIPE, text=True, cwd=ROOT)
    killed: list[int] = []

    def kill_when_busy() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            below = _children(proc.pid)
            workers = [p for p, (pp, cmd) in below.items()
                       if "pyspark.daemon" in cmd and "pyspark.daemon" in below.get(pp, (0, ""))[1]]
            if workers:
                time.sleep(1.0)  # inside a task: generation of a chunk takes a few seconds
                for p in workers:
                    try:
                        os.kill(p, signal.SIGKILL)
                        killed.append(p)
                    except ProcessLookupError:
                        pass
                return
            time.sleep(0.1)

    killer = threading.Thread(target=kill_when_busy)
    killer.start()
    _, err = proc.communicate(timeout=600)
    killer.join()
    assert killed, "no PySpark worker was seen"
    assert proc.returncode == 1, err
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["fanout"]["retried_partitions"], "the kill hit no running task"
    assert report["fanout"]["checked_cases"] == 1500 and not report["fanout"]["lost_partitions"]
    assert essence(report) == essence(reference)


def test_usage_errors_name_the_option(tmp_path: Path) -> None:
    """Bad options exit 2 with a message naming them, before Spark starts."""
    for args, says in [(("--cases", "0"), "--cases"), (("--area", "nope"), "unknown area"),
                       (("--conf", "novalue"), "KEY=VALUE"), (("--partitions", "0"), "--partitions")]:
        res = subprocess.run([sys.executable, "-m", "flinkspec.cli", "fanout", "--impl", "oracle", *args],
                             capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert res.returncode == 2 and says in res.stderr and "Traceback" not in res.stderr, (args, res.stderr)


if __name__ == "__main__":  # the JSON-lines engine of test_declared_capabilities_...
    sys.path.insert(0, str(ROOT))
    for line in sys.stdin:
        print(json.dumps(partial_engine(json.loads(line))), flush=True)
