"""Command-line options shared by several commands, and what they name: ``--impl`` (opened),
``--capabilities`` (what it speaks), ``--flink`` (releases), ``--area`` (areas), the report's locations
(writable)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flinkspec.errors import CliError
from flinkspec.impls import Implementation, UsageError, answer_one, open_impl
from oracle.versions import SUPPORTED, FlinkVersion, UnknownVersion, parse_version, select_versions

if TYPE_CHECKING:
    from flinkspec.impls.capabilities import Capabilities

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2  # conforms (done); does not (Flink rejects); bad usage or broken
DEFAULT_REPORT = "flinkspec-report"  # where check and fanout write their report unless told


class CommaJoined(argparse.Action):
    """A comma-separated option that may also be repeated: ``--area a --area b,c`` is ``"a,b,c"``
    (a repeated option adds to the list instead of silently replacing it)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        before = getattr(namespace, self.dest, None)
        added = str(values)
        setattr(namespace, self.dest, added if before in (None, self.default) else f"{before},{added}")


def open_impl_option(spec: str, timeout: float) -> Implementation:
    """The implementation ``--impl`` names; an unusable value is a usage error (exit 2)."""
    try:
        return open_impl(spec, timeout=timeout)
    except UsageError as exc:
        raise CliError(str(exc)) from None


def ask_once(spec: str, timeout: float, request: dict[str, Any]) -> dict[str, Any]:
    """One request to the implementation ``--impl`` names, started for it and closed after. The answer
    is an output or Flink's own rejection (``InvalidConfiguration``); any other error is a CliError."""
    impl = open_impl_option(spec, timeout)
    try:
        response = answer_one(impl, request)
    finally:
        impl.close()
    err = response.get("error")
    if err is not None and err.get("type") != "InvalidConfiguration":
        raise CliError(f"{spec} could not answer: {err.get('type')}: {err.get('message')}")
    return response


def capabilities_option(args: argparse.Namespace, impl: Implementation) -> Capabilities:
    """What ``impl`` speaks: ``--capabilities FILE``'s declaration plus its answer to the capabilities request
    (its warnings printed); a bad declaration closes it and is a CliError."""
    from flinkspec.impls.capabilities import CapabilitiesError, resolve
    from properties.areas import AREAS, all_rules

    try:
        caps = resolve(args.impl, impl, args.capabilities, known_areas=AREAS, known_rules=all_rules())
    except CapabilitiesError as exc:
        impl.close()
        raise CliError(str(exc)) from None
    for warning in caps.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return caps


def versions_option(text: str | None, pinned: str | None) -> list[FlinkVersion]:
    """The releases ``--flink`` names (see :func:`oracle.versions.select_versions`); an implementation
    pinned to one release (``flink:1.15.1``) is checked at that release only."""
    if text is None:
        return [parse_version(pinned)] if pinned else list(SUPPORTED)
    try:
        chosen = select_versions(text)
    except UnknownVersion as exc:
        raise CliError(f"--flink: {exc}") from None
    except ValueError as exc:
        raise CliError(f"--flink {exc}") from None
    other = [str(v) for v in chosen if pinned and v != parse_version(pinned)]
    if other:
        raise CliError(f"--flink {','.join(other)}: the implementation is pinned to Flink {pinned}; "
                       f"use --impl flink (every version) or --impl flink:{other[0]}")
    return chosen


def areas_option(text: str | None, extra: bool = False) -> list[str]:
    """The areas ``--area`` names (``all``: every one); with ``extra``, the extra corpora too."""
    from properties.areas import AREAS, EXTRA_CORPORA

    known = [*AREAS, *(EXTRA_CORPORA if extra else ())]
    if text is None or text.strip() == "all":
        return known
    names = [a.strip() for a in text.split(",") if a.strip()]
    if not names:
        raise CliError(f"--area names no area; known: {', '.join(known)}")
    unknown = [a for a in names if a not in known]
    if unknown:
        raise CliError(f"--area: unknown area(s) {', '.join(unknown)}; known: {', '.join(known)}")
    return names


def check_writable(report_dir: Path | None, junit: Path | None) -> None:
    """Fail before any work if the report locations cannot be written (exit 2, not a traceback)."""
    try:
        if report_dir is not None:
            report_dir.mkdir(parents=True, exist_ok=True)
            (report_dir / ".write-test").write_text("")
            (report_dir / ".write-test").unlink()
        if junit is not None:
            if junit.is_dir():
                raise IsADirectoryError(f"{junit} is a directory")
            if not junit.parent.is_dir():
                raise FileNotFoundError(f"the folder {junit.parent} does not exist")
    except OSError as exc:
        raise CliError(f"cannot write the report there: {exc}") from None
