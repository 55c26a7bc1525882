"""Why the oracle answered as it did: which of its rules decided each part of an answer.

The oracle's modules say where a rule decides, ``because(ID)`` with the rule's ID, and which part of the answer
is being decided, ``at("emitted", 3)`` (a path into the response: ``("emitted", 3)`` is
``output.emitted[3]``, ``("error",)`` is the rejection). Nothing is recorded unless the answer is
computed under :func:`tracing` (:func:`oracle.explain_answer`), so an ordinary answer pays one
context lookup per call and is unchanged: a rule's effect on the answer never depends on whether
it is traced.

The judge (``flinkspec.judge``) reads the trace to name the rules behind a divergence: the rules
that decided the first part of Flink's answer the implementation's answer departs from, in the
order the oracle decided them (for a sequence, the first event whose answer differs; for a
derivation, the first value derived that differs).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import attrs

Path = tuple[str | int, ...]
ERROR: Path = ("error",)  # a rejection's decisions are recorded here
INPUT: Path = ("input",)  # how the input was read (options parsed, names checked)
# decisions recorded aside until the module knows which part of the answer they decided (an event
# that adds entries to a trace, or none): no answer has this part, so the judge never departs here
ASIDE: Path = ("aside",)


@attrs.frozen
class Decision:
    """The rules that decided one part of an answer, in the order they applied."""

    path: Path
    rules: tuple[str, ...]


@attrs.frozen
class Explanation:
    """Every part of an answer the oracle decided, in the order it decided them."""

    decisions: tuple[Decision, ...] = ()

    def at(self, path: Path) -> tuple[str, ...]:
        """The rules that decided the part at ``path`` (and the parts inside it)."""
        found: dict[str, None] = {}
        for d in self.decisions:
            if d.path[: len(path)] == path:
                found.update(dict.fromkeys(d.rules))
        return tuple(found)

    @property
    def rules(self) -> tuple[str, ...]:
        """Every rule that decided anything, each once, in the order first applied."""
        return tuple(dict.fromkeys(r for d in self.decisions for r in d.rules))


class _Trace:
    def __init__(self) -> None:
        self.path: Path = ()
        self.order: list[Path] = []
        self.rules: dict[Path, list[str]] = {}

    def record(self, rules: tuple[str, ...]) -> None:
        seen = self.rules.get(self.path)
        if seen is None:
            self.order.append(self.path)
            seen = self.rules[self.path] = []
        for r in rules:
            if r not in seen:
                seen.append(r)

    def explanation(self) -> Explanation:
        return Explanation(tuple(Decision(p, tuple(self.rules[p])) for p in self.order))


_TRACE: ContextVar[_Trace | None] = ContextVar("oracle_trace", default=None)


def because(*rules: str) -> None:
    """The rules ``rules`` decide the part of the answer being computed (see :func:`at`)."""
    trace = _TRACE.get()
    if trace is not None:
        trace.record(rules)


def at(*path: str | int) -> None:
    """The oracle now decides the part of the answer at ``path`` (until the next ``at``); the parts
    are visited in the order of their first ``at``, whether or not a rule is named for them."""
    trace = _TRACE.get()
    if trace is not None:
        trace.path = path
        trace.record(())


def recorded(*path: str | int) -> tuple[str, ...]:
    """The rules recorded so far at exactly ``path`` of the answer being explained (() when none is):
    a module that learns only after deciding which parts of its answer a decision produced records
    it :data:`ASIDE`, then repeats these rules ``at`` each part (see :mod:`oracle.alignment`)."""
    trace = _TRACE.get()
    if trace is None:
        return ()
    return tuple(trace.rules.get(path, ()))


def rejected_because(*rules: str) -> None:
    """The rejection being answered was decided by ``rules``: they are recorded :data:`ERROR`."""
    at(*ERROR)
    because(*rules)


def here() -> Path:
    """The part of the answer now being decided (() when nothing is being explained)."""
    trace = _TRACE.get()
    return () if trace is None else trace.path


def decided_here() -> tuple[str, ...]:
    """The rules recorded so far at the part of the answer now being decided (() when none is, or when
    nothing is being explained): where a rejection interrupts that part, the last of them threw it."""
    trace = _TRACE.get()
    if trace is None:
        return ()
    return tuple(trace.rules.get(trace.path, ()))


def tracing_active() -> bool:
    """Whether the current answer is being explained (a module skips building paths otherwise)."""
    return _TRACE.get() is not None


@contextmanager
def tracing() -> Iterator[list[Explanation]]:
    """Record the decisions made inside the block; the list holds the explanation on exit."""
    trace = _Trace()
    token = _TRACE.set(trace)
    out: list[Explanation] = []
    try:
        yield out
    finally:
        _TRACE.reset(token)
        out.append(trace.explanation())
