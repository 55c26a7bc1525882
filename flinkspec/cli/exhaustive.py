"""``flinkspec exhaustive``: every short event sequence of an area, oracle against an implementation."""

from __future__ import annotations

import argparse
import sys

from flinkspec.cli.options import (
    EXIT_FAIL,
    EXIT_OK,
    capabilities_option,
    open_impl_option,
    versions_option,
)
from flinkspec.errors import CliError
from flinkspec.impls import pinned_version


def cmd_exhaustive(args: argparse.Namespace) -> int:
    from flinkspec.engine import exhaustive as ex

    try:
        if args.area not in ex.EXHAUSTIVE:
            raise ValueError(f"--area must be one of {', '.join(ex.EXHAUSTIVE)}")
        shapes = [ex.Shape.parse(s) for s in (args.shape or ex.default_shapes(args.area))]
        timestamps = ex.parse_timestamps(args.timestamps)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    impl = open_impl_option(args.impl, args.timeout)
    versions = versions_option(args.flink, pinned_version(impl))
    caps = capabilities_option(args, impl)
    differing = 0
    try:
        for ver in versions:
            why = caps.run_skipped(args.area, ver)
            if why is not None:
                print(f"{args.area} at Flink {ver}: not checked ({why})", file=sys.stderr)
                continue
            for shape in shapes:
                outcome = ex.run(impl, args.area, str(ver), shape, timestamps, capabilities=caps)
                ex.print_outcome(args.area, outcome)
                differing += bool(outcome.differences)
    finally:
        impl.close()
    return EXIT_FAIL if differing else EXIT_OK
