"""What a protocol area is, declared once: :class:`Area`.

Each group declares its areas beside its strategies and invariants (``properties/<group>/area.py``),
and :data:`properties.areas.AREAS` lists them: the one registry that every layer above iterates
(the judge, feature negotiation, the plugin, the check engine, the reports, the vectors, the
fan-out), so that adding an area is its own files and one line there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
from hypothesis import strategies as st

from oracle.changes import Change
from oracle.rules import Declared
from oracle.versions import RELEASES, FlinkVersion
from properties.features import AnswerFeature, Feature
from properties.mutant import Mutant
from properties.rules import Ask, Request, Response, RuleBook, Violation

Requests = Callable[[FlinkVersion], st.SearchStrategy[dict[str, Any]]]


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


@attrs.frozen(kw_only=True)
class ExtraCorpus:
    """Requests of an area drawn by another strategy than the area's own, for ``flinkspec record``
    (``--area NAME``) and the recorded-answers test: a part of the rules the area's strategy reaches
    only by chance, fuzzed on its own. ``area`` is filled in by the registry."""

    name: str
    requests: Requests
    corpus_key: Callable[[FlinkVersion], object]
    area: str = ""


@attrs.frozen
class Checked:
    """What checks oracle rule ``oid`` (declared in its module's ``RULES``): its area's ``-EQ`` rule
    (the oracle against real Flink; unless ``eq`` is false) and ``checks`` (invariants, ``path::test``
    properties, ``scenario:`` Flink tests transcribed in ``properties/checkpoint/*_examples.json``), with a
    ``note`` on what they leave out."""

    oid: str
    checks: tuple[str, ...]
    eq: bool = True
    note: str = ""


def checked(oid: str, *checks: str, eq: bool = True, note: str = "") -> Checked:
    return Checked(oid, checks, eq, note)


def scenarios(*names: str) -> tuple[str, ...]:
    """Flink's own tests (``Class#method``) transcribed as pinned scenarios."""
    return tuple(f"scenario:{n}" for n in names)


@attrs.frozen(kw_only=True)
class OracleRules:
    """An oracle module's declared rules (``RULES``), the files that encode them and what checks each
    (one :class:`Checked` per rule, :mod:`properties.oracle_rules`)."""

    rules: tuple[Declared, ...]
    files: tuple[str, ...]
    checked: tuple[Checked, ...] = ()


@attrs.frozen(kw_only=True)
class OptionDefault:
    """An option's default that the oracle keys by version (``diff-versions`` reports its changes):
    the option, the table, how to print a value. ``area`` is filled in by the registry."""

    option: str
    table: Mapping[FlinkVersion, Any]
    show: Callable[[Any], str] = str
    area: str = ""


@attrs.frozen(kw_only=True)
class Exhaustive:
    """How ``flinkspec exhaustive`` enumerates an area's short sequences. For a shape ``WxE``: on each input of
    ``bases(W)`` (an input without its events), every sequence of at most E letters of ``alphabet(W,
    timestamps)`` that the input ``takes`` (every letter unless the area says otherwise), made the input's events
    by ``events`` (a letter is an event unless the area says otherwise). ``width`` says what W is, ``shapes`` are
    the default ones."""

    width: str
    bases: Callable[[int], list[dict[str, Any]]]
    alphabet: Callable[[int, Sequence[int]], list[Any]]
    events: Callable[[Sequence[Any]], list[dict[str, Any]]] = list
    shapes: tuple[str, ...] = ("1x5", "2x5", "3x4")
    takes: Callable[[dict[str, Any], Any], bool] = lambda _base, _letter: True


def over_inputs(index: str, count: str) -> Exhaustive:
    """A multi-input area's: W inputs (``count``), each event naming one (``index``) with a watermark of the
    timestamps, or an IDLE / ACTIVE status."""
    return Exhaustive(
        width=count, bases=lambda w: [{count: w}],
        alphabet=lambda w, timestamps: [{index: c, "watermark": t} for c in range(w) for t in timestamps]
        + [{index: c, "status": s} for c in range(w) for s in ("IDLE", "ACTIVE")])


@attrs.frozen(kw_only=True)
class Area:
    """One protocol area: its name and rule prefix; the protocol version that added it, its page
    (relative to docs/protocol/) and a line saying what it is; a request strategy per Flink version;
    the oracle modules that encode its rules; the state machine and pinned examples that check it,
    as ``path::test`` properties; its tie rule and the shape of its answer; the book of its rules;
    its built-in mutants; the bridge class that answers it from real Flink; the protocol features
    added to it since."""

    name: str
    prefix: str
    requests: Requests
    rules: RuleBook  # the book of the module that declares its invariants
    page: str
    description: str
    protocol: int = 1
    versions: tuple[FlinkVersion, ...] = RELEASES
    size: Callable[[dict[str, Any]], int] = lambda req: len(req["input"].get("config", {}))
    # the size (by ``size``) within which each of its mutants' counterexamples shrinks (tests/test_mutants.py)
    size_bar: int = 8
    # the area's tie rule for the differential
    normalize: Callable[[dict[str, Any]], dict[str, Any]] = lambda resp: resp
    # versions with equal keys draw the same inputs, so one generated corpus serves them all
    corpus_key: Callable[[FlinkVersion], object] = lambda _ver: "all"
    # a shared corpus input made valid for one version (e.g. without an option the version lacks)
    adapt: Callable[[dict[str, Any], FlinkVersion], dict[str, Any]] = lambda inp, _ver: inp
    # large runs may reuse another area's drawn inputs, which ``adapt`` then extends
    corpus_of: str | None = None
    corpora: tuple[ExtraCorpus, ...] = ()
    shape: AnswerShape = AnswerShape()
    oracle: Mapping[str, OracleRules] = attrs.field(factory=dict)  # by oracle module name
    machine: str | None = None  # the area's stateful property, ``path::test``
    examples: str | None = None  # Flink's own scenarios pinned for the area, ``path[::test]``
    exhaustive: Exhaustive | None = None
    mutants: tuple[Mutant, ...] = ()  # its built-in mutants (``mutant:NAME``), historical ones included
    # the class of flinkspec/impls/bridge/src/flinkspec/bridge/ that answers it from real Flink (None: real
    # Flink is not driven for it, and the bridge answers a BadRequest naming the area as unknown)
    bridge: str | None = None
    # the input features added to it since its protocol version, each named ``<area>.<feature>``
    # (:mod:`flinkspec.impls.features` registers them), and the additions to its answers
    features: tuple[Feature, ...] = ()
    answer_features: tuple[AnswerFeature, ...] = ()
    # its config values are read by Flink's own parsers (sizes, lists): the ``config.spelling`` feature
    config_spelling: bool = False
    # its table of Flink's changes between releases (each written once, beside the oracle's tables that
    # read it), the option defaults the oracle keys by version, and whether diff-versions compares its
    # error messages (not only their types) against real Flink
    changes: tuple[Change, ...] = ()
    defaults: tuple[OptionDefault, ...] = ()
    strict_messages: bool = False

    def violations(self, request: Request, response: Response, version: FlinkVersion, *,
                   documented_only: bool = False, expected: Response | None = None,
                   ask: Ask | None = None, strict_messages: bool = False) -> list[Violation]:
        """Every invariant of the area applied to one answer (:meth:`properties.rules.RuleBook.judge`):
        what :mod:`flinkspec.judge.verdict` judges an answer by, with the area's prefix and tie rule."""
        return self.rules.judge(self.name, request, response, version, documented_only=documented_only,
                                expected=expected, ask=ask, strict_messages=strict_messages)

    def twins(self, request: Request, response: Response, version: FlinkVersion, *,
              documented_only: bool = False) -> list[Request]:
        """The requests :meth:`violations` asks about one answer (:meth:`properties.rules.RuleBook.twins`)."""
        return self.rules.twins(self.name, request, response, version, documented_only=documented_only)
