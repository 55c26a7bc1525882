"""`flinkspec record` writes recorded answers; the recorded-answers test holds an implementation to them."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from properties.recordings import RECORDED, RecordingError, read

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, timeout=600, cwd=ROOT)


def test_record_writes_distinct_inputs_with_answers(tmp_path: Path) -> None:
    res = run("flinkspec.cli", "record", "--impl", "oracle", "--area", "memory.jobmanager", "--flink", "1.13,2.3",
              "--examples", "60", "--seed", "3", "--out", str(tmp_path))
    assert res.returncode == 0, res.stderr
    header, records = read(tmp_path / "memory.jobmanager.jsonl.gz")
    assert header == {"recorded_from": "oracle", "area": "memory.jobmanager", "seed": 3,
                      "examples_per_version": 60, "versions": ["1.13", "2.3"]}
    for version in ("1.13", "2.3"):
        inputs = [json.dumps(r["input"], sort_keys=True) for r in records if r["flink"] == version]
        assert 10 < len(inputs) <= 60 and len(set(inputs)) == len(inputs)
    assert all(("output" in r["answer"]) != ("error" in r["answer"]) for r in records)


def test_record_draws_an_extra_corpus(tmp_path: Path) -> None:
    """classloading.values: requests of classloading.resolve from the option-value fuzzer."""
    res = run("flinkspec.cli", "record", "--impl", "oracle", "--area", "classloading.values", "--flink", "1.14,2.3",
              "--examples", "40", "--seed", "3", "--out", str(tmp_path))
    assert res.returncode == 0, res.stderr
    header, records = read(tmp_path / "classloading.values.jsonl.gz")
    assert header["area"] == "classloading.values" and {r["flink"] for r in records} == {"1.14", "2.3"}
    assert all(set(r["input"]) == {"config", "user_classes", "parent_classes", "lookups"} for r in records)
    assert any("error" in r["answer"] for r in records) and any("output" in r["answer"] for r in records)


def test_record_refuses_an_unknown_area(tmp_path: Path) -> None:
    res = run("flinkspec.cli", "record", "--impl", "oracle", "--area", "memory.nope", "--out", str(tmp_path))
    assert res.returncode == 2 and "unknown area(s) memory.nope" in res.stderr


@pytest.mark.parametrize(("content", "says"), [
    (b"not gzip", "not a recorded-answers file"),
    (gzip.compress(b"[1]\n", mtime=0), "first line must be the header"),
    (gzip.compress(b'{"area": "x"}\n', mtime=0), "header lacks recorded_from"),
    (gzip.compress(json.dumps({"recorded_from": "flink", "area": "x", "seed": 0, "examples_per_version": 1,
                               "versions": []}).encode() + b'\n{"flink": "1.13"}\n', mtime=0), ":2: a record needs"),
], ids=["not-gzip", "no-header", "header-without-source", "record-without-fields"])
def test_a_malformed_recording_is_named(tmp_path: Path, content: bytes, says: str) -> None:
    path = tmp_path / "x.jsonl.gz"
    path.write_bytes(content)
    with pytest.raises(RecordingError, match=says):
        read(path)


def test_every_area_is_recorded_from_real_flink_for_every_version() -> None:
    from oracle.versions import SUPPORTED
    from properties.areas import AREAS, EXTRA_CORPORA

    for area in [*AREAS, *EXTRA_CORPORA]:
        header, records = read(RECORDED / f"{area}.jsonl.gz")
        spec = AREAS[area] if area in AREAS else AREAS[EXTRA_CORPORA[area].area]
        # every release the area covers
        assert header["recorded_from"] == "flink" and header["versions"] == [
            str(v) for v in SUPPORTED if v in spec.versions]
        assert {r["flink"] for r in records} == set(header["versions"])


def test_recorded_answers_catch_a_mutant() -> None:
    """The recorded-answers test fails for an implementation that differs from Flink."""
    res = run("pytest", "-q", "-p", "no:cacheprovider", "properties/test_recorded_answers.py",
              "--impl", "mutant:memory-overhead-unclamped", "--flink", "2.3", "-k", "taskmanager")
    assert res.returncode == 1, res.stdout
    assert "divergence(s) on Flink 2.3's recorded inputs" in res.stdout and "flinkspec replay" in res.stdout
