"""bench/fanout: checked cases/s of `flinkspec fanout` on local[2] against local[1], and against
`pytest -n 2` running the same property (properties/test_conformance.py) for the same number of
cases, in one run.

    python -m bench.fanout [--impl flink:X.Y.Z] [--cases 20000] [--area A,...] [--flink X.Y]

Goals (issue 6): local[2] / local[1] >= 1.7; fanout local[2] / pytest -n 2 >= 1.0. Each rate is
end to end (Spark's or pytest's start-up included) over the same cases; the fan-out's rate without
Spark's start-up is printed beside it. Used as a pytest plugin (``-p bench.fanout``) this module
registers the Hypothesis profile ``fanout-bench`` whose ``max_examples`` comes from
``FLINKSPEC_BENCH_EXAMPLES``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from hypothesis import HealthCheck, settings

from oracle.memory import JOBMANAGER
from oracle.versions import LATEST

ROOT = Path(__file__).resolve().parents[1]
PROFILE = "fanout-bench"

settings.register_profile(PROFILE, max_examples=int(os.environ.get("FLINKSPEC_BENCH_EXAMPLES", "100")),
                          deadline=None, database=None, derandomize=True,
                          suppress_health_check=list(HealthCheck))


def fanout_rate(master: str, impl: str, areas: list[str], flink: str, cases: int) -> tuple[float, float, int]:
    """(end-to-end cases/s, cases/s without Spark's start-up, cases) of one fan-out on ``master``."""
    from flinkspec.engine.check import versions_for
    from oracle.versions import parse_version
    from spark_harness.driver import execute, spark_context
    from spark_harness.plan import partition, plan
    from spark_harness.tasks import JobSpec

    pairs = [(a, v) for a in areas for v in versions_for(a, [parse_version(flink)])]
    chunks = plan(pairs, cases, seed=0)
    t0 = time.monotonic()
    sc = spark_context(master)
    try:
        t1 = time.monotonic()
        results, lost, _ = execute(sc, partition(chunks, None), JobSpec(impl), total_cases=sum(c.cases for c in chunks),
                                   progress_interval=30.0, log=lambda _t: None)
        t2 = time.monotonic()
    finally:
        sc.stop()
    assert not lost, lost
    done = sum(r.cases for r in results.values())
    return done / (t2 - t0), done / (t2 - t1), done


def xdist_rate(impl: str, areas: list[str], flink: str, cases: int) -> tuple[float, int]:
    """(cases/s, cases) of `pytest -n 2` running the conformance property for the same cases."""
    per_area = -(-cases // len(areas))
    env = {**os.environ, "FLINKSPEC_BENCH_EXAMPLES": str(per_area)}
    t0 = time.monotonic()
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "-p", "no:cacheprovider",
                          "-p", "bench.fanout", f"--hypothesis-profile={PROFILE}", "--impl", impl, "--flink", flink,
                          "properties/test_conformance.py", "-k", " or ".join(areas)],
                         capture_output=True, text=True, cwd=ROOT, env=env)
    elapsed = time.monotonic() - t0
    if res.returncode != 0:
        raise SystemExit(f"pytest failed:\n{res.stdout[-2000:]}{res.stderr[-2000:]}")
    return per_area * len(areas) / elapsed, per_area * len(areas)


def _generate(seed: int) -> float:
    from oracle.versions import LATEST
    from properties import corpus
    from properties.areas import AREAS

    strategy = AREAS[JOBMANAGER].requests(LATEST)
    corpus.draw(strategy, 20, seed)
    t0 = time.perf_counter()
    corpus.draw(strategy, 600, seed)
    return time.perf_counter() - t0


def machine_scaling() -> float:
    """The ceiling of any 2-way speed-up right now: throughput of two processes generating cases
    at once over one process alone (2.0 on two idle cores; less when other work holds a core)."""
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(2) as pool:  # the same seed everywhere: the same work in every call
        list(pool.map(_generate, (1, 1)))  # both workers started and warm
        one = pool.submit(_generate, 1).result()
        two = max(pool.map(_generate, (1, 1)))
    return 2 * one / two


def main() -> None:
    from properties.areas import AREAS

    p = argparse.ArgumentParser()
    p.add_argument("--impl", default=f"flink:{LATEST.release}", help="the implementation (default: the newest Flink)")
    p.add_argument("--cases", type=int, default=20_000)
    p.add_argument("--area", default=",".join(AREAS))
    p.add_argument("--flink", default=LATEST.line, help="Flink release (default: the newest)")
    a = p.parse_args()
    areas = [x for x in a.area.split(",") if x]
    print(f"bench/fanout: {a.cases:,} cases of {', '.join(areas)} at Flink {a.flink} against {a.impl}", flush=True)
    from spark_harness.driver import spark_context

    spark_context("local[1]").stop()  # the JVM starts once, so neither measurement pays for it
    one, one_net, n1 = fanout_rate("local[1]", a.impl, areas, a.flink, a.cases)
    print(f"  fanout local[1]: {one:,.0f} cases/s end to end ({one_net:,.0f} without Spark's start-up), {n1:,} cases",
          flush=True)
    two, two_net, n2 = fanout_rate("local[2]", a.impl, areas, a.flink, a.cases)
    print(f"  fanout local[2]: {two:,.0f} cases/s end to end ({two_net:,.0f} without Spark's start-up), {n2:,} cases",
          flush=True)
    py, n3 = xdist_rate(a.impl, areas, a.flink, a.cases)
    print(f"  pytest -n 2:     {py:,.0f} cases/s end to end, {n3:,} cases (max_examples {n3 // len(areas):,} per area)",
          flush=True)
    ceiling = machine_scaling()
    print(f"local[2] / local[1] = {two / one:.2f} end to end, {two_net / one_net:.2f} without start-up (goal >= 1.7; "
          f"two processes on this machine right now: {ceiling:.2f})")
    print(f"fanout local[2] / pytest -n 2 = {two / py:.2f} end to end (goal >= 1.0)")


if __name__ == "__main__":
    main()
