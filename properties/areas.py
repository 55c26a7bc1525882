"""Every protocol area the suite knows: how to generate its requests and which rules judge them."""

from __future__ import annotations

from collections.abc import Callable

import attrs
from hypothesis import strategies as st

from oracle.versions import SUPPORTED, FlinkVersion
from properties.memory import invariants as _memory_invariants  # noqa: F401  (registers the rules)
from properties.memory import strategies as memory_strategies


@attrs.frozen
class AreaSpec:
    """One protocol area: its rule prefix and a request strategy per Flink version."""

    name: str
    prefix: str
    requests: Callable[[FlinkVersion], st.SearchStrategy[dict]]
    versions: tuple[FlinkVersion, ...] = SUPPORTED
    size: Callable[[dict], int] = lambda req: len(req["input"].get("config", {}))


AREAS: dict[str, AreaSpec] = {
    "memory.taskmanager": AreaSpec(
        "memory.taskmanager", "TM", lambda ver: memory_strategies.requests("memory.taskmanager", ver)
    ),
    "memory.jobmanager": AreaSpec(
        "memory.jobmanager", "JM", lambda ver: memory_strategies.requests("memory.jobmanager", ver)
    ),
}
