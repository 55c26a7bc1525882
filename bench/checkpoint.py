"""bench/checkpoint: oracle events/s against the real-Flink bridge's on the same corpus, per area.

    python -m bench.checkpoint [--flink 2.3] [--n 1000]

checkpoint.alignment and checkpoint.recovery drive Flink's own barrier handlers,
checkpoint.coordinator Flink's own CheckpointCoordinator; the unit is one input event."""

from __future__ import annotations

import argparse

from bench.common import corpus, oracle_vs_flink
from oracle.versions import LATEST, parse_version
from properties.areas import AREAS
from properties.watermark.strategies import event_count


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--flink", default=LATEST.line, help="Flink release (default: the newest)")
    p.add_argument("--n", type=int, default=1000)
    a = p.parse_args()
    ver = parse_version(a.flink)
    for area in ("checkpoint.alignment", "checkpoint.coordinator", "checkpoint.recovery"):
        oracle_vs_flink(area, corpus(AREAS[area].requests(ver), a.n), a.flink, unit="events", count=event_count)


if __name__ == "__main__":
    main()
