"""Async-operator mutants: bugs a reimplementation of Flink's async queues plausibly has.

Each answers with one method of :mod:`oracle.watermark_async` swapped for the buggy one, for the duration of one
answer (:func:`properties.mutant.with_patches`).
"""

from __future__ import annotations

from typing import Any

import oracle.watermark_async as wa
from properties.mutant import Mutant, with_patches

AREA = wa.ASYNC
MUTANTS: list[Mutant] = []  # this module's mutants, in the order flinkspec mutants lists them


def _no_segments(self: wa.Unordered, entry: wa.Entry) -> None:
    """A watermark joins the one segment like a record: records overtake it, and it them."""
    if not self.segments:
        self.segments.append(wa.Segment())
    self.segments[-1].add(entry)


def _completion_order(self: wa.Ordered) -> bool:
    """The ordered queue emits whichever element is done first, not only its head."""
    return any(e.done for e in self.queue)


def _emit_any(self: wa.Ordered) -> list[dict[str, Any]]:
    if not _completion_order(self):
        return []
    entry = next(e for e in self.queue if e.done)
    self.queue.remove(entry)
    return entry.emit()


def _room_at_capacity(self: wa.Queue) -> bool:
    """tryPut's check is size <= capacity: one element more than the capacity."""
    return self.size() <= self.capacity


def _watermark_waits(self: wa.Operator, event: wa.Event) -> tuple[bool, list[dict[str, Any]]]:
    """A watermark is put but not emitted at once: it waits for the next completion."""
    done, out = _process(self, event)
    return (done, []) if event.kind == "watermark" and done else (done, out)


_process = wa.Operator.process

for _name, _doc, _patches in (
    ("wa-unordered-across-watermark", "Unordered mode keeps no segments: a watermark joins the records' segment, "
     "so records overtake watermarks.", ((wa.Unordered, "add_watermark", _no_segments),)),
    ("wa-ordered-by-completion", "Ordered mode emits elements as they complete, like unordered mode without "
     "watermarks.", ((wa.Ordered, "has_completed", _completion_order), (wa.Ordered, "emit_completed", _emit_any))),
    ("wa-capacity-plus-one", "The queue takes an element while its size is at most the capacity: one more than the "
     "capacity in flight.", ((wa.Queue, "has_room", _room_at_capacity),)),
    ("wa-watermark-waits", "A watermark is not emitted when it is put, even at the head of the queue: it waits for "
     "the next completion to drain the queue.", ((wa.Operator, "process", _watermark_waits),)),
):
    MUTANTS.append(Mutant(_name, AREA, _doc, after=with_patches(*_patches)))
