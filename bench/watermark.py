"""bench/watermark: valve (and combined, timers, generation, windows) events/s of the oracle against the real-Flink
bridge on the same sequences, in one run.

    python -m bench.watermark [--flink 2.3] [--n 2000]

Goal (issue 3): valve ratio >= 0.5. The bridge is measured warm and pipelined (at its best).
"""

from __future__ import annotations

from bench.common import corpus, options, oracle_vs_flink
from properties.watermark import generation_strategies, windows_strategies
from properties.watermark.area import COMBINED, GENERATION, TIMERS, VALVE, WINDOWS
from properties.watermark.strategies import event_count


def main() -> None:
    ver, n = options(2000)
    for area in (VALVE, COMBINED, TIMERS):
        oracle_vs_flink(area.name, corpus(area.requests(ver), n), str(ver), unit="events", count=event_count)
    oracle_vs_flink(GENERATION.name, corpus(GENERATION.requests(ver), n), str(ver), unit="events",
                    count=generation_strategies.size)
    oracle_vs_flink(WINDOWS.name, corpus(WINDOWS.requests(ver), n), str(ver), unit="events",
                    count=windows_strategies.size)


if __name__ == "__main__":
    main()
