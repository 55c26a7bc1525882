"""Scenarios transcribed from Flink's own checkpointing tests, checked on every run.

The examples and Flink's answer to each are data beside the code (:mod:`properties.checkpoint.examples`:
``alignment_examples.json``, ``coordinator_examples.json``). They run against the implementation under
test (``--impl``), the oracle by default.
"""

from __future__ import annotations

from typing import Any

import pytest

from oracle.versions import FlinkVersion, parse_version
from properties.checkpoint.examples import FILES, examples, expected
from properties.under_test import Implementation, Judged, answer_one

CASES = [(area, ex) for area in FILES for ex in examples(area)]


@pytest.mark.parametrize(("area", "example"), CASES, ids=[f"{a.split('.')[1]}-{e['name']}" for a, e in CASES])
def test_flinks_own_scenario(impl: Implementation, gate: Judged, impl_spec: str, flink_version: FlinkVersion,
                             area: str, example: dict[str, Any]) -> None:
    """The implementation reproduces the outcome Flink's own test asserts, on every version it names:
    the oracle exactly; any other implementation judged as every route judges
    (:class:`flinkspec.plugin.gate.Gate`), the oracle standing for the outcome it reproduces."""
    if flink_version not in {parse_version(x) for x in example["versions"]}:
        pytest.skip(f"{example['name']} is not a scenario of Flink {flink_version}")
    if impl_spec != "oracle":
        found = gate.judge_all(area, flink_version, [example["input"]])
        assert not found, f"{example['name']} ({example['source']}):\n" + "\n".join(found)
        return
    resp = answer_one(impl, {"id": 1, "area": area, "flink": str(flink_version), "input": example["input"]})
    want = expected(example, flink_version)
    got = {k: resp[k] for k in ("output", "error") if k in resp}
    assert got == want, f"{example['name']} ({example['source']}): {example.get('note', '')}"

