"""`flinkspec fanout` on a real Spark standalone cluster (a master and a worker on 127.0.0.1, started
with the ``spark-daemon.sh`` that ships with PySpark): a built-in mutant submitted with
``spark-submit`` and real Flink 2.3 through ``--master spark://...`` give the same counterexamples
as embedded ``local[2]`` for the same seed. The cluster is stopped whatever happens."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest

pyspark = pytest.importorskip("pyspark")

pytestmark = [pytest.mark.spark, pytest.mark.flink]

ROOT = Path(__file__).resolve().parents[1]
SPARK_HOME = Path(pyspark.__file__).parent
MASTER, WORKER = "org.apache.spark.deploy.master.Master", "org.apache.spark.deploy.worker.Worker"
# executors must reach the driver on the loopback address, whatever the host name resolves to
DRIVER_ON_LOOPBACK = ("--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.driver.bindAddress=127.0.0.1")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def standalone_cluster(tmp: Path) -> Iterator[tuple[str, dict[str, str], Callable[[], None]]]:
    """A standalone master and one worker (2 cores) on 127.0.0.1; yields the master URL, the
    environment for spark-submit, and a function that waits until the worker has registered (the
    daemons start in the background meanwhile). Both are stopped on the way out, failure or not."""
    port, web = free_port(), free_port()
    env = {**os.environ, "SPARK_HOME": str(SPARK_HOME), "SPARK_LOG_DIR": str(tmp / "logs"),
           "SPARK_PID_DIR": str(tmp / "pids"), "SPARK_WORKER_DIR": str(tmp / "work"),
           "SPARK_IDENT_STRING": f"flinkspec-{port}", "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable}
    daemon = str(SPARK_HOME / "sbin" / "spark-daemon.sh")
    url = f"spark://127.0.0.1:{port}"

    def registered() -> None:
        deadline = time.monotonic() + 120
        while True:  # the master's status page says when the worker has registered
            with suppress(OSError, ValueError), urllib.request.urlopen(f"http://127.0.0.1:{web}/json/",
                                                                       timeout=5) as resp:
                if json.load(resp).get("aliveworkers", 0) >= 1:
                    return
            if time.monotonic() > deadline:
                raise TimeoutError(f"no worker registered; logs in {tmp / 'logs'}")
            time.sleep(0.5)

    try:
        subprocess.run([daemon, "start", MASTER, "1", "--host", "127.0.0.1", "--port", str(port), "--webui-port",
                        str(web)], env=env, check=True, capture_output=True, timeout=120)
        subprocess.run([daemon, "start", WORKER, "1", "--host", "127.0.0.1", "--cores", "2", "--memory", "3g",
                        "--webui-port", str(free_port()), url], env=env, check=True, capture_output=True, timeout=120)
        yield url, env, registered
    finally:
        for cls in (WORKER, MASTER):
            subprocess.run([daemon, "stop", cls, "1"], env=env, capture_output=True, timeout=120)
        for pid_file in (tmp / "pids").glob("*.pid"):  # in case stop did not
            with suppress(ValueError, OSError):
                os.kill(int(pid_file.read_text().strip()), 9)


def essence(report: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return [(c["area"], c["flink"], c["rule"], json.dumps(c["request"], sort_keys=True))
            for c in report["counterexamples"]]


def fanout(capsys: pytest.CaptureFixture[str], report: Path, *args: str) -> dict[str, Any]:
    from flinkspec.cli.main import main

    code = main(["fanout", *args, "--report", str(report), "--progress", "2"])
    err = capsys.readouterr().err
    assert code in (0, 1), err
    return json.loads((report / "report.json").read_text())


MUTANT = ("--impl", "mutant:valve-no-flush", "--area", "watermark.valve,memory.jobmanager", "--flink", "2.3",
          "--cases", "600", "--seed", "11")
FLINK = ("--impl", "flink:2.3.0", "--cases", "300", "--seed", "11")


def test_a_standalone_cluster_finds_what_local_finds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Same seed, same counterexamples: the mutant (spark-submit to the cluster) and real Flink 2.3
    (`flinkspec fanout --master spark://...`) against the same runs on embedded local[2]."""
    with standalone_cluster(tmp_path / "cluster") as (url, env, registered):
        local_mutant = fanout(capsys, tmp_path / "local-mutant", *MUTANT, "--master", "local[2]")
        local_flink = fanout(capsys, tmp_path / "local-flink", *FLINK, "--master", "local[2]")
        assert local_mutant["counterexamples"], "the mutant must be caught"
        registered()
        submitted = subprocess.run(
            [str(SPARK_HOME / "bin" / "spark-submit"), "--master", url, *DRIVER_ON_LOOPBACK,
             str(ROOT / "spark_harness" / "submit.py"), *MUTANT,
             "--report", str(tmp_path / "cluster-mutant")],
            env=env, capture_output=True, text=True, timeout=300, cwd=ROOT)
        assert submitted.returncode == 1, submitted.stderr[-3000:]
        cluster_flink = fanout(capsys, tmp_path / "cluster-flink", *FLINK, "--master", url, *DRIVER_ON_LOOPBACK)
    cluster_mutant = json.loads((tmp_path / "cluster-mutant" / "report.json").read_text())
    assert cluster_mutant["fanout"]["master"] == cluster_flink["fanout"]["master"] == url
    assert essence(cluster_mutant) == essence(local_mutant)
    assert cluster_mutant["cases"] == local_mutant["cases"]
    assert essence(cluster_flink) == essence(local_flink)
    assert cluster_flink["fanout"]["checked_cases"] == local_flink["fanout"]["checked_cases"]
    assert cluster_flink["verdict"] == local_flink["verdict"] == "valid", cluster_flink["runs"]
