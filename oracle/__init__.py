"""flinkspec's executable reference for Flink's runtime rules.

``answer(request) -> response`` is the protocol dispatcher (docs/protocol/v1.md): the oracle is an
implementation under test like any other. Each area is a pure function
``(input, version) -> output dict | Rejected`` that its module lists in ``ENTRIES``; :data:`AREAS`
holds them all, read from this package's modules: adding an area's oracle is adding its module
(the suite's one registry of areas, ``properties/areas.py``, checks that each declared area has
its entry here and each entry here an area).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from typing import Any

from oracle.explain import INPUT, Explanation, at, tracing
from oracle.protocol import AreaFn, BadRequest, Rejected
from oracle.versions import LATEST, SUPPORTED, FlinkVersion, UnknownVersion, parse_version


def _entries() -> dict[str, AreaFn]:
    """The ``ENTRIES`` of every module of this package (in the order of the modules' names)."""
    out: dict[str, AreaFn] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for name, entry in getattr(module, "ENTRIES", {}).items():
            if name in out:
                raise ValueError(f"oracle area {name} has two entries (the second in oracle.{info.name})")
            out[name] = entry
    return out


# every area's entry point, by its protocol name
AREAS: dict[str, AreaFn] = _entries()


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
