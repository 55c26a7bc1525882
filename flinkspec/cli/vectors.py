"""``flinkspec vectors``: export, locate, verify and measure the conformance test vectors.

    flinkspec vectors export --out DIR [--area A,...] [--flink V,...] [--random N] [--seed S] [--confirm]
    flinkspec vectors path
    flinkspec vectors verify [DIR]
    flinkspec vectors power [DIR] [--json FILE] [--doc FILE]

docs/vectors.md describes the bundle's format and the runners (runners/java, runners/js).
Exit codes: 0 done (verify: the bundle is intact), 1 verify found a problem, 2 bad usage.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from flinkspec.cli.options import CommaJoined
from flinkspec.errors import CliError
from oracle.versions import SELECT_HELP

EVIDENCE = Path("docs/evidence/vectors-power.json")
DOC = Path("docs/vectors.md")


def cmd_export(args: argparse.Namespace) -> int:
    from flinkspec.cli.options import areas_option, versions_option
    from flinkspec.tools import vectors as vec

    if args.random < 0:
        raise CliError("--random must be 0 or more")
    areas = areas_option(args.area)
    versions = versions_option(args.flink, None)
    started = time.monotonic()
    try:
        man = vec.export(Path(args.out), areas, versions, random_n=args.random, seed=args.seed,
                         confirm_on="flink" if args.confirm else None,
                         progress=lambda m: print(f"  {m} ({time.monotonic() - started:.0f} s)", file=sys.stderr,
                                                  flush=True))
    except FileExistsError as exc:
        raise CliError(str(exc)) from None
    print(f"{man['vectors']:,} vectors of {len(man['areas'])} area(s) in {args.out} "
          f"({vec.bundle_size(Path(args.out)):,} bytes, {time.monotonic() - started:.0f} s)")
    return 0


def cmd_path(_args: argparse.Namespace) -> int:
    from flinkspec.tools.vectors import BUNDLE

    print(BUNDLE)
    return 0


def _bundle(text: str | None) -> Path:
    from flinkspec.tools.vectors import BUNDLE, MANIFEST

    path = Path(text) if text else BUNDLE
    if not (path / MANIFEST).is_file():
        raise CliError(f"{path} holds no {MANIFEST}: not a vectors bundle")
    return path


def cmd_verify(args: argparse.Namespace) -> int:
    from flinkspec.tools import vectors as vec

    bundle = _bundle(args.dir)
    problems = vec.verify(bundle)
    for p in problems:
        print(p)
    man = vec.read_manifest(bundle)
    files = sum(len(r) for r in man.get("areas", {}).values())
    print(f"{bundle}: {files} file(s), {man.get('vectors', 0):,} vectors: "
          + ("intact" if not problems else f"{len(problems)} problem(s)"))
    return 1 if problems else 0


def cmd_power(args: argparse.Namespace) -> int:
    from flinkspec.tools import vectors as vec
    from flinkspec.tools import vectors_power as vp

    bundle = _bundle(args.dir)
    problems = vec.verify(bundle)
    if problems:
        raise CliError(f"the bundle is not intact: {problems[0]}")
    powers = vp.measure(vec.load(bundle))
    shown = "flinkspec vectors power" + (f" {args.dir}" if args.dir else "")
    ev = vp.evidence(bundle, powers, shown)
    for p in powers:
        print(f"{p.name:40s} {'killed' if p.killed else 'SURVIVES':8s} by {len(p.killing):4d} of {p.vectors} vectors"
              f"; random tier: {len(p.random_killing)}")
    for group, g in ev["summary"].items():
        print(f"{group}: {g['killed']} of {g['mutants']} killed "
              f"({g['killed_by_random_tier']} by the random tier alone)")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(ev, indent=1, sort_keys=True) + "\n")
    if args.doc:
        vp.rewrite_doc(Path(args.doc), vp.markdown(ev, vec.read_manifest(bundle)))
    return 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser("vectors", allow_abbrev=False,
                       help="conformance test vectors: Flink's answers as files any engine's CI can run")
    vs = p.add_subparsers(dest="vectors_command", required=True)

    e = vs.add_parser("export", allow_abbrev=False, help="select and write the vectors of areas and releases")
    e.add_argument("--out", required=True, metavar="DIR", help="the bundle's directory (new, empty or a bundle)")
    e.add_argument("--area", action=CommaJoined, help="comma-separated areas (default: all)")
    e.add_argument("--flink", action=CommaJoined, help=f"{SELECT_HELP} (default: all)")
    e.add_argument("--random", type=int, default=50, metavar="N", help="random recorded answers per area and release")
    e.add_argument("--seed", type=int, default=0, help="seed of the random vectors (default 0)")
    e.add_argument("--confirm", action="store_true",
                   help="replay every answer not recorded from the jars on real Flink (needs a JDK; slow)")
    e.set_defaults(fn=cmd_export)

    pa = vs.add_parser("path", allow_abbrev=False, help="print where the installed bundle is")
    pa.set_defaults(fn=cmd_path)

    ve = vs.add_parser("verify", allow_abbrev=False, help="check a bundle's files against its manifest's sha256s")
    ve.add_argument("dir", nargs="?", help="the bundle (default: the installed one)")
    ve.set_defaults(fn=cmd_verify)

    po = vs.add_parser("power", allow_abbrev=False,
                       help="the share of the built-in and historical mutants the vectors alone kill")
    po.add_argument("dir", nargs="?", help="the bundle (default: the installed one)")
    po.add_argument("--json", metavar="FILE", help=f"write the measurement (e.g. {EVIDENCE})")
    po.add_argument("--doc", metavar="FILE", help=f"rewrite the generated section of FILE (e.g. {DOC})")
    po.set_defaults(fn=cmd_power)
