"""Reading a Flink configuration file the way Flink does, into flat ``key -> string`` pairs.

- ``config.yaml`` (Flink 1.19+ standard YAML, the only format of 2.x): nested or flat keys,
  nested maps joined with ``.``; scalars rendered as Flink's YAML reader prints them back.
- ``flink-conf.yaml`` (the legacy format up to 1.20): one ``key: value`` per line, ``#`` starts a
  comment, no nesting; this is ``GlobalConfiguration.loadYAMLResource``, not a YAML parser.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


class ConfigFileError(ValueError):
    """The file cannot be read as a Flink configuration; the message names the file and why."""


def load(path: Path) -> dict[str, str]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigFileError(f"cannot read {path}: {exc}") from None
    if path.name == "flink-conf.yaml":
        return parse_legacy(text, path)
    return parse_standard_yaml(text, path)


def parse_legacy(text: str, where: Path | str = "<config>") -> dict[str, str]:
    """Flink's legacy line format (``GlobalConfiguration.loadYAMLResource``)."""
    out: dict[str, str] = {}
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, sep, value = line.partition(": ")
        if not sep or not key.strip() or not value.strip():
            raise ConfigFileError(f"{where}:{n}: not a 'key: value' line: {raw!r}")
        out[key.strip()] = value.strip()
    return out


def parse_standard_yaml(text: str, where: Path | str = "<config>") -> dict[str, str]:
    """A standard YAML file (nested or flat) flattened to Flink keys."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigFileError(f"{where} is not valid YAML: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigFileError(f"{where}: the top level must be a mapping of keys, got {type(data).__name__}")
    out: dict[str, str] = {}
    _flatten(data, "", out, where)
    return out


def _flatten(node: dict[Any, Any], prefix: str, out: dict[str, str], where: Path | str) -> None:
    for key, value in node.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            _flatten(value, name + ".", out, where)
        else:
            out[name] = _scalar(value)


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, list):
        return ";".join(_scalar(v) for v in value)
    return str(value)


def parse_dynamic(items: list[str]) -> dict[str, str]:
    """``-D key=value`` options, as Flink's ``DynamicPropertiesUtil`` reads them."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigFileError(f"-D {item!r} is not of the form key=value")
        out[key.strip()] = value
    return out
