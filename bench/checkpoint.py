"""bench/checkpoint: oracle events/s against the real-Flink bridge's on the same corpus, per area.

    python -m bench.checkpoint [--flink 2.3] [--n 1000]

The alignment and recovery areas drive Flink's own barrier handlers, the coordinator's area Flink's
own CheckpointCoordinator; the unit is one input event. The storage area builds Flink's own state backend
and checkpoint storage from each request's configuration; its unit is one request. The ha area (from 1.17)
drives ZooKeeper high availability's completed checkpoint store against the bridge's in-process ZooKeeper; its
unit is one event."""

from __future__ import annotations

from bench.common import corpus, options, oracle_vs_flink
from properties.checkpoint.area import ALIGNMENT, COORDINATOR, HA, RECOVERY, STORAGE
from properties.watermark.strategies import event_count


def main() -> None:
    ver, n = options(1000)
    for area in (ALIGNMENT, COORDINATOR, RECOVERY):
        oracle_vs_flink(area.name, corpus(area.requests(ver), n), str(ver), unit="events", count=event_count)
    oracle_vs_flink(STORAGE.name, corpus(STORAGE.requests(ver), n), str(ver), unit="requests", count=lambda _r: 1)
    if ver in HA.versions:
        oracle_vs_flink(HA.name, corpus(HA.requests(ver), n), str(ver), unit="events", count=event_count)


if __name__ == "__main__":
    main()
