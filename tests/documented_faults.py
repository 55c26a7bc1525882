"""Four faulty implementations, each one realistic mistake that a documented rule names (issue 18).

Each is a ``python:`` callable wrapping the oracle (real Flink) with one fault, everything else
answered as Flink does:

- ``late_failure``: the job fails one checkpoint failure too late (tolerable failures + 1);
- ``at_least_once_recovery``: exactly-once recovery computed as at-least-once;
- ``no_subsumption_abort``: an older pending checkpoint a newer completed one subsumes is never
  reported aborted;
- ``capital_units_rejected``: a memory size whose unit has a capital letter (``4G``, ``512MB``) is
  rejected as unreadable, with Flink's own message for an unreadable size.

    flinkspec check --impl python:tests.documented_faults:late_failure --conformance documented
"""

from __future__ import annotations

import copy
import re
from typing import Any

from oracle import answer as flink

UNLIMITED = 2147483647
_CAPITAL_UNIT = re.compile(r"^\s*[0-9]+\s*[A-Za-z]*[A-Z][A-Za-z]*\s*$")


def _input(req: dict[str, Any], area: str) -> dict[str, Any] | None:
    inp = req.get("input")
    return inp if req.get("area") == area and isinstance(inp, dict) else None


def late_failure(req: dict[str, Any]) -> dict[str, Any]:
    """Counts one failed checkpoint more than ``tolerable_failures`` before failing the job."""
    inp = _input(req, "checkpoint.coordinator")
    config = inp.get("config") if inp else None
    n = config.get("tolerable_failures") if isinstance(config, dict) else None
    if type(n) is int and 0 <= n < UNLIMITED - 1:
        req = copy.deepcopy(req)
        req["input"]["config"]["tolerable_failures"] = n + 1
    return flink(req)


def at_least_once_recovery(req: dict[str, Any]) -> dict[str, Any]:
    """Recovers an exactly-once job as if it ran at-least-once (its snapshots not aligned)."""
    inp = _input(req, "checkpoint.recovery")
    if inp is not None and inp.get("mode") == "exactly_once":
        return flink({**req, "input": {**inp, "mode": "at_least_once"}})
    return flink(req)


def no_subsumption_abort(req: dict[str, Any]) -> dict[str, Any]:
    """Drops every CHECKPOINT_SUBSUMED abort from the coordinator's steps."""
    resp = flink(req)
    out = resp.get("output")
    if req.get("area") != "checkpoint.coordinator" or not isinstance(out, dict):
        return resp
    steps = []
    for step in out["steps"]:
        aborted = {k: r for k, r in step.get("aborted", {}).items() if r != "CHECKPOINT_SUBSUMED"}
        step = {k: val for k, val in step.items() if k != "aborted"}
        steps.append({**step, "aborted": aborted} if aborted else step)
    return {**resp, "output": {**out, "steps": steps}}


def capital_units_rejected(req: dict[str, Any]) -> dict[str, Any]:
    """Reads a memory size's unit case-sensitively: ``4G`` is refused as Flink refuses ``4Gx``."""
    inp = _input(req, str(req.get("area")))
    config = inp.get("config") if inp and str(req.get("area")).startswith("memory.") else None
    if not isinstance(config, dict):
        return flink(req)
    bad = {k: f"{val}x" for k, val in config.items() if isinstance(val, str) and _CAPITAL_UNIT.match(val)}
    if not bad:
        return flink(req)
    resp = flink({**req, "input": {**inp, "config": {**config, **bad}}})
    return resp if "error" in resp else flink(req)


def capital_units_in_own_words(req: dict[str, Any]) -> dict[str, Any]:
    """As :func:`capital_units_rejected`, rejecting with a message of its own that names no option (an
    implementation's wording is its own: the documented level must not depend on it)."""
    resp = capital_units_rejected(req)
    if "error" in resp and resp != flink(req):
        return {"id": req.get("id"), "error": {"type": "InvalidConfiguration", "exception": "ConfigError",
                                               "message": "size literal not understood"}}
    return resp


FAULTS = {"late-failure": late_failure, "at-least-once-recovery": at_least_once_recovery,
          "no-subsumption-abort": no_subsumption_abort, "capital-units-rejected": capital_units_rejected,
          "capital-units-in-own-words": capital_units_in_own_words}
