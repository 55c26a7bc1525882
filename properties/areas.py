"""Every protocol area the suite knows: how to generate its requests and which rules judge them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
from hypothesis import strategies as st

from oracle.versions import RELEASES, FlinkVersion, v
from oracle.watermark import SUBPARTITIONS_SINCE
from properties.checkpoint import alignment_invariants as _alignment_invariants  # noqa: F401
from properties.checkpoint import alignment_strategies, coordinator_strategies, recovery
from properties.checkpoint import coordinator_invariants as _coordinator_invariants  # noqa: F401
from properties.classloading import invariants as _classloading_invariants  # noqa: F401
from properties.classloading import strategies as classloading_strategies
from properties.memory import invariants as _memory_invariants  # noqa: F401  (registers the rules)
from properties.memory import strategies as memory_strategies
from properties.rules import Ask, Request, Response, Violation, judge, refused_rule
from properties.watermark import invariants as watermark_invariants
from properties.watermark import strategies as watermark_strategies


@attrs.frozen
class AnswerShape:
    """What telling divergences apart needs to know of an area's output beyond its JSON
    (:mod:`flinkspec.judge.divergence`, and the release-to-release differences of
    :mod:`flinkspec.engine.diff_versions`), as the area's protocol page defines it."""

    # maps whose keys are data, not names (a coordinator step's ``aborted`` maps checkpoint ids to reasons;
    # recovery's ``counts`` maps record keys to counts): a difference in one is one difference of the map
    data_maps: tuple[str, ...] = ()
    # lists and maps an answer leaves out where they would be empty ("an absent key means nothing of that kind")
    empty_when_absent: tuple[str, ...] = ()
    # fields an element of a list carries only sometimes, no part of its kind (a fired timer's ``namespace``)
    optional_fields: tuple[str, ...] = ()
    # fields of a list element whose value is a word of an enumeration, part of its kind (a valve's emitted
    # ``{"status": "IDLE"}`` and ``{"status": "ACTIVE"}`` are two kinds of element, not two values)
    enum_fields: tuple[str, ...] = ()


EMITS_STATUS = AnswerShape(enum_fields=("status",))


@attrs.frozen
class AreaSpec:
    """One protocol area: its rule prefix and a request strategy per Flink version."""

    name: str
    prefix: str
    requests: Callable[[FlinkVersion], st.SearchStrategy[dict[str, Any]]]
    versions: tuple[FlinkVersion, ...] = RELEASES
    size: Callable[[dict[str, Any]], int] = lambda req: len(req["input"].get("config", {}))
    # the area's tie rule for the differential
    normalize: Callable[[dict[str, Any]], dict[str, Any]] = lambda resp: resp
    # versions with equal keys draw the same inputs, so one generated corpus serves them all
    corpus_key: Callable[[FlinkVersion], object] = lambda _ver: "all"
    # a shared corpus input made valid for one version (e.g. without an option the version lacks)
    adapt: Callable[[dict[str, Any], FlinkVersion], dict[str, Any]] = lambda inp, _ver: inp
    # large runs may reuse another area's drawn inputs, which ``adapt`` then extends
    corpus_of: str | None = None
    shape: AnswerShape = AnswerShape()

    def violations(self, request: Request, response: Response, version: FlinkVersion, *,
                   documented_only: bool = False, expected: Response | None = None,
                   ask: Ask | None = None, strict_messages: bool = False) -> list[Violation]:
        """Every invariant of the area applied to one answer (:func:`properties.rules.judge`): what
        :mod:`flinkspec.judge.verdict` judges an answer by, with the area's prefix and tie rule."""
        return judge(self.name, request, response, version, documented_only=documented_only, expected=expected,
                     ask=ask, strict_messages=strict_messages)


