"""A fork's own flink-dist jar (``--impl flink:PATH``), checked for real.

The fork is Apache Flink 2.3's cached jar with ONE constant patched: the default of
``taskmanager.memory.managed.fraction`` (the CONSTANT_Float 0.4f in TaskManagerOptions' constant
pool, the only 0.4f there) becomes 0.5f. ``jar uf`` writes the patched class into a copy of the
jar. The memory suite derives managed memory from that fraction in most cases, so it must catch it.
"""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from flinkspec.cli.main import main
from flinkspec.impls import open_impl, pinned_version
from flinkspec.impls.fingerprint import base_of, describe_impl, fingerprint
from flinkspec.impls.flinkjars import cache_dir

PATCHED = "org/apache/flink/configuration/TaskManagerOptions.class"
OLD, NEW = b"\x04" + struct.pack(">f", 0.4), b"\x04" + struct.pack(">f", 0.5)

pytestmark = pytest.mark.flink


@pytest.fixture(scope="module")
def fork(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of Apache 2.3's jar whose managed-fraction default is 0.5 instead of 0.4."""
    apache = cache_dir() / "flink" / "2.3.0" / "flink-dist.jar"
    if not apache.exists() or shutil.which("jar") is None:
        pytest.skip("needs Flink 2.3's cached jar (flinkspec jars fetch 2.3) and a JDK")
    root = tmp_path_factory.mktemp("fork")
    jar = root / "fork-flink-dist.jar"
    shutil.copyfile(apache, jar)
    with zipfile.ZipFile(apache) as zf:
        data = zf.read(PATCHED)
    assert data.count(OLD) == 1, "the constant to patch must be unique in the class"
    classes = root / "classes"
    (classes / PATCHED).parent.mkdir(parents=True)
    (classes / PATCHED).write_bytes(data.replace(OLD, NEW))
    subprocess.run(["jar", "uf", str(jar), "-C", str(classes), PATCHED], check=True)
    return jar


def test_fingerprint_names_exactly_the_patched_class(fork: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fingerprint", str(fork), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    changed = sorted({c for area in result["by_area"] for c in area["changed"]})
    assert changed == ["org.apache.flink.configuration.TaskManagerOptions"]
    memory = next(a for a in result["by_area"] if "memory.taskmanager" in a["areas"])
    assert memory["changed"] == changed
    assert result["apache_release"] == "2.3.0" and result["jar"]["base"] == "2.3"
    assert main(["fingerprint", str(fork)]) == 0
    text = capsys.readouterr().out
    assert "changed: org.apache.flink.configuration.TaskManagerOptions" in text and "covers:" in text


def test_fingerprint_of_apache_itself_is_all_identical(capsys: pytest.CaptureFixture[str]) -> None:
    apache = cache_dir() / "flink" / "2.3.0" / "flink-dist.jar"
    if not apache.exists():
        pytest.skip("needs Flink 2.3's cached jar")
    result = fingerprint(apache, None)
    assert all(not a["changed"] for a in result["by_area"])
    assert sum(len(a["classes"]) for a in result["by_area"]) > 30


def test_the_fork_is_pinned_to_its_base_and_described(fork: Path) -> None:
    impl = open_impl(f"flink:{fork}")
    try:
        assert pinned_version(impl) == "2.3"
        assert impl.name == f"flink:{fork}"
    finally:
        impl.close()
    desc = describe_impl(f"flink:{fork}")
    assert desc is not None and desc["path"] == str(fork.resolve()) and desc["version"] == "2.3.0"
    assert len(desc["sha256"]) == 64 and desc["vendor"] == "org.apache.flink"
    assert describe_impl("flink:2.3") is None and describe_impl("oracle") is None


def test_check_catches_the_fork_and_its_replay_reruns_the_fork(fork: Path, tmp_path: Path) -> None:
    report = tmp_path / "rep"
    argv = ["check", "--impl", f"flink:{fork}", "--area", "memory.taskmanager", "--flink", "2.3",
            "--examples", "300", "--report", str(report)]
    assert main(argv) == 1
    data = json.loads((report / "report.json").read_text())
    assert data["impl"] == f"flink:{fork}"
    assert data["impl_jar"] == describe_impl(f"flink:{fork}")  # the jar named: path, sha256, vendor, version
    assert f"The jar is {fork}" in (report / "report.html").read_text()
    builds = list((cache_dir() / "fork").glob("*/bridge-*"))
    assert builds, "the fork's bridge is cached by the jar's sha256, under fork/"
    assert not (cache_dir() / "flink" / "2.3.0" / "fork-flink-dist.jar").exists()
    md = (report / "report.md").read_text()
    assert f"--impl flink:{fork}" in md
    # the replay line re-runs the fork (a fresh process, as a user would)
    rc = subprocess.run([sys.executable, "-m", "flinkspec.cli", "replay", str(report / "report.json")],
                        capture_output=True, text=True).returncode
    assert rc == 1


def test_a_missing_jar_is_a_usage_error(tmp_path: Path) -> None:
    assert main(["check", "--impl", f"flink:{tmp_path / 'nope.jar'}", "--area", "memory.taskmanager",
                 "--examples", "5", "--report", str(tmp_path / "r")]) == 2
    assert main(["fingerprint", str(tmp_path / "nope.jar")]) == 2


def test_base_of_reads_snapshots_and_vendor_suffixes() -> None:
    assert base_of("2.2-SNAPSHOT") == "2.2"
    assert base_of("2.3.0") == "2.3"
    assert base_of("1.20.1-cp3") == "1.20.1"  # a vendor build of an Apache patch release: that release
    assert base_of("1.15.1") == "1.15.1" and base_of("1.13.2") == "1.13"  # 1.13.2 is not on PyPI
    assert base_of(None) is None and base_of("abc") is None


def test_memory_answers_as_the_fork(fork: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["memory", "-D", "taskmanager.memory.flink.size=1g", "--json"]
    assert main([*argv, "--impl", f"flink:{fork}"]) == 0
    forked = json.loads(capsys.readouterr().out)
    assert main(argv) == 0
    oracle = json.loads(capsys.readouterr().out)
    assert forked["impl"] == f"flink:{fork}" and forked["flink"] == "2.3"
    assert forked["managed"] == 536870912 and oracle["managed"] == 429496736  # 0.5 vs 0.4 of 1 GiB (float)
    assert main([*argv, "--impl", f"flink:{fork}", "--flink", "2.2"]) == 2  # pinned to its base
