"""bench/throughput: where a check's time goes, per area, against the oracle on one core (issue 30's
profile), each stage timed on the same requests in one run.

    python -m bench.throughput [--n 600] [--area A,...] [--flink X.Y]

For every area it prints the cases/s of ``flinkspec check --impl oracle`` end to end (what a user
gets), and of each stage alone on the same number of requests: drawing them through Hypothesis's
engine (as the pytest property does, and ``check`` and the corpora did before :mod:`properties.bulk`), drawing
them as the corpora now are (``properties.corpus.draw``: :mod:`properties.bulk`, the same strategy
without the engine's per-choice bookkeeping), the oracle answering them, and the judge (invariants and
the oracle's expected answer) judging the answers. Two ratios, each of rates measured in the same run:
bulk drawing over engine drawing (the speed-up of every corpus: ``fanout``'s chunks, ``check``'s
requests), and the end-to-end rate over the oracle's own answering rate (1.0
would mean the pipeline adds nothing to what the implementation costs). The shares say which stage
of a bulk run (drawing in bulk, answering, judging) to cut next.

With ``--impl flink:X.Y.Z`` (or any implementation ``flinkspec check`` takes) two more columns come from
that implementation, with its JVM started before anything is timed: its own rate answering the same
requests in one batch (``impl/s``), and ``flinkspec check``'s rate against it end to end
(``check-impl/s``); ``check/impl`` is their ratio, issue 30's "within 2x of the bridge's own
throughput" when it is 0.5 or more.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import oracle
from flinkspec.engine.check import check_area, versions_for
from flinkspec.impls import open_impl
from flinkspec.impls.capabilities import EVERYTHING
from flinkspec.judge.verdict import Judge
from oracle.versions import LATEST, FlinkVersion, parse_version
from properties import corpus
from properties.areas import AREAS
from properties.corpus import draw, engine_draw


def _seconds(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def profile(area: str, version: FlinkVersion, n: int, other: str = "") -> dict[str, float]:
    """Seconds per stage for ``n`` requests of ``area`` at ``version``, and the end-to-end check; with
    ``other`` (an implementation spec) also its own answering of the same requests and a check against it."""
    impl = open_impl("oracle")
    try:
        end_to_end = _seconds(lambda: check_area(impl, "oracle", area, version, examples=n, seed_value=0))
        requests: list[dict[str, Any]] = []
        engine = _seconds(lambda: engine_draw(AREAS[area].requests(version), n, 1))
        bulk = _seconds(lambda: requests.extend(draw(AREAS[area].requests(version), n, 1)))
        sent = [{"id": i, **r} for i, r in enumerate(requests, 1)]
        answers: list[dict[str, Any]] = []
        answer = _seconds(lambda: answers.extend(oracle.answer(r) for r in sent))
        judge = Judge(impl, AREAS[area], version, "flink", False, EVERYTHING)
        judging = _seconds(lambda: [judge.judge(r, a) for r, a in zip(sent, answers, strict=True)])
    finally:
        impl.close()
    out = {"check": end_to_end, "engine": engine, "bulk": bulk, "answer": answer, "judge": judging}
    if other:
        real = open_impl(other)
        try:
            real.answer_many(sent[:20])  # the JVM started, the area's classes loaded
            # seed 2: a corpus not drawn yet (corpus.inputs keeps what it drew), which the check draws
            out["check-impl"] = _seconds(lambda: check_area(real, other, area, version, examples=n, seed_value=2))
            same = [{"id": i, "area": area, "flink": str(version), "input": inp}
                    for i, inp in enumerate(corpus.inputs(area, version, n, 2), 1)]
            out["impl"] = _seconds(lambda: real.answer_many(same))  # the requests that check sent
        finally:
            real.close()
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=600, help="requests per area (default 600)")
    p.add_argument("--area", default="", help="areas, comma-separated (default: every area)")
    p.add_argument("--flink", default=LATEST.line, help="Flink release (default: the newest)")
    p.add_argument("--impl", default="", help="also time this implementation (flink:X.Y.Z, a jar, cmd:...) and a "
                                                  "check against it")
    p.add_argument("--out", help="also write the table to this file (docs/evidence/throughput.txt)")
    a = p.parse_args()
    wanted = parse_version(a.flink)
    areas = [x for x in (a.area.split(",") if a.area else AREAS) if versions_for(x, [wanted])]
    lines = [f"python -m bench.throughput --n {a.n}" + (f" --area {a.area}" if a.area else "") + f" --flink {a.flink}"
             + (f" --impl {a.impl}" if a.impl else ""),
             f"{'area':<26} {'check/s':>8} {'engine/s':>9} {'bulk/s':>8} {'oracle/s':>9} {'judge/s':>8}"
             f"  {'draw%':>5} {'ans%':>5} {'judge%':>6}  bulk/engine  check/oracle"
             + (f" {'impl/s':>8} {'check-impl/s':>12} {'check/impl':>10}" if a.impl else "")]
    print("\n".join(lines))
    for area in areas:
        version = versions_for(area, [wanted])[0]
        s = profile(area, version, a.n, a.impl)
        staged = s["bulk"] + s["answer"] + s["judge"]  # a bulk run's stages
        rate = {k: a.n / v for k, v in s.items()}
        lines.append(f"{area:<26} {rate['check']:8,.0f} {rate['engine']:9,.0f} {rate['bulk']:8,.0f}"
                     f" {rate['answer']:9,.0f} {rate['judge']:8,.0f}  {100 * s['bulk'] / staged:5.0f}"
                     f" {100 * s['answer'] / staged:5.0f} {100 * s['judge'] / staged:6.0f}"
                     f"  {rate['bulk'] / rate['engine']:11.1f}  {rate['check'] / rate['answer']:12.3f}"
                     + (f" {rate['impl']:8,.0f} {rate['check-impl']:12,.0f} {rate['check-impl'] / rate['impl']:10.2f}"
                        if a.impl else ""))
        print(lines[-1], flush=True)
    if a.out:
        Path(a.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
