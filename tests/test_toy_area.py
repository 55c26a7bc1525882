"""Adding an area is writing its own files and one line in the registry.

A throwaway area, ``toy.double`` (the answer doubles the input's number; one documented rule,
TOY-1), is written into a clone of this repository: its oracle module, its strategy, its
invariant, its mutant and its declaration, then one line (and its import) in the one registry of
areas, ``properties/areas.py``. The commands, run in the clone, see it: ``rules``, ``check``
(valid for the oracle, the mutant caught, not sent to a protocol-1 implementation), the pytest
plugin's ``--area``, ``vectors export`` and ``fanout``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

ORACLE = '''"""toy.double: a throwaway area whose answer doubles the input's number."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from oracle.protocol import AreaFn, BadRequest
from oracle.versions import FlinkVersion

DOUBLE = "toy.double"  # the protocol area


def double_area(payload: Mapping[str, Any], version: FlinkVersion) -> dict[str, Any]:
    n = payload.get("n")
    if not isinstance(n, int) or isinstance(n, bool):
        raise BadRequest("input.n must be an integer")
    return {"doubled": 2 * n}


ENTRIES: dict[str, AreaFn] = {DOUBLE: double_area}
'''

AREA = '''"""The toy area's strategy, invariant, mutant and declaration."""

from __future__ import annotations

from hypothesis import strategies as st

from oracle.toy import DOUBLE
from properties.area import Area
from properties.mutant import Mutant
from properties.rules import Request, Response, RuleBook, Violation

BOOK = RuleBook()
BOOK.differential(DOUBLE, "TOY")


@BOOK.invariant("TOY-1", DOUBLE, "The answer is twice the input's number.", "the toy protocol")
def doubled(req: Request, resp: Response, version: object) -> list[Violation]:
    out = resp.get("output")
    if isinstance(out, dict) and out.get("doubled") != 2 * req["input"]["n"]:
        return [Violation("TOY-1", f"{out.get('doubled')} is not twice {req['input']['n']}")]
    return []


DOUBLE_AREA = Area(
    name=DOUBLE, prefix="TOY", rules=BOOK, page="v2.md", description="a number doubled", protocol=2,
    requests=lambda ver: st.integers(-1000, 1000).map(lambda n: {"area": DOUBLE, "flink": str(ver), "input": {"n": n}}),
    size=lambda req: abs(req["input"]["n"]),
    mutants=(Mutant("toy-adds-one", DOUBLE, "n + 1 instead of 2n",
                    after=lambda req, resp: {**resp, "output": {"doubled": req["input"]["n"] + 1}}
                    if "output" in resp else resp),),
)
'''


WATERMARK = "from properties.watermark import area as watermark\n"
# the registry's last line
LAST = ("    checkpoint.ALIGNMENT, checkpoint.COORDINATOR, checkpoint.RECOVERY, checkpoint.STORAGE, "
        "checkpoint.SNAPSHOT,\n")


def _clone(tmp: Path) -> Path:
    clone = tmp / "repo"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    (clone / "oracle" / "toy.py").write_text(ORACLE)
    (clone / "properties" / "toy").mkdir()
    (clone / "properties" / "toy" / "__init__.py").write_text("")
    (clone / "properties" / "toy" / "area.py").write_text(AREA)
    areas = clone / "properties" / "areas.py"  # the one line (and its import)
    text = areas.read_text().replace(WATERMARK, WATERMARK + "from properties.toy import area as toy\n", 1)
    areas.write_text(text.replace(LAST, LAST + "    toy.DOUBLE_AREA,\n", 1))
    changed = subprocess.run(["git", "status", "--porcelain"], cwd=clone, check=True, capture_output=True, text=True)
    assert sorted(changed.stdout.split()) == ["??", "??", "M", "oracle/toy.py", "properties/areas.py",
                                              "properties/toy/"], changed.stdout
    numstat = subprocess.run(["git", "diff", "--numstat"], cwd=clone, check=True, capture_output=True, text=True)
    assert numstat.stdout.split() == ["2", "0", "properties/areas.py"]  # the declaration's line and its import
    return clone


def _run(clone: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(clone)}
    return subprocess.run([sys.executable, "-m", "flinkspec.cli.main", *args], cwd=clone, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _clone(tmp_path_factory.mktemp("toy"))


def test_the_rules_list_the_toy_areas_rules(clone: Path) -> None:
    done = _run(clone, "rules", "--area", "toy.double", "--json")
    assert done.returncode == 0, done.stderr
    assert {r["id"] for r in json.loads(done.stdout)} == {"TOY-1", "TOY-EQ", "TOY-REFUSED"}


def test_check_of_the_oracle_is_valid_on_the_toy_area(clone: Path) -> None:
    done = _run(clone, "check", "--impl", "oracle", "--area", "toy.double", "--flink", "2.3", "--examples", "50",
                "--report", str(clone / "report"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "valid" in done.stdout


def test_a_mutant_of_the_toy_area_is_caught(clone: Path) -> None:
    done = _run(clone, "check", "--impl", "mutant:toy-adds-one", "--area", "toy.double", "--flink", "2.3",
                "--examples", "50", "--report", str(clone / "report-mutant"))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "TOY-1" in done.stdout + done.stderr


def test_an_implementation_of_protocol_1_is_not_sent_the_toy_area(clone: Path) -> None:
    v1 = f"cmd:{sys.executable} {clone / 'tests' / 'v1_impl.py'}"
    done = _run(clone, "check", "--impl", v1, "--area", "toy.double", "--flink", "2.3", "--examples", "20",
                "--report", str(clone / "report-v1"))
    assert done.returncode == 2, done.stdout + done.stderr  # nothing checked is no pass
    assert "not checked (needs protocol 2 feature toy.double" in done.stderr


def test_the_pytest_plugin_selects_the_toy_area(clone: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(clone), "HYPOTHESIS_PROFILE": "dev"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--pyargs",
                           "properties.test_conformance", "--impl", "oracle", "--area", "toy.double", "--flink", "2.3"],
                          cwd=clone, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_vectors_export_the_toy_area(clone: Path) -> None:
    done = _run(clone, "vectors", "export", "--area", "toy.double", "--flink", "2.3", "--out", str(clone / "vec"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert list((clone / "vec").rglob("*.jsonl*"))


@pytest.mark.spark
def test_fanout_checks_the_toy_area(clone: Path) -> None:
    done = _run(clone, "fanout", "--impl", "mutant:toy-adds-one", "--area", "toy.double", "--flink", "2.3",
                "--cases", "200", "--report", str(clone / "report-fanout"))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "TOY-1" in done.stdout + done.stderr
