"""flinkspec's executable reference for Flink's runtime rules.

``answer(request) -> response`` is the protocol dispatcher (docs/protocol/v1.md): the oracle is an
implementation under test like any other. Each area is a pure function
``(input, version) -> output dict | Rejected`` that its module lists in ``ENTRIES``; :data:`AREAS`
holds them all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from oracle import alignment, classloading, coordinator, memory, recovery, watermark
from oracle.explain import INPUT, Explanation, at, tracing
from oracle.protocol import AreaFn, BadRequest, Rejected
from oracle.versions import LATEST, SUPPORTED, FlinkVersion, UnknownVersion, parse_version

# every area's entry point, by its protocol name
AREAS: dict[str, AreaFn] = {
    **memory.ENTRIES, **watermark.ENTRIES, **classloading.ENTRIES, **alignment.ENTRIES, **coordinator.ENTRIES,
    **recovery.ENTRIES}


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


__all__ = ["AREAS", "LATEST", "SUPPORTED", "AreaFn", "BadRequest", "Explanation", "FlinkVersion", "Rejected", "answer",
           "explain_answer"]
