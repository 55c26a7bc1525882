"""``flinkspec check``: check an implementation against the rules and the oracle, and write the report."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from flinkspec.cli.options import (
    DEFAULT_REPORT,
    EXIT_FAIL,
    EXIT_OK,
    EXIT_USAGE,
    areas_option,
    capabilities_option,
    check_writable,
    open_impl_option,
    versions_option,
)
from flinkspec.impls import pinned_version


def cmd_check(args: argparse.Namespace) -> int:
    from flinkspec.engine.check import check_area, versions_for
    from flinkspec.reports import console
    from flinkspec.reports import report as rep

    areas = areas_option(args.area)
    impl = open_impl_option(args.impl, args.timeout)
    versions = versions_option(args.flink, pinned_version(impl))
    caps = capabilities_option(args, impl)
    skipped: list[tuple[str, str, str]] = []
    runs = []
    report_dir = Path(args.report or DEFAULT_REPORT)
    junit = Path(args.junit) if args.junit else None
    check_writable(report_dir, junit)
    started = time.monotonic()
    printer = console.Printer()
    try:
        for area in areas:
            for ver in versions_for(area, versions):
                why_text = caps.run_skipped(area, ver)
                if why_text is not None:
                    skipped.append((area, str(ver), why_text))
                    print(f"{area} at Flink {ver}: not checked ({why_text})", file=sys.stderr)
                    continue
                print(f"checking {area} at Flink {ver} against {args.impl} ...", file=sys.stderr, flush=True)
                run = check_area(
                    impl, args.impl, area, ver, examples=args.examples, seed_value=args.seed,
                    conformance=args.conformance, strict_messages=args.strict_messages,
                    capabilities=caps, max_failures=args.max_failures,
                    progress=(lambda r: print(f"  {r.cases} cases", file=sys.stderr, flush=True))
                    if args.verbose else None,
                )
                runs.append(run)
                printer.run(run)
                rep.write(rep.to_json(runs, args.impl, args.conformance, args.seed, caps, skipped), report_dir, junit)
                if run.infra_error:
                    raise _Broken
    except _Broken:  # no verdict from a broken implementation: its one error, not one per (area, version)
        left = sum(len(versions_for(area, versions)) for area in areas) - len(runs) - len(skipped)
        if left:
            print(f"  stopped there: {left} more (area, version) run(s) not checked", file=sys.stderr)
    finally:
        impl.close()
    report = rep.to_json(runs, args.impl, args.conformance, args.seed, caps, skipped)
    rep.write(report, report_dir, junit)
    print(console.summary(report, time.monotonic() - started, report_dir, junit))
    if report["verdict"] == "unknown" or any(r.infra_error for r in runs):
        return EXIT_USAGE  # a broken implementation, or nothing checked: exit 2, what was found kept in the report
    return EXIT_FAIL if report["verdict"] == "invalid" else EXIT_OK


class _Broken(Exception):
    """The implementation broke: checking further areas would only repeat the error."""
