"""bench/memory: oracle configs/s against real-Flink-bridge configs/s on the same corpus.

    python -m bench.memory [--flink 2.3] [--n 5000]

memory.consumers (the managed-memory consumer weights) is timed on the same run, a request its unit.

Goal (issue 2): ratio >= 1.0, pure Python at least as fast as the JVM path (bridge measured
warm and pipelined, i.e. at its best)."""

from __future__ import annotations

from bench.common import corpus, options, oracle_vs_flink
from oracle.memory import JOBMANAGER, TASKMANAGER
from properties.memory import consumers_strategies
from properties.memory.strategies import requests


def main() -> None:
    ver, n = options(5000)
    for area in (TASKMANAGER, JOBMANAGER):
        oracle_vs_flink(area, corpus(requests(area, ver), n), str(ver), unit="configs")
    oracle_vs_flink(consumers_strategies.AREA, corpus(consumers_strategies.requests(ver), n), str(ver),
                    unit="requests")


if __name__ == "__main__":
    main()
