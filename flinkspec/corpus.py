"""Generated request corpora: drawn once with Hypothesis from the suite's strategies, then reused.

A check of many Flink versions draws each area's inputs once per seed (strategies that do not
depend on the version share one corpus) and pipelines them through the implementation in
batches; generation, not answering, is what costs time.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from oracle.versions import FlinkVersion
from properties.areas import AREAS

MAX_CHOICES = 100_000  # per drawn value

_CACHE: dict[tuple[Any, ...], list[dict[str, Any]]] = {}


def draw(strategy: st.SearchStrategy[dict[str, Any]], n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` values of ``strategy`` with a fixed seed: the same list on every run.

    Each value is an independent draw from ``random.Random(seed)`` (:func:`_independent`). Running
    the strategy under Hypothesis's test engine instead gives about half as many distinct values
    (its generate phase mutates earlier examples: 159 distinct of 300 memory configs against 294)
    at half the speed; the engine is the fallback should Hypothesis's internals change.
    """
    if n <= 0:
        return []
    try:
        return _independent(strategy, n, seed)
    except (ImportError, TypeError, AttributeError):  # pragma: no cover - a Hypothesis without these internals
        return _engine(strategy, n, seed)


def _independent(strategy: st.SearchStrategy[dict[str, Any]], n: int, seed: int) -> list[dict[str, Any]]:
    from hypothesis.control import BuildContext
    from hypothesis.errors import StopTest, UnsatisfiedAssumption
    from hypothesis.internal.conjecture.data import ConjectureData

    rnd = random.Random(seed)
    out: list[dict[str, Any]] = []
    for _ in range(50 * n):
        data = ConjectureData(random=rnd, max_choices=MAX_CHOICES)
        try:
            with BuildContext(data, wrapped_test=lambda: None):
                out.append(data.draw(strategy))
        except (StopTest, UnsatisfiedAssumption):
            continue  # too many choices, or a filter rejected it: draw again
        if len(out) == n:
            return out
    raise RuntimeError(f"{strategy!r} rejected {50 * n - len(out)} of {50 * n} draws")


def _engine(strategy: st.SearchStrategy[dict[str, Any]], n: int, seed: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(value: dict[str, Any]) -> None:
        out.append(value)

    hypothesis_seed(seed)(collect)()
    return out[:n]


def inputs(area: str, version: FlinkVersion, n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` generated ``input`` objects for ``area`` at ``version`` (cached per strategy and seed)."""
    spec = AREAS[area]
    source = AREAS[spec.corpus_of or area]  # an area may extend another's inputs (see AreaSpec.corpus_of)
    key = (source.name, source.corpus_key(version), n, seed)
    if key not in _CACHE:
        _CACHE[key] = [r["input"] for r in draw(source.requests(version), n, seed)]
    return [spec.adapt(inp, version) for inp in _CACHE[key]]
