"""A JSON-lines implementation of one area only, which says so, for the pytest plugin's tests.

usage: python tests/one_area_impl.py [AREA]     (default memory.jobmanager)

It answers the capabilities request (docs/protocol/v2.md) with every other area of the suite as
unsupported, answers requests of AREA as the oracle does, and answers anything else with a
``BadRequest`` (an implementation of one area knows no other): run without its declaration
being honoured, the suite would fail it on every other area.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import oracle
from properties.areas import AREAS

WHY = "this engine implements {area} only"


def capabilities(area: str) -> dict[str, Any]:
    """The answer to the capabilities request: every area but ``area`` unsupported, with the why."""
    others = [a for a in AREAS if a != area]
    return {"unsupported": [{"area": others, "why": WHY.format(area=area)}]}


def answer(request: dict[str, Any], area: str = "memory.jobmanager") -> dict[str, Any]:
    """One protocol answer: the capabilities, the oracle's answer in ``area``, else a BadRequest."""
    rid = request.get("id")
    if request.get("area") == "capabilities":
        return {"id": rid, "output": capabilities(area)}
    if request.get("area") == area:
        return oracle.answer(request)
    return {"id": rid, "error": {"type": "BadRequest", "message": f"unknown area {request.get('area')!r}"}}


def main(argv: list[str]) -> None:
    area = argv[1] if len(argv) > 1 else "memory.jobmanager"
    for line in sys.stdin:
        print(json.dumps(answer(json.loads(line), area)), flush=True)


if __name__ == "__main__":
    main(sys.argv)
