"""``flinkspec fingerprint JAR``: which Flink classes the suite drives differ from Apache's in a jar
(:mod:`flinkspec.impls.fingerprint`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from flinkspec.errors import CliError
from flinkspec.impls import fingerprint as fp


def cmd_fingerprint(args: argparse.Namespace) -> int:
    if args.base is not None and fp.base_of(args.base) is None:
        raise CliError(f"--base {args.base}: expected X.Y or X.Y.Z")
    result = fp.fingerprint(Path(args.jar), args.base)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print("\n".join(fp.render(result)))
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("fingerprint", help="which Flink classes the suite drives differ from Apache's in a jar",
                       description=fp.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("jar", help="a flink-dist jar (a fork's, a vendor's, a patched one)")
    p.add_argument("--base", help="the Apache release X.Y[.Z] to compare with (default: the jar's manifest)")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p.set_defaults(fn=cmd_fingerprint)

