"""Real Flink, from PyPI: fetch ``apache-flink-libraries``, extract ``flink-dist``, build the bridge.

Everything is cached under ``$FLINKSPEC_CACHE`` (default ``~/.cache/flinkspec``)::

    dl/                         wheels and sdists while pip downloads them (deleted once
                                flink-dist is extracted: only what runs is kept)
    flink/<X.Y.Z>/flink-dist.jar
    flink/<X.Y.Z>/lib/          the distribution's lib/ jars the driven classes need beside flink-dist: ZooKeeper
                                and Curator (flink-shaded-zookeeper) where flink-dist does not bundle them (before
                                1.17); an empty folder says there are none
    flink/<X.Y.Z>/bridge-<hash>/classes, unsupported/<Area>.txt (javac output of areas that
                                do not compile against this version)
    fork/<sha256[:16]>/bridge-<hash>/...   the bridge built against a user's own flink-dist jar
                                (``--impl flink:PATH``), named by the jar's content, never a download

The bridge sources live in ``flinkspec/impls/bridge/src``; their hash names the build, so an edited
bridge is rebuilt on first use. A file lock makes concurrent builders (pytest-xdist workers, Spark
tasks) wait for one another instead of racing.

    python -m flinkspec.impls.flinkjars bridge 2.3      # print the argv that starts the bridge
    python -m flinkspec.impls.flinkjars fetch all       # download and build every supported version

Progress (fetching, extracting, compiling) goes to stderr, so a first run does not look hung.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO

import attrs

from flinkspec.impls.jdklist import JVM_FLAGS
from oracle.versions import parse_version, select_versions

BRIDGE_SRC = Path(__file__).parent / "bridge" / "src"
# sources compiled ahead of a lib/ jar's own classes where that jar is on the class path (the folder's name is a
# prefix of the jar's): ZooKeeper 3.4's StaticHostProvider with ZOOKEEPER-3779's fix, without which the client of
# Flink 1.13 and 1.14 never connects on JDK 17
PATCHES = Path(__file__).parent / "bridge" / "patches"
CORE = ("Area.java", "Json.java", "Main.java", "Reflect.java")
_DIST = re.compile(r"(^|/)flink-dist[^/]*\.jar$")
# lib/ jars the bridge puts beside flink-dist: the distribution's own ZooKeeper and Curator (checkpoint.ha), which
# flink-dist bundles only from 1.17; Flink's scripts put every lib/ jar on the JobManager's classpath
_LIB = re.compile(r"(^|/)lib/(flink-shaded-zookeeper[^/]*\.jar)$")
_ZOOKEEPER = "org/apache/flink/shaded/zookeeper3/org/apache/zookeeper/ZooKeeper.class"


class FlinkUnavailable(RuntimeError):
    """Real Flink of some version cannot be made available here; the message says why."""


def progress(message: str) -> None:
    """One line on stderr about slow work (a download, an extraction, a javac run)."""
    print(f"flinkspec: {message}", file=sys.stderr, flush=True)


def cache_dir() -> Path:
    return Path(os.environ.get("FLINKSPEC_CACHE", Path.home() / ".cache" / "flinkspec"))


def resolve_patch(text: str) -> str:
    """``"2.3"`` -> ``"2.3.0"`` (a minor means its newest patch); ``"1.19.1"`` stays as asked."""
    return parse_version(text).release


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _download(patch: str) -> Path:
    dl = cache_dir() / "dl"
    dl.mkdir(parents=True, exist_ok=True)
    for cand in dl.iterdir():
        if _is_archive_of(cand.name, patch):
            return cand
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
           f"apache-flink-libraries=={patch}", "-d", str(dl)]
    progress(f"Flink {patch}: downloading apache-flink-libraries=={patch} from PyPI (200-330 MB) ...")
    started = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise FlinkUnavailable(f"pip could not download apache-flink-libraries=={patch}: {last}")
    for cand in dl.iterdir():
        if _is_archive_of(cand.name, patch):
            progress(f"Flink {patch}: downloaded {_mb(cand.stat().st_size)} in {time.monotonic() - started:.0f} s")
            return cand
    raise FlinkUnavailable(f"pip downloaded nothing recognisable for apache-flink-libraries=={patch}")


def _is_archive_of(name: str, patch: str) -> bool:
    # sdists are named with dashes up to 1.19 and underscores from 1.20 on
    return name in (f"apache-flink-libraries-{patch}.tar.gz", f"apache_flink_libraries-{patch}.tar.gz") or (
        name.startswith(f"apache_flink_libraries-{patch}-") and name.endswith(".whl")
    )


def _mb(size: int) -> str:
    return f"{size / 1e6:.0f} MB"


def _members(archive: Path) -> Iterator[tuple[str, Callable[[], IO[bytes]]]]:
    """Each file of a wheel or sdist: its name and how to open it."""
    if archive.name.endswith(".whl"):
        with zipfile.ZipFile(archive) as zf:
            for name in zf.namelist():
                yield name, functools.partial(zf.open, name)
    else:
        with tarfile.open(archive) as tf:
            for member in tf.getmembers():
                if member.isfile():
                    yield member.name, functools.partial(_extracted, tf, member)


def _extracted(tf: tarfile.TarFile, member: tarfile.TarInfo) -> IO[bytes]:
    fh = tf.extractfile(member)
    assert fh is not None  # a regular file
    return fh


def _check_jar(jar: Path, what: str) -> None:
    try:
        with zipfile.ZipFile(jar) as zf:
            if zf.testzip() is not None:
                raise FlinkUnavailable(f"{what} is corrupt")
    except zipfile.BadZipFile as exc:
        raise FlinkUnavailable(f"{what} is not a jar: {exc}") from None


def _extract(archive: Path, target: Path | None, lib: Path) -> None:
    """flink-dist to ``target`` (unless None: only the lib/ jars are wanted) and the lib/ jars :data:`_LIB` names
    into ``lib`` (created, empty where the archive has none)."""
    progress(f"extracting {'flink-dist and ' if target else ''}lib/ jars from {archive.name} ...")
    tmp_lib = lib.with_name(lib.name + ".part")
    shutil.rmtree(tmp_lib, ignore_errors=True)
    tmp_lib.mkdir(parents=True)
    tmp = target.with_suffix(".part") if target else None
    dist_found = False
    for name, open_member in _members(archive):
        lib_jar = _LIB.search(name)
        if lib_jar:
            out = tmp_lib / lib_jar.group(2)
        elif tmp is not None and not dist_found and _DIST.search(name):
            out, dist_found = tmp, True
        else:
            continue
        with open_member() as src, open(out, "wb") as dst:
            shutil.copyfileobj(src, dst)
    for jar in tmp_lib.iterdir():
        _check_jar(jar, f"lib/{jar.name} extracted from {archive.name}")
    if target is not None and tmp is not None:
        if not dist_found:
            raise FlinkUnavailable(f"{archive.name} holds no flink-dist jar")
        _check_jar(tmp, f"flink-dist extracted from {archive.name}")
        tmp.replace(target)
        progress(f"extracted {target} ({_mb(target.stat().st_size)})")
    shutil.rmtree(lib, ignore_errors=True)
    tmp_lib.rename(lib)


def dist_jar(version: str) -> Path:
    """The flink-dist jar of ``version`` (``X.Y`` or ``X.Y.Z``), downloading it on first use."""
    patch = resolve_patch(version)
    home = cache_dir() / "flink" / patch
    jar = home / "flink-dist.jar"
    if jar.exists():
        return jar
    with _locked(home / ".lock"):
        if not jar.exists():
            archive = _download(patch)
            _extract(archive, jar, home / "lib")
            archive.unlink(missing_ok=True)  # 200-330 MB that nothing reads again
    return jar


def lib_jars(version: str) -> list[Path]:
    """The lib/ jars of ``version`` the bridge runs with beside flink-dist (:data:`_LIB`), downloading on first use.

    A cache written before lib/ was kept has no lib/ folder: where flink-dist bundles ZooKeeper nothing is
    missing (an empty folder records it); elsewhere the archive is fetched again for its lib/ jars only.
    """
    patch = resolve_patch(version)
    jar = dist_jar(patch)
    lib = jar.parent / "lib"
    if not lib.is_dir():
        with _locked(jar.parent / ".lock"):
            if not lib.is_dir():
                with zipfile.ZipFile(jar) as zf:
                    bundled = _ZOOKEEPER in zf.NameToInfo
                if bundled:
                    lib.mkdir()
                else:
                    progress(f"Flink {patch}: fetching its lib/ jars (ZooKeeper, Curator; flink-dist has none)")
                    archive = _download(patch)
                    _extract(archive, None, lib)
                    archive.unlink(missing_ok=True)
    return sorted(lib.glob("*.jar"))


def fork_lib_jars(jar: Path) -> list[Path]:
    """A fork's lib/ jars: those :data:`_LIB` names in the folder of its flink-dist jar (a distribution's lib/)."""
    return sorted(p for p in jar.parent.glob("*.jar") if _LIB.search(f"lib/{p.name}"))


BUILD = 2  # how _build builds: a new value makes every cached build stale (2: an area failing leaves the others)


def _sources_hash(lib: Sequence[Path] = ()) -> str:
    """Names a bridge build: the sources, and the lib/ jars it was compiled with (an area compiles only with them)."""
    h = hashlib.sha256(str(BUILD).encode())
    for jar in lib:
        h.update(jar.name.encode())
    for src in sorted(BRIDGE_SRC.rglob("*.java")) + sorted(PATCHES.rglob("*.java")):
        h.update(src.name.encode())
        h.update(src.read_bytes())
    return h.hexdigest()[:12]


def _patches(classpath: str) -> list[Path]:
    """The folders of :data:`PATCHES` whose name prefixes a lib/ jar on ``classpath`` (``zookeeper-3.4`` for
    ``flink-shaded-zookeeper-3.4.14.jar``)."""
    names = [Path(p).name for p in classpath.split(os.pathsep)]
    return [d for d in sorted(PATCHES.iterdir()) if d.is_dir()
            and any(n.startswith(f"flink-shaded-{d.name}") for n in names)] if PATCHES.is_dir() else []


def _javac(args: list[str]) -> subprocess.CompletedProcess[str]:
    javac = shutil.which("javac")
    if javac is None:
        raise FlinkUnavailable("javac not found: real Flink needs a JDK (17) on PATH")
    return subprocess.run([javac, "-nowarn", "-encoding", "UTF-8", *args], capture_output=True, text=True)


def _build(classpath: str, out: Path) -> None:
    progress(f"compiling the bridge against {classpath} ...")
    started = time.monotonic()
    tmp = out.with_name(out.name + ".part")
    shutil.rmtree(tmp, ignore_errors=True)
    classes, unsupported = tmp / "classes", tmp / "unsupported"
    classes.mkdir(parents=True)
    unsupported.mkdir()
    pkg = BRIDGE_SRC / "flinkspec" / "bridge"
    for patch in _patches(classpath):
        res = _javac(["-cp", classpath, "-d", str(classes), *map(str, sorted(patch.rglob("*.java")))])
        if res.returncode != 0:
            raise FlinkUnavailable(f"the bridge's patch {patch.name} does not compile against {classpath}:\n"
                                   f"{res.stderr}")
    core = _javac(["-cp", classpath, "-d", str(classes), *[str(pkg / c) for c in CORE]])
    if core.returncode != 0:
        raise FlinkUnavailable(f"the bridge core does not compile against {classpath}:\n{core.stderr}")
    # one javac for every area (a JVM start each is most of a build); the areas with an error against this jar are
    # recorded and left out, and the others compiled again (an area that uses one left out then fails in its turn)
    remaining = [src for src in sorted(pkg.glob("*.java")) if src.name not in CORE]
    while remaining:
        res = _javac(["-Xmaxerrs", "100000", "-cp", f"{classes}{os.pathsep}{classpath}", "-d", str(classes),
                      *map(str, remaining)])
        if res.returncode == 0:
            break
        failed = {Path(m) for m in re.findall(r"^(.+?\.java):\d+: error:", res.stderr, re.M)}
        out_now = [src for src in remaining if src in failed] or remaining  # an error of no area's: all of them
        for src in out_now:
            (unsupported / (src.stem + ".txt")).write_text(res.stderr)
        remaining = [src for src in remaining if src not in out_now]
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    skipped = sorted(p.stem for p in (out / "unsupported").glob("*.txt"))
    progress(f"bridge compiled in {time.monotonic() - started:.0f} s"
             + (f" (areas that do not compile against this jar: {', '.join(skipped)})" if skipped else ""))


def bridge_command(version: str) -> list[str]:
    """The argv of a JSON-lines process answering as real Flink ``version``; builds on first use."""
    patch = resolve_patch(version)
    jar = dist_jar(patch)
    return _bridge_argv(jar, lib_jars(patch), jar.parent, patch)


def jar_sha256(jar: Path) -> str:
    """The sha256 of a file's bytes (hex): what names a fork's bridge build."""
    h = hashlib.sha256()
    with open(jar, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fork_bridge_command(jar: Path, base: str) -> list[str]:
    """The bridge argv for a user's own flink-dist ``jar`` of Flink ``base`` (``X.Y``).

    The build is cached under ``fork/<sha256[:16]>`` (the jar's content, so an edited jar is rebuilt
    and Apache's folders are never touched); nothing is ever downloaded for it.
    """
    if not jar.is_file():
        raise FlinkUnavailable(f"{jar}: no such jar")
    home = cache_dir() / "fork" / jar_sha256(jar)[:16]
    home.mkdir(parents=True, exist_ok=True)
    (home / "source.txt").write_text(f"{jar.resolve()}\n")
    jar = jar.resolve()
    return _bridge_argv(jar, fork_lib_jars(jar), home, base)


def _bridge_argv(jar: Path, lib: list[Path], home: Path, version: str) -> list[str]:
    out = home / f"bridge-{_sources_hash(lib)}"
    classpath = os.pathsep.join(map(str, [jar, *lib]))
    if not (out / "classes").exists():
        with _locked(home / ".lock"):
            if not (out / "classes").exists():
                _build(classpath, out)
    java = shutil.which("java")
    if java is None:
        raise FlinkUnavailable("java not found: real Flink needs a JDK (17) on PATH")
    # --add-opens as Flink's own start scripts give a JDK 17 JVM (env.java.opts): the TaskManager's fatal error
    # handler rewrites a Throwable's detailMessage by reflection (classloading.lifecycle, CLL-8)
    return [java, *JVM_FLAGS, "--add-opens=java.base/java.lang=ALL-UNNAMED",
            f"-Dflinkspec.unsupported={out / 'unsupported'}", f"-Dflinkspec.areas={bridge_areas()}",
            "-cp", f"{out / 'classes'}{os.pathsep}{classpath}", "flinkspec.bridge.Main", version]


def bridge_areas() -> str:
    """Which bridge class answers which area, as ``Main`` reads it (``area=Class,...``): each area's
    declaration names its class (:attr:`properties.area.Area.bridge`)."""
    from properties.areas import AREAS

    return ",".join(f"{name}={area.bridge}" for name, area in AREAS.items() if area.bridge)


def dir_size(path: Path) -> int:
    """Bytes of the files under ``path`` (or of ``path`` itself)."""
    if path.is_file():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


@attrs.frozen
class CachedBuild:
    """One folder of the cache that runs: an Apache release or a fork's jar, and its bridge builds."""

    name: str  # X.Y.Z, or fork:<sha256[:16]>
    home: Path
    size: int  # bytes on disk, everything under home
    jar: Path | None  # the flink-dist jar (a fork's lives where the user keeps it)
    bridge_built: bool  # built from the current bridge sources
    stale: tuple[Path, ...]  # builds of older bridge sources, and unfinished .part leftovers


def _builds(home: Path, lib: Sequence[Path]) -> tuple[bool, tuple[Path, ...]]:
    current = f"bridge-{_sources_hash(lib)}"
    built = (home / current / "classes").exists()
    stale = tuple(sorted(d for d in home.iterdir() if d.is_dir() and (
        (d.name.startswith("bridge-") and d.name != current) or d.name.endswith(".part"))))
    return built, stale


def cached_builds() -> list[CachedBuild]:
    """Every cached Apache release (by version) and fork build (by the jar's sha256), with sizes."""
    out = []
    for home in sorted((cache_dir() / "flink").glob("*"), key=lambda p: _version_key(p.name)):
        if home.is_dir():
            jar = home / "flink-dist.jar"
            built, stale = _builds(home, sorted((home / "lib").glob("*.jar")))
            out.append(CachedBuild(home.name, home, dir_size(home), jar if jar.exists() else None, built, stale))
    for home in sorted((cache_dir() / "fork").glob("*")):
        if home.is_dir():
            src = home / "source.txt"
            fork_jar = Path(src.read_text().strip()) if src.exists() else None
            built, stale = _builds(home, fork_lib_jars(fork_jar) if fork_jar else ())
            out.append(CachedBuild(f"fork:{home.name}", home, dir_size(home), fork_jar, built, stale))
    return out


def _version_key(name: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else -1 for p in name.split("."))


def downloads() -> list[Path]:
    """Archives left in ``dl/`` (a download interrupted before extraction, or an older cache's)."""
    dl = cache_dir() / "dl"
    return sorted(p for p in dl.iterdir() if p.is_file()) if dl.is_dir() else []


def prune() -> list[tuple[Path, int]]:
    """Delete downloaded archives, stale bridge builds and builds of fork jars that are gone.

    Returns what was removed, with its size in bytes.
    """
    removed = []
    for archive in downloads():
        size = archive.stat().st_size
        archive.unlink(missing_ok=True)
        removed.append((archive, size))
    for build in cached_builds():
        if build.name.startswith("fork:") and (build.jar is None or not build.jar.is_file()):
            removed.append((build.home, build.size))
            shutil.rmtree(build.home, ignore_errors=True)
            continue
        if not build.stale:
            continue
        with _locked(build.home / ".lock"):
            for path in build.stale:
                size = dir_size(path)
                shutil.rmtree(path, ignore_errors=True)
                removed.append((path, size))
    return removed


def fetch(versions: list[str]) -> None:
    """Download, extract and build each version, saying ``n of m`` on stderr."""
    for i, ver in enumerate(versions, 1):
        patch = resolve_patch(ver)
        progress(f"[{i} of {len(versions)}] Flink {patch}")
        bridge_command(patch)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2 or args[0] not in ("bridge", "fetch"):
        print("usage: python -m flinkspec.impls.flinkjars bridge|fetch VERSIONS (X.Y, X.Y.Z, X.Y.*, all, all-patches)",
              file=sys.stderr)
        return 2
    try:
        versions = [r.release for r in select_versions(args[1])]
        if args[0] == "fetch":
            fetch(versions)
        for ver in versions:
            cmd = bridge_command(ver)
            print(shlex.join(cmd) if args[0] == "bridge" else f"{resolve_patch(ver)}: ready")
    except (FlinkUnavailable, ValueError) as exc:  # UnknownVersion is a ValueError
        print(f"flinkspec: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
