"""Event sequences for the valve, multi-input operators and timers, built to reach the corners.

Timestamps come from a small per-sequence pool (so equal watermarks, regressions and channels
resuming behind the output are common) seeded with ``Long.MIN_VALUE``/``MAX_VALUE`` and their
neighbours; sequences may end with every channel going idle in a drawn order, sometimes just after
a channel resumed behind the output (so an active channel is left unaligned when the others go
idle: FLINK-7721's corner); a few sequences are thousands of events long (drawn from one seed, for
stress, not for shrinking).
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import strategies as st

from oracle.versions import FlinkVersion
from oracle.watermark import COMBINED, SUBPARTITIONS_SINCE, VALVE
from properties.draws import integers

LONG_MIN, LONG_MAX = -(1 << 63), (1 << 63) - 1
CORNER_TIMESTAMPS = (LONG_MIN, LONG_MIN + 1, -1, 0, 1, 2, 3, 5, 10, 100, LONG_MAX - 1, LONG_MAX)

_timestamp = st.one_of(st.sampled_from(CORNER_TIMESTAMPS), integers(-5, 20), integers(LONG_MIN, LONG_MAX))
_pool = st.lists(_timestamp, min_size=1, max_size=6)
_channels = st.one_of(integers(1, 3), integers(1, 3), integers(1, 16))
# kind 0-2: watermark (most common), 3: IDLE, 4: ACTIVE
_step = st.tuples(integers(0, 4), integers(0, 1 << 16), integers(0, 1 << 16))
_steps = st.lists(_step, max_size=40)
_tail = integers(0, 2).map(lambda n: n == 2)  # timers: a final Long.MAX_VALUE watermark; shrinks towards none
# how a short sequence ends: 0-3 as drawn, 4 every channel goes idle, 5 first a channel resumes behind
# the output (the others at the pool's largest timestamp), then every channel goes idle; shrinks towards 0
_ending = integers(0, 5)


def _events(index: str, n: int, pool: list[int], steps: list[tuple[int, int, int]]) -> list[dict[str, Any]]:
    """Events from drawn steps. A multi-input operator (``index == "input"``) only ever receives
    watermarks from active inputs, because each input's valve drops the others (WM-8)."""
    out: list[dict[str, Any]] = []
    idle = [False] * n
    for kind, ch, ts in steps:
        c = ch % n
        if kind <= 2:
            if not (index == "input" and idle[c]):
                out.append({index: c, "watermark": sorted(pool)[ts % len(pool)]})
        else:
            idle[c] = kind == 3
            out.append({index: c, "status": "IDLE" if kind == 3 else "ACTIVE"})
    return out


@st.composite
def short_sequences(draw: st.DrawFn, index: str, max_n: int | None = None) -> dict[str, Any]:
    n = draw(_channels if max_n is None else integers(1, max_n))
    pool = draw(_pool)
    steps = draw(_steps)
    ending = draw(_ending)
    if ending == 5 and n > 1:  # a channel resumes behind the output: active but not aligned (FLINK-7721)
        late, top = draw(integers(0, n - 1)), len(pool) - 1  # steps index the sorted pool
        steps = [*steps, (0, late, 0), (3, late, 0), *((0, ch, top) for ch in range(n) if ch != late), (4, late, 0)]
    events = _events(index, n, pool, steps)
    if ending >= 4:  # every channel goes idle, in a drawn order
        events += [{index: ch, "status": "IDLE"} for ch in draw(st.permutations(range(n)))]
    return {"channels" if index == "channel" else "inputs": n, "events": events}


def long_sequence(index: str, seed: int, max_n: int = 16) -> dict[str, Any]:
    """Thousands of events from one seed: stress, not shrinking."""
    rnd = random.Random(seed)
    n = rnd.randint(1, max_n)
    pool = [rnd.choice(CORNER_TIMESTAMPS) if rnd.random() < 0.3 else rnd.randint(-100, 10_000) for _ in range(30)]
    steps = [(rnd.randint(0, 4), rnd.randrange(n), rnd.randrange(len(pool))) for _ in range(rnd.randint(1000, 4000))]
    return {"channels" if index == "channel" else "inputs": n, "events": _events(index, n, pool, steps)}


