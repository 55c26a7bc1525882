"""Historical mutants: real Flink bugs (and one default change), re-created in today's oracle.

Each mutant ``flink-NNNNN`` answers as Flink did before the fix of FLINK-NNNNN, in every version
(at versions after the fix that is the bug shipped again; at 2.3 it is what the buggy code would
do if released today). Its ``ticket`` is the JIRA issue, ``fixed_by`` the fixing pull request and
the first release with the fix, and ``affected`` the releases that had the bug. Where the bug lives
in one class of the oracle (the valve, the completed-checkpoint store, the failure manager, the
version rules) the mutant runs the oracle with that class or table swapped for the buggy one,
for the duration of one answer; elsewhere it rewrites the request (answering "as version X").
Sources: docs/historical-mutants.md.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import Any
from unittest import mock

import attrs

import oracle
import oracle.coordinator
import oracle.coordinator_machine
import oracle.watermark
from flinkspec.mutants.classloading import _answer as _classloading_answer
from flinkspec.mutants.memory import _old_network_default
from flinkspec.mutants.mutant import Mutant, Request, Response
from oracle import classloading_config as clc
from oracle.classloading import RESOLVE as CLASSLOADING
from oracle.coordinator import COORDINATOR
from oracle.coordinator_rules import Completed, CompletedStore, FailureManager, Rules, rules_for
from oracle.memory import TASKMANAGER
from oracle.valve import LONG_MAX, Element, StatusWatermarkValve, Watermark
from oracle.versions import FlinkVersion, UnknownVersion, parse_version, v
from oracle.watermark import COMBINED, VALVE

MUTANTS: list[Mutant] = []  # this module's mutants, in the order flinkspec mutants lists them

JIRA = "https://issues.apache.org/jira/browse/"
PR = "https://github.com/apache/flink/pull/"


def _historical(number: int, area: str, doc: str, fixed_by: str, affected: str, **rewrite: Any) -> None:
    MUTANTS.append(Mutant(f"flink-{number}", area, doc, ticket=f"{JIRA}FLINK-{number}", fixed_by=fixed_by,
                  affected=affected, **rewrite))


def _with_patches(*patches: tuple[object, str, object]) -> Callable[[Request, Response], Response]:
    """Answer with the oracle's ``attribute`` of each ``(module, attribute, value)`` replaced."""
    def after(request: Request, _response: Response) -> Response:
        with contextlib.ExitStack() as stack:
            for target, attribute, value in patches:
                stack.enter_context(mock.patch.object(target, attribute, value))
            return oracle.answer(request)
    return after


def _as_version(old: str, since: str | None = None) -> Callable[[Request], Request]:
    """Ask the oracle as Flink ``old`` (only for requests at ``since`` or later, if given)."""
    def before(request: Request) -> Request:
        try:
            version = parse_version(request["flink"])
        except UnknownVersion:
            return request  # the oracle rejects it
        if since is not None and version < v(since):
            return request
        return {**request, "flink": old}
    return before


# ---- watermark.valve ---------------------------------------------------------------------------

class _MaxWhenNoneAligned(StatusWatermarkValve):
    """FLINK-7721: the minimum over aligned channels starts at Long.MAX_VALUE and is emitted even
    when no channel is aligned (``findAndOutputNewMinWatermarkAcrossAlignedChannels`` had no
    ``hasAlignedChannels`` check)."""

    def _emit_new_min(self) -> tuple[Element, ...]:
        if self._aligned_min.minimum() is None and self._last_watermark < LONG_MAX:
            self._last_watermark = LONG_MAX
            return (Watermark(LONG_MAX),)
        return super()._emit_new_min()


class _NoAllIdleFlush(StatusWatermarkValve):
    """FLINK-7728: when the last active channel goes idle, only IDLE is emitted (no flush)."""

    def _emit_max_over_all(self) -> tuple[Element, ...]:
        return ()


_historical(
    7721, VALVE,
    "StatusWatermarkValve emits Long.MAX_VALUE when no channel is aligned but some are active "
    "(e.g. the only aligned channel goes idle while an active one lags behind the output).",
    f"{PR}4738 (Flink 1.3.3 / 1.4.0)", "1.2.x, 1.3.0-1.3.2",
    after=_with_patches((oracle.watermark, "StatusWatermarkValve", _MaxWhenNoneAligned)))
