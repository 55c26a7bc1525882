"""Tables the oracle copies from Flink, read from each version's jar and recorded.

``bridge/tools/FlinkTables.java`` prints, from the flink-dist jar of one version, every
``CheckpointFailureReason`` (name, ``isPreFlight()``, ``message()``) and every ``ConfigOption`` of
``TaskManagerOptions``, ``JobManagerOptions`` and ``NettyShuffleEnvironmentOptions`` (key and
``toString()``: default and fallback keys). ``python -m flinkspec.tools.flinktables --record`` writes them
for every supported version to ``properties/recorded/flink-tables.json``;
``properties/test_flink_tables.py`` holds the oracle's copies to them on every test run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from flinkspec.impls.flinkjars import dist_jar
from flinkspec.impls.jdklist import jdk_tools
from oracle.versions import SUPPORTED
from properties.recordings import FLINK_TABLES

TOOL = Path(__file__).parents[1] / "impls" / "bridge" / "tools" / "FlinkTables.java"
RECORDING = FLINK_TABLES


def read_jar(version: str) -> dict[str, Any]:
    """The tables of one version, from its jar: ``{"reasons": {name: [pre, msg]}, "options": {key: text}}``."""
    java, javac = jdk_tools()
    jar = dist_jar(version)
    with tempfile.TemporaryDirectory(prefix="flinkspec-tables") as tmp:
        subprocess.run([javac, "-nowarn", "-cp", str(jar), "-d", tmp, str(TOOL)], check=True)
        out = subprocess.run([java, "-cp", f"{tmp}:{jar}", "FlinkTables"], capture_output=True, text=True,
                             check=True, timeout=300).stdout
    reasons: dict[str, list[Any]] = {}
    options: dict[str, str] = {}
    for line in out.splitlines():
        kind, *rest = line.split("\t")
        if kind == "reason":
            reasons[rest[0]] = [rest[1] == "true", rest[2]]
        elif kind == "option":
            options[rest[1]] = rest[2]
    return {"reasons": reasons, "options": options}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m flinkspec.tools.flinktables", description=__doc__.splitlines()[0])
    p.add_argument("--record", action="store_true", help=f"rewrite {RECORDING} from the jars")
    args = p.parse_args(argv)
    tables = {str(ver): read_jar(str(ver)) for ver in SUPPORTED}
    text = json.dumps({"recorded_from": "the flink-dist jar of each version (bridge/tools/FlinkTables.java)",
                       "versions": tables}, indent=1, sort_keys=True) + "\n"
    if args.record:
        RECORDING.write_text(text)
        print(f"{RECORDING}: {len(tables)} versions")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
