"""A strict protocol-version-1 implementation with real Flink behind it, for the protocol-version tests.

usage: python tests/v1_impl.py [--behind IMPL]     (IMPL: an ``--impl`` value, default ``flink``)

It speaks docs/protocol/v1.md exactly as first written and nothing more, the way an implementation
written to that page would: the capabilities request, every area docs/protocol/v1.md does not list and
every request using a field, config key or event kind it does not define get a ``BadRequest``
(it cannot know them); everything else goes to ``IMPL`` (real Flink through the bridge, per
request version), whose answer comes back with only what version 1 defines in it (no
``was_pending`` step key, no ``fail`` trace entry).

:func:`v1_problem` is the validator it uses; tests/test_protocol_versions.py holds the suite's
requests to it after :meth:`flinkspec.impls.capabilities.Capabilities.fit` (protocol 1, nothing declared).
It is written from docs/protocol/v1.md alone, not from :mod:`flinkspec.impls.features`, so that the two check
each other.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PREFIX = "protocol version 1 does not define "

# ---- the input shapes of docs/protocol/v1.md (version 1) ------------------------------------------------

CLASSLOADING_KEYS = frozenset({"classloader.resolve-order", "classloader.parent-first-patterns.additional"})
CLASSLOADING_LISTS = ("user_classes", "parent_classes", "lookups", "user_resources", "parent_resources",
                      "resource_lookups")
COORDINATOR_CONFIG = ("max_concurrent", "min_pause_ms", "timeout_ms", "retained", "tolerable_failures", "unaligned")
TRIGGERS = ("periodic", "checkpoint", "savepoint", "sync_savepoint")
# a coordinator event: "at" plus exactly one of these field sets
COORDINATOR_EVENTS = ({"trigger"}, {"ack", "checkpoint"}, {"decline", "checkpoint", "reason"}, {"fail"},
                      {"restart"}, {"tick"})
ALIGNMENT_EVENTS = ({"channel", "record"}, {"channel", "barrier"}, {"channel", "end"})
VALVE_EVENTS = ({"channel", "watermark"}, {"channel", "status"})
TIMER_EVENTS = ({"register", "key"}, {"delete", "key"}, {"watermark"})


def _is_int(value: object) -> bool:
    return type(value) is int


def _fields(inp: Mapping[str, Any], fields: set[str]) -> str | None:
    """The input has exactly ``fields``."""
    if set(inp) - fields:
        return f"the input field(s) {', '.join(sorted(set(inp) - fields))}"
    if fields - set(inp):
        return f"an input without {', '.join(sorted(fields - set(inp)))}"
    return None


def _events(inp: Mapping[str, Any], shapes: tuple[set[str], ...],
            value: Callable[[Mapping[str, Any]], str | None]) -> str | None:
    """Every event an object with one of ``shapes`` as its fields, its values as ``value`` checks."""
    events = inp.get("events")
    if not isinstance(events, list):
        return "events that are not a list"
    for i, event in enumerate(events):
        if not isinstance(event, dict) or set(event) not in shapes:
            return f"the event events[{i}] = {json.dumps(event)[:200]}"
        problem = value(event)
        if problem:
            return f"events[{i}]: {problem}"
    return None


def _memory(inp: Mapping[str, Any]) -> str | None:
    config = inp.get("config")
    if not isinstance(config, dict) or not all(isinstance(v, str) for v in config.values()):
        return "a config that is not an object of strings"
    return _fields(inp, {"config"})  # any flat Flink key: "flat Flink keys to string values"


def _valve(inp: Mapping[str, Any]) -> str | None:
    def value(e: Mapping[str, Any]) -> str | None:
        if not _is_int(e["channel"]):
            return "a channel that is not an integer"
        if "status" in e and e["status"] not in ("IDLE", "ACTIVE"):
            return f"the status {e['status']!r}"
        return None if "status" in e or _is_int(e["watermark"]) else "a watermark that is not an integer"

    return _fields(inp, {"channels", "events"}) or _events(inp, VALVE_EVENTS, value)


def _timers(inp: Mapping[str, Any]) -> str | None:
    def value(e: Mapping[str, Any]) -> str | None:
        if "key" in e and not isinstance(e["key"], str):
            return "a key that is not a string"
        return None if all(_is_int(e[k]) for k in ("register", "delete", "watermark") if k in e) else "a timestamp"

    return _fields(inp, {"events"}) or _events(inp, TIMER_EVENTS, value)


def _classloading(inp: Mapping[str, Any]) -> str | None:
    problem = _fields(inp, {"config", *CLASSLOADING_LISTS})
    if problem:
        return problem
    config = inp["config"]
    if not isinstance(config, dict) or not all(isinstance(v, str) for v in config.values()):
        return "a config that is not an object of strings"
    unknown = sorted(set(config) - CLASSLOADING_KEYS)
    if unknown:
        return f"the config key(s) {', '.join(unknown)}"
    bad = next((k for k in CLASSLOADING_LISTS
                if not isinstance(inp[k], list) or not all(isinstance(x, str) for x in inp[k])), None)
    return f"{bad} as anything but a list of strings" if bad else None


def _coordinator(inp: Mapping[str, Any]) -> str | None:
    problem = _fields(inp, {"config", "tasks", "events"})
    if problem:
        return problem
    config = inp["config"]
    if not isinstance(config, dict) or set(config) != set(COORDINATOR_CONFIG):
        return f"a config other than the six settings {', '.join(COORDINATOR_CONFIG)}: {json.dumps(config)[:200]}"
    if not isinstance(inp["tasks"], list) or not all(isinstance(t, str) for t in inp["tasks"]):
        return "tasks that are not a list of names"

    def value(e: Mapping[str, Any]) -> str | None:
        if not _is_int(e.get("at")):
            return "an event without an integer at"
        if "trigger" in e and e["trigger"] not in TRIGGERS:
            return f"the trigger kind {e['trigger']!r}"
        if "tick" in e and e["tick"] is not True:
            return "a tick other than true"
        return None

    shapes = tuple({"at", *shape} for shape in COORDINATOR_EVENTS)
    return _events(inp, shapes, value)


def _alignment(inp: Mapping[str, Any]) -> str | None:
    if inp.get("mode") not in ("exactly_once", "at_least_once"):
        return f"the mode {inp.get('mode')!r}"

    def value(e: Mapping[str, Any]) -> str | None:
        if "record" in e and not isinstance(e["record"], str):
            return "a record that is not a string"
        if "end" in e and e["end"] is not True:
            return "an end other than true"
        return None if "barrier" not in e or _is_int(e["barrier"]) else "a barrier id that is not an integer"

    return _fields(inp, {"mode", "channels", "events"}) or _events(inp, ALIGNMENT_EVENTS, value)


V1_AREAS: dict[str, Callable[[Mapping[str, Any]], str | None]] = {
    "memory.taskmanager": _memory, "memory.jobmanager": _memory, "watermark.valve": _valve,
    "watermark.timers": _timers, "classloading.resolve": _classloading,
    "checkpoint.coordinator": _coordinator, "checkpoint.alignment": _alignment,
}


def v1_problem(request: object) -> str | None:
    """What in ``request`` docs/protocol/v1.md version 1 does not define (its first such thing), or None.
    Values are not judged here (Flink itself answers a bad value): fields, config keys, event kinds."""
    if not isinstance(request, dict):
        return "a request that is not an object"
    extra = set(request) - {"id", "area", "flink", "input"}
    if extra:
        return f"the envelope field(s) {', '.join(sorted(extra))}"
    flink = request.get("flink")
    if flink is not None and (not isinstance(flink, str) or flink.count(".") != 1):
        return f"the version {flink!r} (version 1 names a Flink release MAJOR.MINOR)"
    area = request.get("area")
    if area not in V1_AREAS:
        return f"the area {area!r}"
    inp = request.get("input")
    if not isinstance(inp, dict):
        return "an input that is not an object"
    return V1_AREAS[area](inp)


# ---- the answers of version 1 -------------------------------------------------------------------

COORDINATOR_STEP_KEYS = ("triggered", "queued", "rejected", "ack", "completed", "aborted", "retained", "job_failed")
TRACE_KINDS = ("process", "snapshot", "emit_barrier", "abort")


def v1_answer(request: Mapping[str, Any], response: dict[str, Any]) -> dict[str, Any]:
    """Flink's answer with only what version 1 defines: an implementation written to it would not
    know the coordinator's ``was_pending`` nor the alignment trace's ``fail`` entry."""
    out = response.get("output")
    if not isinstance(out, dict):
        return response
    if request.get("area") == "checkpoint.coordinator" and isinstance(out.get("steps"), list):
        out = {**out, "steps": [{k: v for k, v in s.items() if k in COORDINATOR_STEP_KEYS} for s in out["steps"]]}
    elif request.get("area") == "checkpoint.alignment" and isinstance(out.get("trace"), list):
        out = {**out, "trace": [s for s in out["trace"] if set(s) <= set(TRACE_KINDS)]}
    return {**response, "output": out}


# ---- the program --------------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    """Answer JSON lines on stdin until it closes."""
    sys.path.insert(0, str(ROOT))
    from flinkspec.impls import ImplementationBroken, answer_one, open_impl

    behind = argv[argv.index("--behind") + 1] if "--behind" in argv else "flink"
    impl = None
    try:
        for line in sys.stdin:
            try:
                request = json.loads(line)
            except ValueError as exc:
                print(json.dumps({"id": None, "error": {"type": "BadRequest", "message": f"not JSON: {exc}"}}),
                      flush=True)
                continue
            rid = request.get("id") if isinstance(request, dict) else None
            problem = v1_problem(request)
            if problem is not None:
                resp: dict[str, Any] = {"id": rid, "error": {"type": "BadRequest", "message": PREFIX + problem}}
            else:
                impl = impl or open_impl(behind)
                try:
                    resp = v1_answer(request, answer_one(impl, request))
                except ImplementationBroken as exc:  # not a verdict: the suite reports a broken implementation
                    resp = {"id": rid, "error": {"type": "BridgeError", "message": str(exc)[:2000]}}
            print(json.dumps(resp), flush=True)
    finally:
        if impl is not None:
            impl.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
