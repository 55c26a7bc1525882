"""A rule of Flink's code as the oracle encodes it, declared once beside the code that implements it.

Each oracle module lists its rules in a ``RULES`` tuple of :class:`Declared` values: a unique ID
(a prefix of its own and a number; no documented invariant uses the prefix), what the rule is,
the Flink code it was read from, and the releases it holds in (``since``, ``until``). What checks
each rule is said above the oracle, in :mod:`properties.oracle_rules`.
"""

from __future__ import annotations

import attrs

from oracle.versions import Releases, v


@attrs.frozen
class Declared:
    """One rule of Flink's code: ``id``, its ``text``, its ``source`` in Flink, and the releases it
    holds in, from ``since`` up to, not including, ``until`` (None: to the newest)."""

    id: str
    text: str
    source: str
    since: str = "1.13"
    until: str | None = None

    @property
    def releases(self) -> Releases:
        return Releases(v(self.since), v(self.until) if self.until else None)
