"""Command-line options shared by several commands."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any


class CommaJoined(argparse.Action):
    """A comma-separated option that may also be repeated: ``--area a --area b,c`` is ``"a,b,c"``
    (a repeated option adds to the list instead of silently replacing it)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        before = getattr(namespace, self.dest, None)
        added = str(values)
        setattr(namespace, self.dest, added if before in (None, self.default) else f"{before},{added}")
