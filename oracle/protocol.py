"""The conformance protocol's envelope (docs/protocol/v1.md), as values and as types.

An oracle rule returns either its result value or a :class:`Rejected` (a configuration Flink
itself rejects). A request of the wrong shape raises :class:`BadRequest`; a bug in the oracle is
any other exception and is never caught here.

The envelope's shapes are :class:`Request` and :class:`Response` (JSON objects, so ``TypedDict``s:
types for mypy, plain dicts at run time); each area's input and output are typed in the oracle
module that reads and builds them (``oracle.watermark.ValveOutput``, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypedDict

import attrs

if TYPE_CHECKING:
    from oracle.versions import FlinkVersion

# An error's ``type``: a verdict (docs/protocol/v1.md: Flink rejects the input, or the request is malformed) ...
Verdict = Literal["InvalidConfiguration", "BadRequest"]
# ... or the real-Flink bridge failed for a reason that is not Flink's verdict (docs/protocol/v2.md, "Errors"):
# the suite treats it, as any other type, as a broken implementation.
ErrorType = Verdict | Literal["BridgeError"]


class InvalidConfigurationError(TypedDict):
    """Flink rejects the input: ``exception`` is the simple name of what it throws, ``message`` its message."""

    type: Literal["InvalidConfiguration"]
    exception: str
    message: str


class BadRequestError(TypedDict):
    """The request is malformed: an unknown area or version, an input of the wrong shape."""

    type: Literal["BadRequest"]
    message: str


class BridgeError(TypedDict):
    """Driving real Flink failed (``flinkspec/impls/bridge``): no verdict, a broken implementation."""

    type: Literal["BridgeError"]
    exception: str
    message: str


# an error that is a verdict (what the oracle answers), and any error the protocol names (an implementation that
# answers another type is broken: flinkspec/impls validate_response)
VerdictError = InvalidConfigurationError | BadRequestError
ProtocolError = VerdictError | BridgeError


class Request(TypedDict):
    """A protocol request: ``{"id": 7, "area": "watermark.valve", "flink": "2.3", "input": {...}}``.

    ``id`` is any JSON value, echoed in the response (the suite numbers its requests); ``flink`` absent
    means the newest supported release; ``input`` is the area's input (``oracle.watermark.ValveInput``, ...)."""

    id: NotRequired[Any]
    area: str
    flink: NotRequired[str]
    input: dict[str, Any]


class Response(TypedDict):
    """A protocol response: the request's ``id``, then ``output`` (the area's output: Any here, since
    which one depends on the request's area) or ``error``, never both."""

    id: Any
    output: NotRequired[Any]
    error: NotRequired[ProtocolError]


@attrs.frozen
class Rejected:
    """Flink rejects the input: ``exception`` is the simple name of what Flink throws."""

    exception: str
    message: str

    def to_error(self) -> InvalidConfigurationError:
        return {"type": "InvalidConfiguration", "exception": self.exception, "message": self.message}


class BadRequest(ValueError):
    """The request itself is malformed (unknown area or version, wrong input shape)."""

    def to_error(self) -> BadRequestError:
        return {"type": "BadRequest", "message": str(self)}


NOT_MODELLED = "the oracle does not model"


class NotModelled(BadRequest):
    """An input Flink may well accept that the oracle does not model (a YAML value outside its subset, a class
    it cannot load): refused as a BadRequest whose message says so, ``<where>: the oracle does not model
    <what>``. Such a refusal says nothing about Flink, so no comparison counts it as a difference."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__(f"{where}: {NOT_MODELLED} {what}")


def not_modelled(error: Mapping[str, Any] | None) -> bool:
    """Whether an answer's error is the oracle's refusal of an input it does not model (:class:`NotModelled`)."""
    return error is not None and error.get("type") == "BadRequest" and NOT_MODELLED in str(error.get("message", ""))


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


# an area's entry point: ``(input, version) -> output | Rejected`` (each area module's ``ENTRIES``); the output
# is the area's TypedDict (``oracle.watermark.ValveOutput``, ...): a Mapping, but not a dict type
AreaFn = Callable[[Mapping[str, Any], "FlinkVersion"], "Mapping[str, object] | Rejected"]
