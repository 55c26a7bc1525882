"""Cheap draws for ``@st.composite`` strategies that choose among values computed per draw.

``draw(st.sampled_from(some_list))`` builds, validates and labels a new strategy on every call
(Hypothesis caches strategies only for hashable arguments); in the loops that build event
sequences that was most of the drawing time. These helpers make the same choices through one
cached integer strategy per range, and shrink the same way (towards the first element, and
towards the order given).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from typing import Any, TypeVar

from hypothesis import strategies as st

T = TypeVar("T")


def choice(draw: st.DrawFn, seq: Sequence[T]) -> T:
    """One element of the non-empty ``seq``, as ``draw(st.sampled_from(seq))``."""
    return seq[draw(integers(0, len(seq) - 1))] if len(seq) > 1 else seq[0]


def shuffled(draw: st.DrawFn, seq: Sequence[T]) -> list[T]:
    """A permutation of ``seq``, as ``draw(st.permutations(seq))``."""
    out = list(seq)
    for i in range(len(out) - 1):
        j = draw(integers(i, len(out) - 1))
        out[i], out[j] = out[j], out[i]
    return out


def sampled(values: Sequence[T]) -> st.SearchStrategy[T]:
    """``st.sampled_from(values)``, built once per tuple of values where they are hashable (a list is read as the
    tuple of its elements): the same strategy, so the same draws and choices, without building and validating a
    new one on every call. Only for a strategy drawn at once: ``st.one_of`` counts an object given twice once,
    so ``one_of(sampled(x), sampled(x))`` would weigh ``x`` half as much as two ``st.sampled_from(x)`` of a list."""
    key = _hashable(values)
    return st.sampled_from(values) if key is None else _sampled(key)


def _hashable(values: Sequence[Any]) -> tuple[Any, ...] | None:
    """``values`` as a tuple to cache a strategy by, or None if it is no list or tuple of hashable values."""
    if not isinstance(values, (list, tuple)):
        return None
    key = tuple(values)
    try:
        hash(key)
    except TypeError:
        return None
    return key


@lru_cache(maxsize=4096)
def _sampled(values: tuple[Any, ...]) -> st.SearchStrategy[Any]:
    return st.sampled_from(values)


def lists_of(values: Sequence[T], min_size: int = 0, max_size: int | None = None,
             unique: bool = False) -> st.SearchStrategy[list[T]]:
    """``st.lists(st.sampled_from(values), ...)``, built once per arguments where the values are hashable (as
    :func:`sampled`)."""
    key = _hashable(values)
    if key is None:
        return st.lists(st.sampled_from(values), min_size=min_size, max_size=max_size, unique=unique)
    return _lists_of(key, min_size, max_size, unique)


@lru_cache(maxsize=4096)
def _lists_of(values: tuple[Any, ...], min_size: int, max_size: int | None, unique: bool) -> st.SearchStrategy[Any]:
    return st.lists(_sampled(values), min_size=min_size, max_size=max_size, unique=unique)


@lru_cache(maxsize=4096)
def integers(min_value: int | None = None, max_value: int | None = None) -> st.SearchStrategy[int]:
    """``st.integers(min_value, max_value)``, built once per bounds: a composite strategy draws from these on every
    call, and Hypothesis's own cache of them costs more per lookup than a draw of one integer."""
    return st.integers(min_value, max_value)


@cache
def booleans() -> st.SearchStrategy[bool]:
    """``st.booleans()``, built once (as :func:`integers`)."""
    return st.booleans()
