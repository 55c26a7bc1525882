"""Flink releases the oracle supports, and version-keyed rule tables.

Every release that PyPI's ``apache-flink-libraries`` ships is supported, patch releases included
(:data:`RELEASES`). A minor named alone (``"1.15"``) means its newest patch (``1.15.4``), the release
``--flink all`` selects for each minor (:data:`SUPPORTED`); a patch release is named in full
(``"1.15.1"``). Rules that differ between releases are data: a table maps the first release where
a value applies (``v("1.15")`` is 1.15.0, ``v("1.15.2")`` is 1.15.2) to that value, and :func:`pick`
looks a release up in it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

import attrs

T = TypeVar("T")

# Every release of apache-flink-libraries on PyPI (``pip index versions``), oldest first. Adding a
# Flink release is one entry here (then record it: see CONTRIBUTING.md).
RELEASES_ON_PYPI: tuple[str, ...] = (
    "1.13.6",
    "1.14.0", "1.14.2", "1.14.3", "1.14.4", "1.14.5", "1.14.6",
    "1.15.0", "1.15.1", "1.15.2", "1.15.3", "1.15.4",
    "1.16.0", "1.16.1", "1.16.2", "1.16.3",
    "1.17.0", "1.17.1", "1.17.2",
    "1.18.0", "1.18.1",
    "1.19.0", "1.19.1", "1.19.2", "1.19.3",
    "1.20.0", "1.20.1", "1.20.2", "1.20.3", "1.20.4", "1.20.5",
    "2.0.0", "2.0.1", "2.0.2",
    "2.1.0", "2.1.1", "2.1.2", "2.1.3",
    "2.2.0", "2.2.1",
    "2.3.0",
)


def _triple(text: str) -> tuple[int, int, int]:
    major, minor, patch = (int(p) for p in text.split("."))
    return major, minor, patch


# minor -> its newest patch on PyPI: what a minor named alone means
NEWEST_PATCH: Mapping[tuple[int, int], int] = {_triple(r)[:2]: _triple(r)[2] for r in RELEASES_ON_PYPI}


@attrs.frozen(order=True)
class FlinkVersion:
    """A Flink release ``MAJOR.MINOR.PATCH``; ordered, hashable.

    Printed as its minor (``"1.15"``) when it is that minor's newest patch, the release a minor
    named alone means, else in full (``"1.15.1"``): the name the protocol, reports and replay lines
    use, so a version-1 implementation, which knows minors only, is sent what it knows."""

    major: int
    minor: int
    patch: int = 0

    def __str__(self) -> str:
        return self.line if self.is_newest_patch else self.release

    @property
    def line(self) -> str:
        """``"1.15"``: the minor release line."""
        return f"{self.major}.{self.minor}"

    @property
    def release(self) -> str:
        """``"1.15.4"``: the release in full."""
        return f"{self.major}.{self.minor}.{self.patch}"

    @property
    def is_newest_patch(self) -> bool:
        return NEWEST_PATCH.get((self.major, self.minor)) == self.patch


RELEASES: tuple[FlinkVersion, ...] = tuple(FlinkVersion(*_triple(r)) for r in RELEASES_ON_PYPI)
SUPPORTED: tuple[FlinkVersion, ...] = tuple(r for r in RELEASES if r.is_newest_patch)
LATEST: FlinkVersion = SUPPORTED[-1]


def release_before(version: FlinkVersion) -> FlinkVersion | None:
    """The newest release on PyPI older than ``version`` (None before the first)."""
    return max((r for r in RELEASES if r < version), default=None)


def first_release(since: FlinkVersion) -> FlinkVersion | None:
    """The oldest release on PyPI from ``since`` on (``v("1.13")`` -> 1.13.6; None after the last)."""
    return min((r for r in RELEASES if r >= since), default=None)


class UnknownVersion(ValueError):
    """A version string that names no supported Flink release."""

    def __init__(self, text: object) -> None:
        super().__init__(
            f"unknown Flink version {text!r}: give a minor ("
            + ", ".join(str(v) for v in SUPPORTED)
            + ", each meaning its newest patch) or a patch release on PyPI ("
            + ", ".join(r.release for r in RELEASES if not r.is_newest_patch)
            + ")"
        )
        self.text = text


def parse_version(text: object) -> FlinkVersion:
    """``"1.15"`` -> 1.15.4 (the newest patch), ``"1.15.1"`` -> 1.15.1; anything else raises UnknownVersion."""
    if not isinstance(text, str):
        raise UnknownVersion(text)
    parts = text.strip().split(".")
    if len(parts) not in (2, 3) or not all(p.isdigit() and p.isascii() and p for p in parts):
        raise UnknownVersion(text)
    line = (int(parts[0]), int(parts[1]))
    if line not in NEWEST_PATCH:
        raise UnknownVersion(text)
    version = FlinkVersion(*line, int(parts[2]) if len(parts) == 3 else NEWEST_PATCH[line])
    if version not in RELEASES:
        raise UnknownVersion(text)
    return version


SELECT_HELP = ("X.Y (its newest patch), X.Y.Z, X.Y.* (every patch of X.Y), all (the newest patch of every "
               "minor) or all-patches (every release), comma-separated")


def select_versions(text: str) -> list[FlinkVersion]:
    """The releases a ``--flink`` value names, in order and without repeats.

    ``all``: the newest patch of every minor; ``all-patches``: every release; ``1.15.*``: every
    patch of 1.15; else comma-separated versions (``1.15``, ``1.15.1``). Raises UnknownVersion, or
    ValueError when the value names nothing."""
    chosen: list[FlinkVersion] = []
    for item in (t.strip() for t in text.split(",")):
        if not item:
            continue
        if item == "all":
            chosen.extend(SUPPORTED)
        elif item == "all-patches":
            chosen.extend(RELEASES)
        elif item.endswith(".*"):
            line = parse_version(item[:-2])
            if item[:-2].count(".") != 1:
                raise UnknownVersion(item)
            chosen.extend(r for r in RELEASES if (r.major, r.minor) == (line.major, line.minor))
        else:
            chosen.append(parse_version(item))
    if not chosen:
        raise ValueError("names no version; give X.Y[.Z][,...], X.Y.*, all or all-patches")
    return list(dict.fromkeys(chosen))


def v(text: str) -> FlinkVersion:
    """A release in a rule table: ``"1.15"`` is 1.15.0 (the first release of that minor, whether or
    not PyPI ships it), ``"1.15.2"`` is 1.15.2. For the release a user names, see :func:`parse_version`."""
    parts = [int(p) for p in text.split(".")]
    return FlinkVersion(parts[0], parts[1], parts[2] if len(parts) == 3 else 0)


@attrs.frozen
class Releases:
    """The releases from ``since`` up to, not including, ``until`` (None: to the newest), e.g. the
    releases where real Flink breaks a documented rule: ``Releases(v("1.13"), v("2.2"))``."""

    since: FlinkVersion
    until: FlinkVersion | None = None

    def __contains__(self, version: object) -> bool:
        return (isinstance(version, FlinkVersion) and self.since <= version
                and (self.until is None or version < self.until))

    @property
    def members(self) -> tuple[FlinkVersion, ...]:
        """The releases on PyPI in the range, oldest first."""
        return tuple(r for r in RELEASES if r in self)

    def __str__(self) -> str:
        members = self.members
        if not members:
            return "no release"
        if members == RELEASES:
            return "every release"
        first, last = members[0].release, members[-1].release
        return first if first == last else f"{first} to {last}"


def pick(table: Mapping[FlinkVersion, T], version: FlinkVersion) -> T:
    """The value of the newest table entry whose key is <= version (tables map 'since' -> value)."""
    best: FlinkVersion | None = None
    for since in table:
        if since <= version and (best is None or since > best):
            best = since
    if best is None:
        raise KeyError(f"no rule for Flink {version} in table starting at {min(table)}")
    return table[best]
