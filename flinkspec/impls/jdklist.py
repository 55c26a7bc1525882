"""Regenerate ``oracle/jdk17-{classes,resources,hidden-class-files}.txt.gz`` from the local JDK 17.

    python -m flinkspec.impls.jdklist

Compiles and runs ``flinkspec/impls/bridge/tools/JdkList.java`` in a JVM started like the bridge (a plain
class-path application, see ``flinkjars.bridge_command``): the binary names the platform class
loader loads, the other resource names it finds, and the classes whose class file it does not find,
over the files of the boot layer's modules.
One name a line, sorted, gzip -9 with mtime 0, so that a rerun on the same JDK gives the same bytes.
"""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

TOOL = Path(__file__).parent / "bridge" / "tools" / "JdkList.java"
ORACLE = Path(__file__).parents[2] / "oracle"
# Every JVM flinkspec starts (the bridge, these tools): a deep stack for deep requests, one GC thread, and the
# client compiler only (TieredStopAtLevel=1): a bridge answers a few thousand requests and exits, and C2's
# compilations cost more CPU than they save in such a run (bench: farm-bench on `check --impl flink:2.3.0`,
# every area at 150 examples: 0.71x the CPU; three areas at 3,000: 0.78x)
JVM_FLAGS = ["-Xss4m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"]
FEATURE = 17


def jdk_tools() -> tuple[str, str]:
    """``java`` and ``javac`` of the JDK on PATH, which must be a JDK 17 (what the recordings assume)."""
    found = [shutil.which(name) for name in ("java", "javac")]
    if found[0] is None or found[1] is None:
        raise SystemExit(f"flinkspec: java and javac not found: needs a JDK {FEATURE} on PATH")
    out = subprocess.run([found[0], "-version"], capture_output=True, text=True, check=True).stderr
    version = re.search(r'version "(\d+)', out)
    if version is None or int(version.group(1)) != FEATURE:
        raise SystemExit(f"flinkspec: needs java {FEATURE}, found: {out.splitlines()[0]}")
    return found[0], found[1]


def _gzip(src: Path, dst: Path) -> int:
    data = src.read_bytes()
    with open(dst, "wb") as raw, gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=raw, mtime=0) as gz:
        gz.write(data)
    return data.count(b"\n")


def main() -> int:
    java, javac = jdk_tools()
    with tempfile.TemporaryDirectory(prefix="flinkspec-jdklist") as tmp:
        work = Path(tmp)
        subprocess.run([javac, "-nowarn", "-encoding", "UTF-8", "-d", str(work), str(TOOL)], check=True)
        classes, resources, hidden = work / "classes.txt", work / "resources.txt", work / "hidden.txt"
        subprocess.run([java, *JVM_FLAGS, "-cp", str(work), "JdkList", str(classes), str(resources), str(hidden)],
                       check=True)
        for src, name in ((classes, "jdk17-classes.txt.gz"), (resources, "jdk17-resources.txt.gz"),
                          (hidden, "jdk17-hidden-class-files.txt.gz")):
            print(f"{ORACLE / name}: {_gzip(src, ORACLE / name)} names")
    return 0


if __name__ == "__main__":
    sys.exit(main())
