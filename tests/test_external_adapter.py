"""runners/external/memory-calculator.mjs, the adapter that puts a calculator written elsewhere behind the
protocol (docs/mutants.md): run here on a page of the same form as the calculator's (a <script> defining
OPTIONS, userConfig and computeSpec), since the calculator's own code is not part of this repository."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = """<html><body><script>
const OPTIONS = [{ key: 'taskmanager.memory.process.size' }, { key: 'taskmanager.memory.flink.size' }];
const userConfig = {};
function computeSpec() {
  const size = userConfig['taskmanager.memory.process.size'];
  if (size === 'x') throw new Error("Could not parse memory size 'x'");
  if (size === '') throw new Error('TaskManager memory configuration failed: Either required fine-grained memory');
  const big = (1n << 62n) + 1n;  // a long a double cannot hold
  return { flinkMemory: { frameworkHeap: big, taskHeap: 1n, frameworkOffHeap: 2n, taskOffHeap: 3n, network: 4n,
           managed: 5n, totalFlink: 6n, jvmHeap: 7n, jvmDirect: 8n }, metaspace: 9n, overhead: 10n, totalProcess: 11n };
}
// Initial render
computeSpec = undefined;
</script></body></html>"""

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")


def _serve(page: Path, lines: list[str]) -> list[dict[str, object]]:
    done = subprocess.run(["node", str(ROOT / "runners" / "external" / "memory-calculator.mjs"), str(page)],
                          input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_the_adapter_speaks_the_protocol(tmp_path: Path) -> None:
    page = tmp_path / "index.html"
    page.write_text(PAGE)
    ask = [{"id": 1, "area": "memory.taskmanager", "input": {"config": {"taskmanager.memory.process.size": "1g"}}},
           {"id": 2, "area": "memory.taskmanager", "input": {"config": {"taskmanager.memory.process.size": "x"}}},
           {"id": 3, "area": "memory.taskmanager", "input": {"config": {}}},
           {"id": 4, "area": "memory.jobmanager", "input": {"config": {}}},
           {"id": 5, "area": "memory.taskmanager", "input": {"config": {"taskmanager.memory.process.size": 1}}}]
    one, two, three, four, five, six = _serve(page, [json.dumps(r) for r in ask] + ["not json"])
    assert one == {"id": 1, "output": {
        "framework_heap": 2**62 + 1, "task_heap": 1, "framework_off_heap": 2, "task_off_heap": 3, "network": 4,
        "managed": 5, "jvm_metaspace": 9, "jvm_overhead": 10, "total_flink": 6, "total_process": 11,
        "jvm_args": {"Xmx": 7, "Xms": 7, "MaxDirectMemorySize": 8, "MaxMetaspaceSize": 9}}}  # every digit of a long
    assert two["error"] == {"type": "InvalidConfiguration", "exception": "IllegalArgumentException",
                            "message": "Could not parse memory size 'x'"}
    assert three["error"]["exception"] == "IllegalConfigurationException"
    assert four["error"]["type"] == five["error"]["type"] == six["error"]["type"] == "BadRequest"
    assert six["id"] is None


def test_a_page_without_a_script_is_an_error_naming_it(tmp_path: Path) -> None:
    page = tmp_path / "index.html"
    page.write_text("<html></html>")
    done = subprocess.run(["node", str(ROOT / "runners" / "external" / "memory-calculator.mjs"), str(page)],
                          input="", capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "no <script> block" in done.stderr
