"""``flinkspec fanout``: the properties fanned out over Spark (a command of the ``flinkspec.commands``
entry point: spark_harness sits above flinkspec, whose CLI finds it there).

    flinkspec fanout --impl flink:2.3.0 --cases 100000 --report reports/flink       # embedded local[*]
    flinkspec fanout --impl mutant:valve-no-flush --master spark://host:7077

``--cases N`` is the number of generated requests checked in all, shared evenly by the (area,
version) pairs; they are cut into seeded chunks (``spark_harness.plan``), so the same ``--seed``
checks the same cases on any master and with any ``--partitions``. Exit codes as ``flinkspec
check``: 0 conforms, 1 does not, 2 bad usage or infrastructure errors (with what was found kept).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from flinkspec.cli.options import EXIT_FAIL, EXIT_OK, EXIT_USAGE, CommaJoined
from flinkspec.errors import CliError
from oracle.versions import SELECT_HELP


def add_parser(sub: Any) -> None:
    f = sub.add_parser("fanout", allow_abbrev=False,
                       help="check an implementation with many generated cases fanned out over Spark")
    f.add_argument("--impl", required=True, help="oracle | flink | flink:X.Y[.Z] | flink:PATH.jar | cmd:COMMAND | "
                   "python:MODULE:CALLABLE | mutant:NAME")
    f.add_argument("--timeout", type=float, default=30.0, help="seconds per request")
    f.add_argument("--area", action=CommaJoined, help="comma-separated areas (default: all)")
    f.add_argument("--flink", action=CommaJoined, help=f"{SELECT_HELP} (default: the impl's own release, else all)")
    f.add_argument("--cases", type=int, default=10_000, help="generated requests in all (default 10000)")
    f.add_argument("--seed", type=int, default=0,
                   help="seed of the generated cases (default 0): the same seed and --cases check the same cases")
    f.add_argument("--master", help="Spark master (default local[*]; under spark-submit, spark-submit's)")
    f.add_argument("--partitions", type=int, help="Spark partitions (default: one per chunk of 500 cases)")
    f.add_argument("--conformance", choices=("flink", "documented"), default="flink",
                   help="flink (default): Flink's exact answers, plus the documented rules Flink keeps; "
                   "documented: the documented rules only")
    f.add_argument("--strict-messages", action="store_true", help="compare exception names and messages too")
    f.add_argument("--capabilities", metavar="FILE",
                   help="JSON file of the areas, versions and rules the implementation does not support")
    f.add_argument("--report", metavar="DIR", help="directory for report.json, report.md and report.html "
                   "(default: flinkspec-report)")
    f.add_argument("--junit", help="JUnit XML file")
    f.add_argument("--progress", type=float, default=5.0, metavar="SECONDS", help="seconds between progress lines")
    f.add_argument("--no-shrink", action="store_true", help="report failures as found (no driver-side shrinking)")
    f.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="extra Spark configuration")
    f.add_argument("--x-fault", help=argparse.SUPPRESS)  # test hook, see spark_harness.tasks.JobSpec.fault
    f.set_defaults(fn=cmd_fanout)


def _conf(pairs: list[str]) -> list[tuple[str, str]]:
    out = []
    for p in pairs:
        key, eq, value = p.partition("=")
        if not eq or not key.strip():
            raise CliError(f"--conf {p!r}: expected KEY=VALUE")
        out.append((key.strip(), value))
    return out


def cmd_fanout(args: argparse.Namespace) -> int:
    from flinkspec.cli.options import DEFAULT_REPORT, areas_option, check_writable, open_impl_option, versions_option
    from flinkspec.engine.check import divergences, versions_for
    from flinkspec.impls import pinned_version
    from flinkspec.impls.capabilities import CapabilitiesError, resolve
    from flinkspec.reports import console
    from flinkspec.reports import report as rep
    from properties.areas import AREAS, all_rules

    if args.cases < 1:
        raise CliError("--cases must be at least 1")
    if args.partitions is not None and args.partitions < 1:
        raise CliError("--partitions must be at least 1")
    if args.progress <= 0:
        raise CliError("--progress must be a positive number of seconds")
    conf = _conf(args.conf)
    from spark_harness.driver import fan_out, spark_available

    if not spark_available():
        raise CliError("fanout needs PySpark: pip install 'pyspark>=3.5' (the 'spark' extra of flinkspec)")
    from spark_harness.plan import plan
    from spark_harness.tasks import JobSpec

    areas = areas_option(args.area)
    impl = open_impl_option(args.impl, args.timeout)
    try:
        versions = versions_option(args.flink, pinned_version(impl))
        report_dir = Path(args.report or DEFAULT_REPORT)
        junit = Path(args.junit) if args.junit else None
        check_writable(report_dir, junit)
        try:
            caps = resolve(args.impl, impl, args.capabilities, known_areas=AREAS, known_rules=all_rules())
        except CapabilitiesError as exc:
            raise CliError(str(exc)) from None
        for warning in caps.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        pairs, skipped = [], []
        for area in areas:
            for ver in versions_for(area, versions):
                why_text = caps.run_skipped(area, ver)
                if why_text is None:
                    pairs.append((area, ver))
                else:
                    skipped.append((area, str(ver), why_text))
                    print(f"{area} at Flink {ver}: not checked ({why_text})", file=sys.stderr)
        if not pairs:
            raise CliError("nothing to check: the implementation declares every selected area and version "
                           "not supported, or does not speak the protocol features they need")
        job = JobSpec(args.impl, args.conformance, args.strict_messages, args.timeout, caps, args.x_fault,
                      workdir=os.getcwd())
        chunks = plan(pairs, args.cases, args.seed)
        started = time.monotonic()
        outcome = fan_out(job, [(a, str(v)) for a, v in pairs], chunks, master=args.master,
                          partitions=args.partitions, progress_interval=args.progress,
                          shrink_with=None if args.no_shrink else impl, conf=conf)
        wall = time.monotonic() - started
    finally:
        impl.close()
    report = rep.to_json(outcome.runs, args.impl, args.conformance, args.seed, caps, skipped)
    report["fanout"] = {**outcome.to_json(), "requested_cases": args.cases, "total_seconds": round(wall, 3),
                        "chunks": len(chunks)}
    rep.write(report, report_dir, junit)
    broke = outcome.broke
    if broke is not None:  # one error: where it broke and why; every other infrastructure error follows from it
        stopped = sum(e.unchecked for e in outcome.infra) + sum(gone.cases for gone in outcome.lost)
        print(f"flinkspec fanout: the implementation is broken: {broke.cause}", file=sys.stderr)
        replay = next((r.infra_replay for r in outcome.runs if r.infra_replay), None)
        if replay:
            print(f"  replay the request it broke on: {replay}", file=sys.stderr)
        print(f"  the run stopped there: {stopped:,} case(s) not checked (report.json: runs[].infra_error, "
              "fanout.broke)", file=sys.stderr)
    else:
        for run in outcome.runs:
            if run.infra_error:
                print(f"  {run.area} at Flink {run.flink}: {run.infra_error}", file=sys.stderr)
    for i, c in enumerate(divergences(outcome.runs), 1):
        print("\n".join(console.divergence_lines(c, i)), file=sys.stderr)
    print(f"{outcome.checked_cases:,} cases checked (+{outcome.shrink_cases:,} requests sent while shrinking) "
          f"in {wall:.1f} s "
          f"({outcome.checked_cases / max(outcome.wall_seconds, 1e-9):,.0f} cases/s on {outcome.master})")
    print(console.summary(report, wall, report_dir, junit))
    errors = sum(1 for r in outcome.runs if r.infra_error)
    if outcome.interrupted:
        return 130
    if errors:
        return EXIT_USAGE
    return EXIT_FAIL if report["verdict"] == "invalid" else EXIT_OK

