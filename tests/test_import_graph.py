"""The layers import one way, across packages only public names, and flinkspec's rooms form no cycle.

Every module of oracle/, properties/, flinkspec/, spark_harness/ and bench/ is parsed with ``ast``
(nothing is imported), so that an import inside a function counts as much as one at the top:

    oracle  <-  properties (rules, strategies, invariants, the tests of the suite)
            <-  flinkspec.errors, flinkspec.mutants  <-  flinkspec.impls (talking to an implementation)
            <-  flinkspec.judge (judging one answer)  <-  flinkspec.engine (check, corpus, exhaustive,
                diff-versions), flinkspec.plugin (the pytest route)  <-  flinkspec.reports
            <-  flinkspec.tools  <-  flinkspec.cli  <-  spark_harness  <-  bench

A module may import its own layer and the layers below it, never one above; so the top-level folders
import one way (oracle <- properties <- flinkspec <- spark_harness <- bench): the suite reaches the
implementation under test through protocols of its own (:mod:`properties.under_test`), and the
``fanout`` command comes to flinkspec's CLI through an entry point. No module outside the test
modules imports a test module. A name that starts with an underscore is private to its package: no
module of another package imports it. The rooms of flinkspec (``flinkspec.<room>``) import each
other without a cycle.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import attrs

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("oracle", "properties", "flinkspec", "spark_harness", "bench")

# (module or package, layer): a module belongs to the longest entry that is it or contains it
LAYERS: dict[str, int] = {
    "oracle": 0,
    "properties": 1,
    "flinkspec": 2,  # the package itself (its version), nothing else
    "flinkspec.errors": 2,
    "flinkspec.mutants": 2,
    "flinkspec.impls": 3,
    "flinkspec.judge": 4,
    "flinkspec.engine": 5,
    "flinkspec.plugin": 5,
    "flinkspec.reports": 6,
    "flinkspec.tools": 7,
    "flinkspec.cli": 8,
    "spark_harness": 9,
    "bench": 10,
}


@attrs.frozen
class Import:
    importer: str
    imported: str  # the module named by the statement (a name imported from a package may be a module)
    names: tuple[str, ...]  # what ``from imported import ...`` takes; () for ``import imported``
    line: int

    def __str__(self) -> str:
        what = f"from {self.imported} import {', '.join(self.names)}" if self.names else f"import {self.imported}"
        return f"{self.importer}:{self.line}: {what}"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def imports(name: str, path: Path) -> Iterator[Import]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PACKAGES:
                    yield Import(name, alias.name, (), node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[:len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            if base.split(".")[0] in PACKAGES:
                yield Import(name, base, tuple(a.name for a in node.names), node.lineno)


def graph() -> list[Import]:
    return [imp for name, path in modules().items() for imp in imports(name, path)]


def owner(module: str) -> str | None:
    """The entry of :data:`LAYERS` a module belongs to (None: to none)."""
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        prefix = ".".join(parts[:n])
        if prefix in LAYERS and (prefix != "flinkspec" or module == "flinkspec"):
            return prefix
    return None


def target(imp: Import) -> str:
    """The module an import reaches: ``from flinkspec import corpus`` reaches flinkspec.corpus."""
    known = modules()
    if len(imp.names) == 1 and f"{imp.imported}.{imp.names[0]}" in known:
        return f"{imp.imported}.{imp.names[0]}"
    return imp.imported


def room(module: str) -> str:
    """flinkspec.<room> for flinkspec's modules, else the module's top package."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "flinkspec" and len(parts) > 1 else parts[0]


def package(module: str) -> str:
    """What a private name is private to: a room of flinkspec, else the module's package."""
    if module.startswith("flinkspec."):
        return room(module)
    return module if (ROOT / module.replace(".", "/") / "__init__.py").exists() else module.rpartition(".")[0]


def upward_imports(edges: list[Import]) -> list[str]:
    found = []
    for imp in edges:
        src, dst = owner(imp.importer), owner(target(imp))
        if src is not None and dst is not None and LAYERS[dst] > LAYERS[src]:
            found.append(f"{imp}  ({src}, layer {LAYERS[src]}, imports {dst}, layer {LAYERS[dst]})")
    return found


def private_imports(edges: list[Import]) -> list[str]:
    found = []
    for imp in edges:
        private = [n for n in imp.names if n.startswith("_") and not n.startswith("__")]
        if private and package(imp.importer) != package(imp.imported):
            found.append(f"{imp}  (private to {package(imp.imported)})")
        elif any(p.startswith("_") and not p.startswith("__") for p in target(imp).split(".")) \
                and package(imp.importer) != package(target(imp)):
            found.append(f"{imp}  (a private module of {package(target(imp))})")
    return found


