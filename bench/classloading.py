"""bench/classloading: oracle class lookups/s against the real-Flink bridge's on the same corpus, for
``classloading.resolve`` and then ``classloading.lifecycle``.

    python -m bench.classloading [--flink 2.3] [--n 2000]

Each request builds a loader (the bridge writes two real jars and builds Flink's loader) and
resolves its lookups; the unit is one class or resource lookup (for the lifecycle, one operation on the
loader, a close included). Goal (issue 4): ratio >= 1.0."""

from __future__ import annotations

from typing import Any

from bench.common import corpus, options, oracle_vs_flink
from oracle.classloading import RESOLVE
from oracle.classloading_lifecycle import LIFECYCLE
from properties.classloading import lifecycle_strategies
from properties.classloading.strategies import requests


def lookups(request: dict[str, Any]) -> int:
    inp = request["input"]
    return len(inp.get("lookups", [])) + len(inp.get("resource_lookups", []))


def main() -> None:
    ver, n = options(2000)
    reqs = corpus(requests(ver), n)
    oracle_vs_flink(RESOLVE, reqs, str(ver), unit="lookups", count=lookups)
    reqs = corpus(lifecycle_strategies.requests(ver), n)
    oracle_vs_flink(LIFECYCLE, reqs, str(ver), unit="operations", count=lambda r: len(r["input"]["operations"]))


if __name__ == "__main__":
    main()