def sequences(index: str, max_n: int | None = None) -> st.SearchStrategy[dict[str, Any]]:
    short = short_sequences(index, max_n)
    long = integers(0, 1 << 32).map(lambda s: long_sequence(index, s, max_n or 16))
    # about one sequence in twenty is thousands of events long (one_of would weight its last
    # branch far more: Hypothesis favours boundary indices); shrinks towards a short sequence
    return integers(0, 65535).flatmap(lambda x: long if x % 20 == 19 else short)


KEYS = ("a", "b", "c", "", "key-1", "ü", "$k", "1", " a")  # the empty key, keys of unusual first characters
NAMESPACES = (None, "window-1", "window-1", "", "ü-window", " ")  # None: VoidNamespace
_timer_step = st.tuples(integers(0, 5), integers(0, 1 << 16), integers(0, 2), integers(0, 1))
# each script uses a few keys and namespaces of all these, so that its deletions and re-registrations
# meet the timers it registered (over all of KEYS x NAMESPACES they would rarely meet)
_key_palette = st.lists(integers(0, len(KEYS) - 1), min_size=1, max_size=3)
_namespace_palette = st.lists(integers(0, len(NAMESPACES) - 1), min_size=1, max_size=2)


@st.composite
def timer_scripts(draw: st.DrawFn) -> dict[str, Any]:
    """Timers registered (often twice), deleted, and watermarks mostly advancing."""
    pool = sorted(draw(st.lists(_timestamp, min_size=1, max_size=6)))
    keys = [KEYS[i] for i in draw(_key_palette)]
    namespaces = [NAMESPACES[i] for i in draw(_namespace_palette)]
    events: list[dict[str, Any]] = []
    for kind, ts, key, ns in draw(st.lists(_timer_step, max_size=40)):
        t = pool[ts % len(pool)]
        if kind <= 2:
            ev: dict[str, Any] = {"register": t, "key": keys[key % len(keys)]}
        elif kind == 3:
            ev = {"delete": t, "key": keys[key % len(keys)]}
        else:
            events.append({"watermark": t})
            continue
        namespace = namespaces[ns % len(namespaces)]
        if namespace is not None:
            ev["namespace"] = namespace
        events.append(ev)
    if draw(_tail):
        events.append({"watermark": LONG_MAX})
    return {"events": events}


@st.composite
def with_subpartitions(draw: st.DrawFn, base: st.SearchStrategy[dict[str, Any]]) -> dict[str, Any]:
    """Since 1.19 (``SUBPARTITIONS_SINCE``) a channel may consume several subpartitions, each with
    its own watermark and status in the valve. One sequence in four gives each channel a range of 1
    to 3 subpartitions starting at 0 to 2; watermarks on a wider channel name their subpartition.
    Status events on a wider channel are left out; on the others they stay, and Flink refuses the
    whole sequence (SWV-10: a status input once any channel is shared), in about a third of them."""
    inp = draw(base)
    if draw(_SOME) != 3:  # shrinks towards no subpartitions
        return inp
    ranges = []
    for _ in range(inp["channels"]):
        first, width = draw(_FIRST), draw(_WIDTH)
        ranges.append([first, first + width - 1])
    events = []
    for i, ev in enumerate(inp["events"]):
        first, last = ranges[ev["channel"]]
        if last == first:
            events.append(ev)
        elif "watermark" in ev:
            events.append({**ev, "subpartition": first + (i * 7 + ev["channel"]) % (last - first + 1)})
    return {**inp, "subpartitions": ranges, "events": events}


_SOME, _FIRST, _WIDTH = integers(0, 3), integers(0, 2), st.sampled_from([1, 1, 2, 3])


def requests(area: str, version: FlinkVersion) -> st.SearchStrategy[dict[str, Any]]:
    """Protocol requests for one watermark area and version."""
    if area == VALVE:
        inputs = sequences("channel")
        if version >= SUBPARTITIONS_SINCE:
            inputs = with_subpartitions(inputs)
    elif area == COMBINED:
        inputs = sequences("input", max_n=2 if version.minor == 13 and version.major == 1 else 4)
    else:
        inputs = timer_scripts()
    return inputs.map(lambda i: {"area": area, "flink": str(version), "input": i})


def event_count(request: dict[str, Any]) -> int:
    return len(request["input"]["events"])
