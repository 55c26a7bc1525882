"""What a built-in mutant is: :class:`Mutant`, the oracle with one bug planted."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import attrs

import oracle
from oracle.versions import RELEASES, FlinkVersion, v

Request = dict[str, Any]
Response = dict[str, Any]
FIXED_IN = re.compile(r"\(Flink (\d+\.\d+(?:\.\d+)?)")  # the release in ``fixed_by``: "https://... (Flink 1.14.0)"


@attrs.frozen
class Mutant:
    """``answer`` = oracle with ``before`` applied to the request and ``after`` to the response.

    Historical mutants (:mod:`flinkspec.mutants.historical`) also name the Flink issue they
    re-create (``ticket``, a JIRA URL), what fixed it (``fixed_by``: PR or commit URL, and the
    release) and the Flink versions that had the bug (``affected``).

    ``undocumented`` says, in words, why a mutant breaks no documented rule: the behaviour it changes
    is one that neither the seeds nor Flink's documentation state, and only Flink's code decides (the
    ``flink`` level's differential check catches it). Empty: it breaks a documented rule, and
    ``--conformance documented`` must catch it (``python -m flinkspec.tools.catch_rate`` measures that).
    ``documented_since`` names the first release whose documentation it breaks, when that is later than
    a release it is measured at (``undocumented`` then says why the earlier ones are not).
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


def with_config(request: Request, config: dict[str, str]) -> Request:
    return {**request, "input": {**request["input"], "config": config}}
