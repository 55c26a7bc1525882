"""The plainification pass of ``reduce``: counterexamples end in the plainest spelling that still fails."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import oracle
from flinkspec.judge.reduce import int_candidates, rank, reduce, size_spelling, string_candidates
from oracle.memsize import parse_bytes

TM = "taskmanager.memory."
Request = dict[str, Any]


def _counted(predicate: Callable[[Request], bool]) -> tuple[Callable[[Request], bool], list[int]]:
    """``predicate`` and a one-element list counting its calls."""
    calls = [0]

    def counted(request: Request) -> bool:
        calls[0] += 1
        return predicate(request)

    return counted, calls


def _size_or_none(text: str) -> int | None:
    try:
        return parse_bytes(text)
    except Exception:  # Flink rejects it
        return None


def _managed_and_big_process(request: Request) -> bool:
    """Managed memory is set and the process size parses above 1 GiB."""
    config = request["input"]["config"]
    size = _size_or_none(config.get(TM + "process.size", ""))
    return TM + "managed.size" in config and size is not None and size > 1 << 30


def _memory(config: dict[str, Any], flink: str = "2.3") -> Request:
    return {"area": "memory.taskmanager", "flink": flink, "input": {"config": config}}


NOISY = {
    TM + "process.size": " 49545216000 BYTES",
    TM + "managed.size": "\t1Gb",
    TM + "network.fraction": " 0.10 ",
    "taskmanager.numberOfTaskSlots": " 4 ",
}


def test_sizes_end_round_and_plain() -> None:
    """A failure that needs a process size above 1 GiB ends at 2g (the plainest that is); managed
    memory, any value of which fails, keeps its own value spelled plainly: 1g."""
    small = reduce(_memory(NOISY), _managed_and_big_process)
    assert small["input"]["config"] == {TM + "process.size": "2g", TM + "managed.size": "1g"}


def test_a_size_the_failure_needs_keeps_its_value_in_its_plainest_spelling() -> None:
    """No round size will do, so the same value comes out in its largest whole unit."""
    exact = parse_bytes("8867840K")
    small = reduce(_memory({TM + "managed.size": " 8867840K"}),
                   lambda r: _size_or_none(r["input"]["config"].get(TM + "managed.size", "")) == exact)
    assert small["input"]["config"] == {TM + "managed.size": "8660m"}
    assert size_spelling(exact) == "8660m" and size_spelling(3 * (1 << 40)) == "3t" and size_spelling(1000) == "1000"


def test_a_tab_the_failure_needs_stays() -> None:
    """Plainer where it can be (lower case), but the tab is what fails."""
    small = reduce(_memory({TM + "managed.size": "\t1Gb"}),
                   lambda r: r["input"]["config"].get(TM + "managed.size", "").startswith("\t"))
    assert small["input"]["config"] == {TM + "managed.size": "\t1gb"}
    exact = reduce(_memory({TM + "managed.size": "\t1Gb"}),
                   lambda r: r["input"]["config"].get(TM + "managed.size") == "\t1Gb")
    assert exact["input"]["config"] == {TM + "managed.size": "\t1Gb"}


def _comma_fraction(request: Request) -> bool:
    """A fraction written with a decimal comma (Flink cannot parse it)."""
    return "," in request["input"]["config"].get(TM + "managed.fraction", "")


def test_a_comma_fraction_stays_a_comma_fraction_but_plainer() -> None:
    assert reduce(_memory({TM + "managed.fraction": " 0,10 "}), _comma_fraction)["input"]["config"] == {
        TM + "managed.fraction": "0,1"}
    assert reduce(_memory({TM + "managed.fraction": "0,1"}), _comma_fraction)["input"]["config"] == {
        TM + "managed.fraction": "0,1"}


def test_candidate_lists() -> None:
    """Plainest first (the value's own spelling first among equally plain ones); only strictly plainer
    spellings; round values of the value's kind."""
    sizes = string_candidates(TM + "process.size", " 49545216000 BYTES")
    assert sizes[:10] == ["0", "1m", "2m", "4m", "8m", "1g", "2g", "4g", "8g", "1t"]
    assert "47250m" in sizes and sizes.index("47250m") > sizes.index("512g")
    assert string_candidates(TM + "managed.fraction", " 0,10 ") == ["0,1", "0", "1", "0.1", "0.5", "0,10"]
    assert string_candidates("classloader.resolve-order", " Child-First") == [
        "child-first", "Child-First", " child-first"]
    assert string_candidates("k", "TRUE") == ["true", "false"]
    assert string_candidates("taskmanager.numberOfTaskSlots", " 4 ") == ["4"]
    assert int_candidates(1234) == [0, 1, 2, 10, 100, 1000, 2000, 1200, 1300, 1230, 1240]
    assert int_candidates(7) == int_candidates(10) == int_candidates(3000) == []  # round already
    assert int_candidates(12) == [0, 1, 2, 10, 20]
    assert all(rank("", str(c)) < rank("", "600001") for c in int_candidates(600001))
    assert max(int_candidates(2**63 - 1)) < 2**63 and min(int_candidates(-(2**63))) >= -(2**63)  # Java longs


def test_a_round_value_is_final() -> None:
    """``16g`` is as plain as ``1t``: a round value in its plain spelling is not traded for another."""
    assert string_candidates(TM + "flink.size", "16g") == []
    assert "16g" in string_candidates(TM + "flink.size", "17179869184")
    assert rank(TM + "flink.size", "16g") == rank(TM + "flink.size", "1t") < rank(TM + "flink.size", "8660m")
    assert rank(TM + "flink.size", "8660m") < rank(TM + "flink.size", "8867840k")
    big = _memory({TM + "flink.size": "16g"})

    def above_10g(r: Request) -> bool:
        return (_size_or_none(r["input"]["config"].get(TM + "flink.size", "")) or 0) > 10 << 30

    assert reduce(big, above_10g) == big
    assert reduce(_memory({TM + "flink.size": " 17179869184 "}), above_10g) == big


def _is_one_minimal(request: Request, still_fails: Callable[[Request], bool]) -> bool:
    """Removing any single config key makes the failure go away."""
    config = request["input"]["config"]
    return not any(still_fails(_memory({k: v for k, v in config.items() if k != key}, request["flink"]))
                   for key in config)


def test_the_result_fails_is_one_minimal_deterministic_and_a_fixpoint() -> None:
    """Still fails, no key can go, the key order does not matter, and reducing again changes nothing."""
    small = reduce(_memory(NOISY), _managed_and_big_process)
    assert _managed_and_big_process(small)
    assert _is_one_minimal(small, _managed_and_big_process)
    assert reduce(_memory(dict(reversed(NOISY.items()))), _managed_and_big_process) == small
    assert reduce(small, _managed_and_big_process) == small


def test_the_budget_is_respected() -> None:
    """Never more calls than ``max_calls``, and whatever comes out still fails."""
    for max_calls in (0, 1, 3, 5, 8, 13, 30, 2000):
        predicate, calls = _counted(_managed_and_big_process)
        small = reduce(_memory(NOISY), predicate, max_calls=max_calls)
        assert calls[0] <= max_calls
        assert _managed_and_big_process(small)
    unlimited, calls = _counted(_managed_and_big_process)
    reduce(_memory(NOISY), unlimited)
    assert calls[0] < 60


def test_event_numbers_are_rounded_together() -> None:
    """Equal timestamps move together; 0, 1, 2, powers of ten, then roundings (98765 -> 10000)."""
    events = [{"channel": 0, "watermark": 98765}, {"channel": 1, "watermark": 98765},
              {"channel": 0, "watermark": 123456789}, {"channel": 1, "status": "IDLE"}]
    req = {"area": "watermark.valve", "input": {"channels": 2, "events": events}}

    def fails(r: Request) -> bool:  # both channels reach the same watermark, above 1000, before an IDLE
        marks = [e["watermark"] for e in r["input"]["events"] if "watermark" in e]
        return len(marks) == 2 and marks[0] == marks[1] > 1000 and r["input"]["events"][-1].get("status") == "IDLE"

    small = reduce(req, fails)
    assert small["input"]["events"] == [{"channel": 0, "watermark": 10000}, {"channel": 1, "watermark": 10000},
                                        {"channel": 1, "status": "IDLE"}]


def test_coordinator_config_numbers_go_plain_and_booleans_stay() -> None:
    req = {"area": "checkpoint.coordinator",
           "input": {"config": {"max_concurrent": 2147483647, "timeout_ms": 600001, "unaligned": True},
                     "tasks": ["t0"], "events": [{"at": 1234, "trigger": "periodic"}]}}

    def fails(r: Request) -> bool:
        config, events = r["input"]["config"], r["input"]["events"]
        return (config.get("max_concurrent", 1) > 1 and config.get("timeout_ms", 0) > 500000
                and config.get("unaligned") is True and len(events) == 1 and events[0]["at"] > 1000)

    small = reduce(req, fails)
    assert small["input"]["config"] == {"max_concurrent": 2, "timeout_ms": 600000, "unaligned": True}
    assert small["input"]["events"] == [{"at": 2000, "trigger": "periodic"}]


# ----------------------------------------------------------------------------------------------
# End to end with the oracle: noisy real requests shrink to plain ones that still fail the same way.

NOISY_REAL = {
    TM + "process.size": " 12884901888 BYTES",
    TM + "task.heap.size": "\t1Gb",
    TM + "managed.size": "8867840K",
    TM + "jvm-overhead.max": "2 GB",
    TM + "jvm-metaspace.size": "268435456 bytes\n",
    "taskmanager.numberOfTaskSlots": "04",
}


def test_oracle_a_managed_size_shrinks_to_its_plain_spelling() -> None:
    """The answer's managed memory stays what it was: only that key and the fine-grained pair stay, the
    task heap (any size will do) as its own value spelled plainly."""
    managed = oracle.answer(_memory(NOISY_REAL))["output"]["managed"]
    same, calls = _counted(lambda r: oracle.answer(r).get("output", {}).get("managed") == managed)
    small = reduce(_memory(NOISY_REAL), same)
    assert small["input"]["config"] == {TM + "task.heap.size": "1g", TM + "managed.size": "8660m"}
    assert calls[0] < 60


def test_oracle_an_unparsable_fraction_shrinks_to_the_plainest_unparsable_one() -> None:
    """Flink cannot parse a decimal comma: the counterexample keeps one, plainer, with a round total."""
    config = {**NOISY_REAL, TM + "managed.fraction": " 0,10 "}
    del config[TM + "managed.size"]

    def unparsable(r: Request) -> bool:
        error = oracle.answer(r).get("error", {})
        return error.get("exception") == "IllegalArgumentException" and "managed.fraction" in error.get("message", "")

    assert unparsable(_memory(config))
    small = reduce(_memory(config), unparsable)
    assert small["input"]["config"] == {TM + "process.size": "1g", TM + "managed.fraction": "0,1"}


def test_oracle_class_names_become_plain() -> None:
    """A child-first lookup of a class in both jars: any name will do, so the plainest one."""
    req = {"area": "classloading.resolve", "flink": "2.3",
           "input": {"config": {"classloader.resolve-order": "child-first"},
                     "user_classes": ["com.acme.Job", "org.foo.Util$Inner"], "parent_classes": ["com.acme.Job"],
                     "lookups": ["com.acme.Job", "java.lang.String", "org.foo.Util$Inner"]}}
    small = reduce(req, lambda r: oracle.answer(r).get("output", {}).get("resolved", [])[:1] == ["user"])
    assert small["input"] == {"config": {}, "user_classes": ["A"], "parent_classes": [], "lookups": ["A"]}
