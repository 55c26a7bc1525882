"""One judge: ``flinkspec check``, ``flinkspec fanout`` and the pytest plugin give the same verdict on
the same implementation, over a catalogue of implementations written the ways engines are written:
conforming at protocol 1 (a valve written from the protocol pages) and at protocol 2 (the oracle
served), with a planted bug, partial (one area, declared), and refusing everything.

Every route negotiates features the same way, judges with the same rules (flinkspec.judge.verdict.Judge),
never counts a test of flinkspec itself as the implementation's pass, and never reads "nothing was
checked" as a pass."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from flinkspec.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
SCOPE = ("--area", "watermark.valve", "--flink", "2.3")
CATALOGUE = {  # name: (--impl, the verdict every route must give)
    "protocol-1": (f"cmd:{PY} {ROOT / 'tests' / 'docs_valve.py'}", "valid"),
    "protocol-1-bug": (f"cmd:{PY} {ROOT / 'tests' / 'docs_valve.py'} --bug no-flush", "invalid"),
    "protocol-2": (f"cmd:{PY} -m flinkspec.cli serve --impl oracle", "valid"),
    "partial": (f"cmd:{PY} {ROOT / 'tests' / 'one_area_impl.py'} watermark.valve", "valid"),
    "refusing": (f"cmd:{PY} {ROOT / 'tests' / 'refusing_impl.py'}", "invalid"),
}
EXIT = {0: "valid", 1: "invalid"}


def _verdict(code: int, output: str) -> str:
    return EXIT.get(code, f"exit {code}: {output[-2000:]}")


@pytest.mark.parametrize("name", list(CATALOGUE))
def test_check_gives_the_catalogues_verdict(name: str, tmp_path: Path) -> None:
    impl, verdict = CATALOGUE[name]
    done = subprocess.run([PY, "-m", "flinkspec.cli", "check", "--impl", impl, *SCOPE, "--examples", "300",
                           "--seed", "0", "--report", str(tmp_path / "r")], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert _verdict(done.returncode, done.stdout + done.stderr) == verdict, done.stdout + done.stderr


@pytest.mark.parametrize("name", list(CATALOGUE))
def test_the_pytest_gate_gives_the_catalogues_verdict(name: str, tmp_path: Path) -> None:
    """Run as a third party runs it, from outside the repository; only tests that judge the
    implementation run, and a refusal is never a pass."""
    impl, verdict = CATALOGUE[name]
    env = {**os.environ, "HYPOTHESIS_PROFILE": "dev"}
    done = subprocess.run([PY, "-m", "pytest", "--pyargs", "properties", "-p", "flinkspec.plugin",
                           "-p", "no:cacheprovider", "-q", "-x", "--impl", impl, *SCOPE], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=900)
    out = done.stdout + done.stderr
    assert _verdict(done.returncode, out) == verdict, out
    assert "test(s) of flinkspec itself deselected" in out, out
    assert " passed" in out or verdict == "invalid", out  # something judged the implementation


@pytest.mark.spark
@pytest.mark.parametrize("name", list(CATALOGUE))
def test_fanout_gives_the_catalogues_verdict(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    impl, verdict = CATALOGUE[name]
    code = main(["fanout", "--impl", impl, *SCOPE, "--cases", "600", "--seed", "0", "--master", "local[2]",
                 "--report", str(tmp_path / "r")])
    out = capsys.readouterr()
    assert _verdict(code, out.out + out.err) == verdict, out.out + out.err
