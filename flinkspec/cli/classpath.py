"""flinkspec classpath: the classes a job jar shares with Flink's class path, and who wins each.

    flinkspec classpath job.jar --lib /opt/flink/lib
    flinkspec classpath job.jar --jar lib/flink-dist.jar --jar lib/log4j-api.jar --config conf/config.yaml
    flinkspec classpath job.jar --lib lib -D classloader.resolve-order=parent-first --flink 1.17 --json
    flinkspec classpath job.jar --lib lib --impl flink:1.17     # ask real Flink instead of the oracle

A class both sides define is the usual cause of LinkageError, ClassCastException ("X cannot
be cast to X") and NoSuchMethodError in Flink jobs: the job's copy and the framework's copy are
different classes, and which one a class sees depends on the resolve order and the parent-first
patterns. The table lists every such class (and every class of the job jar the JDK also has) with
the side Flink loads it from and the pattern that decided it; --resources adds resources both
sides hold (META-INF/services/... files are read from both, in the order shown).

Exit 0 with the report, 1 when Flink rejects the configuration (its exception and message are
printed), 2 for bad usage (a missing or corrupt jar, an unknown version, an unreadable config).
"""

from __future__ import annotations

import argparse
import json
import zipfile
from pathlib import Path
from typing import Any

from flinkspec.cli.memory import version_and_config
from flinkspec.errors import CliError
from flinkspec.impls import spec_pinned_version
from oracle.classloading import RESOLVE as AREA
from oracle.classloading import jdk_classes
from oracle.classloading_config import java_equals_ignore_case
from oracle.versions import parse_version


def jar_contents(path: Path) -> tuple[list[str], list[str]]:
    """The binary names of the classes in a jar and its other resources (directories left out)."""
    if not path.is_file():
        raise CliError(f"{path}: no such jar")
    try:
        with zipfile.ZipFile(path) as jar:
            names = jar.namelist()
            bad = jar.testzip() if path.stat().st_size < 64 << 20 else None
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise CliError(f"{path}: not a readable jar ({exc})") from None
    if bad is not None:
        raise CliError(f"{path}: corrupt jar (entry {bad!r} fails its CRC check)")
    classes, resources = [], []
    for entry in names:
        if entry.endswith("/"):
            continue
        if entry.endswith(".class"):
            stem = entry[: -len(".class")]
            if stem.rsplit("/", 1)[-1] in ("module-info", "package-info") or stem.startswith("META-INF/"):
                continue  # not loadable classes (multi-release versions live under META-INF/versions)
            classes.append(stem.replace("/", "."))
        else:
            resources.append(entry)
    return classes, resources


def _framework_jars(args: argparse.Namespace) -> list[Path]:
    jars = [Path(j) for j in args.jar or []]
    for lib in args.lib or []:
        folder = Path(lib)
        if not folder.is_dir():
            raise CliError(f"--lib {lib}: not a directory")
        found = sorted(folder.glob("*.jar"))
        if not found:
            raise CliError(f"--lib {lib}: holds no jar")
        jars += found
    if not jars:
        raise CliError("give the framework side: --lib FOLDER (Flink's lib/) and/or --jar JAR (repeatable)")
    return jars


