"""Keyed-snapshot mutants: bugs a reimplementation of a state backend's two-part snapshots plausibly has.

Each answers with one method of :mod:`oracle.checkpoint_snapshot` swapped for the buggy one, for the duration of
one answer (:func:`properties.mutant.with_patches`).
"""

from __future__ import annotations

from typing import Any

import oracle.checkpoint_snapshot as cs
from properties.mutant import Mutant, with_patches

AREA = cs.SNAPSHOT
MUTANTS: list[Mutant] = []  # this module's mutants, in the order flinkspec mutants lists them


def _no_copy(self: cs.Backend) -> cs.Snapshot:
    """The snapshot keeps a reference to the live map, not a copy: its asynchronous part writes what the backend
    holds when it runs."""
    return cs.Snapshot(self.state if self.registered else None)


_step = cs.Run.step


def _synchronous(self: cs.Run, event: cs.Event) -> dict[str, Any]:
    """The whole snapshot is taken in the synchronous part: the future is done at once (a cancel then fails)."""
    out = _step(self, event)
    if event.kind == "snapshot":
        self.snapshots[event.checkpoint].ran = True
        return {"done": True}
    return out


def _cancel_ignored(snap: cs.Snapshot) -> bool:
    """Cancel answers as FutureTask does but does not stop the task: running it still writes the snapshot."""
    return not (snap.ran or snap.cancelled)


def _restore_merges(self: cs.Run, event: cs.Event) -> dict[str, Any]:
    """A restore puts the snapshot's pairs on top of the backend's current state instead of starting afresh."""
    before = dict(self.backend.state)
    out = _step(self, event)
    if event.kind != "restore":
        return out
    self.backend = cs.Backend({**before, **self.backend.state})
    return {"state": self.backend.contents()}


def _empty_as_no_pairs(snap: cs.Snapshot) -> dict[str, Any]:
    """A snapshot taken before any state was registered answers an empty list of pairs, not an empty result."""
    out = _run(snap)
    return {"state": []} if out.get("state", 0) is None else out


_run = cs.Run.run
_restored = cs.Backend.restored


def _reupload(self: cs.Backend) -> frozenset[int]:
    """rocksdb: every snapshot uploads all its SST files again, those of the last completed checkpoint included."""
    return frozenset()


def _unconfirmed_base(self: cs.Backend) -> frozenset[int]:
    """rocksdb: the files of the checkpoint that ran last are referred to as placeholders whether or not it
    completed (the shared files of an unconfirmed checkpoint may be discarded: FLINK-25395)."""
    return frozenset(self.uploaded[list(self.uploaded)[-1]]) if self.uploaded else frozenset()


def _last_increment(self: cs.Backend, snap: cs.Snapshot, cid: int) -> cs.Backend:
    """rocksdb: a restore rebuilds the database from the files the snapshot uploaded only, not from the files of
    earlier checkpoints it refers to as placeholders."""
    out = _restored(self, snap, cid)
    if self.sst is not None and snap.files is not None:
        out.state = {}
        for f in snap.files:
            if f not in snap.base:
                for key, value in self.sst[f].items():
                    out.write(key, value)
        out.memtable = {}
    return out

for _name, _doc, _patches, _undocumented in (
    ("csn-no-copy-on-write", "The snapshot's asynchronous part reads the live state: puts and removes after the "
     "barrier leak into the checkpoint.", ((cs.Backend, "snapshot", _no_copy),), ""),
    ("csn-synchronous-snapshot", "The backend snapshots synchronously: the future is done when snapshot returns.",
     ((cs.Run, "step", _synchronous),), ""),
    ("csn-cancel-ignored", "Cancelling the snapshot task does not stop it: it still yields its snapshot when run.",
     ((cs.Run, "cancel", staticmethod(_cancel_ignored)),), ""),
    ("csn-restore-merges", "Restoring adds the snapshot's pairs to the current state instead of replacing it: keys "
     "written after the checkpoint survive the recovery.", ((cs.Run, "step", _restore_merges),), ""),
    ("csn-empty-result-as-pairs", "A snapshot with no state registered answers an empty list of pairs, not Flink's "
     "empty SnapshotResult.", ((cs.Run, "run", staticmethod(_empty_as_no_pairs)),),
     "that an empty snapshot has no state handle at all (SnapshotResult.empty()) is HeapSnapshotStrategy's code, "
     "no documentation states it"),
    ("csn-reupload-completed", "rocksdb: incremental snapshots upload every SST file again, the files of the last "
     "completed checkpoint too, instead of referring to them as placeholders.", ((cs.Backend, "base", _reupload),),
     ""),
    ("csn-unconfirmed-base", "rocksdb: a snapshot refers to the files of the checkpoint that ran last as "
     "placeholders though that checkpoint never completed.", ((cs.Backend, "base", _unconfirmed_base),), ""),
    ("csn-restore-last-increment", "rocksdb: a restore gives only the last increment (the files the snapshot "
     "uploaded), not the files of the earlier checkpoints it builds on.",
     ((cs.Backend, "restored", _last_increment),), ""),
):
    MUTANTS.append(Mutant(_name, AREA, _doc, after=with_patches(*_patches), undocumented=_undocumented))
