"""An implementation that reads configuration values only in their plain spelling, for tests/test_config_spelling.py.

Written from docs/protocol/v2.md's section on ``config.spelling`` alone (not from
:mod:`flinkspec.impls.spelling`, so that the two check each other): behind it is the oracle, but a config
value with anything of spelling in it (whitespace, upper case where Flink reads letters in any case,
quotes, a YAML list or an empty entry in a pattern list) is refused with a ``BadRequest``, as an engine that
parses only ``1g``, ``0.1``, ``child-first`` and ``a;b`` would. :func:`answer` declares the feature
unsupported in its capabilities answer; :func:`answer_undeclared` does not (it speaks protocol 2).
"""

from __future__ import annotations

import re
from typing import Any

import oracle

DECLARED = {"protocol": 2, "unsupported": [{"feature": "config.spelling", "why": "we parse plain spellings only"}]}
UNDECLARED = {"protocol": 2}

# the plain grammars of docs/protocol/v2.md
SIZE = re.compile(r"(0|[1-9][0-9]*)(b|bytes|k|kb|kibibytes|m|mb|mebibytes|g|gb|gibibytes|t|tb|tebibytes)?")
DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?")
INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")
PATTERN_KEYS = ("classloader.parent-first-patterns.default", "classloader.parent-first-patterns",
                "classloader.parent-first-patterns.additional")
BOOLEAN_KEYS = ("classloader.check-leaked-classloader", "jobmanager.memory.enable-jvm-direct-memory-limit")
INT_KEYS = ("taskmanager.numberOfTaskSlots", "taskmanager.network.numberOfBuffers", "taskmanager.heap.mb",
            "jobmanager.heap.mb")


def _space(value: str) -> bool:
    return any(ord(ch) <= 0x20 or ch.isspace() for ch in value)


def _odd(key: str, value: str) -> bool:
    """Whether ``value`` under ``key`` has something of spelling this engine does not read."""
    if key in PATTERN_KEYS:
        plain = value == "" or (not value.startswith(("[", "-", "&", "!"))
                                and all(e and not _space(e) and not set(e) & set("'\";") for e in value.split(";")))
        return not plain and (_space(value) or bool(set(value) & set("'\"")) or value.startswith(("[", "-", "&", "!"))
                              or "" in value.split(";"))
    if key == "classloader.resolve-order":
        return value not in ("child-first", "parent-first") and (_space(value) or value != value.lower())
    if key in BOOLEAN_KEYS:
        return value not in ("true", "false") and (_space(value) or value != value.lower())
    if key in INT_KEYS:
        return not INTEGER.fullmatch(value) and _space(value)
    if key.startswith(("taskmanager.", "jobmanager.")):
        grammar = DECIMAL if key.endswith(("fraction", "cpu.cores")) else SIZE
        return not grammar.fullmatch(value) and (_space(value) or value != value.lower())
    return False


def _answer(request: dict[str, Any], capabilities: dict[str, Any]) -> dict[str, Any]:
    rid = request.get("id")
    if request.get("area") == "capabilities":
        return {"id": rid, "output": capabilities}
    inp = request.get("input")
    config = inp.get("config") if isinstance(inp, dict) else None
    if isinstance(config, dict):
        odd = [k for k, value in config.items() if isinstance(value, str) and _odd(k, value)]
        if odd:
            return {"id": rid, "error": {"type": "BadRequest",
                                         "message": f"input.config.{odd[0]}: only plain spellings are read"}}
    return oracle.answer(request)


def answer(request: dict[str, Any]) -> dict[str, Any]:
    """Declares ``config.spelling`` unsupported."""
    return _answer(request, DECLARED)


def answer_undeclared(request: dict[str, Any]) -> dict[str, Any]:
    """The same engine, declaring nothing about spelling."""
    return _answer(request, UNDECLARED)
