"""``flinkspec diff-versions A B``: every behaviour that differs between two Flink versions, with
minimal witnesses (:mod:`flinkspec.engine.diff_versions`)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import attrs

from flinkspec.cli.options import CommaJoined, areas_option
from flinkspec.engine import diff_versions as dv
from flinkspec.errors import CliError
from oracle.versions import UnknownVersion, parse_version


def _command(args: argparse.Namespace) -> str:
    """The command that reproduces this report (stated at the top of the Markdown one)."""
    parts = ["flinkspec diff-versions", args.a, args.b]
    if args.area:
        parts += ["--area", args.area]
    if args.examples != dv.DEFAULT_EXAMPLES:
        parts += ["--examples", str(args.examples)]
    if args.seed:
        parts += ["--seed", str(args.seed)]
    if args.no_confirm:
        parts.append("--no-confirm")
    parts.append("--markdown")
    if args.out:
        parts += ["--out", args.out]
    return " ".join(parts)


def cmd_diff_versions(args: argparse.Namespace) -> int:
    try:
        a, b = parse_version(args.a), parse_version(args.b)
    except UnknownVersion as exc:
        raise CliError(str(exc)) from None
    areas = areas_option(args.area)  # the same --area parsing as `flinkspec check`
    say = (lambda text: print(text, file=sys.stderr, flush=True)) if not args.quiet else None
    result = dv.diff(a, b, areas, examples=args.examples, seed=args.seed, progress=say)
    if not args.no_confirm:
        started = time.monotonic()
        if say:
            say(f"confirming {len(result.changes)} witness(es) on real Flink {a} and {b} ...")
        result = dv.confirm(result, args.timeout, say)
        result = attrs.evolve(result, seconds=result.seconds + time.monotonic() - started)
    if args.json:
        text = json.dumps(dv.to_json(result), indent=1) + "\n"
    elif args.markdown:
        text = dv.render_markdown(result, _command(args))
    else:
        text = dv.render_text(result)
    if args.out:
        Path(args.out).write_text(text)
        if say:
            say(f"wrote {args.out}")
    else:
        sys.stdout.write(text)
    if result.unconfirmed:
        print(f"error: {len(result.unconfirmed)} witness(es) did not reproduce on real Flink", file=sys.stderr)
        return 1
    return 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser("diff-versions", allow_abbrev=False,
                       help="every behaviour that differs between two Flink versions, with minimal witnesses",
                       description=dv.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", metavar="A", help="Flink version X.Y")
    p.add_argument("b", metavar="B", help="Flink version X.Y")
    p.add_argument("--area", action=CommaJoined, help="comma-separated areas (default: all)")
    p.add_argument("--examples", type=int, default=dv.DEFAULT_EXAMPLES,
                   help=f"inputs drawn per area and per version (default {dv.DEFAULT_EXAMPLES})")
    p.add_argument("--seed", type=int, default=0, help="seed of the generated inputs (default 0)")
    p.add_argument("--no-confirm", action="store_true", help="do not run the witnesses on the real jars")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per real-Flink request")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="the report as JSON")
    out.add_argument("--markdown", action="store_true", help="the report as a Markdown table")
    p.add_argument("--out", help="write the report to FILE instead of stdout")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(fn=cmd_diff_versions)
