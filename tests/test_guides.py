"""The contributor's guides name only what exists: every path, module and constant that
CONTRIBUTING.md and docs/layout.md cite in backticks is in the repository (a guide that sends a
contributor to a file or a list that is gone fails here, not in their hands)."""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

from properties.areas import all_rules

ROOT = Path(__file__).resolve().parents[1]
GUIDES = ("CONTRIBUTING.md", "docs/layout.md")
SYSTEM = ("PATH", "HOME", "JAVA_HOME")  # the environment's own variables
PACKAGES = ("oracle", "properties", "flinkspec", "spark_harness", "bench", "tests", "runners")
PLACEHOLDER = re.compile(r"[<>*]|X\.Y|NAME|AREA|NNNNN|^(?:N|ID|TEXT|SOURCE)$|\.\.\.")

_CODE = re.compile(r"`([^`\n]+)`")
_PATH = re.compile(r"^\.?[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]*)+$|^[A-Za-z0-9_-]+\.(?:py|md|toml|json|txt|java|mjs|yml)$")
_MODULE = re.compile(rf"^(?:{'|'.join(PACKAGES)})(?:\.[A-Za-z_][A-Za-z0-9_]*)+$")
_CONSTANT = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$")


def cited(guide: str) -> list[str]:
    """What a guide cites in backticks, one token at a time (a command's words are not cited names)."""
    out = []
    for code in _CODE.findall((ROOT / guide).read_text()):
        words = code.split()
        if len(words) == 1 or all(_PATH.match(w) for w in words):
            out += [w.rstrip(".,:;)") for w in words]
    return [w for w in out if w and not PLACEHOLDER.search(w)]


@cache
def _tracked() -> frozenset[str]:
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return frozenset(files.split())


def path_exists(path: str) -> bool:
    if "/" not in path:  # a file named in the context of a folder the guide names (``v2.md``)
        return any(f == path or f.endswith("/" + path) for f in _tracked())
    path = path.removeprefix("./").rstrip("/")
    return (ROOT / path).exists() or any(f == path or f.startswith(path + "/") for f in _tracked())


def module_exists(name: str) -> bool:
    """A dotted module, or a module's attribute (``flinkspec.cli.main.COMMANDS``)."""
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:n])
        source = base.with_suffix(".py") if base.with_suffix(".py").exists() else base / "__init__.py"
        if source.exists():
            if n == len(parts):
                return True
            attr = parts[n]
            defines = rf"^(?:def |class )?{attr}\b|^\s*(?:from .* )?import .*\b{attr}\b"
            return n == len(parts) - 1 and re.search(defines, source.read_text(), re.MULTILINE) is not None
    return False


@cache
def _rule_prefixes() -> frozenset[str]:
    return frozenset(rule.rsplit("-", 1)[0] for rule in all_rules())


@cache
def _code() -> str:
    """The code, without this test (whose own examples name constants that are gone)."""
    return "\n".join((ROOT / f).read_text(errors="replace") for f in _tracked()
                     if f.endswith((".py", ".java")) and f != "tests/test_guides.py")


def constant_defined(name: str) -> bool:
    """A constant assigned or a class declared in the code, or an environment variable it reads."""
    if name in SYSTEM:
        return True
    pattern = rf"^\s*(?:{name}\s*(?::[^=\n]*)?=|class {name}\b)|static final [^=\n]*\b{name}\s*=|[\"']{name}[\"']"
    return re.search(pattern, _code(), re.MULTILINE) is not None


def missing(guide: str) -> list[str]:
    gone = []
    for token in dict.fromkeys(cited(guide)):
        if _MODULE.match(token):
            ok = module_exists(token)
        elif _PATH.match(token):
            ok = path_exists(token)
        elif _CONSTANT.match(token) and token not in _rule_prefixes() and len(token) > 2:
            ok = constant_defined(token)
        else:
            continue
        if not ok:
            gone.append(token)
    return gone


@pytest.mark.parametrize("guide", GUIDES)
def test_every_name_a_guide_cites_exists(guide: str) -> None:
    assert missing(guide) == []


def test_the_check_sees_what_is_gone(tmp_path: Path) -> None:
    """The check itself, on names that are not there: a path, a module, a constant."""
    assert not path_exists("flinkspec/impls/bridge/src/flinkspec/impls/bridge")
    assert path_exists("flinkspec/impls/bridge/src/flinkspec/bridge/")
    assert not module_exists("flinkspec.cli.spark_submit") and module_exists("flinkspec.cli.main.COMMANDS")
    assert not constant_defined("ORACLE_PREFIXES") and constant_defined("RELEASES_ON_PYPI")
