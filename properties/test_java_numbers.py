"""The oracle's Java numbers give the JDK's recorded answers (``properties/recorded/java-numbers.jsonl.gz``,
written by ``python -m flinkspec.impls.javanumbers --record`` from JDK 17): ``Double.parseDouble``,
``Float.parseFloat``, ``Integer.parseInt``, ``Long.parseLong``, ``String.trim``, ``Double.toString``,
``BigDecimal.valueOf(double)`` and its ``multiply``/``setScale(DOWN)``/``doubleValue``, and
``String.format("%.Nf")``, the primitives the memory and class-loading rules read, compute and
print option values with."""

from __future__ import annotations

import gzip
import json
from functools import cache
from typing import Any

import pytest

from properties.java_numbers import RECORDING, differences


@cache
def _recorded() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    with gzip.open(RECORDING, "rt", encoding="utf-8") as f:
        header, *rows = (json.loads(line) for line in f)
    return header, rows


OPS = sorted({r["op"] for r in _recorded()[1]})


@pytest.mark.parametrize("op", OPS)
def test_oracle_gives_the_jdks_recorded_answers(op: str) -> None:
    rows = [r for r in _recorded()[1] if r["op"] == op]
    diffs = differences([(r["op"], r["arg"]) for r in rows], [r["answer"] for r in rows])
    assert not diffs, f"{len(diffs)} of {len(rows)} differ from JDK 17, e.g.\n" + "\n".join(diffs[:5])
