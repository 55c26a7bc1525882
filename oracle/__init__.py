"""flinkspec's executable reference for Flink's runtime rules.

``answer(request) -> response`` is the protocol dispatcher (docs/protocol/v1.md): the oracle is an
implementation under test like any other. Each area is a pure function
``(input, version) -> output dict | Rejected`` registered in :data:`AREAS`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from oracle.explain import INPUT, Explanation, at, tracing
from oracle.protocol import BadRequest, Rejected
from oracle.versions import LATEST, SUPPORTED, FlinkVersion, UnknownVersion, parse_version

AreaFn = Callable[[Mapping[str, Any], FlinkVersion], "dict[str, Any] | Rejected"]

AREAS: dict[str, AreaFn] = {}


def area(name: str) -> Callable[[AreaFn], AreaFn]:
    """Register an area handler under its protocol name."""

    def register(fn: AreaFn) -> AreaFn:
        AREAS[name] = fn
        return fn

    return register


def answer(request: object) -> dict[str, Any]:  # any JSON value: what is no object is a BadRequest
    """Answer one protocol request exactly as Flink of the requested version would."""
    rid = request.get("id") if isinstance(request, Mapping) else None
    try:
        if not isinstance(request, Mapping):
            raise BadRequest(f"a request must be a JSON object, got {type(request).__name__}")
        name = request.get("area")
        if name not in AREAS:
            raise BadRequest(f"unknown area {name!r}; known areas: {', '.join(sorted(AREAS))}")
        try:
            version = parse_version(request["flink"]) if "flink" in request else LATEST
        except UnknownVersion as exc:
            raise BadRequest(str(exc)) from None
        payload = request.get("input")
        if not isinstance(payload, Mapping):
            raise BadRequest("input must be a JSON object")
        result = AREAS[name](payload, version)
    except BadRequest as exc:
        return {"id": rid, "error": exc.to_error()}
    if isinstance(result, Rejected):
        return {"id": rid, "error": result.to_error()}
    return {"id": rid, "output": result}


def explain_answer(request: object) -> tuple[dict[str, Any], Explanation]:
    """:func:`answer`, and which of the oracle's rules decided each part of it (:mod:`oracle.explain`)."""
    with tracing() as explained:
        at(*INPUT)  # reading the request comes first
        response = answer(request)
    return response, explained[0]


# Area modules register themselves on import.
from oracle import alignment as _alignment  # noqa: E402,F401
from oracle import classloading as _classloading  # noqa: E402,F401
from oracle import coordinator as _coordinator  # noqa: E402,F401
from oracle import memory as _memory  # noqa: E402,F401
from oracle import recovery as _recovery  # noqa: E402,F401
from oracle import watermark as _watermark  # noqa: E402,F401

__all__ = ["AREAS", "LATEST", "SUPPORTED", "BadRequest", "Explanation", "FlinkVersion", "Rejected", "answer", "area",
           "explain_answer"]
