"""Flink's ``org.apache.flink.core.fs.Path`` over the part of ``java.net.URI`` it uses (the same in 1.13-2.3),
for the path values a user configures: parsing, ``toString``, ``getParent`` and a child path.

``new Path(String)``: no trimming; an empty string is refused; a leading Windows drive (``C:``) gets a slash
before it; the text up to the first ``:`` before any ``/`` is the scheme, a following ``//`` (with more
after it) opens the authority, the rest is the path. The path's backslashes become slashes, runs of
slashes one slash, a trailing slash goes (not from ``/`` or a Windows root ``/C:/``); then
``new URI(scheme, authority, path, null, null).normalize()`` must succeed (a scheme of URI syntax, and
with a scheme a path that is empty or absolute) and drops ``.`` segments and ``x/..`` pairs, keeping a
trailing slash where a removed segment stood. The modelled values are built from letters, digits, the
URI characters that need no escaping (``-._~!*'()@&=+$,;:``), spaces, slashes and backslashes; anything
else raises :class:`UnmodelledPath`.
"""

from __future__ import annotations

import re

import attrs

_SAFE = re.compile(r"[A-Za-z0-9\-._~!*'()@&=+$,;:/\\ ]")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")
_WINDOWS_ROOT = re.compile(r"/[A-Za-z]+:/")


class InvalidPath(ValueError):
    """``new Path(...)`` throws (an IllegalArgumentException, maybe wrapping a URISyntaxException)."""


class UnmodelledPath(ValueError):
    """A path value with characters the model leaves out."""


@attrs.frozen
class FlinkPath:
    """A parsed Flink path: its URI's scheme, (decoded, non-empty) authority and decoded path."""

    scheme: str | None
    authority: str | None
    path: str

    def __str__(self) -> str:
        """``Path.toString()``."""
        path = self.path
        if path.startswith("/") and _windows_drive(path, True) and self.scheme is None and self.authority is None:
            path = path[1:]
        return (f"{self.scheme}:" if self.scheme is not None else "") + (
            f"//{self.authority}" if self.authority is not None else "") + path

    def uri_string(self) -> str:
        """``toUri().toString()``: as ``toString`` (no Windows-drive special case), with a space and, in the
        authority, a backslash percent-escaped as ``new URI(scheme, authority, path, null, null)`` quotes them."""
        authority = None if self.authority is None else self.authority.replace(" ", "%20").replace("\\", "%5C")
        return (f"{self.scheme}:" if self.scheme is not None else "") + (
            f"//{authority}" if authority is not None else "") + self.path.replace(" ", "%20")

    def is_absolute(self) -> bool:
        """``Path.isAbsolute()``: a slash first, after a Windows drive if there is one."""
        return self.path.startswith("/", 3 if _windows_drive(self.path, True) else 0)

    def parent(self) -> FlinkPath | None:
        """``Path.getParent()``: None at the root or for an empty path."""
        path = self.path
        last = path.rfind("/")
        start = 3 if _windows_drive(path, True) else 0
        if len(path) == start or (last == start and len(path) == start + 1):
            return None
        parent = "." if last == -1 else path[:start + 1 if last == start else last]
        if not parent:  # new Path(scheme, authority, ""): checkPathArg
            raise InvalidPath("Can not create a Path from an empty string")
        return _initialize(self.scheme, self.authority, parent)

    def child(self, name: str) -> FlinkPath:
        """``new Path(this, name)`` for a relative ``name`` (URI resolution against this path plus a slash)."""
        base = self.path if self.path in ("/", "") else self.path + "/"
        child = parse(name)
        merged = base[: base.rfind("/") + 1] + child.path if base.rfind("/") >= 0 else child.path
        return _initialize(self.scheme, self.authority, _normalize(merged))


def _windows_drive(path: str, slashed: bool) -> bool:
    start = 1 if slashed else 0
    return (len(path) >= start + 2 and (not slashed or path[0] == "/") and path[start + 1] == ":"
            and ("A" <= path[start] <= "Z" or "a" <= path[start] <= "z"))


def _modelled(ch: str) -> bool:
    return bool(_SAFE.fullmatch(ch)) or (0x7F < ord(ch) <= 0xFFFF and ch.isalpha())


def parse(text: str) -> FlinkPath:
    """``new Path(text)``; raises :class:`InvalidPath` where Flink throws."""
    bad = next((c for c in text if not _modelled(c)), None)
    if bad is not None:
        raise UnmodelledPath(f"the character {bad!r}")
    if not text:
        raise InvalidPath("Can not create a Path from an empty string")
    if _windows_drive(text, False):
        text = "/" + text
    scheme = authority = None
    start = 0
    colon, slash = text.find(":"), text.find("/")
    if colon != -1 and (slash == -1 or colon < slash):
        scheme, start = text[:colon], colon + 1
    if text.startswith("//", start) and len(text) - start > 2:
        next_slash = text.find("/", start + 2)
        end = next_slash if next_slash > 0 else len(text)
        authority, start = text[start + 2: end], end
    return _initialize(scheme, authority, text[start:])


def _initialize(scheme: str | None, authority: str | None, path: str) -> FlinkPath:
    """``Path.initialize``: ``new URI(scheme, authority, normalizePath(path), null, null).normalize()``."""
    path = re.sub("/+", "/", path.replace("\\", "/"))
    if path.endswith("/") and path != "/" and not _WINDOWS_ROOT.fullmatch(path):
        path = path[:-1]
    if scheme is not None:
        if not _SCHEME.fullmatch(scheme):
            raise InvalidPath(f"Illegal character in scheme name: {scheme!r}")
        if path and not path.startswith("/"):
            raise InvalidPath("Relative path in absolute URI")
        if not path and authority is None:
            raise InvalidPath("Expected scheme-specific part")
    return FlinkPath(scheme, authority or None, _normalize(path))


def _normalize(path: str) -> str:
    """``URI.normalize`` of a path: runs of slashes collapse, ``.`` segments go, a segment and the ``..``
    after it go; a leading ``..`` stays; a slash stays after each kept segment that had one."""
    if not path:
        return path
    absolute = path.startswith("/")
    raw = [s for s in path.split("/") if s]
    trailing = [True] * len(raw)
    if not path.endswith("/") and raw:
        trailing[-1] = False
    segs: list[tuple[str, bool] | None] = list(zip(raw, trailing, strict=True))
    for i, seg in enumerate(segs):
        if seg is None:
            continue
        if seg[0] == ".":
            segs[i] = None
        elif seg[0] == "..":
            j = next((k for k in range(i - 1, -1, -1) if segs[k] is not None), None)
            if j is not None and segs[j] is not None and segs[j][0] != "..":  # type: ignore[index]
                segs[i] = segs[j] = None
    out = "/" if absolute else ""
    for seg in segs:
        if seg is not None:
            out += seg[0] + ("/" if seg[1] else "")
    return out  # (a relative result is only ever refused for its missing scheme: no leading "./" modelled)
