"""The documented checkpoint-storage rules, as checks on any implementation's own answers.

Sources: Flink's documentation of checkpoint storage ("Checkpoint Storage" in the state backends page:
"If a checkpoint directory is configured FileSystemCheckpointStorage will be used, otherwise the
system will use the JobManagerCheckpointStorage"; the table of ``state.checkpoints.dir`` against
``state.checkpoint-storage`` added by FLINK-34483), the "Checkpoints" page's directory structure
(``/user-defined-checkpoint-dir/{job-id}/`` holding ``shared/``, ``taskowned/`` and ``chk-N/``; the
``state.checkpoints.create-subdir`` option of 1.19), the savepoint page's layout
(``savepoint-:shortjobid-:savepointid/_metadata``) and the descriptions of the options in
``CheckpointingOptions`` (the 20 kb file-state threshold, at most 1 MB; the write buffer, 4096 bytes,
at least the threshold) and of ``JobManagerCheckpointStorage`` (state in the JobManager's memory, 5 MB
by default). Each check reads the configuration as the release names its options
(:func:`oracle.checkpoint_storage.option_keys`: the key, then its deprecated keys) and judges the
answer's own fields against each other, so a wrong choice of storage and a wrong layout are told apart.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from oracle.checkpoint_storage import LEGACY_BACKENDS_REMOVED, STORAGE, option_keys
from oracle.versions import FlinkVersion
from properties.rules import Request, Response, RuleBook, Violation

BOOK = RuleBook()  # the rules this module declares, named by the area's declaration
BOOK.differential(STORAGE, "CSR")

DOCS = "Flink docs, State Backends: Checkpoint Storage"
CHECKPOINTS_DOCS = "Flink docs, Checkpoints: Directory Structure"
OPTIONS = "CheckpointingOptions descriptions"
JM, FS, MEMORY = "JobManagerCheckpointStorage", "FileSystemCheckpointStorage", "MemoryStateBackend"
MIB, THRESHOLD_DEFAULT, BUFFER_DEFAULT = 1024 * 1024, 20 * 1024, 4096
NULLABLE_INTS = ("max_state_size", "file_state_threshold", "write_buffer_size")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _error_text(value: object) -> bool:
    return isinstance(value, str) and value.startswith("error:")


def _shape_problem(out: object) -> str | None:
    if not isinstance(out, Mapping):
        return "the output must be an object"
    for name in ("state_backend", "storage"):
        if not isinstance(out.get(name), str):
            return f"{name} must be a string"
    for name in ("checkpoint_path", "savepoint_path"):
        if name not in out or not (out[name] is None or isinstance(out[name], str)):
            return f"{name} must be a string or null"
    for name in NULLABLE_INTS:
        if name not in out or not (out[name] is None or _is_int(out[name])):
            return f"{name} must be an integer or null"
    chk, sp = out.get("checkpoint", 0), out.get("savepoint", 0)
    if not (chk is None or _error_text(chk) or (
            isinstance(chk, Mapping) and all(isinstance(chk.get(k), str) for k in ("directory", "metadata"))
            and all(k in chk and (chk[k] is None or isinstance(chk[k], str)) for k in ("shared", "taskowned")))):
        return "checkpoint must be null, an 'error:' text or {directory, metadata, shared, taskowned}"
    if not (sp is None or _error_text(sp) or (
            isinstance(sp, Mapping) and isinstance(sp.get("directory_prefix"), str)
            and isinstance(sp.get("metadata"), str) and _is_int(sp.get("random_chars")))):
        return "savepoint must be null, an 'error:' text or {directory_prefix, random_chars, metadata}"
    return None


@BOOK.invariant("CSR-1", STORAGE, "The answer names the state backend and the checkpoint storage (strings), the "
                "checkpoint and savepoint directories (strings or null), the storage's maximum state size, file-state "
                "threshold and write buffer (integers or null), and where checkpoint N and a savepoint go: null, an "
                "'error:<Exception>: <message>' text, or their directories.", "docs/protocol/checkpoint-storage.md")
def shape(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    if "output" not in resp or resp.get("error") is not None:
        return []
    problem = _shape_problem(resp["output"])
    return [Violation("CSR-1", problem)] if problem else []


def _output(resp: Response) -> dict[str, Any] | None:
    """The answer's output if it is one of the right shape (CSR-1 judges the rest)."""
    out = resp.get("output")
    if "output" not in resp or resp.get("error") is not None or _shape_problem(out) is not None:
        return None
    return dict(out)  # type: ignore[arg-type]


