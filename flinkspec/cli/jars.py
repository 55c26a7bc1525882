"""flinkspec jars: the real-Flink jar cache ($FLINKSPEC_CACHE, default ~/.cache/flinkspec).

    flinkspec jars list                 # each cached release and fork build: size, bridge built?
    flinkspec jars fetch 2.2,2.3        # download, extract and build the bridge now (or: all)
    flinkspec jars prune                # remove downloaded archives and stale bridge builds

Each Apache release keeps only what runs: its flink-dist jar (before 1.17 also lib/flink-shaded-zookeeper, the
ZooKeeper and Curator that flink-dist does not bundle) and the bridge compiled against them (the 200-330 MB PyPI
archive is deleted once they are extracted). A fork's build
(--impl flink:PATH) keeps only the bridge; the jar stays where its owner keeps it.
"""

from __future__ import annotations

import argparse
import sys

from flinkspec.errors import CliError
from flinkspec.impls.flinkjars import CachedBuild, FlinkUnavailable, cache_dir, cached_builds, downloads, fetch, prune
from oracle.versions import SELECT_HELP


def _mb(size: int) -> str:
    return f"{size / 1e6:,.0f} MB"


def _row(build: CachedBuild, width: int) -> str:
    state = "bridge built" if build.bridge_built else "bridge not built"
    if build.stale:
        state += f", {len(build.stale)} stale build(s) (flinkspec jars prune)"
    jar = ""
    if build.name.startswith("fork:"):
        gone = build.jar is None or not build.jar.is_file()
        jar = f"  (of {build.jar}{', which is gone (flinkspec jars prune)' if gone else ''})"
    return f"  {build.name:<{width}} {_mb(build.size):>9}  {state}{jar}"


def cmd_list() -> int:
    builds, archives = cached_builds(), downloads()
    print(f"{cache_dir()}:")
    width = max([len(b.name) for b in builds] + [len(a.name) + 3 for a in archives] + [10])
    for build in builds:
        print(_row(build, width))
    for archive in archives:
        size = _mb(archive.stat().st_size)
        print(f"  {'dl/' + archive.name:<{width}} {size:>9}  downloaded archive (flinkspec jars prune)")
    total = sum(b.size for b in builds) + sum(a.stat().st_size for a in archives)
    print(f"  total: {_mb(total)} in {len(builds)} build(s)" + (f" and {len(archives)} archive(s)" if archives else ""))
    return 0


def _versions(text: str) -> list[str]:
    from oracle.versions import UnknownVersion, select_versions

    try:
        return [r.release for r in select_versions(text)]
    except UnknownVersion as exc:
        raise CliError(f"fetch: {exc}") from None
    except ValueError as exc:
        raise CliError(f"fetch {exc}") from None


def cmd_jars(args: argparse.Namespace) -> int:
    if args.action == "list":
        return cmd_list()
    if args.action == "prune":
        removed = prune()
        for path, size in removed:
            print(f"removed {path} ({_mb(size)})")
        print(f"freed {_mb(sum(size for _, size in removed))}")
        return 0
    if not args.versions:
        raise CliError("fetch needs VERSION[,VERSION...] or all")
    try:
        fetch(_versions(args.versions))
    except FlinkUnavailable as exc:
        raise CliError(str(exc)) from None
    return cmd_list()


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("jars", help="list, fetch or prune the cached real-Flink jars and bridge builds",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("action", choices=["list", "fetch", "prune"],
                   help="list the cache, fetch releases into it, or prune it")
    p.add_argument("versions", nargs="?", help=f"for fetch: {SELECT_HELP}")
    p.set_defaults(fn=cmd_jars)


if __name__ == "__main__":
    sys.exit(cmd_list())
