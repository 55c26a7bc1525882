"""The flinkspec command: check, replay, serve, memory, mutants, rules, record, ...

Exit codes: 0 the implementation conforms (or the command succeeded), 1 it does not (or Flink
rejects the configuration), 2 bad usage or a broken implementation.
"""

from __future__ import annotations

import argparse
import sys
from importlib.metadata import entry_points
from pathlib import Path

from flinkspec.cli.check import cmd_check
from flinkspec.cli.exhaustive import cmd_exhaustive
from flinkspec.cli.mutants import cmd_mutants
from flinkspec.cli.options import DEFAULT_REPORT, EXIT_OK, EXIT_USAGE, CommaJoined
from flinkspec.cli.replay import cmd_replay
from flinkspec.cli.rules import cmd_rules
from flinkspec.cli.serve import cmd_serve
from flinkspec.engine.exhaustive import EXHAUSTIVE, shapes_help
from flinkspec.errors import CliError
from flinkspec.impls import (
    DEFAULT_TIMEOUT_S,
    ImplementationBroken,
    UsageError,
)
from oracle.versions import SELECT_HELP

# the entry-point group of commands that packages above flinkspec add (``fanout``, from spark_harness):
# each names an ``add_parser(subparsers)``
COMMANDS = "flinkspec.commands"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="flinkspec", description=__doc__.splitlines()[0], allow_abbrev=False)
    sub = p.add_subparsers(dest="command", required=True)

    def impl_opts(sp: argparse.ArgumentParser, required: bool = True) -> None:
        sp.add_argument("--impl", required=required, help="oracle | flink | flink:X.Y[.Z] | flink:PATH.jar | "
                        "cmd:COMMAND | python:MODULE:CALLABLE | mutant:NAME")
        sp.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="seconds per request")

    c = sub.add_parser("check", allow_abbrev=False, help="check an implementation against the rules and the oracle")
    impl_opts(c)
    c.add_argument("--area", action=CommaJoined, help="comma-separated areas (default: all)")
    c.add_argument("--flink", action=CommaJoined, help=f"{SELECT_HELP} (default: the impl's own release, else all)")
    c.add_argument("--examples", type=int, default=500, help="generated requests per area and version")
    c.add_argument("--seed", type=int, default=0,
                   help="seed of the generated requests (default 0): the same seed checks the same cases")
    c.add_argument("--conformance", choices=("flink", "documented"), default="flink",
                   help="flink (default): Flink's exact answers, plus the documented rules Flink keeps; "
                   "documented: the documented rules only")
    c.add_argument("--strict-messages", action="store_true", help="compare exception names and messages too")
    c.add_argument("--report", metavar="DIR", help="directory for report.json, report.md and report.html "
                   f"(default: {DEFAULT_REPORT})")
    c.add_argument("--max-failures", type=int, metavar="N",
                   help="stop generating once N failing cases were seen (default: check every example)")
    c.add_argument("--capabilities", metavar="FILE",
                   help="JSON file of the areas, versions and rules the implementation does not support")
    c.add_argument("--junit", help="JUnit XML file")
    c.add_argument("-v", "--verbose", action="store_true", help="print the cases checked so far while checking")
    c.set_defaults(fn=cmd_check)

    r = sub.add_parser("replay", allow_abbrev=False, help="re-run the counterexamples of a report, or one request")
    r.add_argument("report", nargs="?", help="a report.json whose counterexamples to re-run (or give --request)")
    impl_opts(r, required=False)
    r.add_argument("--request", help="one request as JSON")
    r.add_argument("--conformance", choices=("flink", "documented"), default="flink",
                   help="flink (default): Flink's exact answers, plus the documented rules Flink keeps; "
                   "documented: the documented rules only")
    r.add_argument("--strict-messages", action="store_true", help="compare exception names and messages too")
    r.set_defaults(fn=cmd_replay)

    s = sub.add_parser("serve", allow_abbrev=False,
                       help="run an implementation as a JSON-lines process on stdin/stdout")
    impl_opts(s)
    s.set_defaults(fn=cmd_serve)

    e = sub.add_parser("exhaustive", allow_abbrev=False,
                       help="every short event sequence of an area, oracle against an implementation",
                       description="Every sequence of at most E events of the area's letters, on each of its base "
                       "inputs of width W (--shape WxE), sent to the implementation and compared with the oracle's "
                       "answer. Each line reads 'AREA Flink V WxE: N sequences (M bad requests not sent) in S s, "
                       "no difference': N sequences were sent and compared; the M others, which the oracle refuses "
                       "as malformed (an input of the area's protocol page could not hold them, e.g. the completion "
                       "of an async record not yet arrived), come on top and are not sent. Differences follow on "
                       "stderr, one JSON line each (the shortest first); exit 1 if there is one.")
    impl_opts(e)
    e.add_argument("--area", default=EXHAUSTIVE[0], help=f"{' or '.join(EXHAUSTIVE)} (default {EXHAUSTIVE[0]})")
    e.add_argument("--flink", action=CommaJoined, help=f"{SELECT_HELP} (default: the impl's own release, else all)")
    e.add_argument("--shape", action="append", help="WxEVENTS: every sequence of at most EVENTS events, W "
                   f"as the area has it (repeatable): {shapes_help()}")
    e.add_argument("--timestamps", default="MIN,0,1,2,MAX",
                   help="the timestamps of watermarks (and records), comma-separated; MIN and MAX are Long's limits "
                   "(default MIN,0,1,2,MAX)")
    e.add_argument("--capabilities", metavar="FILE",
                   help="JSON file of what the implementation does not support (as for check); a sequence with a "
                   "feature it does not speak is not sent, and counted apart")
    e.set_defaults(fn=cmd_exhaustive)

    m = sub.add_parser("mutants", allow_abbrev=False, help="list the built-in faulty implementations")
    m.set_defaults(fn=cmd_mutants)

    ru = sub.add_parser("rules", allow_abbrev=False, help="list the rules the suite checks")
    ru.add_argument("--area", help="only the rules of this area")
    ru.add_argument("--json", action="store_true", help="print the rules as JSON")
    ru.add_argument("--status", choices=("checked", "unchecked"), help="only the rules that are checked, or not")
    ru.add_argument("--markdown", metavar="DIR", help="write one page per area (its rules, as an implementer reads "
                    "them) into DIR, as docs/protocol/areas/ holds them")
    ru.set_defaults(fn=cmd_rules)

    from flinkspec.cli.classpath import add_parser as add_classpath
    from flinkspec.cli.diff_versions import add_parser as add_diff_versions
    from flinkspec.cli.fingerprint import add_parser as add_fingerprint
    from flinkspec.cli.html import add_parser as add_html
    from flinkspec.cli.jars import add_parser as add_jars
    from flinkspec.cli.memory import add_parser as add_memory
    from flinkspec.cli.record import add_parser as add_record
    from flinkspec.cli.vectors import add_parser as add_vectors

    add_memory(sub)
    add_classpath(sub)
    add_fingerprint(sub)
    add_jars(sub)
    add_diff_versions(sub)
    add_record(sub)
    add_vectors(sub)
    add_html(sub)
    for command in sorted(entry_points(group=COMMANDS), key=lambda ep: ep.name):
        command.load()(sub)  # commands of the layers above (fanout: spark_harness)
    return p


def absolute_jar(spec: str) -> str:
    """``flink:PATH.jar`` with an absolute path, so that report and replay lines work from anywhere."""
    from flinkspec.impls.fingerprint import is_jar_spec

    kind, _, rest = spec.partition(":")
    return f"flink:{Path(rest).resolve()}" if kind == "flink" and rest and is_jar_spec(rest) else spec


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if isinstance(getattr(args, "impl", None), str):
        args.impl = absolute_jar(args.impl)
    try:
        if getattr(args, "examples", 1) < 1:
            raise CliError("--examples must be at least 1")
        if (getattr(args, "max_failures", None) or 1) < 1:
            raise CliError("--max-failures must be at least 1")
        if getattr(args, "timeout", 1) <= 0:
            raise CliError("--timeout must be a positive number of seconds")
        return int(args.fn(args))
    except (CliError, UsageError) as exc:  # each layer's own bad usage
        print(f"flinkspec {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ImplementationBroken as exc:
        print(f"flinkspec {args.command}: the implementation is broken: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `flinkspec rules | head`
        sys.stderr.close()
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
