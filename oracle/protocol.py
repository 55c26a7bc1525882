"""The conformance protocol's envelope (docs/protocol/v1.md), as values.

An oracle rule returns either its result value or a :class:`Rejected` (a configuration Flink
itself rejects). A request of the wrong shape raises :class:`BadRequest`; a bug in the oracle is
any other exception and is never caught here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from oracle.versions import FlinkVersion


@attrs.frozen
class Rejected:
    """Flink rejects the input: ``exception`` is the simple name of what Flink throws."""

    exception: str
    message: str

    def to_error(self) -> dict[str, str]:
        return {"type": "InvalidConfiguration", "exception": self.exception, "message": self.message}


class BadRequest(ValueError):
    """The request itself is malformed (unknown area or version, wrong input shape)."""

    def to_error(self) -> dict[str, str]:
        return {"type": "BadRequest", "message": str(self)}


def field(obj: Mapping[str, Any], name: str, kind: type | tuple[type, ...], where: str) -> Any:
    """``obj[name]`` checked to be of ``kind``; a clear BadRequest naming the field otherwise."""
    if not isinstance(obj, Mapping):
        raise BadRequest(f"{where} must be an object, got {type(obj).__name__}")
    if name not in obj:
        raise BadRequest(f"{where}.{name} is missing")
    value = obj[name]
    if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise BadRequest(f"{where}.{name} must be {_kind_name(kind)}, got a boolean")
    if not isinstance(value, kind):
        raise BadRequest(f"{where}.{name} must be {_kind_name(kind)}, got {type(value).__name__}")
    return value


def string_map(obj: Mapping[str, Any], name: str, where: str, *, default: bool = True) -> dict[str, str]:
    """A flat ``{key: string}`` object (Flink configuration as a user writes it)."""
    if default and name not in obj:
        return {}
    raw = field(obj, name, dict, where)
    out: dict[str, str] = {}
    for k, val in raw.items():
        if not isinstance(val, str):
            raise BadRequest(f"{where}.{name}[{k!r}] must be a string, got {type(val).__name__}")
        out[k] = val
    return out


JAVA_LONG_MIN = -(2**63)
JAVA_LONG_MAX = 2**63 - 1


def java_long(obj: Mapping[str, Any], name: str, where: str) -> int:
    """An integer field that must fit a Java ``long``."""
    value: int = field(obj, name, int, where)
    if not JAVA_LONG_MIN <= value <= JAVA_LONG_MAX:
        raise BadRequest(f"{where}.{name} = {value} does not fit a signed 64-bit long")
    return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = {dict: "an object", list: "an array", str: "a string", int: "an integer", bool: "a boolean"}
    return " or ".join(names.get(k, k.__name__) for k in kinds)


# an area's entry point: ``(input, version) -> output dict | Rejected`` (each area module's ``ENTRIES``)
AreaFn = Callable[[Mapping[str, Any], "FlinkVersion"], "dict[str, Any] | Rejected"]
