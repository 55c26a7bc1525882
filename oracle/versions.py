"""Flink versions the oracle supports, and version-keyed rule tables.

Every minor release that PyPI's ``apache-flink-libraries`` ships is supported. Rules that differ
between versions are data: a :class:`Since` table maps the first version where a value applies to
that value, and :func:`pick` looks a version up in it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

import attrs

T = TypeVar("T")


@attrs.frozen(order=True)
class FlinkVersion:
    """A Flink ``MAJOR.MINOR`` version; ordered, hashable, printed as ``"1.13"``."""

    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


class UnknownVersion(ValueError):
    """A version string that names no supported Flink minor release."""

    def __init__(self, text: object) -> None:
        super().__init__(
            f"unknown Flink version {text!r}: supported are "
            + ", ".join(str(v) for v in SUPPORTED)
            + " (MAJOR.MINOR, optionally .PATCH)"
        )
        self.text = text


# minor -> the patch release whose jar the real-Flink bridge uses by default (newest on PyPI)
DEFAULT_PATCH: Mapping[str, str] = {
    "1.13": "1.13.6",
    "1.14": "1.14.6",
    "1.15": "1.15.4",
    "1.16": "1.16.3",
    "1.17": "1.17.2",
    "1.18": "1.18.1",
    "1.19": "1.19.3",
    "1.20": "1.20.5",
    "2.0": "2.0.2",
    "2.1": "2.1.3",
    "2.2": "2.2.1",
    "2.3": "2.3.0",
}

SUPPORTED: tuple[FlinkVersion, ...] = tuple(
    FlinkVersion(int(k.split(".")[0]), int(k.split(".")[1])) for k in DEFAULT_PATCH
)
LATEST: FlinkVersion = SUPPORTED[-1]


def parse_version(text: object) -> FlinkVersion:
    """``"1.13"`` or ``"1.13.6"`` -> FlinkVersion(1, 13); anything else raises UnknownVersion."""
    if not isinstance(text, str):
        raise UnknownVersion(text)
    parts = text.strip().split(".")
    if len(parts) not in (2, 3) or not all(p.isdigit() and p.isascii() for p in parts):
        raise UnknownVersion(text)
    v = FlinkVersion(int(parts[0]), int(parts[1]))
    if v not in SUPPORTED:
        raise UnknownVersion(text)
    return v


def v(text: str) -> FlinkVersion:
    """Shorthand for version literals in rule tables."""
    return parse_version(text)


def pick(table: Mapping[FlinkVersion, T], version: FlinkVersion) -> T:
    """The value of the newest table entry whose key is <= version (tables map 'since' -> value)."""
    best: FlinkVersion | None = None
    for since in table:
        if since <= version and (best is None or since > best):
            best = since
    if best is None:
        raise KeyError(f"no rule for Flink {version} in table starting at {min(table)}")
    return table[best]