def build_request(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The protocol request for the jars and configuration, and where each framework class comes from."""
    pinned = spec_pinned_version(args.impl)
    version, config = version_and_config(args.flink or pinned, args.config, args.D)
    if pinned and parse_version(pinned) != version:
        raise CliError(f"--flink {args.flink}: the implementation {args.impl} is pinned to Flink {pinned}")
    user_classes, user_res = jar_contents(Path(args.user_jar))
    origin: dict[str, list[str]] = {}
    parent_res: set[str] = set()
    for jar in _framework_jars(args):
        classes, resources = jar_contents(jar)
        for c in classes:
            origin.setdefault(c, []).append(jar.name)
        parent_res.update(resources)
    jdk = jdk_classes()
    shared = sorted(c for c in set(user_classes) if c in origin or c in jdk)
    user_set = set(user_classes)
    user_res_set = set(user_res) - {c.replace(".", "/") + ".class" for c in user_set}
    shared_res = sorted(r for r in user_res_set if r in parent_res) if args.resources else []
    request = {
        "id": 1, "area": AREA, "flink": str(version),
        "input": {
            "config": config,
            "user_classes": sorted(user_set),
            "parent_classes": sorted(c for c in origin if c not in jdk),
            "lookups": shared,
            "user_resources": sorted(user_res_set),
            "parent_resources": sorted(parent_res - {c.replace(".", "/") + ".class" for c in origin}),
            "resource_lookups": shared_res,
        },
    }
    return request, origin


def _deciding_pattern(name: str, patterns: list[str]) -> str:
    return next((p for p in patterns if name.startswith(p)), "")


def report(request: dict[str, Any], response: dict[str, Any], origin: dict[str, list[str]]) -> dict[str, Any]:
    out = response["output"]
    inp = request["input"]
    child_first = java_equals_ignore_case(inp["config"].get("classloader.resolve-order", "child-first"), "child-first")
    rows = []
    for name, side in zip(inp["lookups"], out["resolved"], strict=True):
        pattern = _deciding_pattern(name, out["patterns"]) if child_first else ""
        rows.append({"class": name, "loaded_from": side, "pattern": pattern,
                     "framework_jars": origin.get(name, ["JDK"])})
    resources = [{"resource": r, "order": found} for r, found in zip(inp["resource_lookups"], out["resources"],
                                                                       strict=True)]
    return {"flink": request["flink"], "resolve_order": "child-first" if child_first else "parent-first",
            "patterns": out["patterns"], "user_classes": len(inp["user_classes"]),
            "framework_classes": len(inp["parent_classes"]), "shared": rows, "shared_resources": resources}


def cmd_classpath(args: argparse.Namespace) -> int:
    from flinkspec.cli.options import ask_once

    request, origin = build_request(args)
    sent = request
    if args.impl.startswith("flink"):  # real Flink loads the real jars (protocol extension user_jars/parent_jars)
        sent = {**request, "input": {**request["input"], "user_classes": [], "parent_classes": [],
                                     "user_resources": [], "parent_resources": [],
                                     "user_jars": [str(Path(args.user_jar).resolve())],
                                     "parent_jars": [str(j.resolve()) for j in _framework_jars(args)]}}
    response = ask_once(args.impl, args.timeout, sent)
    if "error" in response:
        err = response["error"]
        print(json.dumps({"flink": request["flink"], "error": err}, indent=2) if args.json else
              f"Flink {request['flink']} rejects this configuration:\n{err.get('exception')}: {err.get('message')}")
        return 1
    rep = report(request, response, origin)
    if args.json:
        print(json.dumps(rep, indent=2, ensure_ascii=False))
        return 0
    print(f"Flink {rep['flink']}, {rep['resolve_order']}: {rep['user_classes']} classes in the job jar, "
          f"{rep['framework_classes']} on the framework class path, {len(rep['shared'])} shared")
    if rep["shared"]:
        width = max(len(r["class"]) for r in rep["shared"])
        print(f"{'class':<{width}}  loaded from   decided by")
        for r in rep["shared"]:
            why = f"pattern {r['pattern']!r}" if r["pattern"] else rep["resolve_order"]
            where = "framework" if r["loaded_from"] == "parent" else "job jar" if r["loaded_from"] == "user" else \
                r["loaded_from"]
            print(f"{r['class']:<{width}}  {where:<12}  {why} (framework copy: {', '.join(r['framework_jars'])})")
    for r in rep["shared_resources"]:
        print(f"resource {r['resource']}: getResources order {' then '.join(r['order'])}")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("classpath", allow_abbrev=False,
                       help="classes a job jar shares with Flink's class path, and which copy Flink loads",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("user_jar", help="the job (user code) jar")
    p.add_argument("--lib", action="append", metavar="FOLDER", help="a folder of framework jars (Flink's lib/)")
    p.add_argument("--jar", action="append", metavar="JAR", help="a framework jar (repeatable)")
    p.add_argument("--flink", help="Flink release X.Y (its newest patch) or X.Y.Z (default: the newest)")
    p.add_argument("--config", help="config.yaml (2.x; nested or flat) or a legacy flink-conf.yaml")
    p.add_argument("-D", action="append", metavar="KEY=VALUE", help="a configuration option (repeatable)")
    p.add_argument("--impl", default="oracle", help="who answers: oracle (default), flink:X.Y for real Flink, "
                   "flink:PATH/flink-dist.jar for a fork's own jar")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for the answer (default 120)")
    p.add_argument("--resources", action="store_true", help="also list resources both sides hold")
    p.add_argument("--json", action="store_true", help="print the report (or the rejection) as JSON")
    p.set_defaults(fn=cmd_classpath)