def room_cycles(edges: list[Import]) -> list[list[str]]:
    deps: dict[str, set[str]] = {}
    for imp in edges:
        a, b = room(imp.importer), room(target(imp))
        if imp.importer.startswith("flinkspec") and target(imp).startswith("flinkspec") and a != b:
            deps.setdefault(a, set()).add(b)
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        for nxt in sorted(deps.get(node, ())):
            if nxt in path:
                cycle = path[path.index(nxt):]
                if min(cycle) == cycle[0]:  # each cycle once, from its smallest room
                    cycles.append([*cycle, nxt])
            else:
                visit(nxt, [*path, nxt])

    for start in sorted(deps):
        visit(start, [start])
    return cycles


def test_every_module_has_a_layer() -> None:
    assert [m for m in modules() if owner(m) is None] == []


def test_no_module_imports_a_higher_layer() -> None:
    assert upward_imports(graph()) == []


def test_no_private_name_is_imported_from_another_package() -> None:
    assert private_imports(graph()) == []


def test_flinkspecs_rooms_import_each_other_without_a_cycle() -> None:
    assert room_cycles(graph()) == []


def folders(edges: list[Import]) -> set[tuple[str, str]]:
    """The imports between top-level folders, as (importer, imported) pairs."""
    return {(imp.importer.split(".")[0], target(imp).split(".")[0]) for imp in edges
            if imp.importer.split(".")[0] != target(imp).split(".")[0]}


def folder_cycles(edges: list[Import]) -> list[tuple[str, str]]:
    """Pairs of top-level folders that import each other."""
    pairs = folders(edges)
    return sorted((a, b) for a, b in pairs if (b, a) in pairs and a < b)


def is_test(module: str) -> bool:
    return module.split(".")[-1].startswith(("test_", "conftest"))


def imports_of_tests(edges: list[Import]) -> list[str]:
    """Imports of a test module by a module that is none."""
    return [str(imp) for imp in edges if not is_test(imp.importer) and is_test(target(imp))]


def module_cycles(edges: list[Import]) -> list[list[str]]:
    """Circles of imports between modules (an import inside a function counts: a lazy import that
    closes a circle is a circle)."""
    known = modules()
    deps: dict[str, set[str]] = {}
    for imp in edges:
        to = target(imp)
        to = to if to in known or to.rpartition(".")[0] not in known else to.rpartition(".")[0]
        if to != imp.importer:
            deps.setdefault(imp.importer, set()).add(to)
    found: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(deps.get(node, ())):
            if state.get(nxt) == 1:
                found.append([*path[path.index(nxt):], nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for start in sorted(deps):
        if start not in state:
            visit(start, [start])
    return found


def test_no_module_imports_itself_back() -> None:
    assert module_cycles(graph()) == []


def test_the_top_level_folders_import_one_way() -> None:
    assert folder_cycles(graph()) == []
    order = ["oracle", "properties", "flinkspec", "spark_harness", "bench"]
    assert sorted(pair for pair in folders(graph()) if order.index(pair[1]) > order.index(pair[0])) == []


def test_no_product_module_imports_a_test_module() -> None:
    assert imports_of_tests(graph()) == []


def test_the_checks_see_what_they_must_refuse() -> None:
    """The checks themselves: an upward import, a private name and a cycle, made up, are each found."""
    up = Import("properties.stateful", "flinkspec.plugin.gate", ("Gate",), 1)
    assert upward_imports([up]) and not upward_imports([Import("flinkspec.engine.check", "properties.areas", (), 1)])
    assert private_imports([Import("spark_harness.shrink", "flinkspec.engine.check", ("_reduced",), 1)])
    assert not private_imports([Import("flinkspec.engine.check", "flinkspec.engine.reduce", ("_cut",), 1)])
    assert folder_cycles([up, Import("flinkspec.plugin.gate", "properties.areas", ("AREAS",), 1)])
    assert imports_of_tests([Import("flinkspec.tools.vectors", "properties.checkpoint", ("test_examples",), 1)])
    assert not imports_of_tests([Import("properties.checkpoint.test_examples", "properties.under_test",
                                        ("Judged",), 1)])
    assert module_cycles([Import("properties.rules", "properties.areas", ("AREAS",), 1),
                          Import("properties.areas", "properties.rules", ("Rule",), 1)])
    assert room_cycles([Import("flinkspec.cli.x", "flinkspec.tools.y", ("f",), 1),
                        Import("flinkspec.tools.y", "flinkspec.cli.options", ("g",), 1)])
