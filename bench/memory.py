"""bench/memory: oracle configs/s against real-Flink-bridge configs/s on the same corpus.

    python -m bench.memory [--flink 2.3] [--n 5000]

Goal (issue 2): ratio >= 1.0, pure Python at least as fast as the JVM path (bridge measured
warm and pipelined, i.e. at its best)."""

from __future__ import annotations

import argparse

from bench.common import corpus, oracle_vs_flink
from oracle.versions import LATEST, parse_version
from properties.memory.strategies import requests


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--flink", default=LATEST.line, help="Flink release (default: the newest)")
    p.add_argument("--n", type=int, default=5000)
    a = p.parse_args()
    ver = parse_version(a.flink)
    for area in ("memory.taskmanager", "memory.jobmanager"):
        oracle_vs_flink(area, corpus(requests(area, ver), a.n), a.flink, unit="configs")


if __name__ == "__main__":
    main()
