"""``flinkspec mutants``: list the built-in faulty implementations."""

from __future__ import annotations

import argparse

from flinkspec.cli.options import (
    EXIT_OK,
)


def cmd_mutants(args: argparse.Namespace) -> int:
    from flinkspec.mutants import MUTANTS

    for name, m in sorted(MUTANTS.items()):
        print(f"{name:40s} {m.area:22s} {m.doc}")
        if m.ticket:
            print(f"{'':63s} {m.ticket}, fixed by {m.fixed_by}; affected: {m.affected}")
        if m.undocumented:
            print(f"{'':63s} breaks no documented rule (--conformance documented): {m.undocumented}")
    return EXIT_OK
