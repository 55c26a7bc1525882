"""Progress of a fan-out run, printed to stderr by a driver thread while Spark works.

Every finished partition adds its result to an accumulator keyed by partition (so a retried task
cannot count twice); the thread polls it and prints cases done, cases per second, the rules with a
counterexample so far and the infrastructure errors. The same accumulator is what the driver falls
back on when a Spark job fails: the partitions that finished are never lost with it.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from pyspark.accumulators import AccumulatorParam

from spark_harness.tasks import PartitionResult


class ResultsParam(AccumulatorParam):  # type: ignore[type-arg]
    """Accumulates ``{partition: PartitionResult}``; each merge builds a new dict so that a reader
    on another thread always sees a consistent value."""

    def zero(self, value: dict[int, PartitionResult]) -> dict[int, PartitionResult]:
        return {}

    def addInPlace(self, a: dict[int, PartitionResult], b: dict[int, PartitionResult]) -> dict[int, PartitionResult]:
        return {**a, **b}


def summary(results: Mapping[int, PartitionResult]) -> tuple[int, list[str], int]:
    """Cases done, the divergences seen (``area@version: rules``), and the infrastructure errors so far."""
    values = list(results.values())
    cases = sum(r.cases for r in values)
    divergences = {f.key: f for r in values for f in r.failures}
    seen = [f"{f.area}@{f.flink}: {'/'.join(f.rules)}" for _, f in sorted(divergences.items())]
    return cases, seen, sum(len(r.infra) for r in values)


class Progress:
    """A daemon thread printing one line every ``interval`` seconds until :meth:`stop`."""

    def __init__(self, read: Callable[[], Mapping[int, PartitionResult]], total_cases: int, partitions: int,
                 interval: float = 5.0, out: TextIO | None = None) -> None:
        self._read = read
        self.total, self.partitions, self.interval = total_cases, partitions, interval
        self.out = out or sys.stderr
        self.started = time.monotonic()
        self.phase = "checking"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="flinkspec-progress", daemon=True)

    def __enter__(self) -> Progress:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def stop(self) -> None:
        if not self._stop.is_set():
            self._stop.set()
            self._thread.join(timeout=2 * self.interval + 1)
            self.line()

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.line()

    def line(self) -> None:
        results = self._read()
        cases, rules, infra = summary(results)
        elapsed = time.monotonic() - self.started
        rate = cases / elapsed if elapsed > 0 else 0.0
        pct = 100.0 * cases / self.total if self.total else 100.0
        shown = ", ".join(rules[:6]) + (f" and {len(rules) - 6} more" if len(rules) > 6 else "")
        print(f"  [{elapsed:6.0f} s] {cases:,} / {self.total:,} cases ({pct:.1f}%), {rate:,.0f} cases/s, "
              f"{len(results)} / {self.partitions} partitions, divergences so far: {len(rules)}"
              + (f" ({shown})" if rules else "") + f", infrastructure errors: {infra}", file=self.out, flush=True)
