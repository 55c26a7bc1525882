"""``flinkspec jars list|prune`` on a temporary cache (``FLINKSPEC_CACHE``), no JVM needed.

The cache is laid out as flinkjars writes it: a release folder with its flink-dist jar and a bridge
build of the current sources, one of older sources, a leftover archive in dl/, and a fork build
whose jar was deleted.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from flinkspec.cli.main import main
from flinkspec.impls import flinkjars
from oracle.versions import parse_version


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FLINKSPEC_CACHE", str(tmp_path))
    home = tmp_path / "flink" / "2.3.0"
    (home / f"bridge-{flinkjars._sources_hash()}" / "classes").mkdir(parents=True)
    (home / "bridge-000000000000" / "classes").mkdir(parents=True)
    (home / "bridge-000000000000" / "classes" / "Old.class").write_bytes(b"\0" * 1000)
    with zipfile.ZipFile(home / "flink-dist.jar", "w") as zf:
        zf.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nImplementation-Version: 2.3.0\n")
    (tmp_path / "dl").mkdir()
    (tmp_path / "dl" / "apache_flink_libraries-2.3.0-py2.py3-none-any.whl").write_bytes(b"\0" * 3_000_000)
    gone = tmp_path / "fork" / "0123456789abcdef"
    (gone / "bridge-000000000000" / "classes").mkdir(parents=True)
    (gone / "source.txt").write_text(str(tmp_path / "deleted-fork.jar") + "\n")
    kept_jar = tmp_path / "kept-fork.jar"
    kept_jar.write_bytes(b"PK")
    kept = tmp_path / "fork" / "fedcba9876543210"
    (kept / f"bridge-{flinkjars._sources_hash()}" / "classes").mkdir(parents=True)
    (kept / "source.txt").write_text(f"{kept_jar}\n")
    return tmp_path


def test_list_shows_each_build_its_size_and_bridge(cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["jars", "list"]) == 0
    out = capsys.readouterr().out
    assert str(cache) in out
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("2.3.0"))
    assert "bridge built" in line and "1 stale build(s)" in line
    assert "dl/apache_flink_libraries-2.3.0-py2.py3-none-any.whl" in out and "3 MB" in out
    assert "which is gone" in out and "total: 3 MB in 3 build(s) and 1 archive(s)" in out


def test_prune_removes_archives_stale_builds_and_gone_forks(cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["jars", "prune"]) == 0
    out = capsys.readouterr().out
    assert "freed 3 MB" in out
    assert not list((cache / "dl").iterdir())
    home = cache / "flink" / "2.3.0"
    assert sorted(p.name for p in home.iterdir() if p.is_dir()) == [f"bridge-{flinkjars._sources_hash()}"]
    assert (home / "flink-dist.jar").exists()
    assert not (cache / "fork" / "0123456789abcdef").exists()
    assert (cache / "fork" / "fedcba9876543210").exists()
    assert main(["jars", "prune"]) == 0
    assert "freed 0 MB" in capsys.readouterr().out


def test_fetch_of_an_unknown_version_is_a_usage_error(cache: Path) -> None:
    assert main(["jars", "fetch", "0.9"]) == 2
    assert main(["jars", "fetch"]) == 2


def test_an_extracted_archive_is_not_kept(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """dist_jar deletes the archive once flink-dist is out of it (a real wheel-shaped zip here)."""
    wheel = cache / "dl" / "apache_flink_libraries-2.2.1-py2.py3-none-any.whl"
    inner = cache / "inner.jar"
    with zipfile.ZipFile(inner, "w") as zf:
        zf.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.write(inner, "pyflink/lib/flink-dist-2.2.1.jar")
    jar = flinkjars.dist_jar("2.2.1")
    assert jar.exists() and not wheel.exists()


def _sdist(path: Path, version: str, entries: dict[str, bytes]) -> None:
    """An sdist-shaped archive: ``apache-flink-libraries-<version>/deps/lib/<name>`` for each entry."""
    import io
    import tarfile

    with tarfile.open(path, "w:gz") as tf:
        for name, data in entries.items():
            info = tarfile.TarInfo(f"apache-flink-libraries-{version}/deps/lib/{name}")
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))


def _jar(*names: str) -> bytes:
    import io

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
        for name in names:
            zf.writestr(name, b"\xca\xfe")
    return buf.getvalue()


def test_the_lib_jars_beside_flink_dist_are_extracted_with_it(cache: Path) -> None:
    """1.13-1.16 ship ZooKeeper and Curator in lib/flink-shaded-zookeeper, not in flink-dist: both are kept."""
    _sdist(cache / "dl" / "apache-flink-libraries-1.16.3.tar.gz", "1.16.3", {
        "flink-dist-1.16.3.jar": _jar("org/apache/flink/Dist.class"),
        "flink-shaded-zookeeper-3.5.9.jar": _jar(flinkjars._ZOOKEEPER),
        "flink-json-1.16.3.jar": _jar("org/apache/flink/Json.class")})
    jar = flinkjars.dist_jar("1.16.3")
    assert jar.exists() and [p.name for p in flinkjars.lib_jars("1.16.3")] == ["flink-shaded-zookeeper-3.5.9.jar"]
    assert not (cache / "dl" / "apache-flink-libraries-1.16.3.tar.gz").exists()


def test_a_cache_from_before_lib_jars_fetches_them_only_where_flink_dist_lacks_zookeeper(
        cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = cache / "flink" / "1.15.4"
    home.mkdir(parents=True)
    (home / "flink-dist.jar").write_bytes(_jar("org/apache/flink/Dist.class"))
    _sdist(cache / "dl" / "apache-flink-libraries-1.15.4.tar.gz", "1.15.4", {
        "flink-dist-1.15.4.jar": _jar("org/apache/flink/Other.class"),
        "flink-shaded-zookeeper-3.5.9.jar": _jar(flinkjars._ZOOKEEPER)})
    assert [p.name for p in flinkjars.lib_jars("1.15.4")] == ["flink-shaded-zookeeper-3.5.9.jar"]
    assert (home / "flink-dist.jar").read_bytes() == _jar("org/apache/flink/Dist.class")  # kept as it was
    bundled = cache / "flink" / "2.2.1"
    bundled.mkdir(parents=True)
    (bundled / "flink-dist.jar").write_bytes(_jar(flinkjars._ZOOKEEPER))

    def no_download(patch: str) -> Path:
        raise AssertionError(f"{patch} was downloaded again")

    monkeypatch.setattr(flinkjars, "_download", no_download)
    assert flinkjars.lib_jars("2.2.1") == [] and (bundled / "lib").is_dir()


@pytest.mark.flink
@pytest.mark.parametrize("version", ["1.13.6", "1.16.3", "2.3.0"])
def test_every_area_compiles_against_every_release(version: str) -> None:
    """Every area compiles against every release, with the lib/ jars it needs (checkpoint.ha before 1.17: ZooKeeper
    and Curator from lib/flink-shaded-zookeeper, on the class path), those that use other areas' classes
    included (the build once compiled each area alone after a failure, without the others, and lost AssignerArea,
    JoinArea and SnapshotArea at 1.13 ... 1.16: the README's main job was then invalid there). An area may still
    not be supported at a release (checkpoint.ha at 1.13: its ZooKeeper client cannot run on JDK 17): the oracle
    and the area's versions say so, not the build."""
    argv = flinkjars.bridge_command(version)
    classpath = argv[argv.index("-cp") + 1].split(os.pathsep)
    assert not list((Path(classpath[0]).parent / "unsupported").glob("*.txt"))
    zookeeper_jars = [p for p in classpath if "flink-shaded-zookeeper" in p]
    assert bool(zookeeper_jars) == (parse_version(version) < parse_version("1.17"))


def test_the_zookeeper_patch_is_compiled_for_zookeeper_3_4_only() -> None:
    """ZooKeeper 3.4.14's client (Flink 1.13, 1.14) never connects on JDK 17: the bridge compiles its patched
    StaticHostProvider ahead of that jar, and of no other."""
    def patches(*jars: str) -> list[str]:
        return [p.name for p in flinkjars._patches(os.pathsep.join(["/c/flink-dist.jar", *jars]))]

    assert patches("/c/lib/flink-shaded-zookeeper-3.4.14.jar") == ["zookeeper-3.4"]
    assert patches("/c/lib/flink-shaded-zookeeper-3.5.9.jar") == [] and patches() == []
