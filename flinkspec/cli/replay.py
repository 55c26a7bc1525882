"""``flinkspec replay``: re-run the counterexamples of a report, or one request."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from flinkspec.cli.options import (
    EXIT_FAIL,
    EXIT_OK,
    open_impl_option,
)
from flinkspec.errors import CliError
from flinkspec.impls import pinned_version
from oracle.versions import SUPPORTED, UnknownVersion, parse_version


def cmd_replay(args: argparse.Namespace) -> int:
    from flinkspec.impls.capabilities import resolve
    from flinkspec.judge.verdict import Judge, NotChecked, SuiteError
    from properties.areas import all_rules

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
    pinned = pinned_version(impl)
    fails = "fails" if args.request else "still fails"  # a report's case failed before
    try:
        caps = resolve(impl_spec, impl, None, known_areas=AREAS, known_rules=all_rules())
        for i, case in enumerate(cases, 1):
            req = {"id": i, **case["request"]}
            try:
                version = parse_version(req.get("flink", str(SUPPORTED[-1])))
            except UnknownVersion as exc:
                raise CliError(f"case {i}: {exc}") from None
            runs = parse_version(pinned) if pinned is not None else version
            if runs != version:  # judged at the request's release, answered by another: a verdict would be false
                asks = f"asks for Flink {req['flink']}, that is" if "flink" in req else "names no Flink release, so"
                raise CliError(f"case {i} {asks} {version.release}, but {impl_spec} runs Flink {runs.release}: "
                               f'give the request "flink": "{runs.release}", or replay it with '
                               f"--impl flink:{version.release}")
            sendable, why = caps.fit(req)
            if sendable != req:
                print(f"case {i} ({req['area']} at Flink {version}): not checked: "
                      f"{why or 'it uses protocol features the implementation does not speak'}")
                continue
            judge = Judge(impl, AREAS[req["area"]], version, args.conformance, args.strict_messages, caps)
            _, actual = judge.ask(case["request"])
            try:
                found = judge.diverges({"id": i, **req}, actual)
            except NotChecked as exc:
                print(f"case {i} ({req['area']} at Flink {version}): not checked: {exc}")
                continue
            except SuiteError as exc:
                print(f"  answer: {json.dumps(actual)}")
                raise CliError(f"case {i} is not a valid request: {exc.reason}") from None
            broken = found[1] if found is not None else []
            print(f"case {i} ({req['area']} at Flink {version}): " + (fails if broken else "passes"))
            print(f"  answer: {json.dumps(actual)}")
            if found is not None:
                sig = found[0]
                if sig.difference():
                    print(f"  {sig.difference()}")
                if sig.explains:
                    print(f"  explained by {', '.join(sig.explains)}")
            for rule, message, _expected in broken:
                print(f"  {rule}: {message}")
            if found is not None:
                print(f"  Flink: {json.dumps(found[2])}")
            still += bool(broken)
    finally:
        impl.close()
    return EXIT_FAIL if still else EXIT_OK