_historical(
    7728, VALVE,
    "StatusWatermarkValve does not flush the largest channel watermark when all channels go idle: "
    "the output watermark depends on the order in which the channels became idle.",
    f"{PR}4747 (Flink 1.3.3 / 1.4.0)", "1.3.0-1.3.2",
    after=_with_patches((oracle.watermark, "StatusWatermarkValve", _NoAllIdleFlush)))

_historical(
    31628, VALVE,
    "StatusWatermarkValve removes a channel going idle from its heap of aligned channels without checking "
    "that it is there: an active channel that is not aligned (it came back behind the output) throws "
    "ArrayIndexOutOfBoundsException when it goes idle (as Flink 1.17.0 does, SWV-11).",
    f"{PR}22382 (Flink 1.17.1)", "1.17.0",
    after=_with_patches((oracle.watermark, "UNCHECKED_HEAP_REMOVAL", {v("1.13"): True})),
    undocumented="the documented rules say what the valve emits, not which inputs it may refuse: a refusal is "
                 "judged by the flink level's differential check alone")

# ---- watermark.combined ------------------------------------------------------------------------

_historical(
    18934, COMBINED,
    "An idle input still holds back the combined watermark of a two/multi-input operator (answers "
    "as Flink 1.13, whose operators ignore stream status; from 2.2 this also lacks FLINK-38454's flush).",
    f"{PR}15771 (Flink 1.14.0)", "1.13 and earlier", before=_as_version("1.13"))
_historical(
    38454, COMBINED,
    "When every input of a multi-input operator goes idle, only IDLE is emitted: the largest "
    "input watermark is not flushed first (answers as Flink 2.1 from 2.2 on).",
    f"{PR}27066 (Flink 2.2.0)", "1.14-2.1", before=_as_version("2.1", since="2.2"))


# ---- checkpoint.coordinator --------------------------------------------------------------------



def _rules_with(**changes: Any) -> Callable[[FlinkVersion], Rules]:
    def tweaked(version: FlinkVersion) -> Rules:
        rules = rules_for(version)
        return attrs.evolve(rules, **{k: fn(getattr(rules, k)) for k, fn in changes.items()})
    return tweaked


class _DropOldest(CompletedStore):
    """FLINK-21351: the store drops its oldest entries past ``retain``, savepoint or not, so adding
    a savepoint with retain 1 discards the last checkpoint (``CheckpointSubsumeHelper`` absent)."""

    def add(self, checkpoint: Completed) -> list[Completed]:
        self._checkpoints.append(checkpoint)
        dropped = self._checkpoints[:-self._retain]
        self._checkpoints = self._checkpoints[-self._retain:]
        return dropped


_historical(
    15922, COORDINATOR,
    "The coordinator remembers every checkpoint removed from pending (declined, subsumed, aborted) "
    "and reports a late ack for any of them as a late message, not only for expired ones.",
    f"{PR}23364 (Flink 1.19.0)", "1.13-1.18",
    after=_with_patches((oracle.coordinator, "rules_for", _rules_with(remembers_all_removed=lambda _: True))),
    undocumented="No document says how the coordinator answers an acknowledgement of a checkpoint that is no "
    "longer pending (reported as a late message, or as unknown): that is CheckpointCoordinator's bookkeeping of "
    "the checkpoints it removed (the protocol's was_pending), which only Flink's code decides.")
_historical(
    25191, COORDINATOR,
    "Savepoints are added to the completed-checkpoint store and subsume older pending checkpoints "
    "and stored checkpoints, as up to 1.14 (FLIP-193 changed this; a behaviour change, not a bug fix).",
    f"{PR}18092 (Flink 1.15.0)", "1.13-1.14",
    after=_with_patches((oracle.coordinator, "rules_for", _rules_with(stores_savepoints=lambda _: True))))
_historical(
    21351, COORDINATOR,
    "Adding a savepoint to the completed-checkpoint store with num-retained 1 subsumes the last "
    "checkpoint (incremental checkpoints then refer to discarded state). From 1.15 savepoints are "
    "no longer stored, so there the mutant also stores them, as the buggy code did.",
    f"{PR}14953 (Flink 1.12.2 / 1.13.0)", "1.10-1.12.1",
    after=_with_patches((oracle.coordinator_machine, "CompletedStore", _DropOldest),
                        (oracle.coordinator, "rules_for", _rules_with(stores_savepoints=lambda _: True))),
    undocumented="Up to 1.14 Flink's documentation lets a savepoint stand in the store for recovery (Savepoints: "
    "'if there is no checkpoint after the last savepoint, the savepoint will be used for recovery') and bounds the "
    "store only by state.checkpoints.num-retained, which the mutant keeps; that the latest checkpoint must stay "
    "beside a savepoint (what incremental checkpoints refer to) no document says. From 1.15 it breaks CCR-10.",
    documented_since="1.15")