AREAS: dict[str, AreaSpec] = {
    "memory.taskmanager": AreaSpec(
        "memory.taskmanager", "TM", lambda ver: memory_strategies.requests("memory.taskmanager", ver)
    ),
    "memory.jobmanager": AreaSpec(
        "memory.jobmanager", "JM", lambda ver: memory_strategies.requests("memory.jobmanager", ver)
    ),
    "watermark.valve": AreaSpec(
        "watermark.valve", "WM", lambda ver: watermark_strategies.requests("watermark.valve", ver),
        size=watermark_strategies.event_count, corpus_key=lambda ver: ver >= SUBPARTITIONS_SINCE,
        shape=EMITS_STATUS,
    ),
    "watermark.combined": AreaSpec(
        "watermark.combined", "CWM", lambda ver: watermark_strategies.requests("watermark.combined", ver),
        size=watermark_strategies.event_count, corpus_key=lambda ver: ver < v("1.14"),  # 1.13 operators see no status
        shape=EMITS_STATUS,
    ),
    "watermark.timers": AreaSpec(
        "watermark.timers", "TIMER", lambda ver: watermark_strategies.requests("watermark.timers", ver),
        size=watermark_strategies.event_count, normalize=watermark_invariants.timers_normalize,
        shape=AnswerShape(optional_fields=("namespace",)),
    ),
    "classloading.resolve": AreaSpec(
        "classloading.resolve", "CLR", classloading_strategies.requests,
        size=classloading_strategies.name_count, corpus_key=classloading_strategies.corpus_key,
    ),
    "checkpoint.alignment": AreaSpec(
        "checkpoint.alignment", "ALIGN", alignment_strategies.requests,
        size=watermark_strategies.event_count, adapt=alignment_strategies.adapt,
    ),
    "checkpoint.coordinator": AreaSpec(
        "checkpoint.coordinator", "CCR", coordinator_strategies.requests,
        size=watermark_strategies.event_count, adapt=coordinator_strategies.adapt,
        shape=AnswerShape(data_maps=("aborted",),
                          empty_when_absent=("triggered", "rejected", "completed", "aborted", "retained")),
    ),
    "checkpoint.recovery": AreaSpec(
        "checkpoint.recovery", "RCV", recovery.requests,
        size=watermark_strategies.event_count, adapt=recovery.from_alignment, corpus_of="checkpoint.alignment",
        shape=AnswerShape(data_maps=("counts",)),
    ),
}


for _spec in AREAS.values():
    refused_rule(_spec.name, _spec.prefix)


@attrs.frozen
class ExtraCorpus:
    """Requests of one area drawn by another strategy than the area's own, for ``flinkspec record``
    (``--area NAME``) and the recorded-answers test: a part of the rules the area's strategy reaches
    only by chance, fuzzed on its own."""

    name: str
    area: str
    requests: Callable[[FlinkVersion], st.SearchStrategy[dict[str, Any]]]
    corpus_key: Callable[[FlinkVersion], object]


EXTRA_CORPORA: dict[str, ExtraCorpus] = {
    # the readers of the class-loading options (CL-2 ... CL-6), their values fuzzed
    "classloading.values": ExtraCorpus("classloading.values", "classloading.resolve",
                                       classloading_strategies.value_requests,
                                       classloading_strategies.value_corpus_key),
    # configurations on the edges of the memory rules: derived sizes configured back, a byte off
    "memory.taskmanager.edges": ExtraCorpus("memory.taskmanager.edges", "memory.taskmanager",
                                            memory_strategies.edge_requests("memory.taskmanager"), str),
    "memory.jobmanager.edges": ExtraCorpus("memory.jobmanager.edges", "memory.jobmanager",
                                           memory_strategies.edge_requests("memory.jobmanager"), str),
    # short alignment runs where barriers, cancel markers and ends of partition meet (ALO-11's failure)
    "checkpoint.alignment.ends": ExtraCorpus("checkpoint.alignment.ends", "checkpoint.alignment",
                                             alignment_strategies.ending_requests,
                                             lambda ver: ver >= v("1.14")),
}


def area_of_corpus(name: str) -> str:
    """The protocol area of an area's own corpus or of an :data:`EXTRA_CORPORA` entry."""
    return EXTRA_CORPORA[name].area if name in EXTRA_CORPORA else name
