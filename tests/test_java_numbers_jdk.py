"""The recording of the JDK's number answers (``properties/recorded/java-numbers.jsonl.gz``) is the
answer of the JDK on this machine (``python -m flinkspec.impls.javanumbers``); the oracle is held to
the recording by ``properties/test_java_numbers.py``."""

from __future__ import annotations

import gzip
import json
import shutil

import pytest

from flinkspec.impls.javanumbers import ask_jdk
from properties.java_numbers import RECORDING


@pytest.mark.flink
@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK 17 on PATH")
def test_the_recording_is_the_jdks() -> None:
    """A sample of the recording, asked again of the JDK on this machine, gets the recorded answers."""
    with gzip.open(RECORDING, "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f][1:][::25]
    assert ask_jdk([(r["op"], r["arg"]) for r in rows]) == [r["answer"] for r in rows]
