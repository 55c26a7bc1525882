"""Protocol area ``checkpoint.storage``: where a job's snapshots go (CST-1 ... CST-15, declared in :data:`RULES`).

From one configuration (the cluster's and the job's), as a JobManager builds a job: the state backend
(``StateBackendLoader.fromApplicationOrConfigOrDefault``), then the checkpoint storage
(``CheckpointStorageLoader.load``: a legacy state backend that is a storage itself, else
``state.checkpoint-storage`` / ``execution.checkpointing.storage``, else the default), its settings, and
for a job id and a checkpoint id the directories ``createCheckpointStorage(jobId)`` lays out for a
checkpoint and for a savepoint. Path values are Flink ``Path`` s (:mod:`oracle.flinkpath`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import attrs

from oracle.changes import Change
from oracle.classloading import jdk_classes
from oracle.explain import at, because, decided_here, rejected_because
from oracle.flinkpath import FlinkPath, InvalidPath, UnmodelledPath, parse
from oracle.javanum import IllegalArgumentException, JavaException
from oracle.memory_options import ConfigOption, Configuration, FallbackKey, IllegalConfigurationException
from oracle.memsize import MemorySize
from oracle.protocol import AreaFn, BadRequest, NotModelled, Rejected, field, java_long, string_map
from oracle.rules import Declared
from oracle.versions import FlinkVersion, pick

STORAGE = "checkpoint.storage"  # the protocol area (docs/protocol)

# The rules this module encodes, each declared once (properties/oracle_rules.py says what checks each).
RULES: tuple[Declared, ...] = (
    Declared("CST-1",
             "The state backend is read from state.backend (1.13-1.16) / state.backend.type (1.17 on, deprecated key "
             "state.backend), case-insensitively: hashmap, rocksdb, forst (2.0 on), and until 1.20 jobmanager (the "
             "legacy MemoryStateBackend) and filesystem (a HashMapStateBackend); anything else is a factory class: "
             "DynamicCodeLoadingException(\"Cannot find configured state backend factory class: <value>\") when "
             "there is no such class, \"The class configured under '<key>' is not a valid state backend factory "
             "(<value>)\" when it is no factory. Unset: HashMapStateBackend.",
             "StateBackendLoader.loadStateBackendFromConfig (state.backend.type in 1.17, its Flink issue not "
             "found; the legacy backends removed in 2.0 by FLINK-36323)"),
    Declared("CST-2",
             "A legacy state backend that is a CheckpointStorage (MemoryStateBackend) is the job's checkpoint "
             "storage, whatever the storage option says (2.0 has no such backend).",
             "CheckpointStorageLoader.load", until="2.0"),
    Declared("CST-3",
             "Else the storage is read from state.checkpoint-storage (execution.checkpointing.storage from 1.20, "
             "the old key deprecated), lower-cased: jobmanager, filesystem, or a factory class (the state-backend "
             "messages of CST-1, with 'not a valid checkpoint storage factory'); unset: FileSystemCheckpointStorage "
             "if a checkpoint directory is configured, else JobManagerCheckpointStorage.",
             "CheckpointStorageLoader.fromConfig / createDefaultCheckpointStorage"),
    Declared("CST-4",
             "The directory keys: state.checkpoints.dir (deprecated state.backend.fs.checkpointdir) and "
             "state.savepoints.dir (deprecated savepoints.state.backend.fs.dir); from 1.20 execution.checkpointing.dir"
             " and execution.checkpointing.savepoint-dir, every older key deprecated in that order.",
             "CheckpointingOptions.CHECKPOINTS_DIRECTORY / SAVEPOINT_DIRECTORY (FLINK-34482, FLIP-406, 1.20)"),
    Declared("CST-5",
             "FileSystemCheckpointStorage needs a checkpoint directory: IllegalConfigurationException(\"Cannot create "
             "the file system state backend: The configuration does not specify the checkpoint directory '<key>'\").",
             "FileSystemCheckpointStorage.createFromConfig"),
    Declared("CST-6",
             "A configured directory must have a scheme (\"The scheme (hdfs://, file://, etc) is null. Please "
             "specify the file system scheme explicitly in the URI.\") and a parent (\"Cannot use the root directory"
             " for checkpoints.\"); an IllegalArgumentException while a storage is created becomes "
             "IllegalConfigurationException(\"Invalid configuration for the state backend\").",
             "ExternalizedSnapshotLocation.validatePath, FileSystemCheckpointStorage / JobManagerCheckpointStorage"
             ".createFromConfig"),
    Declared("CST-7",
             "A directory read from the configuration that is no Path is IllegalConfigurationException(\"Cannot "
             "parse value for <key> . Not a valid path.\"), not wrapped.",
             "ExternalizedSnapshotLocation.parameterOrConfigured"),
    Declared("CST-8",
             "The legacy MemoryStateBackend reads both directories itself: \"Cannot parse value for <key> : <value> "
             ". Not a valid path.\", and checks the scheme and a non-root path (\"\" or \"/\") with "
             "IllegalArgumentExceptions that are not wrapped (the create-subdir option, 1.19-1.20, likewise); its "
             "maximum state size is 5 MiB.",
             "AbstractFileStateBackend, MemoryStateBackend, MemoryStateBackendFactory (1.13-1.20)", until="2.0"),
    Declared("CST-9",
             "The file-state threshold is state.storage.fs.memory-threshold (deprecated state.backend.fs.memory-"
             "threshold; from 1.20 execution.checkpointing.data-inline-threshold), default 20 kb; a value outside "
             "[0, 1 MiB] is ignored for the default. The write buffer is state.storage.fs.write-buffer-size "
             "(likewise; 1.20: execution.checkpointing.write-buffer-size), default 4096, raised to the threshold.",
             "FileSystemCheckpointStorage(original, configuration), getMinFileSizeThreshold, getWriteBufferSize"),
    Declared("CST-10",
             "JobManagerCheckpointStorage keeps at most 5 MiB of state (not configurable from the configuration).",
             "JobManagerCheckpointStorage.DEFAULT_MAX_STATE_SIZE"),
    Declared("CST-11",
             "A checkpoint lives in <checkpoints>/chk-<id> with its metadata in _metadata; <checkpoints> is "
             "<dir>/<job id>, or <dir> itself with state.checkpoints.create-subdir false (1.19 on, "
             "execution.checkpointing.create-subdir from 1.20); a file-system storage keeps shared/ and taskowned/ "
             "beside the chk-<id> directories. A JobManager storage without a directory keeps the metadata in "
             "memory.",
             "FsCheckpointStorageAccess, MemoryBackendCheckpointStorageAccess, AbstractFsCheckpointStorageAccess "
             "(FLINK-33057: create-subdir, 1.19)"),
    Declared("CST-12",
             "A savepoint goes to <savepoint dir>/savepoint-<first 6 chars of the job id>-<12 random chars>, its "
             "metadata in _metadata; without a savepoint directory there is none.",
             "AbstractFsCheckpointStorageAccess.initializeLocationForSavepoint, FileUtils.getRandomFilename"),
    Declared("CST-15",
             "A savepoint directory that is not absolute (a Windows drive not followed by a slash, /C:x) cannot be "
             "qualified: IOException(\"Failed to create savepoint directory at <savepoint dir>\") after ten "
             "attempts.",
             "AbstractFsCheckpointStorageAccess.initializeLocationForSavepoint, Path.makeQualified / isAbsolute"),
    Declared("CST-13",
             "A file: path with an authority cannot be used: IOException(\"Found local file path with authority "
             "'<authority>' in path '<uri>'. Hint: Did you forget a slash? (correct path would be "
             "'file:///<authority><path>')\") when the job's storage access or a savepoint location is created.",
             "FileSystem.getUnguardedFileSystem"),
    Declared("CST-14",
             "A Path keeps the text as given (no trim), turns backslashes into slashes, collapses slashes, drops a "
             "trailing slash and . / x/.. segments, and prints file:///x as file:/x.",
             "org.apache.flink.core.fs.Path, java.net.URI (JDK 17)"),
)

JOB = "0123456789abcdef0123456789abcdef"  # the job id of the changes' witnesses


def _witness(**config: str) -> dict[str, Any]:
    return {"config": config, "job_id": JOB, "checkpoint_id": 17}


# Flink's changes in this area, each written once; the tables below read them
BACKEND_TYPE_KEY = Change(
    since="1.17", what="the state backend is read from state.backend.type (state.backend its deprecated key)",
    witnesses=(_witness(**{"state.backend.type": "rocksdb"}),))
BACKEND_DEFAULT = Change(
    since="1.19", what="state.backend.type has the default hashmap (before: no default)",
    unseen="unset, or hashmap by default: the backend is a HashMapStateBackend either way")
CREATE_SUBDIR = Change(
    since="1.19", issue="FLINK-33057",
    what="state.checkpoints.create-subdir: false puts chk-<id> directly under the checkpoint directory",
    witnesses=(_witness(**{"state.checkpoints.dir": "file:/c", "state.checkpoints.create-subdir": "false"}),))
CHECKPOINTING_KEYS = Change(
    since="1.20", issue="FLINK-34482",
    what="checkpointing options renamed execution.checkpointing.* (storage, dir, savepoint-dir, "
    "data-inline-threshold, write-buffer-size, create-subdir), the old keys deprecated",
    witnesses=(_witness(**{"execution.checkpointing.dir": "s3://b/ckpt",
                           "execution.checkpointing.savepoint-dir": "s3://b/sp"}),))
LEGACY_BACKENDS_REMOVED = Change(
    since="2.0", issue="FLINK-36323",
    what="the legacy state backends removed: jobmanager (MemoryStateBackend) and filesystem are no backend names",
    witnesses=(_witness(**{"state.backend": "jobmanager"}), _witness(**{"state.backend": "filesystem"})))
FORST = Change(since="2.0", what="the forst state backend (ForStStateBackend)",
               witnesses=(_witness(**{"state.backend.type": "forst"}),))
CHANGES: dict[str, tuple[Change, ...]] = {STORAGE: (
    BACKEND_TYPE_KEY, BACKEND_DEFAULT, CREATE_SUBDIR, CHECKPOINTING_KEYS, LEGACY_BACKENDS_REMOVED, FORST)}


def _renamed(*old: str) -> dict[FlinkVersion, tuple[str, ...]]:
    """An option's keys (the key, then its fallbacks) before and after CHECKPOINTING_KEYS."""
    new = {"state.checkpoint-storage": "execution.checkpointing.storage",
           "state.checkpoints.dir": "execution.checkpointing.dir",
           "state.savepoints.dir": "execution.checkpointing.savepoint-dir",
           "state.storage.fs.memory-threshold": "execution.checkpointing.data-inline-threshold",
           "state.storage.fs.write-buffer-size": "execution.checkpointing.write-buffer-size",
           "state.checkpoints.create-subdir": "execution.checkpointing.create-subdir"}[old[0]]
    return CHECKPOINTING_KEYS.table(old, (new, *old))


