"""The oracle is pure: no module of oracle/ imports I/O, time, randomness or test machinery."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

FORBIDDEN = {"os", "sys", "time", "random", "subprocess", "socket", "io", "pathlib", "pytest", "hypothesis",
             "pyspark", "flinkspec", "properties", "threading", "datetime"}
MODULES = sorted((Path(__file__).resolve().parents[1] / "oracle").glob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_oracle_module_imports_nothing_impure(path: Path) -> None:
    """Each oracle module imports only pure standard modules, attrs and the oracle itself."""
    tree = ast.parse(path.read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            imported.add(node.module.split(".")[0])
    assert not imported & FORBIDDEN, f"{path.name} imports {sorted(imported & FORBIDDEN)}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_oracle_module_is_short(path: Path) -> None:
    """Each oracle module stays small enough to read against the Flink class it mirrors."""
    assert len(path.read_text().splitlines()) <= 600, path.name
