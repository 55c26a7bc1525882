"""bench/classloading: oracle class lookups/s against the real-Flink bridge's on the same corpus.

    python -m bench.classloading [--flink 2.3] [--n 2000]

Each request builds a loader (the bridge writes two real jars and builds Flink's loader) and
resolves its lookups; the unit is one class or resource lookup. Goal (issue 4): ratio >= 1.0."""

from __future__ import annotations

import argparse
from typing import Any

from bench.common import corpus, oracle_vs_flink
from oracle.versions import LATEST, parse_version
from properties.classloading.strategies import requests


def lookups(request: dict[str, Any]) -> int:
    inp = request["input"]
    return len(inp.get("lookups", [])) + len(inp.get("resource_lookups", []))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--flink", default=LATEST.line, help="Flink release (default: the newest)")
    p.add_argument("--n", type=int, default=2000)
    a = p.parse_args()
    reqs = corpus(requests(parse_version(a.flink)), a.n)
    oracle_vs_flink("classloading.resolve", reqs, a.flink, unit="lookups", count=lookups)


if __name__ == "__main__":
    main()