# CheckpointingOptions / StateBackendOptions keys, by first release (the option's key, then its fallbacks)
_KEYS: Mapping[str, Mapping[FlinkVersion, tuple[str, ...]]] = {
    "backend": BACKEND_TYPE_KEY.table(("state.backend",), ("state.backend.type", "state.backend")),
    "storage": _renamed("state.checkpoint-storage"),
    "checkpoints": _renamed("state.checkpoints.dir", "state.backend.fs.checkpointdir"),
    "savepoints": _renamed("state.savepoints.dir", "savepoints.state.backend.fs.dir"),
    "threshold": _renamed("state.storage.fs.memory-threshold", "state.backend.fs.memory-threshold"),
    "buffer": _renamed("state.storage.fs.write-buffer-size", "state.backend.fs.write-buffer-size"),
    "subdir": {**CREATE_SUBDIR.table((), ("state.checkpoints.create-subdir",)),
               CHECKPOINTING_KEYS.at: _renamed("state.checkpoints.create-subdir")[CHECKPOINTING_KEYS.at]},
}
# the state backend names StateBackendLoader knows: name -> the backend's simple class name
_CURRENT_BACKENDS = {"hashmap": "HashMapStateBackend", "rocksdb": "EmbeddedRocksDBStateBackend"}
_LEGACY_BACKENDS = LEGACY_BACKENDS_REMOVED.table(
    {"jobmanager": "MemoryStateBackend", "filesystem": "HashMapStateBackend"}, {})
