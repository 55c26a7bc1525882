"""The plan of a fan-out run: seeded chunks of cases, grouped into Spark partitions.

A chunk is the unit of generation: ``n`` inputs of one area drawn from one seed, checked at every
version of ``versions`` (the requested versions that draw the same inputs, see
``Area.corpus_key``; each version's ``Area.adapt`` makes a shared input valid for it, and an
area with ``corpus_of`` draws another area's inputs and extends them, as ``properties.corpus``
does). The seed of a chunk depends on the run's seed, the area, the corpus key and the chunk's index
only; partitions merely group chunks, so the cases of a run are the same on any master and with
any ``--partitions``.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

import attrs

from oracle.versions import FlinkVersion
from properties.areas import AREAS

CHUNK = 500  # inputs per chunk: a few seconds of generation, the granularity of progress and retries


@attrs.frozen
class Chunk:
    """``n`` inputs of ``area`` drawn from ``seed``, each checked at every version in ``versions``."""

    area: str
    versions: tuple[str, ...]
    index: int
    n: int
    seed: int

    @property
    def cases(self) -> int:
        return self.n * len(self.versions)


def chunk_seed(seed: int, area: str, corpus_key: object, index: int) -> int:
    digest = hashlib.sha256(f"{seed}/{area}/{corpus_key!r}/{index}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def plan(pairs: Sequence[tuple[str, FlinkVersion]], cases: int, seed: int, chunk: int = CHUNK) -> list[Chunk]:
    """Chunks for ``cases`` checked requests in all, shared evenly by the (area, version) pairs."""
    if not pairs:
        return []
    per_pair = math.ceil(cases / len(pairs))
    groups: dict[tuple[str, object], list[str]] = {}
    for area, ver in pairs:
        source = AREAS[AREAS[area].corpus_of or area]  # the area whose strategy draws the inputs
        groups.setdefault((area, source.corpus_key(ver)), []).append(str(ver))
    out: list[Chunk] = []
    for (area, key), versions in groups.items():
        for index in range(math.ceil(per_pair / chunk)):
            n = min(chunk, per_pair - index * chunk)
            out.append(Chunk(area, tuple(versions), index, n, chunk_seed(seed, area, key, index)))
    # areas interleaved: Spark runs partitions roughly in order, so every area advances together
    # (an interrupted run has covered all of them) and cheap and costly chunks mix to the end
    return sorted(out, key=lambda c: c.index)


def partition(chunks: Sequence[Chunk], partitions: int | None) -> list[tuple[Chunk, ...]]:
    """Chunks dealt round-robin into ``partitions`` groups (default: one chunk per partition), so
    that every partition gets a share of the expensive areas."""
    count = len(chunks) if partitions is None else max(1, min(partitions, len(chunks)))
    return [tuple(chunks[p::count]) for p in range(count)] if chunks else []
