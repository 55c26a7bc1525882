"""The ``flinkspec`` command: check, replay, serve, memory, mutants, rules, record, ...

Exit codes: 0 the implementation conforms (or the command succeeded), 1 it does not (or Flink
rejects the configuration), 2 bad usage or a broken implementation.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from flinkspec.cli.options import (
    DEFAULT_REPORT,
    CommaJoined,
    areas_option,
    check_writable,
    open_impl_option,
    versions_option,
)
from flinkspec.errors import CliError
from flinkspec.impls import (
    DEFAULT_TIMEOUT_S,
    ImplementationBroken,
    pinned_version,
)
from oracle.versions import SELECT_HELP, SUPPORTED, UnknownVersion, parse_version

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


def cmd_check(args: argparse.Namespace) -> int:
    from flinkspec.engine.check import check_area, versions_for
    from flinkspec.impls.capabilities import CapabilitiesError, resolve
    from flinkspec.reports import console
    from flinkspec.reports import report as rep
    from properties.areas import AREAS
    from properties.rules import RULES

    areas = areas_option(args.area)
    impl = open_impl_option(args.impl, args.timeout)
    versions = versions_option(args.flink, pinned_version(impl))
    try:
        caps = resolve(args.impl, impl, args.capabilities, known_areas=AREAS, known_rules=RULES)
    except CapabilitiesError as exc:
        impl.close()
        raise CliError(str(exc)) from None
    for warning in caps.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    skipped: list[tuple[str, str, str]] = []
    runs = []
    report_dir = Path(args.report or DEFAULT_REPORT)
    junit = Path(args.junit) if args.junit else None
    check_writable(report_dir, junit)
    started = time.monotonic()
    number = 1
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
                number = console.print_run(run, number)
                rep.write(rep.to_json(runs, args.impl, args.conformance, args.seed, caps, skipped), report_dir, junit)
                if run.infra_error and impl_is_dead(run.infra_error):
                    raise _Dead
    except _Dead:
        pass  # the implementation cannot even start: one error is enough
    finally:
        impl.close()
    report = rep.to_json(runs, args.impl, args.conformance, args.seed, caps, skipped)
    rep.write(report, report_dir, junit)
    print(console.summary(report, time.monotonic() - started, report_dir, junit))
    if report["verdict"] == "unknown" or any(r.infra_error for r in runs):
        return EXIT_USAGE  # a broken implementation, or nothing checked: exit 2, what was found kept in the report
    return EXIT_FAIL if report["verdict"] == "invalid" else EXIT_OK


class _Dead(Exception):
    """The implementation cannot start at all; checking further areas would repeat the error."""


def impl_is_dead(message: str) -> bool:
    return "cannot start" in message or "could not download" in message or "not found" in message


def cmd_replay(args: argparse.Namespace) -> int:
    from flinkspec.impls import answer_one
    from flinkspec.impls.capabilities import resolve
    from flinkspec.judge.verdict import NotChecked, SuiteError, evaluate
    from properties.rules import RULES

    if args.request:
        try:
            cases = [{"request": json.loads(args.request)}]
        except ValueError as exc:
            raise CliError(f"--request is not JSON: {exc}") from None
        impl_spec = args.impl
    elif args.report:
        try:
            data = json.loads(Path(args.report).read_text())
            cases = data["counterexamples"]
            impl_spec = args.impl or data["impl"]
        except (OSError, ValueError, KeyError) as exc:
            raise CliError(f"cannot read report {args.report}: {exc}") from None
    else:
        raise CliError("replay needs a report.json or --request JSON")
    if not impl_spec:
        raise CliError("replay --request needs --impl")
    impl = open_impl_option(impl_spec, args.timeout)
    if not cases:
        print("nothing to replay: the report holds no counterexample")
        return EXIT_OK
    from properties.areas import AREAS

    for i, case in enumerate(cases, 1):
        r = case.get("request") if isinstance(case, dict) else None
        if not isinstance(r, dict) or not isinstance(r.get("input"), dict) or r.get("area") not in AREAS:
            raise CliError(f"case {i}: a request must be an object with an area ({', '.join(AREAS)}) "
                           "and an input object")
    still = 0
    try:
        caps = resolve(impl_spec, impl, None, known_areas=AREAS, known_rules=RULES)
        for i, case in enumerate(cases, 1):
            req = {"id": i, **case["request"]}
            try:
                version = parse_version(req.get("flink", str(SUPPORTED[-1])))
            except UnknownVersion as exc:
                raise CliError(f"case {i}: {exc}") from None
            sendable, why = caps.fit(req)
            if sendable != req:
                print(f"case {i} ({req['area']} at Flink {req.get('flink')}): not checked: "
                      f"{why or 'it uses protocol features the implementation does not speak'}")
                continue
            actual = answer_one(impl, req)
            try:
                broken = evaluate(req, actual, version, AREAS[req["area"]], conformance=args.conformance,
                                  strict_messages=args.strict_messages,
                                  unsupported=caps.rules_unsupported(req["area"], version), fit_answer=caps.fit_answer)
            except NotChecked as exc:
                print(f"case {i} ({req['area']} at Flink {req.get('flink')}): not checked: {exc}")
                continue
            except SuiteError as exc:
                raise CliError(f"case {i} is not a valid request: {exc}") from None
            print(f"case {i} ({req['area']} at Flink {req.get('flink')}): "
                  + ("still fails" if broken else "passes"))
            print(f"  answer: {json.dumps(actual)}")
            for rule, message, _expected in broken:
                print(f"  {rule}: {message}")
            if broken and broken[0][2] is not None:
                print(f"  Flink: {json.dumps(broken[0][2])}")
            still += bool(broken)
    finally:
        impl.close()
    return EXIT_FAIL if still else EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    impl = open_impl_option(args.impl, args.timeout)
    from flinkspec.impls import answer_one

    out = sys.stdout
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                req = json.loads(line)
            except ValueError as exc:
                resp: dict[str, Any] = {"id": None, "error": {"type": "BadRequest", "message": f"not JSON: {exc}"}}
            else:
                if not isinstance(req, dict):
                    resp = {"id": None, "error": {"type": "BadRequest", "message": "a request must be a JSON object"}}
                else:
                    resp = answer_one(impl, req)
            out.write(json.dumps(resp, separators=(",", ":")) + "\n")
            out.flush()
    finally:
        impl.close()
    return EXIT_OK


def cmd_mutants(args: argparse.Namespace) -> int:
    from flinkspec.mutants import MUTANTS

    for name, m in sorted(MUTANTS.items()):
        print(f"{name:40s} {m.area:22s} {m.doc}")
        if m.ticket:
            print(f"{'':63s} {m.ticket}, fixed by {m.fixed_by}; affected: {m.affected}")
        if m.undocumented:
            print(f"{'':63s} breaks no documented rule (--conformance documented): {m.undocumented}")
    return EXIT_OK


def cmd_rules(args: argparse.Namespace) -> int:
    from properties.areas import AREAS
    from properties.rules import all_rules

    every = all_rules()
    areas = [a for a in AREAS if any(r.area == a for r in every.values())]
    if args.area is not None and args.area not in areas:
        raise CliError(f"--area: no rules for {args.area!r}; areas: {', '.join(areas)}")
    rules = [r for r in every.values() if (args.area is None or r.area == args.area)
             and (args.status is None or r.checked == (args.status == "checked"))]
    if args.json:
        print(json.dumps([{"id": r.id, "area": r.area, "kind": r.kind, "text": r.text, "source": r.source,
                           "documented": r.documented, "status": r.status, "checked_by": list(r.checked_by),
                           "note": r.note, "flink_violates": list(r.flink_violates)} for r in rules], indent=2))
        return EXIT_OK
    for area in areas:
        group = [r for r in rules if r.area == area]
        if not group:
            continue
        checked = sum(r.checked for r in group)
        print(f"{area}: {len(group)} rule(s), {checked} checked, {len(group) - checked} not checked")
        for r in group:
            print(f"  {r.id:14s} {r.kind:12s} {r.status}\n{'':16s}{r.text}\n{'':16s}source: {r.source}")
            if r.checked_by:
                print(f"{'':16s}checked by: {', '.join(r.checked_by)}")
            if r.note:
                print(f"{'':16s}note: {r.note}")
    checked = sum(r.checked for r in rules)
    print(f"{len(rules)} rule(s): {checked} checked, {len(rules) - checked} not checked")
    return EXIT_OK


def cmd_exhaustive(args: argparse.Namespace) -> int:
    from flinkspec.engine import exhaustive as ex

    try:
        shapes = [ex.Shape.parse(s) for s in (args.shape or ["1x5", "2x5", "3x4"])]
        timestamps = ex.parse_timestamps(args.timestamps)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.area not in ("watermark.valve", "watermark.combined"):
        raise CliError("--area must be watermark.valve or watermark.combined")
    impl = open_impl_option(args.impl, args.timeout)
    versions = versions_option(args.flink, pinned_version(impl))
    differing = 0
    try:
        for ver in versions:
            for shape in shapes:
                outcome = ex.run(impl, args.area, str(ver), shape, timestamps)
                ex.print_outcome(args.area, outcome)
                differing += bool(outcome.differences)
    finally:
        impl.close()
    return EXIT_FAIL if differing else EXIT_OK


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
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--conformance", choices=("flink", "documented"), default="flink")
    c.add_argument("--strict-messages", action="store_true", help="compare exception names and messages too")
    c.add_argument("--report", metavar="DIR", help="directory for report.json, report.md and report.html "
                   f"(default: {DEFAULT_REPORT})")
    c.add_argument("--max-failures", type=int, metavar="N",
                   help="stop generating once N failing cases were seen (default: check every example)")
    c.add_argument("--capabilities", metavar="FILE",
                   help="JSON file of the areas, versions and rules the implementation does not support")
    c.add_argument("--junit", help="JUnit XML file")
    c.add_argument("-v", "--verbose", action="store_true")
    c.set_defaults(fn=cmd_check)

    r = sub.add_parser("replay", allow_abbrev=False, help="re-run the counterexamples of a report, or one request")
    r.add_argument("report", nargs="?")
    impl_opts(r, required=False)
    r.add_argument("--request", help="one request as JSON")
    r.add_argument("--conformance", choices=("flink", "documented"), default="flink")
    r.add_argument("--strict-messages", action="store_true")
    r.set_defaults(fn=cmd_replay)

    s = sub.add_parser("serve", allow_abbrev=False,
                       help="run an implementation as a JSON-lines process on stdin/stdout")
    impl_opts(s)
    s.set_defaults(fn=cmd_serve)

    e = sub.add_parser("exhaustive", allow_abbrev=False,
                       help="every short watermark sequence, oracle against an implementation")
    impl_opts(e)
    e.add_argument("--area", default="watermark.valve")
    e.add_argument("--flink", action=CommaJoined, help=f"{SELECT_HELP} (default: the impl's own release, else all)")
    e.add_argument("--shape", action="append", help="CHANNELSxEVENTS (repeatable; default 1x5, 2x5, 3x4)")
    e.add_argument("--timestamps", default="MIN,0,1,2,MAX")
    e.set_defaults(fn=cmd_exhaustive)

    m = sub.add_parser("mutants", allow_abbrev=False, help="list the built-in faulty implementations")
    m.set_defaults(fn=cmd_mutants)

    ru = sub.add_parser("rules", allow_abbrev=False, help="list the rules the suite checks")
    ru.add_argument("--area")
    ru.add_argument("--json", action="store_true")
    ru.add_argument("--status", choices=("checked", "unchecked"))
    ru.set_defaults(fn=cmd_rules)

    from flinkspec.cli.classpath import add_parser as add_classpath
    from flinkspec.cli.diff_versions import add_parser as add_diff_versions
    from flinkspec.cli.fanout import add_parser as add_fanout
    from flinkspec.cli.fingerprint import add_parser as add_fingerprint
    from flinkspec.cli.jars import add_parser as add_jars
    from flinkspec.cli.memory import add_parser as add_memory
    from flinkspec.cli.record import add_parser as add_record
    from flinkspec.cli.vectors import add_parser as add_vectors

    add_memory(sub)
    add_classpath(sub)
    add_fingerprint(sub)
    add_jars(sub)
    add_fanout(sub)
    add_diff_versions(sub)
    add_record(sub)
    add_vectors(sub)
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
    except CliError as exc:
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
