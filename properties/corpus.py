"""Generated request corpora: drawn once from the suite's strategies (in bulk, :mod:`properties.bulk`), then reused.

A check of many Flink versions draws each area's inputs once per seed (strategies that do not
depend on the version share one corpus) and pipelines them through the implementation in
batches; generation, not answering, is what costs time.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from oracle.versions import FlinkVersion
from properties import bulk
from properties.area import Area, ExtraCorpus
from properties.areas import AREAS, EXTRA_CORPORA

_CACHE: dict[tuple[Any, ...], list[dict[str, Any]]] = {}


def draw(strategy: st.SearchStrategy[dict[str, Any]], n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` values of ``strategy`` with a fixed seed: the same list on every run, drawn without
    the search engine (:mod:`properties.bulk`)."""
    return bulk.values(strategy, n, seed)


def engine_draw(strategy: st.SearchStrategy[dict[str, Any]], n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` values of ``strategy`` drawn by Hypothesis's engine (what :func:`draw` did before
    :mod:`properties.bulk`; the baseline ``bench.throughput`` measures against)."""
    out: list[dict[str, Any]] = []
    if n <= 0:
        return out

    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              derandomize=False,  # Hypothesis derandomizes under CI=true; the seed given must count
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(value: dict[str, Any]) -> None:
        out.append(value)

    hypothesis_seed(seed)(collect)()
    return out[:n]


@functools.cache
def sample(requests: Callable[[FlinkVersion], st.SearchStrategy[dict[str, Any]]], version: FlinkVersion,
           n: int) -> tuple[dict[str, Any], ...]:
    """``n`` requests of an area's strategy at ``version``, drawn once (seed 0) and kept: what a meta-test
    asks of the strategy (does it reach this corner?) is asked of the same sample."""
    return tuple(draw(requests(version), n, 0))


Drawn = tuple[dict[str, Any], dict[str, Any]]  # a request and the oracle's answer to it
Corner = Callable[[Drawn], bool]  # what a meta-test asks of one drawn request and its answer
Answered = tuple[Drawn, ...]
# a corner too rare for a shared sample: searched for, up to this many requests
SEARCH = settings(max_examples=6000, database=None, deadline=None, phases=[Phase.generate], derandomize=True,
                  suppress_health_check=list(HealthCheck))


@functools.cache
def answered(requests: Callable[[FlinkVersion], st.SearchStrategy[dict[str, Any]]], version: FlinkVersion,
             n: int) -> Answered:
    """:func:`sample`, each request with the oracle's answer to it (computed once)."""
    import oracle

    return tuple((r, oracle.answer({"id": 0, **r})) for r in sample(requests, version, n))


def _source(area: str) -> tuple[ExtraCorpus | Area, Callable[[dict[str, Any], FlinkVersion], dict[str, Any]] | None]:
    """What ``area``'s corpus is drawn from, and how each drawn input is made one of ``area`` (None: as drawn)."""
    if area in EXTRA_CORPORA:  # drawn by its own strategy, used as drawn
        return EXTRA_CORPORA[area], None
    spec = AREAS[area]
    return AREAS[spec.corpus_of or area], spec.adapt  # an area may extend another's inputs (see Area.corpus_of)


@functools.cache
def drawn_at(area: str, version: FlinkVersion) -> FlinkVersion:
    """The release whose strategy draws the corpus ``area`` uses at ``version``: the newest of the releases
    sharing its corpus (``corpus_key``), whichever of them is checked first (a strategy that differs
    between them, made valid for each by ``adapt``, gives the same corpus whatever the order of a run)."""
    source, _ = _source(area)
    owner = AREAS[source.area] if isinstance(source, ExtraCorpus) else source
    key = source.corpus_key(version)
    return max((v for v in owner.versions if source.corpus_key(v) == key), default=version)


def _drawn(area: str, version: FlinkVersion) -> st.SearchStrategy[dict[str, Any]]:
    source, _ = _source(area)
    return source.requests(drawn_at(area, version))


def inputs(area: str, version: FlinkVersion, n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` generated ``input`` objects for ``area`` (or an extra corpus) at ``version`` (cached per
    strategy and seed): input ``i`` is :func:`input_strategy`'s value ``i`` of ``seed``
    (:func:`properties.bulk.one`)."""
    source, adapt = _source(area)
    key = (source.name, source.corpus_key(version), n, seed)
    if key not in _CACHE:
        _CACHE[key] = [r["input"] for r in draw(_drawn(area, version), n, seed)]
    if adapt is None:
        return list(_CACHE[key])
    return [adapt(inp, version) for inp in _CACHE[key]]


def input_strategy(area: str, version: FlinkVersion) -> st.SearchStrategy[dict[str, Any]]:
    """The inputs :func:`inputs` draws, as a strategy (which Hypothesis shrinks them by)."""
    _, adapt = _source(area)
    inputs_ = _drawn(area, version).map(lambda r: r["input"])
    return inputs_ if adapt is None else inputs_.map(lambda inp: adapt(inp, version))


def choices(area: str, version: FlinkVersion, seed: int, index: int) -> tuple[Any, ...]:
    """The choices that replay :func:`inputs`' input ``index`` of ``seed`` under :func:`input_strategy`."""
    return bulk.one(_drawn(area, version), seed, index)[1]


def answered_with(pred: Callable[[dict[str, Any], dict[str, Any]], bool]) -> Corner:
    """The corner of an answer (not a rejection) of which ``pred(output, input)`` holds."""
    def check(d: Drawn) -> bool:
        out = d[1].get("output")
        return out is not None and pred(out, d[0]["input"])
    return check


def refused_with(exception: str, starts: str) -> Corner:
    """The corner of Flink's ``exception`` with a message starting ``starts``."""
    def check(d: Drawn) -> bool:
        err = d[1].get("error", {})
        return err.get("exception") == exception and str(err.get("message", "")).startswith(starts)
    return check


def reaches(requests: Callable[[FlinkVersion], st.SearchStrategy[dict[str, Any]]], version: FlinkVersion, n: int,
            corner: Corner) -> bool:
    """Whether ``corner`` holds of some request of :func:`answered`'s sample (the meta-tests' question)."""
    return any(corner(d) for d in answered(requests, version, n))


def search(requests: Callable[[FlinkVersion], st.SearchStrategy[dict[str, Any]]], version: FlinkVersion,
           corner: Corner) -> Drawn:
    """A request of the strategy at ``version``, with the oracle's answer, of which ``corner`` holds (up to
    :data:`SEARCH`'s examples; Hypothesis' NoSuchExample if none)."""
    import oracle

    found: Drawn = find(requests(version).map(lambda r: (r, oracle.answer({"id": 0, **r}))), corner, settings=SEARCH)
    return found