def _config(req: Request) -> Mapping[str, Any]:
    config = req["input"].get("config", {})
    return config if isinstance(config, Mapping) else {}


def configured(req: Request, name: str, version: FlinkVersion) -> str | None:
    """The value of option ``name`` as ``version`` reads it: its key's, else its first deprecated key's."""
    config = _config(req)
    return next((str(config[k]) for k in option_keys(name, version) if k in config), None)


def _legacy_backend(req: Request, version: FlinkVersion) -> bool:
    """The legacy jobmanager state backend (a MemoryStateBackend, which is its own storage; until 2.0)."""
    backend = configured(req, "backend", version)
    return version < LEGACY_BACKENDS_REMOVED.at and backend is not None and backend.lower() == "jobmanager"


def _join(base: str, *names: str) -> str:
    return "/".join([base.rstrip("/") or base, *names]) if base != "/" else "/" + "/".join(names)


def _subdirs(req: Request, version: FlinkVersion) -> bool:
    value = configured(req, "subdir", version) if option_keys("subdir", version) else None
    return value is None or value.lower() != "false"


@BOOK.invariant("CSR-2", STORAGE, "Without a checkpoint storage configured (and no legacy state backend that is its "
                "own storage), a job's checkpoint storage is a FileSystemCheckpointStorage if a checkpoint directory "
                "is configured, else a JobManagerCheckpointStorage.",
                f"{DOCS}: 'If a checkpoint directory is configured FileSystemCheckpointStorage will be used, otherwise "
                "the system will use the JobManagerCheckpointStorage'; FLINK-34483's table")
