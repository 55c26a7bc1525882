"""`flinkspec classpath` on real jars: the oracle's table equals what real Flink's loader does."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SOURCES = {
    "com/acme/Job.java": "package com.acme; public class Job { public static class Inner {} }",
    "com/acme/Shared.java": "package com.acme; public class Shared { }",
    "org/slf4j/Logger.java": "package org.slf4j; public class Logger { }",
    "org/apache/flink/Patched.java": "package org.apache.flink; public class Patched { }",
    "org/xmlpull/Parser.java": "package org.xmlpull; public class Parser { }",
}
JOB = ("com/acme/Job.java", "com/acme/Shared.java", "org/slf4j/Logger.java", "org/apache/flink/Patched.java",
       "org/xmlpull/Parser.java")
FRAMEWORK = ("com/acme/Shared.java", "org/slf4j/Logger.java", "org/xmlpull/Parser.java")


def _jar(tmp: Path, name: str, sources: tuple[str, ...], resources: dict[str, str]) -> Path:
    """Compile ``sources`` with javac and pack them with ``resources`` into a real jar."""
    src, out = tmp / f"{name}-src", tmp / f"{name}-classes"
    for rel in sources:
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(SOURCES[rel])
    out.mkdir()
    subprocess.run([shutil.which("javac") or "javac", "-d", str(out), *(str(src / r) for r in sources)], check=True)
    jar = tmp / f"{name}.jar"
    with zipfile.ZipFile(jar, "w") as z:
        for f in sorted(out.rglob("*.class")):
            z.write(f, f.relative_to(out).as_posix())
        for entry, text in resources.items():
            z.writestr(entry, text)
    return jar


@pytest.fixture(scope="module")
def jars(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("classpath")
    job = _jar(tmp, "job", JOB, {"META-INF/services/com.acme.Plugin": "com.acme.Job\n"})
    lib = tmp / "lib"
    lib.mkdir()
    _jar(tmp, "framework", FRAMEWORK, {"META-INF/services/com.acme.Plugin": "x\n"}).rename(lib / "framework.jar")
    _jar(tmp, "other", ("org/slf4j/Logger.java",), {}).rename(lib / "slf4j.jar")
    return job, lib


def classpath(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "flinkspec.cli", "classpath", *args], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)


def test_shared_classes_and_who_wins(jars: tuple[Path, Path]) -> None:
    """Child-first: shared classes come from the job jar unless a parent-first pattern matches (no dot
    boundary: org.xml also covers org.xmlpull)."""
    job, lib = jars
    res = classpath(str(job), "--lib", str(lib), "--flink", "2.3", "--json", "--resources")
    assert res.returncode == 0, res.stderr
    rep = json.loads(res.stdout)
    rows = {r["class"]: (r["loaded_from"], r["pattern"]) for r in rep["shared"]}
    assert rows == {"com.acme.Shared": ("user", ""), "org.slf4j.Logger": ("parent", "org.slf4j"),
                    "org.xmlpull.Parser": ("parent", "org.xml")}
    assert rep["shared_resources"] == [{"resource": "META-INF/services/com.acme.Plugin", "order": ["user", "parent"]}]


@pytest.mark.flink
@pytest.mark.parametrize("version", ["1.13", "1.16", "2.3"])
@pytest.mark.parametrize("order", ["child-first", "parent-first"])
def test_the_answer_is_real_flinks(jars: tuple[Path, Path], version: str, order: str) -> None:
    """The oracle's table equals the one real Flink's FlinkUserCodeClassLoaders gives over the same jars."""
    job, lib = jars
    common = [str(job), "--lib", str(lib), "-D", f"classloader.resolve-order={order}", "--json", "--resources"]
    oracle = classpath(*common, "--flink", version)
    flink = classpath(*common, "--impl", f"flink:{version}")
    assert oracle.returncode == 0 and flink.returncode == 0, (oracle.stderr, flink.stderr)
    assert json.loads(oracle.stdout) == json.loads(flink.stdout)


def test_bad_inputs_are_usage_errors(jars: tuple[Path, Path], tmp_path: Path) -> None:
    job, lib = jars
    corrupt = tmp_path / "corrupt.jar"
    corrupt.write_bytes(b"PK\x03\x04 not really a zip")
    empty = tmp_path / "empty"
    empty.mkdir()
    cases = {
        (str(tmp_path / "missing.jar"), "--lib", str(lib)): "no such jar",
        (str(corrupt), "--lib", str(lib)): "not a readable jar",
        (str(job),): "give the framework side",
        (str(job), "--lib", str(empty)): "holds no jar",
        (str(job), "--lib", str(lib), "--flink", "1.9"): "unknown Flink version",
        (str(job), "--lib", str(lib), "--impl", "nonsense"): "nonsense",
    }
    for args, message in cases.items():
        res = classpath(*args)
        assert res.returncode == 2 and message in res.stderr and "Traceback" not in res.stderr, (args, res.stderr)


def test_a_rejected_configuration_exits_1(jars: tuple[Path, Path]) -> None:
    job, lib = jars
    res = classpath(str(job), "--lib", str(lib), "-D", "classloader.resolve-order= child-first")
    assert res.returncode == 1 and "Unknown resolve order:  child-first" in res.stdout, res
