"""The ``checkpoint.storage`` oracle: Flink's Path as modelled, and its words for malformed requests."""

from __future__ import annotations

from typing import Any

import pytest

import oracle
from oracle.flinkpath import InvalidPath, UnmodelledPath, parse

AREA = {"area": "checkpoint.storage", "flink": "2.3"}
JOB = "0123456789abcdef0123456789abcdef"


@pytest.mark.parametrize(("text", "printed"), [
    ("file:///tmp/x/", "file:/tmp/x"), ("hdfs://nn:8020/a//b\\c/./d/../e", "hdfs://nn:8020/a/b/c/e"),
    ("s3://b/x/..", "s3://b/"), ("C:/x", "C:/x"), ("/tmp/x", "/tmp/x"), ("file:/C:/", "file:/C:/"),
    ("hdfs:///a b", "hdfs:/a b"), ("//host/x", "//host/x")])
def test_a_path_prints_as_flink_prints_it(text: str, printed: str) -> None:
    assert str(parse(text)) == printed


@pytest.mark.parametrize("text", ["", "1x:/a", "my scheme:/a", "file:", "hdfs:rel/a"])
def test_invalid_paths(text: str) -> None:
    with pytest.raises(InvalidPath):
        parse(text)


def test_a_character_outside_the_model_is_refused() -> None:
    with pytest.raises(UnmodelledPath):
        parse("file:/a%20b")


def test_a_child_and_a_parent() -> None:
    path = parse("hdfs://nn/a/b")
    assert str(path.child("chk-1")) == "hdfs://nn/a/b/chk-1"
    assert str(path.parent()) == "hdfs://nn/a"
    assert parse("file:/").parent() is None and parse("file:/C:/").parent() is None


BAD: list[tuple[dict[str, Any], str]] = [
    ({"checkpoint_id": 1}, "input.job_id is missing"),
    ({"job_id": "XYZ", "checkpoint_id": 1}, "input.job_id = 'XYZ' must be 32 lower-case hex digits"),
    ({"job_id": JOB.upper(), "checkpoint_id": 1}, "must be 32 lower-case hex digits"),
    ({"job_id": JOB}, "input.checkpoint_id is missing"),
    ({"job_id": JOB, "checkpoint_id": -1}, "input.checkpoint_id = -1 must not be negative"),
    ({"job_id": JOB, "checkpoint_id": 1 << 63}, "does not fit a signed 64-bit long"),
    ({"job_id": JOB, "checkpoint_id": 1, "config": {"state.backend.changelog.enabled": "true"}},
     "the oracle does not model the changelog state backend"),
    ({"job_id": JOB, "checkpoint_id": 1, "config": {"state.checkpoints.dir": "file:/a?b"}},
     "the oracle does not model the path 'file:/a?b'"),
    ({"job_id": JOB, "checkpoint_id": 1, "config": {"state.backend.type": "org.apache.flink.Foo"}},
     "the oracle does not model the class 'org.apache.flink.Foo' as a factory"),
]


@pytest.mark.parametrize(("inp", "says"), BAD, ids=[s[:40] for _, s in BAD])
def test_invalid_requests_name_the_field(inp: dict[str, Any], says: str) -> None:
    err = oracle.answer({"id": 1, **AREA, "input": inp})["error"]
    assert err["type"] == "BadRequest" and says in err["message"], err
