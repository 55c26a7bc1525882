"""Recorded answers of real Flink (``properties/recorded``): where they live and how they are read.

``flinkspec record`` (:mod:`flinkspec.tools.record`) writes one gzipped JSON file per area: a header,
then one ``{"flink", "input", "answer"}`` line per answer; ``properties/test_recorded_answers.py``
holds an implementation to them.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

RECORDED = Path(__file__).resolve().parent / "recorded"
FLINK_TABLES = RECORDED / "flink-tables.json"  # python -m flinkspec.tools.flinktables --record
HEADER_KEYS = ("recorded_from", "area", "seed", "examples_per_version", "versions")


class RecordingError(ValueError):
    """A recorded-answers file that is not what :func:`flinkspec.tools.record.record_area` writes."""


def read(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header of a recorded file and its records; a malformed file is a RecordingError."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise RecordingError(f"{path}: not a recorded-answers file ({exc})") from None
    try:
        header = json.loads(lines[0]) if lines else None
    except json.JSONDecodeError as exc:
        raise RecordingError(f"{path}:1: {exc}") from None
    if not isinstance(header, dict):
        raise RecordingError(f"{path}: the first line must be the header object")
    missing = [k for k in HEADER_KEYS if k not in header]
    if missing:
        raise RecordingError(f"{path}: header lacks {', '.join(missing)}")
    records = []
    for lineno, line in enumerate(lines[1:], start=2):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordingError(f"{path}:{lineno}: {exc}") from None
        if not isinstance(rec, dict) or not {"flink", "input", "answer"} <= rec.keys():
            raise RecordingError(f"{path}:{lineno}: a record needs flink, input and answer")
        records.append(rec)
    return header, records
