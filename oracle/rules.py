"""A rule of Flink's code as the oracle encodes it, declared once beside the code that implements it.

Each oracle module lists its rules in a ``RULES`` tuple of :class:`Declared` values: a unique ID
(a prefix of its own and a number; no documented invariant uses the prefix), what the rule is,
and the Flink code it was read from (with the released jars it was proven against). What checks
each rule is said above the oracle, in :mod:`properties.oracle_rules`.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class Declared:
    """One rule of Flink's code: ``id``, its ``text``, and its ``source`` in Flink."""

    id: str
    text: str
    source: str
