"""bench/throughput: where a check's time goes, per area, against the oracle on one core (issue 30's
profile), each stage timed on the same requests in one run.

    python -m bench.throughput [--n 600] [--area A,...] [--flink X.Y]

For every area it prints the cases/s of ``flinkspec check --impl oracle`` end to end (what a user
gets), and of each stage alone on the same number of requests: drawing them through Hypothesis's
engine (as ``properties.corpus.draw`` does today), drawing them from the same strategy without the
engine (one ``ConjectureData`` per case, seeded by its index), the oracle answering them, and the
judge (invariants and the oracle's expected answer) judging the answers. The ratio printed is the
end-to-end rate over the oracle's own answering rate, measured in the same run: 1.0 would mean the
pipeline adds nothing to what the implementation costs; the shares say which stage to cut.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis.control import BuildContext
from hypothesis.internal.conjecture.data import ConjectureData

import oracle
from flinkspec.engine.check import check_area, versions_for
from flinkspec.impls import open_impl
from flinkspec.impls.capabilities import EVERYTHING
from flinkspec.judge.verdict import Judge
from oracle.versions import LATEST, FlinkVersion, parse_version
from properties.areas import AREAS
from properties.corpus import draw


def _seconds(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def raw_draw(area: str, version: FlinkVersion, n: int) -> list[dict[str, Any]]:
    """``n`` requests of the area's strategy, each drawn by one seeded ``ConjectureData`` (no engine)."""
    strategy = AREAS[area].requests(version)
    out = []
    for i in range(n):
        data = ConjectureData(random=random.Random(i))
        with BuildContext(data, wrapped_test=raw_draw):
            out.append(data.draw(strategy))
    return out


def profile(area: str, version: FlinkVersion, n: int) -> dict[str, float]:
    """Seconds per stage for ``n`` requests of ``area`` at ``version``, and the end-to-end check."""
    impl = open_impl("oracle")
    try:
        end_to_end = _seconds(lambda: check_area(impl, "oracle", area, version, examples=n, seed_value=0))
        requests: list[dict[str, Any]] = []
        engine = _seconds(lambda: requests.extend(draw(AREAS[area].requests(version), n, 1)))
        raw = _seconds(lambda: raw_draw(area, version, n))
        sent = [{"id": i, **r} for i, r in enumerate(requests, 1)]
        answers: list[dict[str, Any]] = []
        answer = _seconds(lambda: answers.extend(oracle.answer(r) for r in sent))
        judge = Judge(impl, AREAS[area], version, "flink", False, EVERYTHING)
        judging = _seconds(lambda: [judge.judge(r, a) for r, a in zip(sent, answers, strict=True)])
    finally:
        impl.close()
    return {"check": end_to_end, "engine": engine, "raw": raw, "answer": answer, "judge": judging}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=600, help="requests per area (default 600)")
    p.add_argument("--area", default="", help="areas, comma-separated (default: every area)")
    p.add_argument("--flink", default=LATEST.line, help="Flink release (default: the newest)")
    p.add_argument("--out", help="also write the table to this file (docs/evidence/throughput.txt)")
    a = p.parse_args()
    wanted = parse_version(a.flink)
    areas = [x for x in (a.area.split(",") if a.area else AREAS) if versions_for(x, [wanted])]
    lines = [f"python -m bench.throughput --n {a.n}" + (f" --area {a.area}" if a.area else "") + f" --flink {a.flink}",
             f"{'area':<26} {'check/s':>8} {'engine/s':>9} {'raw/s':>8} {'oracle/s':>9} {'judge/s':>8}"
             f"  {'draw%':>5} {'ans%':>5} {'judge%':>6}  check/oracle"]
    print("\n".join(lines))
    for area in areas:
        version = versions_for(area, [wanted])[0]
        s = profile(area, version, a.n)
        staged = s["engine"] + s["answer"] + s["judge"]
        rate = {k: a.n / v for k, v in s.items()}
        lines.append(f"{area:<26} {rate['check']:8,.0f} {rate['engine']:9,.0f} {rate['raw']:8,.0f}"
                     f" {rate['answer']:9,.0f} {rate['judge']:8,.0f}  {100 * s['engine'] / staged:5.0f}"
                     f" {100 * s['answer'] / staged:5.0f} {100 * s['judge'] / staged:6.0f}"
                     f"  {rate['check'] / rate['answer']:.3f}")
        print(lines[-1], flush=True)
    if a.out:
        Path(a.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
