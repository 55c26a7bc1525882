"""An implementation with five planted, independent bugs of different kinds, each a realistic
mistake of another engine, for the test that ``flinkspec check`` reports exactly five divergences.

Run it as ``cmd:python tests/planted_bugs.py`` (JSON lines) or ``python:tests.planted_bugs:answer``.
Everything it does not get wrong it answers as the oracle (real Flink) does:

1. memory.jobmanager: ignores ``jobmanager.memory.enable-jvm-direct-memory-limit`` (never sets
   -XX:MaxDirectMemorySize): a value left out;
2. watermark.valve: never forwards an IDLE status downstream: an emission missing;
3. checkpoint.coordinator: keeps one completed checkpoint fewer than ``retained`` asks (at least
   one): an off-by-one in a list;
4. classloading.resolve: refuses any request that sets additional parent-first patterns with a
   BadRequest ("not supported"): a valid request refused;
5. watermark.timers: ignores deletions (a deleted timer still fires): an event kind dropped.
"""

from __future__ import annotations

import copy
import json
import sys
from typing import Any

from oracle import answer as flink

PATTERNS = "classloader.parent-first-patterns.additional"


def _direct_limit_ignored(req: dict[str, Any], resp: dict[str, Any]) -> dict[str, Any]:
    out = resp.get("output")
    if isinstance(out, dict):
        out = {**out, "jvm_args": {k: v for k, v in out["jvm_args"].items() if k != "MaxDirectMemorySize"}}
        return {**resp, "output": out}
    return resp


def _idle_swallowed(req: dict[str, Any], resp: dict[str, Any]) -> dict[str, Any]:
    out = resp.get("output")
    if isinstance(out, dict):
        emitted = [[e for e in step if e != {"status": "IDLE"}] for step in out["emitted"]]
        return {**resp, "output": {**out, "emitted": emitted}}
    return resp


def _one_retained_fewer(req: dict[str, Any]) -> dict[str, Any]:
    config = req["input"].get("config", {})
    retained = config.get("retained", 1)
    if isinstance(retained, int) and not isinstance(retained, bool) and retained > 1:
        req = copy.deepcopy(req)
        req["input"]["config"]["retained"] = retained - 1
    return flink(req)


def _deletions_ignored(req: dict[str, Any]) -> dict[str, Any]:
    events = req["input"].get("events")
    if not isinstance(events, list):
        return flink(req)
    deleted = [i for i, e in enumerate(events) if isinstance(e, dict) and "delete" in e]
    resp = flink({**req, "input": {**req["input"], "events": [e for i, e in enumerate(events) if i not in deleted]}})
    if "error" in resp:
        return flink(req)
    fired = list(resp["output"]["fired"])
    for i in deleted:  # a deletion is answered, and does nothing
        fired.insert(i, [])
    return {**resp, "output": {**resp["output"], "fired": fired}}


def answer(req: dict[str, Any]) -> dict[str, Any]:
    area, inp = req.get("area"), req.get("input")
    if area == "checkpoint.coordinator" and isinstance(inp, dict) and isinstance(inp.get("config", {}), dict):
        return _one_retained_fewer(req)
    resp = flink(req)
    if "error" in resp and resp["error"].get("type") == "BadRequest":
        return resp
    if area == "memory.jobmanager":
        return _direct_limit_ignored(req, resp)
    if area == "watermark.valve":
        return _idle_swallowed(req, resp)
    if area == "classloading.resolve" and PATTERNS in inp.get("config", {}):
        return {"id": req.get("id"), "error": {"type": "BadRequest", "message": f"{PATTERNS} is not supported"}}
    if area == "watermark.timers":
        return _deletions_ignored(req)
    return resp


def main() -> None:
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(answer(json.loads(line))), flush=True)


if __name__ == "__main__":
    main()
