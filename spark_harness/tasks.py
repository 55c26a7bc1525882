"""What a Spark task runs: the chunks of one partition against its own connection to the implementation.

Imported on the executors. The implementation is opened once per Python worker process and
reused by every task that worker runs (PySpark reuses workers), never per case. Requests go in
pipelined batches; each answer is judged by :func:`flinkspec.judge.verdict.evaluate` (the same invariants
and differential check as ``flinkspec check`` and pytest).

Faults: when the implementation crashes, hangs, answers garbage or cannot be opened, that is an
error, never a verdict, and it ends the run as it ends ``flinkspec check``: what was judged so far
(the answers of the batch that came before the break included) is kept, the break is recorded with
the request it broke on, the rest of the partition is reported unchecked, and the task returns at
once (it never raises: Spark would retry it). It also touches the run's stop file
(:attr:`JobSpec.stop_file`), and every task checks that file between batches: on one machine the
other tasks return what they found within a batch (on a cluster the driver cancels them). A task
that dies itself (its worker killed, its executor lost) is retried by Spark and recomputes the same
result.
"""

from __future__ import annotations

import atexit
import os
import socket
import time
from collections.abc import Sequence
from typing import Any

import attrs

from flinkspec.impls import (
    DEFAULT_TIMEOUT_S,
    Implementation,
    ImplementationBroken,
    UsageError,
    open_impl,
    search_here,
)
from flinkspec.impls.capabilities import EVERYTHING, Capabilities
from flinkspec.judge.divergence import Cause
from flinkspec.judge.verdict import Conformance, Judge, NotChecked, said
from oracle.versions import FlinkVersion, parse_version
from properties import corpus
from properties.areas import AREAS
from spark_harness.plan import Chunk
from spark_harness.shrink import Failure, keep, shape, size

BATCH = 256


@attrs.frozen
class JobSpec:
    """Everything a task needs besides its chunks (pickled once per task)."""

    impl: str
    conformance: Conformance = "flink"
    strict_messages: bool = False
    timeout: float = DEFAULT_TIMEOUT_S
    capabilities: Capabilities = EVERYTHING  # what the implementation speaks and supports
    fault: str | None = None  # test hook: "exit:P" / "exit-always:P" kill partition P's worker halfway
    # through, on its first attempt / on every attempt
    stop_file: str | None = None  # exists once the implementation broke somewhere: every task stops
    workdir: str | None = None  # the driver's directory: `python:MODULE:CALLABLE` is looked for there too


@attrs.frozen
class Tally:
    """Cases checked for one (area, version) in one partition."""

    area: str
    flink: str
    cases: int
    failing: int
    seconds: float


@attrs.frozen
class InfraError:
    """Cases a partition could not check, and why."""

    area: str
    flink: str
    partition: int
    chunk: int
    unchecked: int
    cause: str
    request: dict[str, Any] | None = None  # the request the implementation broke on
    broke: bool = False  # the implementation broke here (else: not checked because it broke elsewhere)

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


@attrs.frozen
class PartitionResult:
    partition: int
    attempt: int
    executor: str
    seconds: float
    generate_seconds: float
    tallies: tuple[Tally, ...]
    failures: tuple[Failure, ...]
    infra: tuple[InfraError, ...]
    not_checked: tuple[tuple[str, str, str, int], ...] = ()  # (area, version, why, cases) not sent

    @property
    def cases(self) -> int:
        return sum(t.cases for t in self.tallies)

    @property
    def broke(self) -> InfraError | None:
        """Where the implementation broke in this partition, if it did."""
        return next((e for e in self.infra if e.broke), None)


_IMPLS: dict[tuple[str, float], Implementation] = {}


def _impl(job: JobSpec) -> Implementation:
    key = (job.impl, job.timeout)
    if key not in _IMPLS:
        if job.workdir is not None:  # on one machine the executors see the driver's directory
            search_here(job.workdir)
        _IMPLS[key] = open_impl(job.impl, timeout=job.timeout)
    return _IMPLS[key]


