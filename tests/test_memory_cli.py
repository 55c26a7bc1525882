"""`flinkspec memory`: the breakdown as Flink's startup log prints it, errors as Flink throws them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Flink's own TaskManager log for taskmanager.memory.process.size: 1728m (the default
# flink-conf.yaml), as printed by TaskExecutorProcessUtils at start-up.
FLINK_LOG_1728M = """\
Final TaskExecutor Memory configuration:
  Total Process Memory:          1.688gb (1811939328 bytes)
    Total Flink Memory:          1.250gb (1342177280 bytes)
      Total JVM Heap Memory:     512.000mb (536870902 bytes)
        Framework:               128.000mb (134217728 bytes)
        Task:                    384.000mb (402653174 bytes)
      Total Off-heap Memory:     768.000mb (805306378 bytes)
        Managed:                 512.000mb (536870920 bytes)
        Total JVM Direct Memory: 256.000mb (268435458 bytes)
          Framework:             128.000mb (134217728 bytes)
          Task:                  0 bytes
          Network:               128.000mb (134217730 bytes)
    JVM Metaspace:               256.000mb (268435456 bytes)
    JVM Overhead:                192.000mb (201326592 bytes)
"""


def memory(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "flinkspec.cli", "memory", *args], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)


def test_breakdown_matches_flinks_startup_log() -> None:
    """The default 1728m TaskManager prints exactly what Flink logs at start-up."""
    res = memory("-D", "taskmanager.memory.process.size=1728m", "--flink", "1.17")
    assert res.returncode == 0, res.stderr
    assert FLINK_LOG_1728M in res.stdout
    assert "-Xmx536870902 -Xms536870902 -XX:MaxDirectMemorySize=268435458 -XX:MaxMetaspaceSize=268435456" in res.stdout


def test_config_yaml_nested_and_legacy_flink_conf(tmp_path: Path) -> None:
    """A nested 2.x config.yaml and a legacy flink-conf.yaml give the same answer as -D."""
    nested = tmp_path / "config.yaml"
    nested.write_text("taskmanager:\n  memory:\n    process:\n      size: 16g\n")
    legacy = tmp_path / "flink-conf.yaml"
    legacy.write_text("# comment\ntaskmanager.memory.process.size: 16g\n")
    answers = []
    for args in (("--config", str(nested)), ("--config", str(legacy)), ("-D", "taskmanager.memory.process.size=16g")):
        res = memory(*args, "--flink", "1.16", "--json")
        assert res.returncode == 0, res.stderr
        answers.append(json.loads(res.stdout))
    assert answers[0] == answers[1] == answers[2]
    assert answers[0]["network"] == 1 << 30  # 1.16 caps network memory at its 1g default max


def test_rejected_configuration_prints_flinks_error_and_exits_1() -> None:
    """A configuration Flink rejects prints its exception and message, exit 1."""
    res = memory("--jobmanager", "-D", "jobmanager.memory.process.size=500m", "--flink", "1.17")
    assert res.returncode == 1
    assert ("IllegalConfigurationException: JobManager memory configuration failed: The configured Total Flink "
            "Memory (52.000mb (54525952 bytes)) is less than the configured Off-heap Memory") in res.stdout


def test_bad_files_and_versions_are_usage_errors(tmp_path: Path) -> None:
    """A file that is not YAML, a missing file, a bad -D and an unknown version exit 2 naming the cause."""
    bad = tmp_path / "config.yaml"
    bad.write_text("a: [b\n")
    for args, says in [(("--config", str(bad)), "is not valid YAML"),
                       (("--config", str(tmp_path / "nope.yaml")), "cannot read"),
                       (("-D", "novalue"), "not of the form key=value"),
                       (("--flink", "3.0", "-D", "taskmanager.memory.process.size=1g"), "unknown Flink version")]:
        res = memory(*args)
        assert res.returncode == 2, (args, res.stdout, res.stderr)
        assert says in res.stderr and "Traceback" not in res.stderr


def test_partitions_that_fit_exactly() -> None:
    """`--partitions`: 2048 buffers of a 1g TaskManager hold a PIPELINED partition of 2047 subpartitions."""
    res = memory("-D", "taskmanager.memory.process.size=1g", "--partitions", "1x2047:PIPELINED", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert (out["fits"], out["network_buffers"], out["required"], out["available"]) == (True, 2048, 2048, 0)


def test_partitions_one_buffer_short_print_flinks_error() -> None:
    """One subpartition more does not fit: exit 1 with Flink's IOException."""
    res = memory("-D", "taskmanager.memory.process.size=1g", "--partitions", "1x2048:PIPELINED")
    assert res.returncode == 1, res.stderr
    assert "IOException: Insufficient number of network buffers: required 2049, but only 2048 available." \
        in res.stdout


