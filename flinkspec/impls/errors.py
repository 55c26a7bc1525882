"""The errors of talking to an implementation: it broke, or ``--impl`` names none."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from properties.under_test import Response


class ImplementationBroken(RuntimeError):
    """The implementation crashed, hung, or answered something that is not a protocol response.

    ``request`` is the request it broke on, when one request did it (kept in the report, with a
    replay line, so that a crash is never lost). ``answered`` holds the valid answers that
    :meth:`Implementation.answer_many` got, in order, before the break (the batch's first requests):
    they are judged like any other."""

    def __init__(self, message: str, request: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.request = dict(request) if request is not None else None
        self.answered: list[Response] = []


class UsageError(ValueError):
    """An ``--impl`` value that names no implementation; the message says what is accepted."""
