"""Shared benchmark plumbing: a fixed corpus from the suite's strategies, and timing of the
oracle against the real-Flink bridge on that same corpus in one run (a ratio, since these
machines are noisy and absolute numbers mean little)."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import strategies as st

import oracle
from flinkspec.impls import open_impl
from oracle.versions import LATEST, FlinkVersion, parse_version
from properties.corpus import draw


def options(n: int) -> tuple[FlinkVersion, int]:
    """The options every oracle-against-Flink bench takes: ``--flink`` (default: the newest release)
    and ``--n``, the corpus size (default ``n``)."""
    p = argparse.ArgumentParser()
    p.add_argument("--flink", default=LATEST.line, help="Flink release (default: the newest)")
    p.add_argument("--n", type=int, default=n, help=f"requests in the corpus (default {n})")
    a = p.parse_args()
    return parse_version(a.flink), a.n


def corpus(strategy: st.SearchStrategy[dict[str, Any]], n: int, seed: int = 1) -> list[dict[str, Any]]:
    """``n`` requests drawn from ``strategy`` with a fixed seed (same corpus every run)."""
    return [{"id": i, **req} for i, req in enumerate(draw(strategy, n, seed), 1)]


def rate(fn: Callable[[], object], items: int, repeat: int = 3) -> float:
    """Best items/second over ``repeat`` timed runs of ``fn``."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return items / best


def oracle_vs_flink(label: str, requests: Sequence[dict[str, Any]], version: str,
                    unit: str = "requests", count: Callable[[dict[str, Any]], int] = lambda _r: 1) -> float:
    """Print and return oracle units/s divided by real-Flink-bridge units/s on ``requests``."""
    items = sum(count(r) for r in requests)
    flink = open_impl(f"flink:{version}")
    try:
        flink.answer_many(requests)  # start the JVM and warm it up once
        flink_rate = rate(lambda: flink.answer_many(requests), items)
    finally:
        flink.close()
    oracle_rate = rate(lambda: [oracle.answer(r) for r in requests], items)
    ratio = oracle_rate / flink_rate
    what = f"{items} {unit}" if unit != "configs" else f"{items} configs"
    print(f"{label} (Flink {version}, {what}): oracle {oracle_rate:,.0f} "
          f"{unit}/s, real-Flink bridge {flink_rate:,.0f} {unit}/s, ratio oracle/bridge = {ratio:.2f}")
    return ratio
