"""Meta-tests: the memory strategies reach the corners where implementations go wrong."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, find, settings

from oracle.versions import LATEST, v
from properties.memory.invariants import size_of
from properties.memory.strategies import (
    ALL_UNIT_SPELLINGS,
    JM,
    TM,
    TM_LEGACY_KEYS,
    f32,
    good_size_text,
    jobmanager_configs,
    taskmanager_configs,
)

# generate only: a meta-test needs any witness, not a minimal one
REACH = settings(max_examples=6000, database=None, deadline=None, phases=[Phase.generate], derandomize=True,
                 suppress_health_check=list(HealthCheck))


def reaches(strategy: Any, predicate: Callable[[dict[str, str]], bool]) -> dict[str, str]:
    return find(strategy, predicate, settings=REACH)


@pytest.mark.parametrize("unit", ALL_UNIT_SPELLINGS)
def test_every_unit_spelling_is_generated(unit: str) -> None:
    """Every unit Flink accepts is rendered, in some case, by the size strategy."""
    find(good_size_text, lambda text: text.strip().lower().endswith(unit)
         and text.strip().lower()[: -len(unit)].strip().isdigit(), settings=REACH)


@pytest.mark.parametrize(
    ("corner", "predicate"),
    [
        ("a size past a long", lambda c: any(x in ("9223372036854775808", "8388608t") for x in c.values())),
        ("exactly Long.MAX bytes", lambda c: any(size_of(x) == (1 << 63) - 1 for x in c.values())),
        ("a fraction of 0", lambda c: c.get(TM + "network.fraction", "").strip() in ("0", "0.0")),
        ("a fraction of 1", lambda c: c.get(TM + "managed.fraction", "").strip() in ("1", "1.0")),
        ("a Java-only float spelling", lambda c: c.get(TM + "jvm-overhead.fraction") in ("0.1f", "1e-1", " 0.1 ")),
        ("network min above max", lambda c: (size_of(c.get(TM + "network.min")) or 0)
         > (size_of(c.get(TM + "network.max")) or 1 << 62)),
        ("an unparsable size", lambda c: any(x in ("1.5g", "abc", "-1m") for x in c.values())),
        ("surrounding whitespace", lambda c: any(x != x.strip() and size_of(x) is not None for x in c.values())),
        ("a deprecated key", lambda c: "taskmanager.network.memory.fraction" in c),
        ("process size where the overhead fraction meets its min, +-2",
         lambda c: size_of(c.get(TM + "process.size")) in {
             int(192 * 2**20 / f32(0.1)) + d for d in (-2, -1, 0, 1, 2)}),
        ("all three modes at once", lambda c: all(TM + k in c for k in ("task.heap.size", "managed.size",
                                                                          "flink.size", "process.size"))),
        ("no mode at all", lambda c: not any(TM + k in c for k in ("task.heap.size", "flink.size", "process.size"))),
        ("zero or negative cpu cores", lambda c: c.get("taskmanager.cpu.cores") in ("0", "-1", "0.0")),
        # the boundary shapes of each kind of value
        ("an empty size", lambda c: any(k.endswith((".size", ".min", ".max")) and x == "" for k, x in c.items())),
        ("a size with punctuation at an end", lambda c: any(x in ("1m;", ";1m", "$1m", ",1m", "1m,", "#1m")
                                                            for x in c.values())),
        ("a size padded with a no-break space", lambda c: any("\u00a0" in x for x in c.values())),
        ("a size in digits beyond ASCII", lambda c: any(x in ("١m", "１２m") for x in c.values())),
        ("an empty fraction", lambda c: any(k.endswith("fraction") and x == "" for k, x in c.items())),
        ("a fraction with a sign or a bare point", lambda c: any(k.endswith("fraction") and x in ("+0.1", ".1", "1.")
                                                                 for k, x in c.items())),
        ("a hex float fraction", lambda c: any(k.endswith("fraction") and x.lower().startswith("0x")
                                               for k, x in c.items())),
        ("a fraction with punctuation at an end", lambda c: any(k.endswith("fraction") and x in ("0.1;", "$0.1")
                                                                for k, x in c.items())),
        ("an int in digits beyond ASCII", lambda c: any(x in ("٤", "２") for x in c.values())),
        ("an int with a sign or a leading zero", lambda c: any(x in ("+4", "04", "-0") for x in c.values())),
        ("an empty int", lambda c: any(k in ("taskmanager.numberOfTaskSlots", "taskmanager.heap.mb",
                                             "taskmanager.network.numberOfBuffers") and x == "" for k, x in c.items())),
        ("empty cpu cores", lambda c: c.get("taskmanager.cpu.cores") == ""),
        ("padded cpu cores", lambda c: c.get("taskmanager.cpu.cores") == " 1 "),
    ],
)
def test_taskmanager_strategy_reaches(corner: str, predicate: Callable[[dict[str, str]], bool]) -> None:
    """The TaskManager strategy reaches the named corner."""
    reaches(taskmanager_configs(LATEST), predicate)


@pytest.mark.parametrize("key", TM_LEGACY_KEYS)
def test_legacy_keys_are_generated(key: str) -> None:
    """Each legacy key of Flink <= 1.20 is generated."""
    reaches(taskmanager_configs(v("1.13")), lambda c: key in c)


@pytest.mark.parametrize(
    ("corner", "predicate"),
    [
        ("heap and flink size", lambda c: JM + "heap.size" in c and JM + "flink.size" in c),
        ("direct memory limit on", lambda c: c.get(JM + "enable-jvm-direct-memory-limit") == "true"),
        ("legacy heap in mb", lambda c: "jobmanager.heap.mb" in c),
        ("an empty boolean", lambda c: c.get(JM + "enable-jvm-direct-memory-limit") == ""),
        ("a padded boolean", lambda c: c.get(JM + "enable-jvm-direct-memory-limit") in (" true", "false ")),
        ("a boolean of mixed case", lambda c: c.get(JM + "enable-jvm-direct-memory-limit") == "tRuE"),
        ("a boolean led by punctuation", lambda c: c.get(JM + "enable-jvm-direct-memory-limit") == ";true"),
    ],
)
def test_jobmanager_strategy_reaches(corner: str, predicate: Callable[[dict[str, str]], bool]) -> None:
    """The JobManager strategy reaches the named corner."""
    reaches(jobmanager_configs(LATEST), predicate)


@pytest.mark.parametrize("area", ["memory.taskmanager", "memory.jobmanager"])
def test_a_good_share_of_configurations_is_accepted(area: str) -> None:
    """At least a quarter of the generated configurations are ones Flink accepts (the strategy
    explores valid derivations, not only rejections), and at least a quarter are rejected."""
    import oracle
    from properties.corpus import draw
    from properties.memory.strategies import requests

    answers = [oracle.answer({"id": 1, **r}) for r in draw(requests(area, LATEST), 400, 1)]
    accepted = sum("output" in a for a in answers)
    assert 100 <= accepted <= 300, accepted


def test_one_config_in_five_spells_a_size_with_a_capital_unit() -> None:
    """TM-11/JM-7's witness: a size in the documented syntax whose unit has a capital letter (4G, 512MB)."""
    from properties.corpus import inputs
    from properties.memory.invariants import documented_size

    def capital(config: dict[str, str]) -> bool:
        return any(documented_size(val) is not None and val.strip().lower() != val.strip() for val in config.values())

    for area in ("memory.taskmanager", "memory.jobmanager"):
        assert sum(capital(i["config"]) for i in inputs(area, LATEST, 300, 0)) >= 60


def test_one_config_in_twenty_derives_more_than_1g_of_network_memory_by_default() -> None:
    """TM-12's witness of the 1.17 default (network.max Long.MAX_VALUE): an accepted configuration with no
    task heap, no network max and no legacy buffers, whose network memory (its fraction) exceeds 1g."""
    import oracle
    from properties.corpus import inputs

    def witness(config: dict[str, str]) -> bool:
        keys = (TM + "task.heap.size", TM + "network.max", "taskmanager.network.memory.max",
                "taskmanager.network.numberOfBuffers")
        out = oracle.answer({"id": 1, "area": "memory.taskmanager", "flink": str(LATEST),
                             "input": {"config": config}}).get("output")
        return out is not None and not any(k in config for k in keys) and out["network"] > 1 << 30

    assert sum(witness(i["config"]) for i in inputs("memory.taskmanager", LATEST, 300, 0)) >= 15
