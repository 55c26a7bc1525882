"""What checks each rule the oracle encodes, as registry entries (docs/rules.md).

The rules are declared once, beside the code that implements them: the ``RULES`` tuple of each
oracle module (:class:`oracle.rules.Declared`: a unique ID, what the rule is, the Flink code it was
read from and the released jars it was proven against). Their IDs never coincide with a documented
invariant's (``SWV-5`` is the valve's code, ``WM-5`` the documented rule an invariant checks;
tests/test_rules_registry.py holds that no ID and no rule text is declared twice). Each area's
declaration says what checks each of its oracle's rules (:class:`properties.area.Checked` in its
:class:`properties.area.OracleRules`): the area's ``-EQ`` rule (the oracle against real Flink), the
invariants that state it, the pinned examples and the Flink tests transcribed in
``properties/checkpoint/*_examples.json``. This module makes registry entries of them.

The memory oracle (``oracle/memory*.py``, ``memsize.py``, ``javanum.py``) declares no rules of its
own: the memory rules are the documented invariants (``TM-1`` ... ``TM-12``, ``JM-1`` ... ``JM-7``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from oracle.rules import Declared
from properties.area import Checked
from properties.rules import ORACLE, Rule


def oracle_rules(declared: Mapping[str, tuple[Declared, str, tuple[str, ...]]], checks: Iterable[Checked],
                 prefixes: Mapping[str, str]) -> dict[str, Rule]:
    """Every declared oracle rule (its declaration, its area and the files that encode it, by ID: the
    registry's ``DECLARED``) as a registry entry with what checks it (``checks``, one per rule);
    ``prefixes``: each area's rule prefix."""
    out: dict[str, Rule] = {}
    for c in checks:
        if c.oid in out:
            raise ValueError(f"oracle rule {c.oid} is given its checks twice")
        if c.oid not in declared:
            raise ValueError(f"oracle rule {c.oid} is given checks but declared by no oracle module of its area")
        rule, area, files = declared[c.oid]
        source = f"{rule.source} (holds in {rule.releases}; encoded in {', '.join(files)})"
        out[c.oid] = Rule(c.oid, area, rule.text, source, documented=False, kind=ORACLE,
                          checked_by=((f"{prefixes[area]}-EQ",) if c.eq else ()) + c.checks, note=c.note)
    if set(out) != set(declared):
        raise ValueError(f"oracle rules without checks: {sorted(set(declared) - set(out))}")
    return out
