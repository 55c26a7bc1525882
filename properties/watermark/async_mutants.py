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


def _timers_never_fire(self: wa.Operator, ms: int) -> list[dict[str, Any]]:
    """The timeout is ignored: processing time moves, no timer fires."""
    self.now += ms
    return []


def _late_completion(self: wa.Operator, entry: wa.Entry, results: tuple[int, ...]) -> bool:
    """ResultHandler without its completed flag: a completion after a timeout completes the entry again."""
    if entry.handled and entry.event.kind == "record" and entry not in _in_queue(self):
        self.queue.put(entry)  # emitted already: its late results go out as a new element of the queue
    entry.handled = True
    entry.results = results
    return True


def _in_queue(self: wa.Operator) -> list[wa.Entry]:
    q = self.queue
    if isinstance(q, wa.Ordered):
        return list(q.queue)
    assert isinstance(q, wa.Unordered)
    return [e for seg in q.segments for e in (*seg.incomplete, *seg.complete)]


def _timeout_from_start(self: wa.Operator, event: wa.Event) -> tuple[bool, list[dict[str, Any]]]:
    """The timer is registered at the timeout itself, not at the processing time plus the timeout."""
    now, self.now = self.now, 0
    try:
        return _process(self, event)
    finally:
        self.now = now


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
    ("wa-timeout-ignored", "The operator's timeout registers no timer that fires: a request that never completes "
     "never times out.", ((wa.Operator, "advance", _timers_never_fire),)),
    ("wa-late-completion-emitted", "ResultHandler has no completed flag: a completion after the request timed out "
     "(or failed) is emitted too.", ((wa.Operator, "complete", _late_completion),)),
    ("wa-timeout-from-start", "The timeout timer is set at the timeout itself, not at the processing time the "
     "record is taken plus the timeout.", ((wa.Operator, "process", _timeout_from_start),)),
):
    MUTANTS.append(Mutant(_name, AREA, _doc, after=with_patches(*_patches)))