@atexit.register
def _close_all() -> None:
    for impl in _IMPLS.values():
        impl.close()
    _IMPLS.clear()


STOPPED = "not checked: the run stopped when the implementation broke"


class _Partition:
    """The mutable state of one partition while it runs; frozen into a PartitionResult at the end."""

    def __init__(self, pid: int, job: JobSpec, attempt: int) -> None:
        self.pid, self.job, self.attempt = pid, job, attempt
        self.tallies: dict[tuple[str, str], list[float]] = {}
        self.failures: dict[tuple[str, str, Cause], list[Failure]] = {}
        self.infra: list[InfraError] = []
        self.stopped: str | None = None  # why this partition checks nothing more
        self.generate_seconds = 0.0
        self.next_id = 0
        self.chunks_done = 0
        self.not_checked: dict[tuple[str, str, str], int] = {}
        self.judges: dict[tuple[str, str], Judge] = {}

    def skip(self, area: str, ver: str, why: str) -> None:
        """A generated case the implementation cannot be sent or judged in its protocol version."""
        self.not_checked[(area, ver, why)] = self.not_checked.get((area, ver, why), 0) + 1

    def tally(self, area: str, ver: str, cases: int = 0, failing: int = 0, seconds: float = 0.0) -> None:
        t = self.tallies.setdefault((area, ver), [0, 0, 0.0])
        t[0] += cases
        t[1] += failing
        t[2] += seconds

    def judge_of(self, req: dict[str, Any], version: FlinkVersion) -> Judge:
        """The judge of a request's area and release (one per partition)."""
        key = (req["area"], req["flink"])
        if key not in self.judges:
            self.judges[key] = Judge(_impl(self.job), AREAS[req["area"]], version, self.job.conformance,
                                     self.job.strict_messages, self.job.capabilities)
        return self.judges[key]

    def judge(self, req: dict[str, Any], actual: dict[str, Any], version: FlinkVersion) -> None:
        """Judge one answer as every route does (:class:`flinkspec.judge.verdict.Judge`)."""
        try:
            found = self.judge_of(req, version).diverges(req, actual)
        except NotChecked as exc:
            self.skip(req["area"], req["flink"], str(exc))
            return
        self.tally(req["area"], req["flink"], 1, found is not None)
        if found is None:
            return
        sig, broken, expected = found
        clean = {k: req[k] for k in ("area", "flink", "input")}
        failure = Failure(req["area"], req["flink"], sig, said(broken, sig.rules),
                          clean, actual, expected, size(clean), shape(clean))
        keep(self.failures.setdefault(failure.key, []), failure)

    def should_stop(self) -> bool:
        """Whether to check nothing more: the implementation broke here, or elsewhere (the stop file)."""
        if self.stopped is None and self.job.stop_file is not None and os.path.exists(self.job.stop_file):
            self.stopped = STOPPED
        return self.stopped is not None

    def broke(self, chunk: Chunk, ver: str, unchecked: int, exc: Exception) -> None:
        """The implementation broke (or could not be opened): record it, stop, and tell the other tasks."""
        request = getattr(exc, "request", None) or {}
        keys = ("area", "flink", "input")
        clean = {k: request[k] for k in keys} if all(k in request for k in keys) else None
        self.infra.append(InfraError(chunk.area, ver, self.pid, chunk.index, unchecked, str(exc), clean, broke=True))
        self.stopped = STOPPED
        if self.job.stop_file is not None:
            try:
                with open(self.job.stop_file, "a"):
                    pass
            except OSError:  # a cluster's executor without the driver's folder: the driver cancels instead
                pass

    def unchecked(self, chunk: Chunk, ver: str, unchecked: int) -> None:
        if unchecked > 0:
            self.infra.append(InfraError(chunk.area, ver, self.pid, chunk.index, unchecked,
                                         self.stopped or STOPPED))

    def freeze(self, seconds: float) -> PartitionResult:
        tallies = tuple(Tally(a, v, int(t[0]), int(t[1]), round(t[2], 3)) for (a, v), t in self.tallies.items())
        failures = tuple(f for bucket in self.failures.values() for f in bucket)
        return PartitionResult(self.pid, self.attempt, f"{socket.gethostname()}:{os.getpid()}", round(seconds, 3),
                               round(self.generate_seconds, 3), tallies, failures, tuple(self.infra),
                               tuple((a, v, why, n) for (a, v, why), n in self.not_checked.items()))


