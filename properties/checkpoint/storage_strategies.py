"""Requests for ``checkpoint.storage``: configurations on and around every rule of where snapshots go.

A request draws which of the keys it sets, each in one of its spellings of any release (the current key,
its deprecated keys, and the 1.20 ``execution.checkpointing.*`` names even where the release does not
know them yet, so a spelling a release ignores is sent too), then the values: state backends and
storages by name in any case, unknown names and a JDK class that is no factory; directories with and
without a scheme, at and below the root, with an authority (``file://host/x``), Windows drives, doubled,
trailing and back slashes, ``.`` and ``..`` segments, spaces and non-ASCII letters, malformed schemes;
sizes on both sides of the 1 MiB threshold limit and values that do not parse. Job ids are random, the
checkpoint id is 0, small or ``Long.MAX_VALUE``.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from oracle.checkpoint_storage import LEGACY_BACKENDS_REMOVED, STORAGE
from oracle.versions import FlinkVersion
from properties.draws import integers, lists_of, sampled

AREA = STORAGE

KEYS = {
    "backend": ("state.backend.type", "state.backend"),
    "storage": ("execution.checkpointing.storage", "state.checkpoint-storage"),
    "checkpoints": ("execution.checkpointing.dir", "state.checkpoints.dir", "state.backend.fs.checkpointdir"),
    "savepoints": ("execution.checkpointing.savepoint-dir", "state.savepoints.dir", "savepoints.state.backend.fs.dir"),
    "threshold": ("execution.checkpointing.data-inline-threshold", "state.storage.fs.memory-threshold",
                  "state.backend.fs.memory-threshold"),
    "buffer": ("execution.checkpointing.write-buffer-size", "state.storage.fs.write-buffer-size",
               "state.backend.fs.write-buffer-size"),
    "subdir": ("execution.checkpointing.create-subdir", "state.checkpoints.create-subdir"),
}
# each pool: values most configurations use, then the corners (drawn a sixth of the time)
BACKENDS = (("hashmap", "rocksdb", "jobmanager", "filesystem", "HashMap", "JobManager", "FILESYSTEM", "RocksDB"),
            ("forst", "bogus", "", "java.lang.String", "memory", "ForSt"))
STORAGES = (("jobmanager", "filesystem", "JobManager", "FileSystem", "FILESYSTEM"),
            ("bogus", "", "java.lang.Object", "hdfs"))
SCHEMES = (("file:/", "file:///", "hdfs://nn:8020/", "hdfs:///", "s3://bucket/", "s3a://b.x/", "gs://bkt/",
            "oss://b/", "viewfs://cluster/", "file:/C:/", "s+3.x-y://h/", "file://host/"),
           ("file://tmp/", "", "/", "C:/", "/D:/", "c:\\", "1x:/", "my scheme:/", "file:", "hdfs:",
            "x:/", "s:/", "//host/", "file:/D:"))
SEGMENTS = ("flink", "checkpoints", "ckpt", "a", "b", ".", "..", "x y", "ünï", "日本", "job-1", "_x", "a.b",
            "sp", "savepoints", "~", "a@b", "c=d", "e+f", "g,h", "i;j", "k:l")
SIZES = (("0", "1", "1b", "20kb", "20 kb", "1mb", "1048576", "1048577", "1025kb", "2mb", "4 mb", "100", "4096",
          "9223372036854775807", "1gb", "10 KB", "1k", "0b"), ("abc", "-1", "", "1 parsec"))
BUFFERS = (("0", "1", "100", "4096", "4095", "8192", "65536", "1048576", "2000000", "-5", "-1", "2147483647"),
           ("2147483648", "abc", "1k", "", " 4096"))
BOOLEANS = (("true", "false", "false", "FALSE", "True"), ("nope", ""))


def _pool(pools: tuple[tuple[str, ...], tuple[str, ...]]) -> st.SearchStrategy[str]:
    common, corners = pools
    return integers(0, 5).flatmap(lambda i: sampled(corners if i == 0 else common))


@st.composite
def paths(draw: st.DrawFn) -> str:
    """A directory value: a scheme part, 0-4 segments, maybe a trailing slash or backslashes."""
    head = draw(_pool(SCHEMES))
    segments = draw(lists_of(SEGMENTS, min_size=draw(sampled([0, 1, 1, 1, 1, 2])),
                             max_size=4))
    sep = draw(sampled(["/", "/", "/", "//", "\\"]))
    body = sep.join(segments)
    tail = draw(sampled(["", "", "", "/", "//", "\\"])) if segments else ""
    return head + body + tail


@st.composite
def configs(draw: st.DrawFn, version: FlinkVersion) -> dict[str, str]:
    config: dict[str, str] = {}
    backends = BACKENDS if version < LEGACY_BACKENDS_REMOVED.at else (
        (*BACKENDS[0][:2], "forst", "HASHMAP"), BACKENDS[0][2:])
    values = {"backend": _pool(backends), "storage": _pool(STORAGES), "checkpoints": paths(),
              "savepoints": paths(), "threshold": _pool(SIZES), "buffer": _pool(BUFFERS),
              "subdir": _pool(BOOLEANS)}
    odds = {"backend": 3, "storage": 3, "checkpoints": 2, "savepoints": 2, "threshold": 2, "buffer": 4, "subdir": 2}
    for name, keys in KEYS.items():
        if draw(integers(0, odds[name] - 1)) != 0:
            continue
        chosen = draw(lists_of(keys, min_size=1, max_size=2, unique=True))
        for key in chosen:  # two spellings of one option: the first the release looks up wins
            config[key] = draw(values[name])
    if draw(integers(0, 9)) == 0:
        config["state.checkpoints.num-retained"] = "3"  # another checkpoint key: no part in the storage
    return config


_job_ids = st.binary(min_size=16, max_size=16).map(bytes.hex)
_checkpoint_ids = st.one_of(st.sampled_from([0, 1, 7, 2**63 - 1]), integers(0, 10**6))


@st.composite
def inputs(draw: st.DrawFn, version: FlinkVersion) -> dict[str, Any]:
    return {"config": draw(configs(version)), "job_id": draw(_job_ids), "checkpoint_id": draw(_checkpoint_ids)}


def requests(version: FlinkVersion) -> st.SearchStrategy[dict[str, Any]]:
    """Protocol requests for ``checkpoint.storage`` and ``version``."""
    return inputs(version).map(lambda i: {"area": AREA, "flink": str(version), "input": i})


def corpus_key(version: FlinkVersion) -> object:
    """Versions on one side of the legacy backends' removal draw the same requests."""
    return version >= LEGACY_BACKENDS_REMOVED.at
