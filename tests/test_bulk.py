"""Bulk drawing (properties.bulk): each value depends on its seed and index only, and Hypothesis draws
the same value from the choices recorded with it, on every area's strategy."""

from __future__ import annotations

import pytest
from hypothesis import strategies as st

from oracle.versions import LATEST
from properties import bulk, corpus
from properties.areas import AREAS
from properties.corpus import draw


@pytest.mark.parametrize("area", list(AREAS))
def test_a_value_depends_on_its_seed_and_index_only(area: str) -> None:
    strategy = AREAS[area].requests(AREAS[area].versions[-1])
    whole = bulk.values(strategy, 12, 5)
    assert bulk.values(strategy, 4, 5, start=8) == whole[8:]
    assert [bulk.one(strategy, 5, i)[0] for i in (3, 0)] == [whole[3], whole[0]]
    assert draw(strategy, 12, 5) == whole
    assert bulk.values(strategy, 12, 6) != whole


@pytest.mark.parametrize("area", list(AREAS))
def test_hypothesis_replays_each_value_from_its_choices(area: str) -> None:
    strategy = AREAS[area].requests(AREAS[area].versions[-1])
    for i in range(25):
        value, choices = bulk.one(strategy, 0, i)
        assert choices, "a value drawn without a choice cannot be replayed"
        assert bulk.replay(strategy, choices) == value


def test_values_are_varied() -> None:
    strategy = AREAS["memory.taskmanager"].requests(LATEST)
    drawn = bulk.values(strategy, 200, 0)
    assert len({repr(v) for v in drawn}) >= 180


def test_filters_and_assumptions_are_retried_deterministically() -> None:
    evens = st.integers(0, 1000).filter(lambda x: x % 2 == 0)
    assert bulk.values(evens, 50, 3) == bulk.values(evens, 50, 3)
    assert all(x % 2 == 0 for x in bulk.values(evens, 50, 3))


def test_a_strategy_that_rejects_everything_is_named() -> None:
    never = st.integers(0, 10).filter(lambda x: str(x) == "z")
    with pytest.raises(ValueError, match="rejected 1000 draws in a row"):
        bulk.values(never, 1, 0)


def test_hypothesis_shrinks_a_value_from_its_choices() -> None:
    """The shrinker starts from the failing value the choices replay (nothing else is drawn first) and
    reaches Hypothesis's minimal failing value; every value it tries is one the strategy can draw."""
    strategy = st.lists(st.integers(0, 1000), max_size=20)
    index = next(i for i in range(100) if sum(bulk.one(strategy, 3, i)[0]) > 3000)
    start, choices = bulk.one(strategy, 3, index)
    tried: list[list[int]] = []

    def fails(value: list[int]) -> bool:
        tried.append(value)
        return sum(value) > 3000

    bulk.shrink(strategy, choices, fails)
    assert tried[0] == start
    assert all(len(v) <= 20 and all(0 <= x <= 1000 for x in v) for v in tried)
    assert min((v for v in tried if sum(v) > 3000), key=lambda v: (len(v), v)) == [1, 1000, 1000, 1000]


class _Stop(BaseException):
    pass


def test_the_caller_ends_a_shrink_when_it_wants() -> None:
    """A ``BaseException`` raised by ``fails`` leaves the shrinker at once (``check``'s budget in requests)."""
    strategy = st.lists(st.integers(0, 1000), max_size=20)
    choices = bulk.one(strategy, 3, next(i for i in range(100) if sum(bulk.one(strategy, 3, i)[0]) > 3000))[1]
    calls = []

    def fails(value: list[int]) -> bool:
        calls.append(value)
        if len(calls) == 5:
            raise _Stop
        return sum(value) > 3000

    with pytest.raises(_Stop):
        bulk.shrink(strategy, choices, fails)
    assert len(calls) == 5


@pytest.mark.parametrize("area", list(AREAS))
def test_a_corpus_is_the_same_whatever_release_draws_it_first_and_its_choices_replay_it(area: str) -> None:
    """``check`` at several releases shares a corpus among those of one ``corpus_key``: its inputs do not
    depend on which release was checked first, and the choices ``check`` shrinks from replay each input."""
    first, last = AREAS[area].versions[0], AREAS[area].versions[-1]
    got = []
    for order in ((first, last), (last, first)):
        corpus._CACHE.clear()
        got.append({str(ver): corpus.inputs(area, ver, 6, 2) for ver in order})
    assert got[0] == got[1]
    for ver in (first, last):
        for i in (0, 5):
            replayed = bulk.replay(corpus.input_strategy(area, ver), corpus.choices(area, ver, 2, i))
            assert replayed == got[0][str(ver)][i]