_FORST_BACKEND = FORST.table({}, {"forst": "ForStStateBackend"})


def backends(version: FlinkVersion) -> dict[str, str]:
    """CST-1: the state backend names of ``version``, each with its backend's simple class name."""
    return {**pick(_LEGACY_BACKENDS, version), **_CURRENT_BACKENDS, **pick(_FORST_BACKEND, version)}


BACKEND_DEFAULTS = BACKEND_DEFAULT.table(None, "hashmap")  # StateBackendOptions.STATE_BACKEND's default
CHANGELOG_KEYS = ("state.backend.changelog.enabled", "state.changelog.enabled")
MAX_STATE_SIZE = 5 * 1024 * 1024
THRESHOLD_DEFAULT, THRESHOLD_MAX, BUFFER_DEFAULT = 20 * 1024, 1024 * 1024, 4096
JOB_ID = re.compile(r"[0-9a-f]{32}")
RANDOM_CHARS = 12  # FileUtils.getRandomFilename
SHORT_JOB_ID = 6  # the job id's characters in a savepoint's name


class DynamicCodeLoadingException(JavaException):
    """``org.apache.flink.util.DynamicCodeLoadingException``."""


class IOException(JavaException):
    """``java.io.IOException``."""


def option_keys(name: str, version: FlinkVersion) -> tuple[str, ...]:
    """The keys of option ``name`` (``backend``, ``storage``, ``checkpoints``, ``savepoints``, ``threshold``,
    ``buffer``, ``subdir``) at ``version``: its key, then its deprecated keys in the order Flink reads them."""
    return pick(_KEYS[name], version)


