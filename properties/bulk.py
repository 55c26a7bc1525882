"""Drawing many values of a strategy without Hypothesis's search engine (issue 30).

``properties.corpus.draw`` fills the corpora that every run checks (every case of ``check``, every
``fanout`` chunk, the meta-tests' samples). Through the engine, each value costs a test run: a new
``ConjectureData`` recording every choice as a node with its span, labels and observations, plus the
engine's bookkeeping. None of that is needed to draw a case: its values are judged in batches, and
only a failing one is worth Hypothesis's bookkeeping, while it is shrunk. Here each value is drawn
by the strategy's own ``do_draw`` code from Hypothesis's own ``HypothesisProvider`` (the same
distributions: boundary values, the constants pool, the ``weights`` of ``sampled_from``), with the
per-choice bookkeeping left out.

Value ``i`` of seed ``s`` depends on ``(s, i)`` only, so a corpus is the same whatever slice of it is
drawn and wherever (``fanout``'s partitions), and a value can be drawn again alone. Its choices,
recorded as drawn, replay it under Hypothesis: ``ConjectureData.for_choices(choices)`` draws the same
value (:func:`replay`, which the tests check on every area).

A value found failing is shrunk by Hypothesis's own shrinker, started from its recorded choices
(:func:`shrink`): nothing before it is drawn again to reach it.

This reaches below Hypothesis's public API (``ConjectureData``'s draw methods, ``ConjectureRunner``),
so the suite pins the Hypothesis release it is tested with (pyproject.toml).
"""

from __future__ import annotations

import contextlib
import math
import random
from collections.abc import Callable
from typing import Any, TypeVar

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.control import BuildContext
from hypothesis.errors import StopTest, UnsatisfiedAssumption
from hypothesis.internal.conjecture.data import ConjectureData
from hypothesis.internal.conjecture.engine import ConjectureRunner, RunIsComplete
from hypothesis.internal.escalation import InterestingOrigin
from hypothesis.internal.floats import float_to_int, int_to_float
from hypothesis.strategies._internal.lazy import unwrap_strategies

T = TypeVar("T")
ATTEMPTS = 1000  # draws of one value rejected (a filter, assume) before giving up, as Hypothesis's health check


class _Draw(ConjectureData):
    """A ``ConjectureData`` that only draws: choices come from its provider and are kept as plain values."""

    def __init__(self, rnd: random.Random) -> None:
        super().__init__(random=rnd)
        self.drawn: list[Any] = []

    def draw(self, strategy: st.SearchStrategy[T], label: int | None = None, observe_as: str | None = None) -> T:
        return unwrap_strategies(strategy).do_draw(self)  # type: ignore[no-untyped-call,no-any-return]

    def _draw(self, choice_type: Any, constraints: Any, *, observe: bool, forced: Any) -> Any:
        if forced is None:
            value = getattr(self.provider, f"draw_{choice_type}")(**constraints)
            if choice_type == "float" and math.isnan(value):  # as ConjectureData: one nan, never equal to another
                value = int_to_float(float_to_int(value))
        else:
            value = forced
        if observe:
            self.drawn.append(value)
        return value

    def _pooled_constraints(self, choice_type: Any, constraints: Any) -> Any:
        return constraints

    def track_arg_label(self, label: str) -> _NoLabels:  # type: ignore[override]
        return _NO_LABELS

    def start_span(self, label: int) -> None:
        self.depth += 1  # many() checks the depth its elements are drawn at

    def stop_span(self, *, discard: bool = False) -> None:
        self.depth -= 1


class _NoLabels:
    """What :meth:`_Draw.track_arg_label` gives: no labels (they only name arguments in printed examples)."""

    def __enter__(self) -> dict[str, Any]:
        return {}

    def __exit__(self, *exc: object) -> None:
        return None


_NO_LABELS = _NoLabels()


class _Unprinted(BuildContext):
    """A build context that keeps nothing for printing examples: ``st.builds`` records how it built each
    object for a failing example's printout, a cost per draw that drawing in bulk never uses."""

    def record_call(self, obj: object, func: object, *, args: Any, kwargs: Any, arg_labels: Any = None) -> None:
        return None


def _random(seed: int, index: int) -> random.Random:
    return random.Random(f"flinkspec:{seed}:{index}")


def _one(strategy: st.SearchStrategy[T], seed: int, index: int) -> tuple[T, tuple[Any, ...]]:
    rnd = _random(seed, index)
    for _ in range(ATTEMPTS):
        data = _Draw(rnd)
        with contextlib.suppress(UnsatisfiedAssumption, StopTest):
            return data.draw(strategy), tuple(data.drawn)
    raise ValueError(f"{strategy!r} rejected {ATTEMPTS} draws in a row (seed {seed}, value {index})")


def one(strategy: st.SearchStrategy[T], seed: int, index: int) -> tuple[T, tuple[Any, ...]]:
    """Value ``index`` of seed ``seed``, and the choices that replay it under Hypothesis."""
    with _Unprinted(ConjectureData.for_choices(()), wrapped_test=one):
        return _one(strategy, seed, index)


def values(strategy: st.SearchStrategy[T], n: int, seed: int, start: int = 0) -> list[T]:
    """Values ``start`` ... ``start + n - 1`` of seed ``seed``."""
    with _Unprinted(ConjectureData.for_choices(()), wrapped_test=values):
        return [_one(strategy, seed, i)[0] for i in range(start, start + n)]


def replay(strategy: st.SearchStrategy[T], choices: tuple[Any, ...]) -> T:
    """The value Hypothesis draws from ``strategy`` given ``choices`` (those :func:`one` recorded)."""
    data = ConjectureData.for_choices(choices)
    with BuildContext(data, wrapped_test=replay):
        return data.draw(strategy)


class _Fails(Exception):
    """The one way a value shrunk by :func:`shrink` is interesting."""


_FAILS = InterestingOrigin.from_exception(_Fails())
_SHRINK = settings(database=None, deadline=None, phases=[Phase.shrink], suppress_health_check=list(HealthCheck))


def shrink(strategy: st.SearchStrategy[T], choices: tuple[Any, ...], fails: Callable[[T], bool]) -> None:
    """Hypothesis's shrinker on the value ``choices`` replay (those :func:`one` recorded), keeping
    every smaller value of which ``fails`` holds: ``fails`` sees each value tried, and the caller keeps
    what it needs of them (and ends the shrinking when it wants by raising a ``BaseException``)."""
    def test(data: ConjectureData) -> None:
        with _Unprinted(data, wrapped_test=shrink):
            value = data.draw(strategy)
        if fails(value):
            data.mark_interesting(_FAILS)

    runner = ConjectureRunner(test, settings=_SHRINK, random=random.Random(0))
    with contextlib.suppress(RunIsComplete):
        runner.cached_test_function(choices)
        runner.shrink_interesting_test_cases()
