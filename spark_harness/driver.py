"""The driver of a fan-out run: start Spark, run the partitions, keep every result, shrink, assemble.

Spark retries a task whose worker or executor died (``spark.task.maxFailures``, or ``local[N,F]``).
If a job fails anyway, the partitions that finished are read back from the results accumulator,
and every missing partition is run once more as a job of its own, so that one partition that
keeps failing cannot take the others with it; what is still missing then is reported as an
infrastructure error naming the partition, its cases and Spark's cause. Counterexamples are never
dropped: a run that ends early (an interrupt, a lost partition) reports what it found, unshrunk
if there was no time to shrink.

A broken implementation is not a Spark failure: the task that sees it break returns at once
(:mod:`spark_harness.tasks`) and so do the others, told by the run's stop file; on a cluster, whose
executors may not see that file, the driver cancels what still runs :data:`STOP_GRACE_S` seconds after
the break. The run then ends with the break as its one error, nothing shrunk (the implementation
cannot answer), every counterexample found so far kept.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import attrs

from flinkspec.engine.check import AreaRun, Counterexample, dissolve
from flinkspec.impls import Implementation
from flinkspec.judge.verdict import replay_command
from spark_harness.plan import Chunk, partition
from spark_harness.shrink import candidates, shrink_divergence, size
from spark_harness.tasks import InfraError, JobSpec, PartitionResult, run_partition

DEFAULT_MASTER = "local[*]"
TASK_RETRIES = 4
STOP_GRACE_S = 3.0  # after a break, on a cluster: how long running tasks may take to return what they found
STOPPED = "not run: the run stopped when the implementation broke"
LOG4J = Path(__file__).with_name("log4j2.properties")


@attrs.frozen
class Lost:
    """A partition no Spark attempt finished."""

    partition: int
    cases: int
    cause: str


@attrs.define
class Outcome:
    """Everything a fan-out run found, ready for the report."""

    runs: list[AreaRun]
    results: dict[int, PartitionResult]
    lost: list[Lost]
    master: str
    partitions: int
    wall_seconds: float
    checked_cases: int
    shrink_cases: int
    interrupted: bool = False

    @property
    def infra(self) -> list[InfraError]:
        return [e for pid in sorted(self.results) for e in self.results[pid].infra]

    @property
    def broke(self) -> InfraError | None:
        """Where the implementation broke (the first partition that saw it), if it did."""
        return next((e for pid in sorted(self.results) for e in self.results[pid].infra if e.broke), None)

    @property
    def retried(self) -> list[int]:
        """Partitions whose result came from a second (or later) attempt."""
        return sorted(pid for pid, r in self.results.items() if r.attempt > 0)

    def to_json(self) -> dict[str, Any]:
        return {
            "master": self.master,
            "partitions": self.partitions,
            "wall_seconds": round(self.wall_seconds, 3),
            "checked_cases": self.checked_cases,
            "shrink_cases": self.shrink_cases,
            "cases_per_second": round(self.checked_cases / self.wall_seconds, 1) if self.wall_seconds else None,
            "generate_seconds": round(sum(r.generate_seconds for r in self.results.values()), 3),
            "task_seconds": round(sum(r.seconds for r in self.results.values()), 3),
            "executors": sorted({r.executor for r in self.results.values()}),
            "retried_partitions": self.retried,
            "lost_partitions": [attrs.asdict(lost) for lost in self.lost],
            "infra_errors": [e.to_json() for e in self.infra],
            "broke": self.broke.to_json() if self.broke else None,
            "interrupted": self.interrupted,
        }


def spark_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("pyspark") is not None


def with_task_retries(master: str) -> str:
    """``local[N]`` retries no failed task; ``local[N,F]`` retries it F-1 times like a cluster."""
    m = re.fullmatch(r"local(?:\[([^,\]]+)\])?", master.strip())
    if m is None:
        return master
    return f"local[{m.group(1) or '1'},{TASK_RETRIES}]"


def spark_context(master: str | None, app: str = "flinkspec fanout", conf: Sequence[tuple[str, str]] = ()) -> Any:
    """A SparkContext for ``master`` (default ``local[*]``; under spark-submit, spark-submit's)."""
    from pyspark import SparkConf, SparkContext

    submitted = "PYSPARK_GATEWAY_PORT" in os.environ  # started by spark-submit: its --master rules
    sc_conf = SparkConf().setAppName(app)
    if master or not submitted:
        sc_conf.setMaster(with_task_retries(master or DEFAULT_MASTER))
    sc_conf.set("spark.ui.showConsoleProgress", "false")
    sc_conf.setIfMissing("spark.ui.enabled", "false")
    sc_conf.setIfMissing("spark.task.maxFailures", str(TASK_RETRIES))
    if not submitted:
        quiet = f"-Dlog4j2.configurationFile=file:{LOG4J}"
        sc_conf.setIfMissing("spark.driver.extraJavaOptions", quiet)
        sc_conf.setIfMissing("spark.executor.extraJavaOptions", quiet)
    # PySpark starts its Python workers with $PYSPARK_PYTHON (default: python3 on the PATH); this
    # interpreter is right on one machine, a cluster whose Python lives elsewhere sets PYSPARK_PYTHON
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    for key, value in conf:
        sc_conf.set(key, value)
    sc = SparkContext.getOrCreate(sc_conf)
    sc.setLogLevel("ERROR")
    return sc


def _spark_cause(exc: BaseException) -> str:
    """The useful line of a Spark job failure (Py4J wraps the Java trace around it)."""
    text = str(exc)
    for pattern in (r"(Job aborted due to stage failure: .*?)(?:\n|$)", r"(Python worker exited unexpectedly.*?)\n",
                    r"(\w+(?:Exception|Error): .*?)(?:\n|$)"):
        m = re.search(pattern, text)
        if m:
            return m.group(1)[:600]
    return text.strip().splitlines()[0][:600] if text.strip() else type(exc).__name__


class _StopOnBreak:
    """A driver thread that ends the run once the implementation broke: it creates the stop file
    (tasks that share the driver's file system stop within a batch, and the tasks not started yet
    at once), then, unless ``grace`` is None (a ``local`` master: every task sees the file, and none
    is killed with what it found), cancels Spark's jobs if they still run ``grace`` seconds later."""

    def __init__(self, sc: Any, read: Callable[[], dict[int, PartitionResult]], stop_file: str,
                 grace: float | None = STOP_GRACE_S) -> None:
        self.sc, self.read, self.stop_file, self.grace = sc, read, stop_file, grace
        self.broke_at: float | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="flinkspec-stop-on-break", daemon=True)

    @property
    def broke(self) -> bool:
        return self.broke_at is not None

    def __enter__(self) -> _StopOnBreak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join(timeout=5)

    def _loop(self) -> None:
        while not self._done.wait(0.2):
            if self.broke_at is None:
                if os.path.exists(self.stop_file) or any(r.broke for r in self.read().values()):
                    self.broke_at = time.monotonic()
                    with open(self.stop_file, "a"):
                        pass
            elif self.grace is None:
                return
            elif time.monotonic() - self.broke_at > self.grace:
                self.sc.cancelAllJobs()
                return


