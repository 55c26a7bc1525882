"""``--impl python:MODULE:CALLABLE`` finds MODULE in the current directory, as ``python -m`` would,
from the installed ``flinkspec`` and ``pytest`` scripts (which, unlike ``python -m``, do not put the
current directory on ``sys.path``): check, replay, serve, fanout (its Spark workers too) and the
pytest plugin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
ENGINE = '''
from oracle import answer as _answer


def answer(request):
    return _answer(request)
'''
REQUEST = {"area": "watermark.valve", "flink": "2.3", "input": {"channels": 1, "events": [{"channel": 0,
                                                                                          "watermark": 5}]}}
IMPL = "python:my_engine:answer"


@pytest.fixture
def here(tmp_path: Path) -> Path:
    """A directory holding the engine's module, the only place it can be found."""
    (tmp_path / "my_engine.py").write_text(ENGINE)
    return tmp_path


def run(cwd: Path, *argv: str, stdin: str | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(list(argv), cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=timeout)


def test_check_replay_and_serve_find_the_module_in_the_current_directory(here: Path) -> None:
    """The `flinkspec` script loads the engine from the directory it is run in."""
    res = run(here, str(BIN / "flinkspec"), "check", "--impl", IMPL, "--area", "watermark.valve", "--flink", "2.3",
              "--examples", "20", "--report", str(here / "report"))
    assert res.returncode == 0, res.stderr
    res = run(here, str(BIN / "flinkspec"), "replay", "--impl", IMPL, "--request", json.dumps(REQUEST))
    assert res.returncode == 0 and "passes" in res.stdout, res.stdout + res.stderr
    res = run(here, str(BIN / "flinkspec"), "serve", "--impl", IMPL, stdin=json.dumps({"id": 1, **REQUEST}) + "\n")
    assert json.loads(res.stdout) == {"id": 1, "output": {"emitted": [[{"watermark": 5}]]}}, res.stderr


def test_the_pytest_plugin_finds_the_module_in_the_current_directory(here: Path) -> None:
    res = run(here, str(BIN / "pytest"), "--pyargs", "properties.test_conformance", "-p", "flinkspec.plugin",
              "-p", "no:cacheprovider", "--impl", IMPL, "--area", "watermark.valve", "--flink", "2.3")
    assert res.returncode == 0, res.stdout + res.stderr


@pytest.mark.spark
def test_fanout_and_its_spark_workers_find_the_module_in_the_current_directory(here: Path) -> None:
    pytest.importorskip("pyspark")
    res = run(here, str(BIN / "flinkspec"), "fanout", "--impl", IMPL, "--area", "watermark.valve", "--flink", "2.3",
              "--cases", "200", "--master", "local[1]", "--report", str(here / "report"), timeout=600)
    assert res.returncode == 0, res.stderr
    assert json.loads((here / "report" / "report.json").read_text())["fanout"]["checked_cases"] == 200
