"""``flinkspec record``: record an implementation's answers (real Flink's, normally) to generated
inputs, in ``properties/recorded`` (:mod:`flinkspec.tools.record`)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from flinkspec.cli.options import CommaJoined, areas_option, open_impl_option, versions_option
from flinkspec.errors import CliError
from flinkspec.impls import pinned_version
from flinkspec.tools.record import record_area, record_pinned
from oracle.versions import SELECT_HELP
from properties.recordings import RECORDED


def add_parser(sub: Any) -> None:
    p = sub.add_parser("record", allow_abbrev=False,
                       help="record an implementation's answers (real Flink's, normally) to generated inputs")
    p.add_argument("--impl", default="flink", help="the implementation to record (default: flink)")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds per request")
    p.add_argument("--area", action=CommaJoined,
                   help="comma-separated areas or extra corpora (classloading.values: the class-loading "
                        "options' values fuzzed); default: all of them")
    p.add_argument("--flink", action=CommaJoined, help=f"{SELECT_HELP} (default: the impl's own release, else all)")
    p.add_argument("--examples", type=int, default=300, help="generated inputs per area and version")
    p.add_argument("--seed", type=int, default=0, help="seed of the generated inputs (default 0)")
    p.add_argument("--out", default=str(RECORDED), help=f"directory (default: {RECORDED})")
    p.add_argument("--pinned", type=Path, metavar="FILE",
                   help="instead of generated inputs: the inputs of a pinned-examples file (one --area); each "
                        "version's answers are written into FILE")
    p.set_defaults(fn=cmd_record)


def cmd_record(args: Any) -> int:
    areas = areas_option(args.area, extra=True)
    if args.pinned is not None and len(areas) != 1:
        raise CliError("--pinned needs exactly one --area")
    impl = open_impl_option(args.impl, args.timeout)
    try:
        versions = versions_option(args.flink, pinned_version(impl))
        if args.pinned is not None:
            started = time.monotonic()
            command = "flinkspec record --area " + areas[0] + " --flink " + (args.flink or "all") \
                + " --pinned " + str(args.pinned)
            n = record_pinned(impl, areas[0], versions, args.pinned, command)
            print(f"{areas[0]}: {n} pinned examples answered at {len(versions)} versions into {args.pinned} "
                  f"({time.monotonic() - started:.1f} s)")
            return 0
        for area in areas:
            started = time.monotonic()
            path = record_area(impl, args.impl, area, versions, args.examples, args.seed, Path(args.out))
            print(f"{area}: {path} ({path.stat().st_size:,} bytes, {time.monotonic() - started:.1f} s)")
    finally:
        impl.close()
    return 0