def run_partition(pid: int, chunks: Sequence[Chunk], job: JobSpec, attempt: int | None = None) -> PartitionResult:
    """Check every chunk of partition ``pid``; never raises for a broken implementation."""
    if attempt is None:
        from pyspark import TaskContext

        ctx = TaskContext.get()
        attempt = ctx.attemptNumber() if ctx is not None else 0
    started = time.monotonic()
    state = _Partition(pid, job, attempt)
    for chunk in chunks:
        if state.should_stop():
            for ver in chunk.versions:
                state.unchecked(chunk, ver, chunk.n)
            continue
        _run_chunk(state, chunk)
        state.chunks_done += 1
    return state.freeze(time.monotonic() - started)


def _run_chunk(state: _Partition, chunk: Chunk) -> None:
    t0 = time.monotonic()
    spec = AREAS[chunk.area]
    source = AREAS[spec.corpus_of or chunk.area]  # as properties.corpus.inputs: an area may extend another's
    inputs = [r["input"] for r in corpus.draw(source.requests(parse_version(chunk.versions[0])), chunk.n, chunk.seed)]
    state.generate_seconds += time.monotonic() - t0
    share = (time.monotonic() - t0) / len(chunk.versions)
    for ver in chunk.versions:
        t1 = time.monotonic()
        reqs = []
        for inp in inputs:
            sent, why = state.job.capabilities.fit(
                {"area": chunk.area, "flink": ver, "input": spec.adapt(inp, parse_version(ver))})
            if sent is None:
                state.skip(chunk.area, ver, why or "not checked")
                continue
            state.next_id += 1
            reqs.append({"id": state.next_id, **sent})
        _answer_all(state, chunk, ver, reqs)
        state.tally(chunk.area, ver, seconds=share + time.monotonic() - t1)


def _answer_all(state: _Partition, chunk: Chunk, ver: str, reqs: list[dict[str, Any]]) -> None:
    version = parse_version(ver)
    pos = 0
    while pos < len(reqs):
        if state.should_stop():
            state.unchecked(chunk, ver, len(reqs) - pos)
            return
        batch = reqs[pos:pos + BATCH]
        _maybe_die(state, chunk, ver, pos, len(reqs))
        try:
            answers = _impl(state.job).answer_many(batch)
        except (ImplementationBroken, UsageError) as exc:  # UsageError: `python:` not importable on this executor
            answered = getattr(exc, "answered", [])
            for req, actual in zip(batch, answered, strict=False):
                state.judge(req, actual, version)
            state.broke(chunk, ver, len(reqs) - pos - len(answered), exc)
            return
        state.judge_of(batch[0], version).prefetch(list(zip(batch, answers, strict=True)))  # a chunk: one area
        for req, actual in zip(batch, answers, strict=True):
            state.judge(req, actual, version)
        pos += len(batch)


def _maybe_die(state: _Partition, chunk: Chunk, ver: str, pos: int, total: int) -> None:
    """Test hook (``JobSpec.fault``): the worker process dies halfway through the partition's first
    chunk, as if the OS had killed it: ``exit:P`` on the first attempt only, ``exit-always:P`` on
    every attempt."""
    kind, _, target = (state.job.fault or "").partition(":")
    if (target == str(state.pid) and (kind == "exit-always" or (kind == "exit" and state.attempt == 0))
            and state.chunks_done == 0 and ver == chunk.versions[0] and pos >= total // 2 > 0):
        os._exit(17)