def _option(name: str, version: FlinkVersion, kind: str = "string", default: Any = None) -> ConfigOption:
    keys = option_keys(name, version)
    return ConfigOption(keys[0], kind, default, "null", tuple(FallbackKey(k, True) for k in keys[1:]))


@attrs.frozen
class Storage:
    """A checkpoint storage: its class, its directories and settings."""

    kind: str
    checkpoints: FlinkPath | None = None
    savepoints: FlinkPath | None = None
    max_state_size: int | None = None
    threshold: int | None = None
    buffer: int | None = None
    subdirs: bool = True


def _class_lookup(value: str, key: str, what: str) -> JavaException:
    """CST-1 / CST-3: a value that names no known backend or storage is a factory class name."""
    if value.startswith(("org.apache.flink.", "flinkspec.", "[")):
        raise NotModelled("input.config", f"the class {value!r} as a factory")
    if value in jdk_classes():
        return DynamicCodeLoadingException(f"The class configured under '{key}' is not a valid {what} factory "
                                           f"({value})")
    return DynamicCodeLoadingException(f"Cannot find configured state backend factory class: {value}")


def state_backend(conf: Configuration, version: FlinkVersion) -> str:
    """CST-1: ``StateBackendLoader.loadStateBackendFromConfig`` (or the default); the backend's class name."""
    option = _option("backend", version, default=pick(BACKEND_DEFAULTS, version))
    name = conf.get(option)
    if name is None:
        return "HashMapStateBackend"
    backend = backends(version).get(name.lower())
    if backend is None:
        raise _class_lookup(name, option.key, "state backend")
    return backend


def _path_of(conf: Configuration, option: ConfigOption, legacy: bool) -> FlinkPath | None:
    """``parameterOrConfigured``: the configured directory as a Path (CST-7, CST-8)."""
    raw = conf.raw(option)
    if raw is None:
        return None
    try:
        return _parse(str(raw))
    except InvalidPath:
        value = f" : {raw}" if legacy else ""
        raise IllegalConfigurationException(f"Cannot parse value for {option.key}{value} . Not a valid path.") from None


def _parse(text: str) -> FlinkPath:
    try:
        return parse(text)
    except UnmodelledPath as exc:
        raise NotModelled("input.config", f"the path {text!r} ({exc})") from None


def _validate(path: FlinkPath | None, legacy: bool) -> FlinkPath | None:
    """CST-6 (``ExternalizedSnapshotLocation.validatePath``) or CST-8 (``AbstractFileStateBackend``)."""
    if path is None:
        return None
    if path.scheme is None:
        raise IllegalArgumentException("The scheme (hdfs://, file://, etc) is null. Please specify the file system "
                                       "scheme explicitly in the URI.")
    try:
        root = path.path in ("", "/") if legacy else path.parent() is None
    except InvalidPath as exc:  # getParent() builds a Path that Flink refuses
        raise IllegalArgumentException(str(exc)) from None
    if root:
        raise IllegalArgumentException("Cannot use the root directory for checkpoints.")
    return path


def subdirs(conf: Configuration, version: FlinkVersion) -> bool:
    return bool(conf.get(_option("subdir", version, "boolean", True))) if pick(_KEYS["subdir"], version) else True


def memory_state_backend(conf: Configuration, version: FlinkVersion) -> Storage:
    """CST-8: ``new MemoryStateBackend().configure(config)`` (no exception is wrapped)."""
    at("checkpoint_path")  # the legacy backend reads both directories itself
    because("CST-4", "CST-14", "CST-8")
    checkpoints = _path_of(conf, _option("checkpoints", version), legacy=True)
    savepoints = _path_of(conf, _option("savepoints", version), legacy=True)
    checkpoints, savepoints = _validate(checkpoints, True), _validate(savepoints, True)
    return Storage("MemoryStateBackend", checkpoints, savepoints, MAX_STATE_SIZE, subdirs=subdirs(conf, version))


