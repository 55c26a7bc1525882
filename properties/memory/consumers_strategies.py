"""Requests for ``memory.consumers``: consumer-weight maps on and around every rule of ``ManagedMemoryUtils``.

A request draws the TaskManager's weights (unset, or a map of 0-4 entries: the three names, DATAPROC, names in
the wrong case and unknown ones; weights 0, small, large, ``Integer.MAX_VALUE`` so that their int sum wraps,
negative, unparsable, with a sign or out of int range; malformed entries: no colon, two colons, an empty
entry, a repeated name, quotes and blanks before 1.19, where no value YAML could read as a map is drawn), the
state backend in the TaskManager's and in the job's configuration (either key, rocksdb, hashmap, the legacy
names, forst, an unknown class), the use cases the slot declares, its operators' weights (some
``Integer.MAX_VALUE``), and what the application's state backend says of managed memory (mostly nothing).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from oracle.javanum import INT_MAX
from oracle.memory_consumers import BACKEND_KEYS, CONSUMERS, KEY, USE_CASES, YAML_MAPS
from oracle.versions import FlinkVersion
from properties.draws import booleans, integers, lists_of, sampled

AREA = CONSUMERS

# each pool: values most requests use, then the corners (drawn a sixth of the time, weights' a third)
NAMES = (("OPERATOR", "STATE_BACKEND", "PYTHON", "DATAPROC"), ("operator", "Python", "FOO", "", "ROCKSDB"))
WEIGHTS = (("70", "30", "0", "1", "2", "3", "100", "7", "2147483647"),
           ("-1", "-70", "abc", "", "+5", "2147483648", "-0", "1.5", "\u0667", "0x10", "00042"))
BACKENDS = (("rocksdb", "hashmap", "RocksDB", "HASHMAP", "forst", "jobmanager", "filesystem"),
            ("bogus", "", "java.lang.String", "ForSt"))
OPERATOR_WEIGHTS = (1, 1, 2, 3, 7, 100, 65536, INT_MAX)


def _pool(pools: tuple[tuple[str, ...], tuple[str, ...]], odds: int = 6) -> st.SearchStrategy[str]:
    common, corners = pools
    return integers(0, odds - 1).flatmap(lambda i: st.sampled_from(corners if i == 0 else common))


@st.composite
def entry(draw: st.DrawFn, name: str, legacy: bool) -> str:
    """One ``name:weight`` entry of the map, or a malformed one."""
    weight = draw(_pool(WEIGHTS, 3))
    if not legacy and not weight:
        weight = "abc"  # from 1.19 a value ending in ':' may be a YAML map (not modelled)
    kind = draw(integers(0, 29))
    if kind == 0:
        return name  # no colon
    if kind == 1:
        return f"{name}:{weight}:{weight}"  # two colons
    if kind == 2 and legacy:
        return draw(sampled([f"'{name}':{weight}", f"\"{name}:{weight}\"", f"{name}:'{weight}'",
                                     f"'{name}'x:{weight}", f"'{name}:{weight}"]))
    if kind == 3 and legacy:
        return f" {name} : {weight} "  # blanks around the pieces are trimmed
    if kind == 4:
        return f" {name}:{weight}"
    return f"{name}:{weight}"


@st.composite
def weights(draw: st.DrawFn, version: FlinkVersion) -> str:
    """A value of the consumer-weights option."""
    legacy = version < YAML_MAPS.at
    if draw(integers(0, 24)) == 0:  # two Integer.MAX_VALUE weights and a third: the int total wraps
        return f"OPERATOR:{INT_MAX},PYTHON:{INT_MAX},STATE_BACKEND:{draw(sampled(['2', '3', '70']))}"
    names = draw(st.lists(_pool(NAMES), min_size=0, max_size=4, unique=True))  # a repeated name: below
    items = [draw(entry(name, legacy)) for name in names]
    if items and draw(integers(0, 11)) == 0:
        items.append(items[0])  # a repeated entry
    if draw(integers(0, 15)) == 0:
        items.insert(draw(integers(0, len(items))), "")  # an empty entry
    return draw(sampled([",", ",", ",", ", "])).join(items)


@st.composite
def config(draw: st.DrawFn, version: FlinkVersion, weights_odds: int) -> dict[str, str]:
    out: dict[str, str] = {}
    if draw(integers(0, weights_odds - 1)) == 0:
        out[KEY] = draw(weights(version))
    if draw(integers(0, 2)) == 0:
        out[draw(sampled(BACKEND_KEYS))] = draw(_pool(BACKENDS))
    if draw(integers(0, 9)) == 0:
        out["taskmanager.memory.managed.fraction"] = "0.5"  # another managed-memory key: no part in the weights
    return out


@st.composite
def inputs(draw: st.DrawFn, version: FlinkVersion) -> dict[str, Any]:
    use_cases = draw(lists_of(USE_CASES, unique=True, max_size=3))
    out: dict[str, Any] = {"config": draw(config(version, 2)), "use_cases": use_cases}
    if draw(booleans()):
        out["job_config"] = draw(config(version, 4))
    if "OPERATOR" in use_cases and draw(integers(0, 2)) != 0:
        ops = draw(lists_of(OPERATOR_WEIGHTS, min_size=1, max_size=4))
        while sum(ops) > INT_MAX:  # a slot's operator weights sum to an int: the largest drawn goes
            ops.remove(max(ops))
        out["operator_weights"] = ops
    app = draw(sampled([None, None, None, None, True, False]))
    if app is not None:
        out["state_backend_uses_managed_memory"] = app
    return out


def requests(version: FlinkVersion) -> st.SearchStrategy[dict[str, Any]]:
    """Protocol requests for ``memory.consumers`` and ``version``."""
    return inputs(version).map(lambda i: {"area": AREA, "flink": str(version), "input": i})


def corpus_key(version: FlinkVersion) -> object:
    """Versions on one side of the YAML map values draw the same requests (no quotes nor blanks from 1.19)."""
    return version >= YAML_MAPS.at
