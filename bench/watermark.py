"""bench/watermark: valve (and combined, timers) events/s of the oracle against the real-Flink
bridge on the same sequences, in one run.

    python -m bench.watermark [--flink 2.3] [--n 2000]

Goal (issue 3): valve ratio >= 0.5. The bridge is measured warm and pipelined (at its best).
"""

from __future__ import annotations

from bench.common import corpus, options, oracle_vs_flink
from properties.watermark.strategies import event_count, requests


def main() -> None:
    ver, n = options(2000)
    for area in ("watermark.valve", "watermark.combined", "watermark.timers"):
        oracle_vs_flink(area, corpus(requests(area, ver), n), str(ver), unit="events", count=event_count)


if __name__ == "__main__":
    main()
