"""Meta-tests: the checkpoint-storage strategies reach the corners where implementations go wrong."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings

import oracle
from oracle.versions import SUPPORTED, FlinkVersion, parse_version
from properties.checkpoint.storage_strategies import KEYS, requests
from properties.corpus import Corner, answered_with, reaches, refused_with, search

SAMPLE = 3000  # requests drawn once at the newest release; every corner must be among them
# a version corner needs the right backend and a broken path at one release: rare, so searched for (up to
# 6,000 requests) instead of drawn in a sample at each of those releases


def _out(pred: Callable[[dict[str, Any], dict[str, str]], bool]) -> Corner:
    return answered_with(lambda out, inp: pred(out, inp["config"]))


_error = refused_with  # Flink's exception, its message starting so




def _dir(key_part: str) -> Callable[[dict[str, str]], str]:
    return lambda c: next((v for k, v in c.items() if key_part in k), "")


CORNERS: dict[str, Corner] = {
    "JobManagerCheckpointStorage by default": _out(lambda o, c: o["storage"] == "JobManagerCheckpointStorage"
                                                  and not any(k in c for k in KEYS["storage"])),
    "FileSystemCheckpointStorage by default (a checkpoint dir)": _out(
        lambda o, c: o["storage"] == "FileSystemCheckpointStorage" and not any(k in c for k in KEYS["storage"])),
    "a JobManager storage with a checkpoint dir": _out(
        lambda o, c: o["storage"] == "JobManagerCheckpointStorage" and isinstance(o["checkpoint"], dict)),
    "a JobManager storage without one (metadata in memory)": _out(
        lambda o, c: o["storage"] == "JobManagerCheckpointStorage" and o["checkpoint"] is None),
    "a savepoint directory name": _out(lambda o, c: isinstance(o["savepoint"], dict)),
    "rocksdb": _out(lambda o, c: o["state_backend"] == "EmbeddedRocksDBStateBackend"),
    "a storage name in another case": _out(lambda o, c: any(
        c.get(k) in ("JobManager", "FileSystem", "FILESYSTEM") for k in KEYS["storage"])),
    "a threshold above 1 MiB falls back to 20 kb": _out(
        lambda o, c: o["file_state_threshold"] == 20480 and any(
            c.get(k) in ("1048577", "1025kb", "2mb", "1gb") for k in KEYS["threshold"])),
    "a threshold of exactly 1 MiB": _out(lambda o, c: o["file_state_threshold"] == 1048576),
    "the write buffer raised to the threshold": _out(
        lambda o, c: o["write_buffer_size"] is not None and o["write_buffer_size"] == o["file_state_threshold"]
        and any(k in c for k in KEYS["buffer"])),
    "a negative write buffer": _out(lambda o, c: any(c.get(k, "").startswith("-") for k in KEYS["buffer"])),
    "a deprecated key wins over no current key": _out(
        lambda o, c: "state.backend.fs.checkpointdir" in c and not any(k in c for k in KEYS["checkpoints"][:2])
        and o["checkpoint_path"] is not None),
    "two spellings of one option": lambda d: any(sum(k in d[0]["input"]["config"] for k in keys) == 2
                                                for keys in KEYS.values()),
    "file:///x printed as file:/x": _out(lambda o, c: str(o["checkpoint_path"]).startswith("file:/")
                                         and "file:///" in _dir("dir")(c)),
    "a trailing slash dropped": _out(lambda o, c: o["checkpoint_path"] is not None and _dir("dir")(c).endswith("/")),
    "a .. segment resolved": _out(lambda o, c: o["checkpoint_path"] is not None and "/.." in _dir("dir")(c)),
    "backslashes": _out(lambda o, c: o["checkpoint_path"] is not None and "\\" in _dir("dir")(c)),
    "a Windows drive": _out(lambda o, c: ":/" in str(o["checkpoint_path"])[6:]),
    "a space in a path": _out(lambda o, c: " " in str(o["checkpoint_path"])),
    "an authority in a file: path": _out(lambda o, c: str(o["checkpoint"]).startswith("error:IOException: Found")),
    "a savepoint dir with an authority in a file: path": _out(
        lambda o, c: str(o["savepoint"]).startswith("error:IOException: Found") and isinstance(o["checkpoint"], dict)),
    "a savepoint dir that is not absolute": _out(lambda o, c: str(o["savepoint"]).startswith(
        "error:IOException: Failed to create savepoint directory")),
    "no checkpoint dir for filesystem storage": _error("IllegalConfigurationException", "Cannot create the file"),
    "no scheme or the root: invalid configuration": _error("IllegalConfigurationException", "Invalid configuration"),
    "a savepoint dir that is no Path": _error("IllegalConfigurationException", "Cannot parse value for"),
    "an unknown storage name": lambda d: any(k in d[0]["input"]["config"] for k in KEYS["storage"]) and _error(
        "DynamicCodeLoadingException", "Cannot find configured state backend factory class")(d),
    "a JDK class as storage factory": _error("DynamicCodeLoadingException", "The class configured under"),
    "an unknown state backend": lambda d: not any(k in d[0]["input"]["config"] for k in KEYS["storage"]) and _error(
        "DynamicCodeLoadingException", "Cannot find configured state backend factory class")(d),
    "checkpoint id Long.MAX_VALUE": _out(lambda o, c: "chk-9223372036854775807" in str(o["checkpoint"])),
    "checkpoint id 0": _out(lambda o, c: "/chk-0/" in str(o["checkpoint"])),
}
# every spelling of every key, at the newest release (where every spelling is read or ignored)
for _option, _keys in KEYS.items():
    for _key in _keys:
        CORNERS[f"key {_key}"] = (lambda k: lambda d: k in d[0]["input"]["config"])(_key)

BY_VERSION: dict[str, tuple[FlinkVersion, Corner]] = {
    "1.20: the legacy MemoryStateBackend as storage": (parse_version("1.20"), _out(
        lambda o, c: o["storage"] == "MemoryStateBackend")),
    "1.13: the legacy backend overrides a storage option": (parse_version("1.13"), _out(
        lambda o, c: o["storage"] == "MemoryStateBackend" and any(k in c for k in KEYS["storage"]))),
    "1.13: the legacy backend's own path error": (parse_version("1.13"), _error(
        "IllegalConfigurationException", "Cannot parse value for state.checkpoints.dir :")),
    "1.13: the legacy backend's unwrapped root error": (parse_version("1.13"), _error(
        "IllegalArgumentException", "Cannot use the root directory")),
    "1.19: create-subdir false": (parse_version("1.19"), _out(
        lambda o, c: isinstance(o["checkpoint"], dict) and "/chk-" in o["checkpoint"]["directory"]
        and o["checkpoint"]["directory"].rsplit("/", 1)[0] == o["checkpoint_path"])),
    "1.19: the 2.x key ignored": (parse_version("1.19"), _out(
        lambda o, c: "execution.checkpointing.dir" in c and o["checkpoint_path"] is None)),
    "2.0: jobmanager is no state backend any more": (parse_version("2.0"), _error(
        "DynamicCodeLoadingException", "Cannot find configured state backend factory class: jobmanager")),
    "2.0: forst": (parse_version("2.0"), _out(lambda o, c: o["state_backend"] == "ForStStateBackend")),
}


@pytest.mark.parametrize("corner", list(CORNERS))
def test_strategy_reaches(corner: str) -> None:
    assert reaches(requests, SUPPORTED[-1], SAMPLE, CORNERS[corner]), f"none of {SAMPLE} requests: {corner}"


@pytest.mark.parametrize("corner", list(BY_VERSION))
def test_strategy_reaches_version_corner(corner: str) -> None:
    version, pred = BY_VERSION[corner]
    search(requests, version, pred)


@settings(max_examples=300, database=None, deadline=None, derandomize=True)
@given(requests(SUPPORTED[-1]))
def test_every_generated_request_is_well_formed(request: dict[str, Any]) -> None:
    """The oracle answers every generated request, never with a BadRequest."""
    resp = oracle.answer({"id": 0, **request})
    assert resp.get("error", {}).get("type") != "BadRequest", resp
