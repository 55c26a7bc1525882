"""Every protocol area the suite knows, in one list: :data:`AREAS` is the only registry of areas.

Each is declared once, beside its strategies and invariants (``properties/<group>/area.py``,
:class:`properties.area.Area`); every other layer iterates this list. Adding an area is writing its
files and one line here.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from properties.area import Area, ExtraCorpus
from properties.checkpoint import area as checkpoint
from properties.classloading import area as classloading
from properties.memory import area as memory
from properties.rules import refused_rule
from properties.watermark import area as watermark


def registry(areas: Iterable[Area]) -> dict[str, Area]:
    """The areas by name, in the order given (the order of reports, vectors and pages)."""
    out: dict[str, Area] = {}
    for area in areas:
        if area.name in out:
            raise ValueError(f"area {area.name} declared twice")
        out[area.name] = area
    return out


AREAS: dict[str, Area] = registry((
    memory.TASKMANAGER, memory.JOBMANAGER,
    watermark.VALVE, watermark.COMBINED, watermark.TIMERS,
    classloading.RESOLVE,
    checkpoint.ALIGNMENT, checkpoint.COORDINATOR, checkpoint.RECOVERY,
))

# the areas' extra corpora (:class:`properties.area.ExtraCorpus`), by name, each knowing its area
EXTRA_CORPORA: dict[str, ExtraCorpus] = {
    c.name: attrs.evolve(c, area=a.name) for a in AREAS.values() for c in a.corpora}

for _area in AREAS.values():
    refused_rule(_area.name, _area.prefix)


def area_of_corpus(name: str) -> str:
    """The protocol area of an area's own corpus or of an :data:`EXTRA_CORPORA` entry."""
    return EXTRA_CORPORA[name].area if name in EXTRA_CORPORA else name
