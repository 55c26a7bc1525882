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


@cache
def _between(lo: int, hi: int) -> st.SearchStrategy[int]:
    return st.integers(lo, hi)


def choice(draw: st.DrawFn, seq: Sequence[T]) -> T:
    """One element of the non-empty ``seq``, as ``draw(st.sampled_from(seq))``."""
    return seq[draw(_between(0, len(seq) - 1))] if len(seq) > 1 else seq[0]


def shuffled(draw: st.DrawFn, seq: Sequence[T]) -> list[T]:
    """A permutation of ``seq``, as ``draw(st.permutations(seq))``."""
    out = list(seq)
    for i in range(len(out) - 1):
        j = draw(_between(i, len(out) - 1))
        out[i], out[j] = out[j], out[i]
    return out


def sampled(values: tuple[T, ...]) -> st.SearchStrategy[T]:
    """``st.sampled_from(values)`` for hashable values, built once per tuple: the same strategy, so the same
    draws and choices, without building and validating a new one on every call."""
    return _sampled(values)


@lru_cache(maxsize=4096)
def _sampled(values: tuple[Any, ...]) -> st.SearchStrategy[Any]:
    return st.sampled_from(values)


@lru_cache(maxsize=4096)
def lists_of(values: tuple[Any, ...], min_size: int = 0, max_size: int | None = None,
             unique: bool = False) -> st.SearchStrategy[list[Any]]:
    """``st.lists(st.sampled_from(values), ...)``, built once per arguments (as :func:`sampled`)."""
    return st.lists(sampled(values), min_size=min_size, max_size=max_size, unique=unique)