def test_gates_and_partitions_fit_at_1_16() -> None:
    """`--gates 2x100 --partitions 1x200` at 1.16: 201 + 2 * (1 + 200) = 603 of 2048 buffers."""
    res = memory("--flink", "1.16", "-D", "taskmanager.memory.process.size=1g", "--gates", "2x100", "--partitions",
                 "1x200", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert (out["fits"], out["required"], out["available"]) == (True, 603, 1445)
    assert out["gates"][0] == {"floating_min": 1, "floating_max": 8, "exclusive_per_channel": 2, "exclusive": 200}


def test_gates_one_buffer_short_print_flinks_error() -> None:
    """400 buffers: after 201 for the partition and 1 for the gate's floating pool, the 100th channel finds 0."""
    size = f"{400 * 32768}b"
    res = memory("--flink", "1.14", "-D", "taskmanager.memory.process.size=1g", "-D",
                 f"taskmanager.memory.network.min={size}", "-D", f"taskmanager.memory.network.max={size}",
                 "--gates", "1x100", "--partitions", "1x200")
    assert res.returncode == 1, res.stderr
    assert "IOException: Insufficient number of network buffers: required 2, but only 0 available." in res.stdout


def test_gates_of_every_release_with_local_channels_and_types() -> None:
    """`--gates 1x600:BLOCKING,1x2+3` at 2.3: the batch gate requires 1000 buffers (1 exclusive per channel, a
    floating pool of 400 ... 608), the other 2 remote and 3 local channels (4 exclusive, 1 floating)."""
    res = memory("-D", "taskmanager.memory.process.size=1g", "--gates", "1x600:BLOCKING,1x2+3", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["gates"] == [{"floating_min": 400, "floating_max": 608, "exclusive_per_channel": 1, "exclusive": 600},
                            {"floating_min": 1, "floating_max": 8, "exclusive_per_channel": 2, "exclusive": 4}]
    text = memory("--flink", "1.13", "-D", "taskmanager.memory.process.size=1g", "--gates", "1x2+3:BLOCKING")
    assert text.returncode == 0, text.stderr
    assert "input gate 0: 2 remote and 3 local channels, consuming BLOCKING: 4 exclusive buffers" in text.stdout


def test_bad_partitions_and_gates_are_usage_errors() -> None:
    """A malformed --partitions or --gates, or a partition type the release does not have (hybrid before 1.16),
    exit 2."""
    for args in (("--partitions", "2by100"), ("--flink", "1.15", "--partitions", "1x5:HYBRID_FULL"),
                 ("--gates", "2x0"), ("--gates", "1x2+x"), ("--flink", "1.15", "--gates", "1x2:HYBRID_FULL"),
                 ("--flink", "1.16", "--gates", "2by100")):
        res = memory("-D", "taskmanager.memory.process.size=1g", *args)
        assert res.returncode == 2, (args, res.stdout, res.stderr)


def test_consumers_share_a_slot_by_the_default_weights() -> None:
    """`--consumers`: RocksDB, Python and two operators (weights 1, 2) at 2.3 share a slot by the default weights
    OPERATOR:70,STATE_BACKEND:70,PYTHON:30: 70/170 each to the operators and the state backend, 30/170 to Python."""
    res = memory("-D", "taskmanager.memory.process.size=4g", "-D", "state.backend.type=rocksdb", "--consumers",
                 "OPERATOR,STATE_BACKEND,PYTHON", "--operator-weights", "1,2", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["managed"] == 1438814063  # the breakdown is still there
    assert out["consumers"] == {
        "weights": {"OPERATOR": 70, "STATE_BACKEND": 70, "PYTHON": 30},
        "fractions": {"OPERATOR": "0.4117647058823529", "STATE_BACKEND": "0.4117647058823529",
                      "PYTHON": "0.1764705882352941"},
        "operator_fractions": ["0.1372549019607843", "0.2745098039215686"]}
    text = memory("-D", "taskmanager.memory.process.size=4g", "--consumers", "OPERATOR,STATE_BACKEND,PYTHON")
    assert text.returncode == 0, text.stderr
    # the default state backend (hashmap) uses no managed memory: its share is 0 and its weight does not count
    assert ("Managed memory of a slot, shared by its consumers (weights read: OPERATOR 70, STATE_BACKEND 70, "
            "PYTHON 30):\n  OPERATOR:      0.7\n  STATE_BACKEND: 0\n  PYTHON:        0.3\n") in text.stdout


def test_consumers_read_the_weights_as_the_release_reads_them() -> None:
    """DATAPROC weighs OPERATOR until 1.20; 2.0 no longer reads it, so Python takes the whole slot."""
    args = ("-D", "taskmanager.memory.process.size=1g", "-D",
            "taskmanager.memory.managed.consumer-weights=DATAPROC:3,PYTHON:1", "--consumers", "OPERATOR,PYTHON",
            "--json")
    shares = {}
    for version in ("1.20", "2.0"):
        res = memory(*args, "--flink", version)
        assert res.returncode == 0, res.stderr
        shares[version] = json.loads(res.stdout)["consumers"]
    assert shares["1.20"]["fractions"] == {"OPERATOR": "0.75", "PYTHON": "0.25"}
    assert shares["2.0"] == {"weights": {"PYTHON": 1}, "fractions": {"OPERATOR": "0", "PYTHON": "1"},
                             "operator_fractions": []}


def test_consumer_weights_flink_refuses_print_its_error_and_exit_1() -> None:
    """A weight that is no int, or a negative one: Flink's exception when a task starts, exit 1."""
    for weights, says in (("OPERATOR:abc", 'NumberFormatException: For input string: "abc"'),
                          ("PYTHON:-1", "IllegalConfigurationException: Managed memory weight should not be negative. "
                                        "Configured weight for PYTHON is -1.")):
        res = memory("-D", "taskmanager.memory.process.size=1g", "-D",
                     f"taskmanager.memory.managed.consumer-weights={weights}", "--consumers", "OPERATOR,PYTHON")
        assert res.returncode == 1, (weights, res.stdout, res.stderr)
        assert f"Flink 2.3 rejects the managed memory consumer weights (when a task starts):\n{says}" in res.stdout
        as_json = memory("-D", "taskmanager.memory.process.size=1g", "-D",
                         f"taskmanager.memory.managed.consumer-weights={weights}", "--consumers", "PYTHON", "--json")
        assert as_json.returncode == 1 and "consumers_error" in json.loads(as_json.stdout)


def test_bad_consumers_are_usage_errors() -> None:
    """An unknown or repeated use case, a bad operator weight, operator weights without OPERATOR or without
    --consumers, --consumers with --jobmanager or --partitions: exit 2 naming what was wrong."""
    for args, says in ((("--consumers", "operator"), "'operator' is no use case"),
                       (("--consumers", "PYTHON,PYTHON"), "PYTHON is named twice"),
                       (("--consumers", ","), "name one use case or more"),
                       (("--consumers", "OPERATOR", "--operator-weights", "0"), "'0' is no operator weight"),
                       (("--consumers", "PYTHON", "--operator-weights", "1"), "--consumers must name it"),
                       (("--operator-weights", "1",), "--operator-weights needs --consumers"),
                       (("--consumers", "PYTHON", "--partitions", "1x1"), "not with --jobmanager, --partitions")):
        res = memory("-D", "taskmanager.memory.process.size=1g", *args)
        assert res.returncode == 2, (args, res.stdout, res.stderr)
        assert says in res.stderr and "Traceback" not in res.stderr, (args, res.stderr)