def default_storage(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _output(resp)
    if out is None or configured(req, "storage", version) is not None or _legacy_backend(req, version):
        return []
    want = FS if configured(req, "checkpoints", version) is not None else JM
    return [Violation("CSR-2", f"no storage is configured, so {want} is expected, not {out['storage']}")] \
        if out["storage"] != want else []


@BOOK.invariant("CSR-3", STORAGE, "The storage names jobmanager and filesystem select a JobManagerCheckpointStorage "
                "and a FileSystemCheckpointStorage (unless a legacy state backend is its own storage).",
                f"{OPTIONS}: state.checkpoint-storage / execution.checkpointing.storage ('via their shortcut name')")
def named_storage(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _output(resp)
    name = configured(req, "storage", version)
    want = {"jobmanager": JM, "filesystem": FS}.get(name or "")
    if out is None or want is None or _legacy_backend(req, version) or out["storage"] == want:
        return []
    return [Violation("CSR-3", f"the storage {name!r} is configured, but the answer is {out['storage']}")]


@BOOK.invariant("CSR-4", STORAGE, "A filesystem storage without a checkpoint directory is no valid configuration: "
                "it is rejected.", "FLINK-34483's table ('filesystem' without a directory: illegal); "
                "FileSystemCheckpointStorage Javadoc (a checkpoint path is required)")
def filesystem_needs_a_directory(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    if "output" not in resp or resp.get("error") is not None or _legacy_backend(req, version):
        return []
    if configured(req, "storage", version) == "filesystem" and configured(req, "checkpoints", version) is None:
        return [Violation("CSR-4", "a filesystem storage without a checkpoint directory is accepted")]
    return []


@BOOK.invariant("CSR-5", STORAGE, "A storage's checkpoint and savepoint directories are there exactly when they are "
                "configured.", f"{OPTIONS}: state.checkpoints.dir, state.savepoints.dir (and their 1.20 names)")
def directories_as_configured(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _output(resp)
    if out is None:
        return []
    for field, option in (("checkpoint_path", "checkpoints"), ("savepoint_path", "savepoints")):
        if (out[field] is None) != (configured(req, option, version) is None):
            return [Violation("CSR-5", f"{field} is {out[field]!r}, but the {option} directory is "
                                       f"{'not ' if configured(req, option, version) is None else ''}configured")]
    return []


@BOOK.invariant("CSR-6", STORAGE, "A JobManager storage keeps the state in the JobManager's memory: at most 5 MB, no "
                "file-state threshold or write buffer, no shared or taskowned directory; without a checkpoint "
                "directory the checkpoint's metadata stays in memory too (no checkpoint directory).",
                f"{DOCS} (JobManagerCheckpointStorage: 'The size of each individual state is by default limited to "
                "5 MB'); FLINK-34483's table ('without meta data persistence guarantees')")
def job_manager_storage(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _output(resp)
    if out is None or out["storage"] not in (JM, MEMORY):
        return []
    if out["max_state_size"] != 5 * MIB:
        return [Violation("CSR-6", f"a {out['storage']} holds {out['max_state_size']} bytes, not 5 MB")]
    if out["file_state_threshold"] is not None or out["write_buffer_size"] is not None:
        return [Violation("CSR-6", f"a {out['storage']} has a file-state threshold or write buffer")]
    chk = out["checkpoint"]
    if out["checkpoint_path"] is None and chk is not None:
        return [Violation("CSR-6", f"no checkpoint directory, but checkpoint {chk!r}")]
    if isinstance(chk, Mapping) and (chk["shared"] is not None or chk["taskowned"] is not None):
        return [Violation("CSR-6", f"a {out['storage']} keeps shared or taskowned state: {chk}")]
    return []


@BOOK.invariant("CSR-7", STORAGE, "Checkpoint N of job J lives in <checkpoint dir>/J/chk-N (<checkpoint dir>/chk-N "
                "with create-subdir false, 1.19 on), its metadata in chk-N/_metadata; a file-system storage keeps "
                "shared/ and taskowned/ beside chk-N.",
                f"{CHECKPOINTS_DOCS} ('/user-defined-checkpoint-dir/{{job-id}}/ + shared/ + taskowned/ + chk-1/'); "
                f"{OPTIONS}: state.checkpoints.create-subdir (FLINK-33057)")
def checkpoint_layout(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _output(resp)
    if out is None or not isinstance(out["checkpoint"], Mapping) or out["checkpoint_path"] is None:
        return []
    inp = req["input"]
    base = _join(out["checkpoint_path"], inp["job_id"]) if _subdirs(req, version) else out["checkpoint_path"]
    chk = out["checkpoint"]
    want = {"directory": _join(base, f"chk-{inp['checkpoint_id']}"),
            "metadata": _join(base, f"chk-{inp['checkpoint_id']}", "_metadata")}
    if out["storage"] == FS:
        want |= {"shared": _join(base, "shared"), "taskowned": _join(base, "taskowned")}
    for name, path in want.items():
        if chk[name] != path:
            return [Violation("CSR-7", f"checkpoint {name} is {chk[name]!r}, expected {path!r}")]
    if out["storage"] == FS and out["checkpoint_path"] is not None and chk is None:
        return [Violation("CSR-7", "a file-system storage with a directory lays out no checkpoint")]
    return []


@BOOK.invariant("CSR-8", STORAGE, "A savepoint of job J goes to <savepoint dir>/savepoint-<first 6 characters of "
                "J>-<random characters>, its metadata in _metadata; without a savepoint directory there is none.",
                "Flink docs, Savepoints ('/savepoints/savepoint-:shortjobid-:savepointid/_metadata')")
def savepoint_layout(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _output(resp)
    if out is None:
        return []
    sp = out["savepoint"]
    if out["savepoint_path"] is None:
        return [Violation("CSR-8", f"no savepoint directory, but savepoint {sp!r}")] if isinstance(sp, Mapping) else []
    if not isinstance(sp, Mapping):
        return []
    prefix = _join(out["savepoint_path"], f"savepoint-{req['input']['job_id'][:6]}-")
    if sp["directory_prefix"] != prefix or sp["metadata"] != "_metadata" or sp["random_chars"] <= 0:
        return [Violation("CSR-8", f"savepoint {sp}, expected the prefix {prefix!r} and _metadata")]
    return []


@BOOK.invariant("CSR-9", STORAGE, "A file-system storage's file-state threshold is at most 1 MB (20 kb when unset) "
                "and its write buffer at least the threshold (4096 bytes when unset).",
                f"{OPTIONS}: state.storage.fs.memory-threshold ('The max memory threshold for this configuration is "
                "1MB', default 20kb), state.storage.fs.write-buffer-size ('the maximum of the value of this option "
                "and option state.storage.fs.memory-threshold', default 4096)")
def file_state_sizes(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _output(resp)
    if out is None or out["storage"] != FS:
        return []
    threshold, buffer = out["file_state_threshold"], out["write_buffer_size"]
    if threshold is None or buffer is None:
        return [Violation("CSR-9", "a file-system storage without a file-state threshold or write buffer")]
    if not 0 <= threshold <= MIB:
        return [Violation("CSR-9", f"the file-state threshold {threshold} is outside [0, 1 MB]")]
    if buffer < threshold:
        return [Violation("CSR-9", f"the write buffer {buffer} is smaller than the threshold {threshold}")]
    unset_threshold = configured(req, "threshold", version) is None
    if unset_threshold and threshold != THRESHOLD_DEFAULT:
        return [Violation("CSR-9", f"no threshold is configured, but it is {threshold}")]
    if configured(req, "buffer", version) is None and buffer != max(BUFFER_DEFAULT, threshold):
        return [Violation("CSR-9", f"no write buffer is configured, but it is {buffer}")]
    return []


# the documented values of each option: names of the release's backends and storages, directories with a
# scheme below the root, sizes and booleans
_DIRECTORY = re.compile(r"(?:(?:hdfs|s3|s3a|gs|oss|viewfs)://[a-z0-9.\-]+(?::\d+)?|file://|file:)"
                        r"(?:/[A-Za-z0-9_\-]+)+")
_SIZE = re.compile(r"\d{1,9}(?:b|kb|mb)?")
_BUFFER = re.compile(r"\d{1,9}")


def _documented_config(req: Request, version: FlinkVersion) -> bool:
    """A checkpoint-storage configuration the documentation calls valid."""
    backends = ("hashmap", "rocksdb", *(("jobmanager", "filesystem") if version < LEGACY_BACKENDS_REMOVED.at
                                        else ("forst",)))
    checks: dict[str, Callable[[str], object]] = {
        "backend": lambda val: val in backends, "storage": lambda val: val in ("jobmanager", "filesystem"),
        "checkpoints": _DIRECTORY.fullmatch, "savepoints": _DIRECTORY.fullmatch,
        "threshold": _SIZE.fullmatch, "buffer": _BUFFER.fullmatch,
        "subdir": lambda val: val.lower() in ("true", "false")}
    config = _config(req)
    for name, check in checks.items():
        if any(k in config and not check(str(config[k])) for k in option_keys(name, version)):
            return False
    return not (configured(req, "storage", version) == "filesystem" and configured(req, "checkpoints", version) is None
                and not _legacy_backend(req, version))


BOOK.accepted("CSR-ACCEPTED", STORAGE, _documented_config,
              "whose checkpoint-storage configuration the documentation calls valid",
              f"{DOCS} and {OPTIONS}: the state backend hashmap or rocksdb (jobmanager and filesystem until 1.20, "
              "forst from 2.0), the storage jobmanager or filesystem (with a checkpoint directory), directories as "
              "URIs with a scheme below the root, sizes and booleans")