class _NoLastSuccess(FailureManager):
    """FLINK-18336: before 1.12 ``CheckpointFailureManager`` kept no ``lastSucceededCheckpointId``: every
    success cleared the count, and a failure of a checkpoint older than the last success counted again."""

    def succeeded(self, checkpoint_id: int) -> None:
        self._clear()


_historical(
    18336, COORDINATOR,
    "The failure manager keeps no last successful checkpoint id: a checkpoint older than the last "
    "success that fails afterwards (a savepoint still pending when a newer checkpoint completes, then "
    "declined) counts towards the tolerable failures, and any success, even an older one, resets the count.",
    f"{PR}12751 (Flink 1.12.0)", "1.10 and earlier (1.11.x not checked)",
    after=_with_patches((oracle.coordinator_machine, "FailureManager", _NoLastSuccess)),
    undocumented="The documentation defines execution.checkpointing.tolerable-failed-checkpoints only as 'the "
    "tolerable checkpoint consecutive failure number'. Without savepoints the mutant answers as Flink does (a "
    "completion subsumes every older pending checkpoint, and a subsumed one is not counted); it differs only when "
    "a savepoint outlives a newer completed checkpoint, and whether that savepoint's later failure or completion "
    "breaks or ends a run of 'consecutive' failures no document says: CheckpointFailureManager's "
    "lastSucceededCheckpointId decides (FLINK-18336).")


def _not_counted(reason: str) -> Callable[[Request, Response], Response]:
    """Answer as if the failure manager did not count ``reason`` towards the tolerable failures."""
    return _with_patches((oracle.coordinator, "rules_for", _rules_with(counted=lambda counted: counted - {reason})))


_historical(
    27570, COORDINATOR,
    "A task's decline with FINALIZE_CHECKPOINT_FAILURE is not counted towards the tolerable "
    "checkpoint failures (the job keeps running past the threshold).",
    f"{PR}20091 (Flink 1.15.2, per its release notes)", "1.15.1 and earlier",
    after=_not_counted("FINALIZE_CHECKPOINT_FAILURE"))
_historical(
    23189, COORDINATOR,
    "A checkpoint that fails with IO_EXCEPTION is not counted towards the tolerable checkpoint "
    "failures, as before 1.14.",
    f"{PR}16637 (Flink 1.14.0)", "1.13 and earlier",
    after=_not_counted("IO_EXCEPTION"))


# ---- classloading.resolve ----------------------------------------------------------------------

def _default_pattern_missing(pattern: str) -> Callable[[Mapping[str, str], FlinkVersion], clc.LoaderSettings]:
    """Settings as Flink reads them, but with ``pattern`` absent from the built-in defaults."""
    def read(config: Mapping[str, str], version: FlinkVersion) -> clc.LoaderSettings:
        settings = clc.settings(config, version)
        if clc.DEFAULT_KEY in config or "classloader.parent-first-patterns" in config:
            return settings
        return attrs.evolve(settings, patterns=tuple(p for p in settings.patterns if p != pattern))
    return read


_historical(
    8455, CLASSLOADING,
    "org.apache.hadoop. is not among the default parent-first patterns: Hadoop classes bundled in a job "
    "jar are loaded child-first (ClassCastExceptions with the BucketingSink).",
    f"{PR}5313 (Flink 1.5.0)", "1.4.0 and earlier",
    after=_classloading_answer(read_settings=_default_pattern_missing("org.apache.hadoop.")))
_historical(
    23649, CLASSLOADING,
    "org.rocksdb. is not among the default parent-first patterns: RocksDB (FRocksDB) classes bundled "
    "in a job jar are loaded child-first.",
    f"{PR}16811 (Flink 1.14.0)", "1.13 and earlier",
    after=_classloading_answer(read_settings=_default_pattern_missing("org.rocksdb.")))


# ---- memory.taskmanager ------------------------------------------------------------------------

_historical(
    30472, TASKMANAGER,
    "taskmanager.memory.network.max defaults to 1g (a default change of FLIP-266, not a bug fix): "
    "large TaskManagers derive at most 1g of network memory.",
    f"{PR}21618 (Flink 1.17.0)", "1.10-1.16", before=_old_network_default)