def execute(sc: Any, parts: Sequence[tuple[Chunk, ...]], job: JobSpec, *, total_cases: int,
            progress_interval: float = 5.0, log: Callable[[str], None] | None = None,
            ) -> tuple[dict[int, PartitionResult], list[Lost], bool]:
    """Run every partition; returns the results, the partitions lost, and whether interrupted."""
    from spark_harness.progress import Progress, ResultsParam

    say = log or (lambda text: print(text, file=sys.stderr, flush=True))
    acc = sc.accumulator({}, ResultsParam())
    stop_dir = tempfile.mkdtemp(prefix="flinkspec-stop-")
    job = attrs.evolve(job, stop_file=os.path.join(stop_dir, "broke"))

    def task(item: tuple[int, tuple[Chunk, ...]]) -> PartitionResult:
        res = run_partition(item[0], item[1], job)
        acc.add({item[0]: res})
        return res

    def results() -> dict[int, PartitionResult]:
        return dict(acc.value)

    lost: dict[int, str] = {}
    interrupted = False
    local = str(sc.master).startswith("local")
    stop = _StopOnBreak(sc, results, job.stop_file or "", None if local else STOP_GRACE_S)
    try:
        with Progress(results, total_cases, len(parts), progress_interval), stop:
            try:
                try:
                    sc.parallelize(list(enumerate(parts)), max(1, len(parts))).map(task).collect()
                except Exception as exc:  # a Spark job failure: keep what finished, retry the rest
                    missing = [p for p in range(len(parts)) if p not in acc.value]
                    if stop.broke:  # cancelled after the implementation broke: nothing to retry
                        lost = dict.fromkeys(missing, STOPPED)
                    else:
                        say(f"  a Spark job failed ({_spark_cause(exc)}); running the {len(missing)} unfinished "
                            "partition(s) again, one job each")
                        lost = _rerun(sc, parts, missing, task, results)
            except KeyboardInterrupt:
                interrupted = True
                sc.cancelAllJobs()
                say("  interrupted: reporting what was found so far")
    finally:
        shutil.rmtree(stop_dir, ignore_errors=True)
    done = results()
    losses = [Lost(p, sum(c.cases for c in parts[p]), lost.get(p, "interrupted" if interrupted else "not run"))
              for p in range(len(parts)) if p not in done]
    return done, losses, interrupted


def _rerun(sc: Any, parts: Sequence[tuple[Chunk, ...]], missing: list[int], task: Callable[..., PartitionResult],
           results: Callable[[], dict[int, PartitionResult]]) -> dict[int, str]:
    causes: dict[int, str] = {}

    def one(pid: int) -> None:
        try:
            sc.parallelize([(pid, parts[pid])], 1).map(task).collect()
        except Exception as exc:  # this partition failed every attempt: report it with Spark's cause
            causes[pid] = _spark_cause(exc)

    with ThreadPoolExecutor(max_workers=max(1, sc.defaultParallelism)) as pool:
        list(pool.map(one, missing))
    return {p: c for p, c in causes.items() if p not in results()}


