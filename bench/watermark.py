"""bench/watermark: valve (and combined, timers) events/s of the oracle against the real-Flink
bridge on the same sequences, in one run.

    python -m bench.watermark [--flink 2.3] [--n 2000]

Goal (issue 3): valve ratio >= 0.5. The bridge is measured warm and pipelined (at its best).
"""

from __future__ import annotations

import argparse

from bench.common import corpus, oracle_vs_flink
from oracle.versions import LATEST, parse_version
from properties.watermark.strategies import event_count, requests


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--flink", default=LATEST.line, help="Flink release (default: the newest)")
    p.add_argument("--n", type=int, default=2000)
    a = p.parse_args()
    ver = parse_version(a.flink)
    for area in ("watermark.valve", "watermark.combined", "watermark.timers"):
        oracle_vs_flink(area, corpus(requests(area, ver), a.n), a.flink, unit="events", count=event_count)


if __name__ == "__main__":
    main()
