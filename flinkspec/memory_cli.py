"""``flinkspec memory``: placeholder until the oracle's memory API lands."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    pass
