"""Delta debugging for counterexamples Hypothesis cannot shrink well (long seeded sequences).

``reduce(request, still_fails)`` removes chunks of ``input.events`` (halves, quarters ... single
events), whole channels or coordinator tasks with their events, then the names of class-loading
requests, then keys of ``input.config``, then lowers ``channels``/``inputs`` to what the events use,
keeping every change after which ``still_fails(request)`` holds. The result is 1-minimal: removing
any single event or key makes the failure go away.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

Request = dict[str, Any]
# classloading.resolve: the names a counterexample can do without
# checkpoint.coordinator: the event fields that name a task
TASK_FIELDS = ("ack", "decline", "fail", "restart")
NAME_LISTS = ("lookups", "resource_lookups", "user_classes", "parent_classes", "user_resources", "parent_resources")


def _with(request: Request, name: str, value: Any) -> Request:
    out = copy.deepcopy(request)
    out["input"][name] = value
    return out


def _ddmin_list(request: Request, name: str, still_fails: Callable[[Request], bool], budget: list[int]) -> Request:
    items = list(request["input"][name])
    chunk = max(1, len(items) // 2)
    while chunk >= 1 and budget[0] > 0:
        i, removed_any = 0, False
        while i < len(items) and budget[0] > 0:
            candidate = items[:i] + items[i + chunk:]
            budget[0] -= 1
            if candidate != items and still_fails(_with(request, name, candidate)):
                items, removed_any = candidate, True
            else:
                i += chunk
        if not removed_any:
            chunk //= 2
    return _with(request, name, items)


def _ddmin_dict(request: Request, name: str, still_fails: Callable[[Request], bool], budget: list[int]) -> Request:
    items = dict(request["input"][name])
    for key in list(items):
        if budget[0] <= 0:
            break
        candidate = {k: val for k, val in items.items() if k != key}
        budget[0] -= 1
        if still_fails(_with(request, name, candidate)):
            items = candidate
    return _with(request, name, items)


def _fewer_channels(request: Request, still_fails: Callable[[Request], bool]) -> Request:
    for count, index in (("channels", "channel"), ("inputs", "input")):
        n = request["input"].get(count)
        events = request["input"].get("events")
        if not isinstance(n, int) or not isinstance(events, list) or "subpartitions" in request["input"]:
            continue
        used = max((e.get(index, 0) for e in events if isinstance(e, dict)), default=0) + 1
        if used < n and still_fails(_with(request, count, used)):
            return _with(request, count, used)
    return request


def _drop_channels(request: Request, still_fails: Callable[[Request], bool], budget: list[int]) -> Request:
    """Remove whole channels (their events go, higher channels are renumbered)."""
    for count, index in (("channels", "channel"), ("inputs", "input")):
        if not isinstance(request["input"].get(count), int) or "subpartitions" in request["input"]:
            continue
        c = 0
        while c < request["input"][count] and request["input"][count] > 1 and budget[0] > 0:
            events = [
                {**e, index: e[index] - (e[index] > c)} for e in request["input"]["events"]
                if isinstance(e, dict) and e.get(index) != c
            ]
            candidate = _with(_with(request, "events", events), count, request["input"][count] - 1)
            budget[0] -= 1
            if still_fails(candidate):
                request = candidate
            else:
                c += 1
    return request


def _drop_tasks(request: Request, still_fails: Callable[[Request], bool], budget: list[int]) -> Request:
    """Remove whole coordinator tasks: from ``tasks`` and ``sources``, with every event naming them; then
    ``sources`` itself, where the failure does not need it."""
    tasks = request["input"].get("tasks")
    if not isinstance(tasks, list) or not isinstance(request["input"].get("events"), list):
        return request
    for task in list(tasks):
        if budget[0] <= 0 or len(request["input"]["tasks"]) <= 1:
            break
        candidate = copy.deepcopy(request)
        inp = candidate["input"]
        inp["tasks"] = [t for t in inp["tasks"] if t != task]
        inp["events"] = [e for e in inp["events"]
                         if not (isinstance(e, dict) and any(e.get(f) == task for f in TASK_FIELDS))]
        if isinstance(inp.get("sources"), list):
            inp["sources"] = [t for t in inp["sources"] if t != task]
            if not inp["sources"]:
                del inp["sources"]  # the default: every task is a source
        budget[0] -= 1
        if still_fails(candidate):
            request = candidate
    if "sources" in request["input"] and budget[0] > 0:  # absent: every task is a source
        candidate = copy.deepcopy(request)
        del candidate["input"]["sources"]
        budget[0] -= 1
        if still_fails(candidate):
            request = candidate
    return request


def reduce(request: Request, still_fails: Callable[[Request], bool], max_calls: int = 2000) -> Request:
    """A 1-minimal variant of ``request`` that still fails (within ``max_calls`` attempts)."""
    budget = [max_calls]
    current = request
    if isinstance(current["input"].get("events"), list):
        current = _ddmin_list(current, "events", still_fails, budget)
        current = _drop_channels(current, still_fails, budget)
        current = _drop_tasks(current, still_fails, budget)
        current = _ddmin_list(current, "events", still_fails, budget)
    for name in NAME_LISTS:
        if isinstance(current["input"].get(name), list):
            current = _ddmin_list(current, name, still_fails, budget)
    if isinstance(current["input"].get("config"), dict):
        current = _ddmin_dict(current, "config", still_fails, budget)
    return _fewer_channels(current, still_fails)