def assemble(pairs: Sequence[tuple[str, str]], parts: Sequence[tuple[Chunk, ...]], results: dict[int, PartitionResult],
             lost: Sequence[Lost], job: JobSpec, shrink_with: Implementation | None,
             log: Callable[[str], None] | None = None) -> tuple[list[AreaRun], int]:
    """Per (area, version): cases, seconds, one shrunk counterexample per divergence, and
    infrastructure errors. Returns the runs and the number of requests shrinking sent."""
    say = log or (lambda text: print(text, file=sys.stderr, flush=True))
    runs = {(a, v): AreaRun(a, v) for a, v in pairs}
    for pid in sorted(results):
        for t in results[pid].tallies:
            run = runs[(t.area, t.flink)]
            run.cases += t.cases
            run.checked += t.cases
            run.seconds += t.seconds
        for area, ver, why, n in results[pid].not_checked:
            skipped = runs[(area, ver)].not_checked
            skipped[why] = skipped.get(why, 0) + n
    found = candidates(f for pid in sorted(results) for f in results[pid].failures)
    shrink_cases = 0
    if found:
        say(f"  shrinking {sum(len(v) for v in found.values())} candidate(s) of {len(found)} divergence(s)"
            + ("" if shrink_with is not None else " (skipped)") + " ...")
    for (area, ver, _cause), cands in sorted(found.items()):
        shrunk, sent = shrink_divergence(cands, shrink_with, job.impl, conformance=job.conformance,
                                         strict_messages=job.strict_messages, capabilities=job.capabilities)
        runs[(area, ver)].counterexamples.append(shrunk)
        runs[(area, ver)].failing += shrunk.cases
        runs[(area, ver)].cases += sent
        shrink_cases += sent
    errors: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for e in sorted((e for pid in sorted(results) for e in results[pid].infra), key=lambda e: not e.broke):
        errors.setdefault((e.area, e.flink), []).append((e.unchecked, f"partition {e.partition}: {e.cause}"))
        if e.broke and e.request is not None and runs[(e.area, e.flink)].infra_replay is None:
            runs[(e.area, e.flink)].infra_replay = replay_command(job.impl, e.request, job.strict_messages)
    for gone in lost:
        for chunk in parts[gone.partition]:
            for ver in chunk.versions:
                errors.setdefault((chunk.area, ver), []).append(
                    (chunk.n, f"partition {gone.partition} lost ({gone.cause})"))
    for key, errs in errors.items():
        unchecked = sum(n for n, _ in errs)
        more = f" (and {len(errs) - 1} more)" if len(errs) > 1 else ""
        runs[key].infra_error = f"{unchecked} case(s) unchecked: {errs[0][1]}{more}"
    for run in runs.values():
        run.counterexamples = sorted(dissolve(run.counterexamples), key=_order)
        run.seconds = round(run.seconds, 3)
    return list(runs.values()), shrink_cases


def _order(c: Counterexample) -> tuple[int, tuple[str, ...], tuple[int, int]]:
    return -c.cases, c.rules, size(c.request)


def fan_out(job: JobSpec, pairs: Sequence[tuple[str, str]], chunks: Sequence[Chunk], *, master: str | None = None,
            partitions: int | None = None, progress_interval: float = 5.0, sc: Any = None,
            shrink_with: Implementation | None = None, log: Callable[[str], None] | None = None,
            conf: Sequence[tuple[str, str]] = ()) -> Outcome:
    """Run ``chunks`` on Spark (``sc``, or a new context on ``master``) and assemble the outcome."""
    say = log or (lambda text: print(text, file=sys.stderr, flush=True))
    started = time.monotonic()
    own = sc is None
    if own:
        sc = spark_context(master, conf=conf)
    used = str(sc.master)
    try:
        parts = partition(chunks, partitions)
        total = sum(c.cases for c in chunks)
        say(f"fanout: {total:,} cases in {len(chunks)} chunk(s), {len(parts)} partition(s) on {sc.master} "
            f"({sc.defaultParallelism} task slot(s)) against {job.impl}")
        results, lost, interrupted = execute(sc, parts, job, total_cases=total,
                                             progress_interval=progress_interval, log=say)
    finally:
        if own:
            sc.stop()
    checking = time.monotonic() - started
    broke = any(r.broke for r in results.values())  # the implementation cannot answer shrinking's requests
    runs, shrink_cases = assemble(pairs, parts, results, lost, job,
                                  None if interrupted or broke else shrink_with, say)
    return Outcome(runs, results, list(lost), used, len(parts), checking, sum(r.cases for r in results.values()),
                   shrink_cases, interrupted)
