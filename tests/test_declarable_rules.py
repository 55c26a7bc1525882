"""Every rule ``flinkspec rules`` lists can be declared unsupported (issue 26, item 5a): the invariants, the
``-EQ`` and ``-REFUSED`` rules and the oracle's own rules (``CL-3``, ``SWV-5`` ...), in a ``--capabilities``
file and in an implementation's own answer, at ``flinkspec check``, ``flinkspec fanout``, ``flinkspec replay``
and the pytest plugin alike.

Each route is run with a declaration naming every rule of the registry plus one rule that does not exist:
the only unknown rule it reports is the invented one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
INVENTED = "NOPE-1"
EVERY_RULE_UNKNOWN = f"unknown rule(s) {INVENTED}"


def every_rule() -> list[str]:
    """The IDs ``flinkspec rules --json`` lists."""
    out = subprocess.run([sys.executable, "-m", "flinkspec.cli", "rules", "--json"], capture_output=True, text=True,
                         timeout=300, cwd=ROOT, check=True).stdout
    return [r["id"] for r in json.loads(out)]


def declaration(rules: list[str]) -> dict[str, Any]:
    return {"unsupported": [{"rule": rules, "why": "declared to prove it can be"}]}


def engine(request: dict[str, Any]) -> dict[str, Any]:
    """The oracle, declaring every rule of the registry (and the invented one) unsupported."""
    import oracle
    from properties.areas import all_rules

    if request.get("area") == "capabilities":
        return {"id": request.get("id"), "output": declaration([*all_rules(), INVENTED])}
    return oracle.answer(request)


@pytest.fixture(scope="module")
def rules() -> list[str]:
    ids = every_rule()
    assert {"CL-3", "CL-4", "SWV-5", "CLR-EQ", "TM-1"} <= set(ids) and INVENTED not in ids
    return ids


@pytest.fixture
def caps_file(tmp_path: Path, rules: list[str]) -> Path:
    path = tmp_path / "caps.json"
    path.write_text(json.dumps(declaration([*rules, INVENTED])))
    return path


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "flinkspec.cli", *args], capture_output=True, text=True, timeout=600,
                          cwd=ROOT)


def only_the_invented_rule_is_unknown(text: str) -> None:
    line = next(ln for ln in text.splitlines() if "unknown rule(s)" in ln)
    assert line.endswith(EVERY_RULE_UNKNOWN) or line.endswith(EVERY_RULE_UNKNOWN + " (entry ignored)"), line


def test_every_listed_rule_is_known_to_the_parser(rules: list[str]) -> None:
    from flinkspec.impls.capabilities import parse
    from properties.areas import AREAS, all_rules

    assert set(rules) == set(all_rules())
    caps = parse(declaration(rules), "caps.json", known_areas=AREAS, known_rules=all_rules())
    assert caps.rules_unsupported("classloading.resolve", "2.3") >= {"CL-3", "CL-4", "CLR-EQ"}


def test_check_takes_every_rule_in_a_file(caps_file: Path) -> None:
    res = cli("check", "--impl", "oracle", "--area", "watermark.valve", "--flink", "2.3", "--capabilities",
              str(caps_file))
    assert res.returncode == 2, res.stderr
    only_the_invented_rule_is_unknown(res.stderr)


def test_check_takes_every_rule_in_the_implementations_answer(tmp_path: Path) -> None:
    """An implementation's own answer is lenient: an unknown rule drops its entry with a warning; a
    known one is kept (the run is valid: the oracle conforms)."""
    res = cli("check", "--impl", "python:tests.test_declarable_rules:engine", "--area", "classloading.resolve",
              "--flink", "2.3", "--examples", "30", "--report", str(tmp_path))
    assert res.returncode == 0, res.stderr
    only_the_invented_rule_is_unknown(res.stderr)


@pytest.mark.spark
def test_fanout_takes_every_rule_in_a_file(caps_file: Path, tmp_path: Path) -> None:
    """The declaration is read before Spark starts: an unknown rule is a usage error naming it alone."""
    pytest.importorskip("pyspark")
    res = cli("fanout", "--impl", "oracle", "--area", "watermark.valve", "--flink", "2.3", "--capabilities",
              str(caps_file), "--report", str(tmp_path))
    assert res.returncode == 2, res.stderr
    only_the_invented_rule_is_unknown(res.stderr)


def test_the_pytest_plugin_takes_every_rule_in_a_file(caps_file: Path, tmp_path: Path, rules: list[str]) -> None:
    """The plugin reads the file at start-up (a usage error naming the unknown rule alone) and again for its
    ``capabilities`` fixture (a declaration of known rules only runs)."""
    env = {**os.environ, "HYPOTHESIS_PROFILE": "dev"}
    base = [sys.executable, "-m", "pytest", "--pyargs", "properties.test_conformance", "-p", "flinkspec.plugin",
            "-p", "no:cacheprovider", "-q", "--impl", "oracle", "--area", "memory.jobmanager", "--flink", "2.3"]
    bad = subprocess.run([*base, "--capabilities", str(caps_file)], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=600)
    assert bad.returncode == pytest.ExitCode.USAGE_ERROR, bad.stdout + bad.stderr
    only_the_invented_rule_is_unknown(bad.stderr)
    good_file = tmp_path / "good.json"
    good_file.write_text(json.dumps(declaration(["CL-3", "CL-4", "SWV-5", "JM-1"])))
    good = subprocess.run([*base, "--capabilities", str(good_file)], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    assert good.returncode == 0, good.stdout + good.stderr
