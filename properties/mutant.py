"""What a built-in mutant is: :class:`Mutant`, the oracle with one bug planted."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable
from typing import Any
from unittest import mock

import attrs

import oracle
from oracle.changes import Change
from oracle.versions import RELEASES, SUPPORTED, FlinkVersion, UnknownVersion, parse_version, v

Request = dict[str, Any]
Response = dict[str, Any]
JIRA = "https://issues.apache.org/jira/browse/"
PR = "https://github.com/apache/flink/pull/"
# Requests and seed of the check that measures a mutant's smallest counterexample, by area (default 400,
# seed 0): a memory request costs microseconds, so its mutants get a wider margin (chosen while Hypothesis
# still mixed the loaded modules' constants into its draws and the cases moved with every module added; the
# suite turns that off now, properties/__init__.py, so the cases depend on the seed alone; 400 once caught
# them all, 2,000 keeps a margin); seed 0 drew no decimal size in 2,000 (memory-lenient-decimal).
MEASURE_CHECK: dict[str, tuple[int, int]] = {"memory.taskmanager": (2000, 1), "memory.jobmanager": (2000, 1)}
FIXED_IN = re.compile(r"\(Flink (\d+\.\d+(?:\.\d+)?)")  # the release in ``fixed_by``: "https://... (Flink 1.14.0)"


@attrs.frozen
class Mutant:
    """``answer`` = oracle with ``before`` applied to the request and ``after`` to the response.

    Historical mutants (:func:`historical`, each beside its area's other mutants) also name the Flink issue they
    re-create (``ticket``, a JIRA URL), what fixed it (``fixed_by``: PR or commit URL, and the
    release) and the Flink versions that had the bug (``affected``).

    ``undocumented`` says, in words, why a mutant breaks no documented rule: the behaviour it changes
    is one that neither the seeds nor Flink's documentation state, and only Flink's code decides (the
    ``flink`` level's differential check catches it). Empty: it breaks a documented rule, and
    ``--conformance documented`` must catch it (``python -m flinkspec.tools.catch_rate`` measures that).
    ``documented_since`` names the first release whose documentation it breaks, when that is later than
    a release it is measured at (``undocumented`` then says why the earlier ones are not). ``measured_at``: the
    release it is measured at instead of the newest, for a mutant of behaviour the oracle models only in older
    releases.
    """

    name: str
    area: str
    doc: str
    before: Callable[[Request], Request] = lambda r: r
    after: Callable[[Request, Response], Response] = lambda _r, resp: resp
    ticket: str = ""
    fixed_by: str = ""
    affected: str = ""
    undocumented: str = ""
    documented_since: str = ""
    measured_at: str = ""  # where it is measured instead of the newest release (what it changes is modelled only there)

    def measure_at(self) -> FlinkVersion:
        """The release at which it is checked and measured when no Flink fix names one: ``measured_at``, else the
        newest."""
        return v(self.measured_at) if self.measured_at else SUPPORTED[-1]

    def measured_check(self) -> tuple[FlinkVersion, int, int]:
        """The release, requests and seed of the check that measures its smallest counterexample
        (tests/test_mutants.py; ``python -m flinkspec.tools.smallest`` writes docs/mutants.md's columns from it)."""
        examples, seed = MEASURE_CHECK.get(self.area, (400, 0))
        return self.measure_at(), examples, seed

    def breaks_documented_rule(self, version: FlinkVersion) -> bool:
        """Whether the documented level (the invariants alone) is expected to catch it at ``version``."""
        return not self.undocumented or (bool(self.documented_since) and version >= v(self.documented_since))

    def first_fixed(self) -> FlinkVersion | None:
        """The first release on PyPI with the fix (``fixed_by`` names it, ``1.15.2`` or ``1.14.0``; an older
        fix gives the oldest release), or None for a mutant that re-creates no Flink issue."""
        found = FIXED_IN.search(self.fixed_by)
        if found is None:
            return None
        fixed = v(found.group(1))
        return min((r for r in RELEASES if r >= fixed), default=None)

    def answer(self, request: Request) -> Response:
        if request.get("area") != self.area:
            return oracle.answer(request)
        return self.after(request, oracle.answer(self.before(request)))


def of_area(mutants: Iterable[Mutant], area: str) -> tuple[Mutant, ...]:
    """The mutants of ``area`` among ``mutants``, in their order (an :class:`properties.area.Area`'s ``mutants``)."""
    return tuple(m for m in mutants if m.area == area)


def with_config(request: Request, config: dict[str, str]) -> Request:
    return {**request, "input": {**request["input"], "config": config}}


# ---- historical mutants: real Flink bugs (and one default change), re-created in today's oracle
#
# Each mutant ``flink-NNNNN`` answers as Flink did before the fix of FLINK-NNNNN, in every version
# (at versions after the fix that is the bug shipped again; at 2.3 it is what the buggy code would
# do if released today). Its ``ticket`` is the JIRA issue, ``fixed_by`` the fixing pull request and
# the first release with the fix, and ``affected`` the releases that had the bug. Where the bug lives
# in one class of the oracle (the valve, the completed-checkpoint store, the failure manager, the
# version rules) the mutant runs the oracle with that class or table swapped for the buggy one,
# for the duration of one answer; elsewhere it rewrites the request (answering "as version X").
# Sources: docs/historical-mutants.md.


def historical(bug: int | Change, area: str, doc: str, fixed_by: str, affected: str, **rewrite: Any) -> Mutant:
    """The mutant ``flink-NUMBER`` of ``area``, re-creating FLINK-NUMBER (``rewrite``: ``before``, ``after``,
    ``undocumented``, ``documented_since``). ``bug``: the issue's number, or, for a change of Flink the
    oracle models, the area's :class:`oracle.changes.Change` (its issue names the mutant, and the release
    ``fixed_by`` names must be the change's)."""
    number = bug if isinstance(bug, int) else bug.number
    mutant = Mutant(f"flink-{number}", area, doc, ticket=f"{JIRA}FLINK-{number}", fixed_by=fixed_by,
                    affected=affected, **rewrite)
    if isinstance(bug, Change) and mutant.first_fixed() != min((r for r in RELEASES if r >= bug.at), default=None):
        raise ValueError(f"{mutant.name}: fixed_by names {mutant.first_fixed()}, its change is since {bug.since}")
    return mutant


def undo(change: Change) -> Callable[[Request], Request]:
    """Ask the oracle, from ``change`` on, as the newest line before it (Flink without the change)."""
    return as_version(max(r for r in SUPPORTED if r < change.at).line, since=change.since)


def answered_with(compute: Callable[[Any, FlinkVersion], Any]) -> Callable[[Request, Response], Response]:
    """Answer with ``compute(input, version)`` (an area's oracle function with one part swapped) in place of
    the oracle's: its output, or its rejection; a request it finds malformed keeps the oracle's answer."""
    from oracle.protocol import BadRequest

    def after(request: Request, response: Response) -> Response:
        try:
            result = compute(request["input"], parse_version(request["flink"]))
        except BadRequest:
            return response
        if isinstance(result, dict):
            return {"id": request.get("id"), "output": result}
        return {"id": request.get("id"), "error": result.to_error()}
    return after


def with_patches(*patches: tuple[object, str, object]) -> Callable[[Request, Response], Response]:
    """Answer with the oracle's ``attribute`` of each ``(module, attribute, value)`` replaced."""
    def after(request: Request, _response: Response) -> Response:
        with contextlib.ExitStack() as stack:
            for target, attribute, value in patches:
                stack.enter_context(mock.patch.object(target, attribute, value))
            return oracle.answer(request)
    return after


def as_version(old: str, since: str | None = None) -> Callable[[Request], Request]:
    """Ask the oracle as Flink ``old`` (only for requests at ``since`` or later, if given)."""
    def before(request: Request) -> Request:
        try:
            version = parse_version(request["flink"])
        except UnknownVersion:
            return request  # the oracle rejects it
        if since is not None and version < v(since):
            return request
        return {**request, "flink": old}
    return before
