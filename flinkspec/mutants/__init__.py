"""Built-in faulty implementations: each is the oracle with one realistic bug planted.

They measure the suite's power: ``flinkspec check --impl mutant:NAME`` must fail with a small
counterexample. A mutant rewrites the request before the oracle sees it or the answer after,
so each bug is stated in a few lines, independently of the oracle's internals. Each area declares
its own (``properties/<group>/mutants.py``, :attr:`properties.area.Area.mutants`); this is their
union, in the registry's order.
"""

from __future__ import annotations

from properties.areas import AREAS
from properties.mutant import Mutant

# every built-in mutant by name
MUTANTS: dict[str, Mutant] = {m.name: m for area in AREAS.values() for m in area.mutants}
if len(MUTANTS) != sum(len(area.mutants) for area in AREAS.values()):
    raise ValueError("two built-in mutants share a name")

__all__ = ["MUTANTS", "Mutant"]
