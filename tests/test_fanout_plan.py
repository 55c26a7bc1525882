"""The pure parts of the fan-out: the plan of seeded chunks, shapes and candidate selection, and
capabilities declarations (no Spark here)."""

from __future__ import annotations

from typing import Any

import pytest

from flinkspec.impls.capabilities import CapabilitiesError, parse
from flinkspec.judge.divergence import Signature
from oracle.versions import SUPPORTED, parse_version
from spark_harness.driver import with_task_retries
from spark_harness.plan import partition, plan
from spark_harness.shrink import Failure, candidates, shape, size

V23 = parse_version("2.3")


def test_the_plan_depends_on_seed_and_cases_only() -> None:
    """Chunks cover exactly the cases asked (rounded up per pair), their seeds depend on the seed,
    and partitioning only groups them: every partitioning holds the same chunks."""
    pairs = [(a, v) for a in ("memory.jobmanager", "watermark.valve") for v in SUPPORTED]
    chunks = plan(pairs, 30_000, seed=3)
    assert sum(c.cases for c in chunks) == 30_000
    assert all(c.n <= 500 for c in chunks)
    assert plan(pairs, 30_000, seed=3) == chunks and plan(pairs, 30_000, seed=4) != chunks
    for p in (1, 2, 7, None):
        assert sorted((c.area, c.index) for part in partition(chunks, p) for c in part) == sorted(
            (c.area, c.index) for c in chunks)


def test_versions_that_draw_the_same_inputs_share_a_chunk() -> None:
    """watermark.valve draws one set of inputs before 1.19 and one with subpartitions from 1.19 on:
    one chunk checks each group of versions."""
    chunks = plan([("watermark.valve", v) for v in SUPPORTED], 1200, seed=0)
    names = [str(v) for v in SUPPORTED]
    cut = names.index("1.19")
    assert [c.versions for c in chunks] == [tuple(names[:cut]), tuple(names[cut:])]
    assert all(c.n == 100 for c in chunks)


def test_local_masters_retry_failed_tasks() -> None:
    """local[N] (which retries nothing) becomes local[N,4]; other masters are left alone."""
    assert with_task_retries("local[*]") == "local[*,4]" and with_task_retries("local") == "local[1,4]"
    assert with_task_retries("local[2,3]") == "local[2,3]" and with_task_retries("spark://h:7077") == "spark://h:7077"


def valve(*events: dict[str, Any]) -> dict[str, Any]:
    return {"area": "watermark.valve", "flink": "2.3", "input": {"channels": 3, "events": list(events)}}


def test_shape_renumbers_channels_and_keeps_event_kinds() -> None:
    """Two sequences that differ only in channel numbers and timestamps have one shape."""
    a = valve({"channel": 2, "watermark": 5}, {"channel": 0, "status": "IDLE"})
    b = valve({"channel": 1, "watermark": 9}, {"channel": 2, "status": "IDLE"})
    c = valve({"channel": 1, "watermark": 9}, {"channel": 2, "status": "ACTIVE"})
    assert shape(a) == shape(b) != shape(c)
    mem = {"area": "memory.jobmanager", "flink": "2.3", "input": {"config": {"b": "1", "a": "2"}}}
    assert shape(mem) == "config={a,b}"


def test_candidates_keep_the_smallest_of_each_shape_per_divergence() -> None:
    """Per divergence at most three failures, one per shape, smallest first; the cases of every
    failure seen are counted, also of those no longer kept."""
    def failure(req: dict[str, Any]) -> Failure:
        cause = Signature("differs in output.emitted[]", ("WM-EQ",), "differs", "output.emitted[] lacks a {watermark}",
                          ("SWV-5",))
        return Failure("watermark.valve", "2.3", cause, ("x",), req, {}, None, size(req), shape(req))

    small = valve({"channel": 0, "watermark": 1}, {"channel": 0, "status": "IDLE"})
    large = valve({"channel": 1, "watermark": 1000}, {"channel": 1, "status": "IDLE"})
    others = [valve(*[{"channel": 0, "watermark": i}] * k) for i, k in ((1, 3), (2, 4), (3, 5))]
    found = candidates([failure(large), failure(small), *map(failure, others)])
    kept = found[("watermark.valve", "2.3", ("differs", "output.emitted[] lacks a {watermark}", ()))]
    assert len(kept) == 3 and kept[0].request == small
    assert [f.size for f in kept] == sorted(f.size for f in kept)
    assert sum(f.cases for f in kept) == 5


@pytest.mark.parametrize(("data", "says"), [
    ([], "expected an object"),
    ({"unsupported": [], "extra": 1}, "unknown field(s) extra"),
    ({"unsupported": [{}]}, "unsupported[0] selects everything"),
    ({"unsupported": [{"area": "memory.jobmanager", "flink": "1.9"}]}, "unsupported[0].flink"),
    ({"unsupported": [{"rule": 3}]}, "unsupported[0].rule must be a string"),
    ({"unsupported": [{"area": "memory.nope"}]}, "unknown area(s) memory.nope"),
    ({"unsupported": [{"area": "memory.jobmanager", "because": "x"}]}, "unknown field(s) because"),
])
def test_invalid_capabilities_name_the_field(data: object, says: str) -> None:
    """A declaration of the wrong shape is an error that names the field."""
    with pytest.raises(CapabilitiesError) as info:
        parse(data, "caps.json", known_areas=["memory.jobmanager"], known_rules=["JM-1"])
    assert says in str(info.value) and str(info.value).startswith("caps.json")


def test_capabilities_select_runs_and_rules() -> None:
    """A selector without a rule takes (area, version) out; with rules it only excuses them; an
    implementation's own answer may name areas this suite does not know (ignored, with a warning)."""
    caps = parse({"unsupported": [{"flink": ["1.13"]}, {"area": "memory.jobmanager", "rule": ["JM-1"], "why": "w"}]},
                 "x", known_areas=["memory.jobmanager"], known_rules=["JM-1"])
    assert caps.run_unsupported("memory.jobmanager", parse_version("1.13")) is not None
    assert caps.run_unsupported("memory.jobmanager", V23) is None
    assert caps.rules_unsupported("memory.jobmanager", V23) == {"JM-1"} and caps.why("memory.jobmanager", "2.3", "JM-1")
    lenient = parse({"unsupported": [{"area": "future.area"}]}, "x", known_areas=["memory.jobmanager"], lenient=True)
    assert not lenient.unsupported and "future.area" in lenient.warnings[0]
