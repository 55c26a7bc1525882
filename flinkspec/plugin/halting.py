"""A broken implementation under pytest: one clear failure of the test, naming the cause, at once.

Inside a Hypothesis test an :class:`~flinkspec.impls.ImplementationBroken` is an ordinary exception:
Hypothesis would take it for a failing example, shrink it (restarting the implementation for every
attempt) and print it with a traceback and the drawn values, as if it were a verdict. The plugin
hands the tests the implementation wrapped in :class:`Halting`: while a test's body runs under
Hypothesis, a break is raised as :class:`Halt`, which Hypothesis does not catch (a BaseException, as
``flinkspec check`` leaves Hypothesis); the plugin then fails the test with :func:`message` alone,
as it does for a break outside Hypothesis.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis.control import currently_in_test_context

from flinkspec.impls import Implementation, ImplementationBroken, Request, Response
from flinkspec.judge.verdict import replay_command


class Halt(BaseException):
    """An :class:`ImplementationBroken` on its way out of a Hypothesis test (``broke``)."""

    def __init__(self, broke: ImplementationBroken) -> None:
        super().__init__(str(broke))
        self.broke = broke


class Halting:
    """The implementation under test, whose breakage ends a Hypothesis test at once (see above)."""

    def __init__(self, inner: Implementation) -> None:
        self.inner = inner
        self.name = inner.name

    def answer_many(self, requests: Sequence[Request]) -> list[Response]:
        try:
            return self.inner.answer_many(requests)
        except ImplementationBroken as exc:
            if currently_in_test_context():
                raise Halt(exc) from exc
            raise

    def close(self) -> None:
        self.inner.close()

    def __getattr__(self, name: str) -> Any:  # what else the implementation has (a fork's flink_base, ...)
        return getattr(self.inner, name)


def message(exc: Halt | ImplementationBroken, impl_spec: str, strict_messages: bool = False) -> str:
    """What the failed test says: the cause, and the replay command of the request it broke on."""
    broke = exc.broke if isinstance(exc, Halt) else exc
    lines = [f"the implementation is broken (not a verdict): {broke}"]
    if broke.request is not None and all(k in broke.request for k in ("area", "flink", "input")):
        lines.append(f"replay the request it broke on: {replay_command(impl_spec, broke.request, strict_messages)}")
    return "\n".join(lines)
