"""Checkpoint-storage mutants: bugs a reimplementation of Flink's ``CheckpointStorageLoader`` and its storages'
directory layout plausibly has.

Each answers with one function or constant of :mod:`oracle.checkpoint_storage` swapped for the buggy one, for
the duration of one answer (:func:`properties.mutant.with_patches`).
"""

from __future__ import annotations

import oracle.checkpoint_storage as cs
from oracle.memory_options import Configuration
from oracle.versions import FlinkVersion
from properties.mutant import PR, Mutant, historical, with_patches

AREA = cs.STORAGE
MUTANTS: list[Mutant] = []  # this module's mutants, in the order flinkspec mutants lists them

_load = cs.checkpoint_storage
_sizes = cs.file_state_sizes


def _job_manager_by_default(conf: Configuration, version: FlinkVersion, backend: cs.Storage | None) -> cs.Storage:
    """No storage configured: a JobManager storage even where a checkpoint directory is configured."""
    if backend is None and conf.get(cs._option("storage", version)) is None:
        return cs.job_manager_storage(conf, version)
    return _load(conf, version, backend)


def _buffer_not_raised(conf: Configuration, version: FlinkVersion) -> tuple[int, int]:
    threshold, _ = _sizes(conf, version)
    return threshold, conf.get(cs._option("buffer", version, "int", cs.BUFFER_DEFAULT))


def _no_subdirs(conf: Configuration, version: FlinkVersion) -> bool:
    return False


def _always_subdirs(conf: Configuration, version: FlinkVersion) -> bool:
    return True


UNDOCUMENTED = {
    "cst-case-sensitive-storage": "Flink documents the storage's shortcut names jobmanager and filesystem "
    "(CheckpointingOptions) but not that they are read in any letter case: only CheckpointStorageLoader's "
    "toLowerCase decides that 'JobManager' is the JobManager storage and not a factory class.",
}

for _name, _doc, _patches in (
    ("cst-jobmanager-by-default", "Without a storage configured the checkpoint storage is always the JobManager's, "
     "even with a checkpoint directory (Flink then picks a FileSystemCheckpointStorage).",
     ((cs, "checkpoint_storage", _job_manager_by_default),)),
    ("cst-no-job-subdir", "Checkpoints go to <dir>/chk-N, without the job id's subdirectory, whatever "
     "create-subdir says.", ((cs, "subdirs", _no_subdirs),)),
    ("cst-threshold-unbounded", "A file-state threshold above 1 MiB is kept instead of falling back to the "
     "default 20 kb.", ((cs, "THRESHOLD_MAX", 2**63 - 1),)),
    ("cst-buffer-not-raised", "The write buffer is the configured one even when it is smaller than the "
     "file-state threshold.", ((cs, "file_state_sizes", _buffer_not_raised),)),
    ("cst-savepoint-full-job-id", "A savepoint's directory is named savepoint-<the whole job id>-<random> "
     "instead of the job id's first six characters.", ((cs, "SHORT_JOB_ID", 32),)),
    ("cst-case-sensitive-storage", "The storage names are compared case-sensitively: 'JobManager' and "
     "'FileSystem' are looked up as factory classes.", ((cs, "storage_name", str),)),
):
    MUTANTS.append(Mutant(_name, AREA, _doc, after=with_patches(*_patches), undocumented=UNDOCUMENTED.get(_name, "")))


# ---- historical mutants (:func:`properties.mutant.historical`) -----------------------------------

MUTANTS.append(historical(
    cs.CREATE_SUBDIR, AREA,
    "No state.checkpoints.create-subdir option: checkpoints always go to <dir>/<job id>/chk-N, as before "
    "FLINK-33057 added the option.",
    f"{PR}23509 (Flink 1.19.0)", "1.18 and earlier",
    after=with_patches((cs, "subdirs", _always_subdirs))))