def _externalized(conf: Configuration, version: FlinkVersion, checkpoints: FlinkPath | None) -> tuple[
        FlinkPath | None, FlinkPath | None]:
    """``ExternalizedSnapshotLocation.Builder.build`` with the configuration (CST-6, CST-7)."""
    if checkpoints is None:
        at("checkpoint_path")
        because("CST-4", "CST-14", "CST-7")
        checkpoints = _path_of(conf, _option("checkpoints", version), legacy=False)
        because("CST-6")
    _validate(checkpoints, False)
    at("savepoint_path")
    because("CST-4", "CST-14", "CST-7")
    savepoints = _path_of(conf, _option("savepoints", version), legacy=False)
    because("CST-6")
    return checkpoints, _validate(savepoints, False)


def _wrapped(exc: IllegalArgumentException) -> IllegalConfigurationException:
    return IllegalConfigurationException("Invalid configuration for the state backend", exc)


def file_system_storage(conf: Configuration, version: FlinkVersion) -> Storage:
    """CST-5, CST-6, CST-9: ``FileSystemCheckpointStorage.createFromConfig``."""
    option = _option("checkpoints", version)
    at("checkpoint_path")
    because("CST-4")
    raw = conf.raw(option)
    if raw is None:
        because("CST-5")
        raise IllegalConfigurationException("Cannot create the file system state backend: The configuration does "
                                            f"not specify the checkpoint directory '{option.key}'")
    try:
        because("CST-14", "CST-6")
        base = _validate(_parse(str(raw)), False)
        at("file_state_threshold")
        because("CST-6", "CST-9")  # a malformed size is wrapped as CST-6 says
        threshold, buffer = file_state_sizes(conf, version)
        checkpoints, savepoints = _externalized(conf, version, base)
        return Storage("FileSystemCheckpointStorage", checkpoints, savepoints, None, threshold, buffer,
                       subdirs(conf, version))
    except InvalidPath as exc:
        raise _wrapped(IllegalArgumentException(str(exc))) from None
    except IllegalArgumentException as exc:
        raise _wrapped(exc) from None


def file_state_sizes(conf: Configuration, version: FlinkVersion) -> tuple[int, int]:
    """CST-9: the file-state threshold (ignored outside [0, 1 MiB]) and the write buffer (raised to it)."""
    threshold_bytes = conf.get(_option("threshold", version, "memory", MemorySize(THRESHOLD_DEFAULT))).bytes
    threshold = threshold_bytes if 0 <= threshold_bytes <= THRESHOLD_MAX else THRESHOLD_DEFAULT
    return threshold, max(conf.get(_option("buffer", version, "int", BUFFER_DEFAULT)), threshold)


def job_manager_storage(conf: Configuration, version: FlinkVersion) -> Storage:
    """CST-6, CST-10: ``JobManagerCheckpointStorage.createFromConfig``."""
    try:
        checkpoints, savepoints = _externalized(conf, version, None)
        return Storage("JobManagerCheckpointStorage", checkpoints, savepoints, MAX_STATE_SIZE,
                       subdirs=subdirs(conf, version))
    except IllegalArgumentException as exc:
        raise _wrapped(exc) from None


def storage_name(value: str) -> str:
    """CST-3: a configured storage as ``CheckpointStorageLoader`` compares it with its shortcut names."""
    return value.lower()


def checkpoint_storage(conf: Configuration, version: FlinkVersion, backend: Storage | None) -> Storage:
    """CST-2, CST-3: ``CheckpointStorageLoader.load`` with no storage from the application."""
    at("storage")
    if backend is not None:
        because("CST-2")
        return backend
    because("CST-3")
    option = _option("storage", version)
    name = conf.get(option)
    if name is None:
        has_dir = conf.raw(_option("checkpoints", version)) is not None
        return file_system_storage(conf, version) if has_dir else job_manager_storage(conf, version)
    if storage_name(name) == "jobmanager":
        return job_manager_storage(conf, version)
    if storage_name(name) == "filesystem":
        return file_system_storage(conf, version)
    raise _class_lookup(name, option.key, "checkpoint storage")


