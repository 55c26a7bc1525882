"""The differential rule's comparison: how an answer differs from Flink's (the oracle's), in words."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Response = Mapping[str, Any]


def compare(expected: Response, actual: Response, *, strict_messages: bool) -> str | None:
    """Why ``actual`` differs from the oracle's ``expected`` answer, or None if it does not."""
    if expected.get("output") == actual.get("output") and "output" in expected and "output" in actual:
        return None
    if "error" in expected or "error" in actual:
        exp_err, act_err = expected.get("error"), actual.get("error")
        if exp_err is None:
            return (f"Flink accepts this input (output {_short(expected.get('output'))}) "
                    f"but the answer is an error {_short(act_err)}")
        if act_err is None:
            return (f"Flink rejects this input ({_short(exp_err)}) "
                    f"but the answer is an output {_short(actual.get('output'))}")
        keys = ("type", "exception", "message") if strict_messages else ("type",)
        for k in keys:
            if exp_err.get(k) != act_err.get(k):
                return f"error {k} differs: Flink {exp_err.get(k)!r}, answer {act_err.get(k)!r}"
        return None
    return first_difference(expected.get("output"), actual.get("output"), "output")


def first_difference(exp: object, act: object, path: str) -> str | None:
    """The first path at which two JSON values differ, described, or None."""
    if isinstance(exp, dict) and isinstance(act, dict):
        for k in exp:
            if k not in act:
                return f"{path}.{k} is missing (Flink: {_short(exp[k])})"
            d = first_difference(exp[k], act[k], f"{path}.{k}")
            if d:
                return d
        extra = [k for k in act if k not in exp]
        return f"{path} has unexpected key(s) {extra}" if extra else None
    if isinstance(exp, list) and isinstance(act, list):
        for i, (e, a) in enumerate(zip(exp, act, strict=False)):
            d = first_difference(e, a, f"{path}[{i}]")
            if d:
                return d
        if len(exp) != len(act):
            return f"{path} has {len(act)} elements, Flink {len(exp)}"
        return None
    if type(exp) is not type(act) or exp != act:
        return f"{path} = {_short(act)}, Flink {_short(exp)}"
    return None


def _short(value: object, limit: int = 160) -> str:
    import json

    text = json.dumps(value, sort_keys=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."
