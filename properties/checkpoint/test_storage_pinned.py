"""The oracle gives, at every release, the answers real Flink gave to the pinned ``checkpoint.storage``
requests (``storage_pinned.json``, recorded from each release's jar): the area checked without a JVM."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import oracle
from oracle.versions import RELEASES

PINNED = json.loads((Path(__file__).with_name("storage_pinned.json")).read_text())["examples"]
CASES = [(ex, group) for ex in PINNED for group in ex["answers"]]


def test_every_pinned_request_has_answers_of_every_release() -> None:
    every = sorted(r.release for r in RELEASES)
    for ex in PINNED:
        assert sorted(r for g in ex["answers"] for r in g["releases"]) == every, ex["name"]


@pytest.mark.parametrize(("example", "group"), CASES,
                         ids=[f"{e['name'][:50]}@{g['releases'][0]}" for e, g in CASES])
def test_the_oracle_answers_as_flink_did(example: dict[str, Any], group: dict[str, Any]) -> None:
    for release in group["releases"]:
        got = oracle.answer({"id": 1, "area": "checkpoint.storage", "flink": release, "input": example["input"]})
        assert {k: got[k] for k in ("output", "error") if k in got} == group["answer"], (example["name"], release)