def _file_system(path: FlinkPath) -> None:
    """CST-13: ``FileSystem.get``'s check of a local path."""
    if path.scheme == "file" and path.authority:
        supposed = f"file:///{path.authority}{path.path}"
        raise IOException(f"Found local file path with authority '{path.authority}' in path '{path.uri_string()}'. "
                          f"Hint: Did you forget a slash? (correct path would be '{supposed}')")


def layout(storage: Storage, job_id: str, checkpoint_id: int) -> dict[str, Any]:
    """CST-11 ... CST-13, CST-15: the checkpoint's and a savepoint's directories."""
    out: dict[str, Any] = {"checkpoint": None, "savepoint": None}
    at("checkpoint")
    try:
        if storage.checkpoints is not None:
            _file_system(storage.checkpoints)
    except IOException as exc:
        because("CST-13")
        at("savepoint")
        because("CST-13")
        text = f"error:IOException: {exc.message}"
        return {"checkpoint": text, "savepoint": text}
    because("CST-11")
    if storage.checkpoints is not None:
        base = storage.checkpoints.child(job_id) if storage.subdirs else storage.checkpoints
        chk = base.child(f"chk-{checkpoint_id}")
        fs = storage.kind == "FileSystemCheckpointStorage"
        out["checkpoint"] = {"directory": str(chk), "metadata": str(chk.child("_metadata")),
                             "shared": str(base.child("shared")) if fs else None,
                             "taskowned": str(base.child("taskowned")) if fs else None}
    at("savepoint")
    if storage.savepoints is None:
        because("CST-12")
    else:
        try:
            _file_system(storage.savepoints)
        except IOException as exc:
            because("CST-13")
            out["savepoint"] = f"error:IOException: {exc.message}"
            return out
        named = storage.savepoints.child(f"savepoint-{job_id[:SHORT_JOB_ID]}-x")
        if not named.is_absolute():  # makeQualified resolves it against the working directory: a URI error
            because("CST-15")
            out["savepoint"] = f"error:IOException: Failed to create savepoint directory at {storage.savepoints}"
            return out
        because("CST-12")
        prefix = str(named)[:-1]
        out["savepoint"] = {"directory_prefix": prefix, "random_chars": RANDOM_CHARS, "metadata": "_metadata"}
    return out


# the rule that decides a storage's settings, by its kind (oracle.explain)
_SETTINGS_RULE = {"MemoryStateBackend": "CST-8", "JobManagerCheckpointStorage": "CST-10",
                  "FileSystemCheckpointStorage": "CST-9"}


def _settings_decided(storage: Storage) -> None:
    """Which rule decided each setting of ``storage`` (a storage without the setting: its kind's rule)."""
    for part in ("max_state_size", "file_state_threshold", "write_buffer_size"):
        at(part)
        because(_SETTINGS_RULE[storage.kind])


def storage_area(inp: Mapping[str, Any], version: FlinkVersion) -> dict[str, Any] | Rejected:
    """The state backend, the checkpoint storage and its settings, and where a checkpoint and a savepoint go."""
    config = string_map(inp, "config", "input")
    job_id = field(inp, "job_id", str, "input")
    if not JOB_ID.fullmatch(job_id):
        raise BadRequest(f"input.job_id = {job_id!r} must be 32 lower-case hex digits (a JobID)")
    checkpoint_id = java_long(inp, "checkpoint_id", "input")
    if checkpoint_id < 0:
        raise BadRequest(f"input.checkpoint_id = {checkpoint_id} must not be negative")
    if any(k in config for k in CHANGELOG_KEYS):
        raise NotModelled("input.config", "the changelog state backend "
                         f"({', '.join(CHANGELOG_KEYS)})")
    conf = Configuration(config)
    try:
        at("state_backend")
        because("CST-1")
        backend = state_backend(conf, version)
        legacy = memory_state_backend(conf, version) if backend == "MemoryStateBackend" else None
        storage = checkpoint_storage(conf, version, legacy)
    except JavaException as exc:
        rejected_because(*decided_here()[::-1])  # the rule that threw, then those that led to it
        return Rejected(exc.simple_name, exc.message)
    _settings_decided(storage)
    return {"state_backend": backend, "storage": storage.kind,
            "checkpoint_path": None if storage.checkpoints is None else str(storage.checkpoints),
            "savepoint_path": None if storage.savepoints is None else str(storage.savepoints),
            "max_state_size": storage.max_state_size, "file_state_threshold": storage.threshold,
            "write_buffer_size": storage.buffer, **layout(storage, job_id, checkpoint_id)}


ENTRIES: dict[str, AreaFn] = {STORAGE: storage_area}
