"""Built-in faulty implementations: each is the oracle with one realistic bug planted.

They measure the suite's power: ``flinkspec check --impl mutant:NAME`` must fail with a small
counterexample. A mutant rewrites the request before the oracle sees it or the answer after,
so each bug is stated in a few lines, independently of the oracle's internals.
"""

from __future__ import annotations

from flinkspec.mutants import checkpoint, classloading, historical, memory, watermark
from flinkspec.mutants.mutant import Mutant

_GROUPS = (checkpoint, classloading, memory, historical, watermark)  # each lists its own mutants (``MUTANTS``)
# every built-in mutant by name
MUTANTS: dict[str, Mutant] = {m.name: m for group in _GROUPS for m in group.MUTANTS}
if len(MUTANTS) != sum(len(group.MUTANTS) for group in _GROUPS):
    raise ValueError("two built-in mutants share a name")

__all__ = ["MUTANTS", "Mutant"]
