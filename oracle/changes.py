"""A change of Flink's behaviour between releases, written once: :class:`Change`.

Each area's oracle lists its changes (``CHANGES`` of the area's module, by area), and everything
that depends on one reads that record: the oracle's version tables (:meth:`Change.table`, or
:attr:`Change.at` as a table's key), ``flinkspec diff-versions`` (the change it must find between
two releases, with the inputs that show it), the historical mutants that re-create the behaviour
before it (:func:`properties.mutant.historical`) and the documented rules Flink breaks until it
(``RuleBook.flink_violates``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import attrs

from oracle.versions import FlinkVersion, pick, v

T = TypeVar("T")
FIRST = v("1.13")  # the first line the oracle models: every version table starts here


@attrs.frozen(kw_only=True)
class Change:
    """Flink behaves differently from release ``since`` on (``"1.17"``: from 1.17.0; ``"1.15.2"``: from that
    patch): ``what`` changed, in words, and the Flink ``issue`` (``FLINK-NNNNN``) if one names it.

    ``regressed``: a fix of a regression, the release that brought it (the old behaviour then holds
    only from ``regressed`` up to ``since``). ``witnesses``: inputs of the area whose answers differ
    across the change (diff-versions adds them to its drawn inputs, so the change is always found).
    ``pattern``: a regular expression diff-versions' description of the found change must match
    (empty: any change of the area at that release). ``unseen``: why no protocol answer shows the
    change (then it has no witness, and diff-versions lists it as known but not visible)."""

    since: str
    what: str
    issue: str = ""
    regressed: str | None = None
    witnesses: tuple[Mapping[str, Any], ...] = ()
    pattern: str = ""
    unseen: str = ""

    @property
    def at(self) -> FlinkVersion:
        """The release the new behaviour starts at, as a version table's key."""
        return v(self.since)

    def table(self, before: T, after: T) -> dict[FlinkVersion, T]:
        """A version table: ``before`` until the change, ``after`` from it (for a regression's fix,
        ``after`` also before the regression)."""
        if self.regressed is None:
            return {FIRST: before, self.at: after}
        return {FIRST: after, v(self.regressed): before, self.at: after}

    def before(self, version: FlinkVersion) -> bool:
        """Whether ``version`` still has the old behaviour."""
        return pick(self.table(True, False), version)

    @property
    def number(self) -> int:
        """The Flink issue's number (``FLINK-31628``: 31628)."""
        if not self.issue.startswith("FLINK-"):
            raise ValueError(f"the change since {self.since} ({self.what}) names no Flink issue")
        return int(self.issue.removeprefix("FLINK-"))
