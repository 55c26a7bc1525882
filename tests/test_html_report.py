"""report.html renders in a real browser (headless Chromium): every counterexample of a sequence
area gets an SVG timeline that lays out, the matrix shows pass / fail / not supported, and the
page carries the rule, the minimal request, both answers, the first difference and the replay."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from flinkspec.check import Counterexample, evaluate, replay_command
from flinkspec.html_report import describe, first_divergence, render, timeline_svg, ts
from flinkspec.mutants import MUTANTS
from oracle.versions import parse_version
from properties.rules import RULES

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)


def counterexample(mutant: str, request: dict[str, Any]) -> dict[str, Any]:
    """The counterexample a mutant gives on one request, judged as flinkspec check judges it."""
    req = {"id": 1, **request}
    actual = MUTANTS[mutant].answer(req)
    broken = evaluate(req, actual, parse_version(req["flink"]))
    assert broken, f"{mutant} does not fail on {request}"
    rule, message, expected = broken[0]
    return Counterexample(req["area"], req["flink"], rule, RULES[rule].text, request, expected, actual, message,
                          replay_command(f"mutant:{mutant}", request)).to_json()


VALVE = {"area": "watermark.valve", "flink": "2.3", "input": {"channels": 2, "events": [
    {"channel": 1, "watermark": 6}, {"channel": 1, "status": "IDLE"}, {"channel": 0, "status": "IDLE"}]}}
COMBINED = {"area": "watermark.combined", "flink": "2.3", "input": {"inputs": 2, "events": [
    {"input": 0, "watermark": 5}, {"input": 0, "status": "IDLE"}, {"input": 1, "status": "IDLE"}]}}
MEMORY = {"area": "memory.jobmanager", "flink": "2.3", "input": {"config": {"jobmanager.memory.process.size": "2g"}}}
# checkpoint.alignment is drawn from its protocol page alone (no oracle needed): a barrier the
# implementation forgets to align, records and an end of partition on two channels
ALIGNMENT = {
    "area": "checkpoint.alignment", "flink": "2.3", "rule": "AL-EQ", "rule_text": "The answer equals Flink's.",
    "request": {"area": "checkpoint.alignment", "flink": "2.3", "input": {"mode": "exactly_once", "channels": 2,
                "events": [{"channel": 0, "barrier": 1}, {"channel": 0, "record": "a"}, {"channel": 1, "record": "b"},
                           {"channel": 1, "barrier": 1}, {"channel": 1, "end": True}]}},
    "expected": {"id": 1, "output": {"trace": [{"process": [1, "b"]}, {"snapshot": 1}, {"emit_barrier": 1},
                                               {"process": [0, "a"]}]}},
    "actual": {"id": 1, "output": {"trace": [{"process": [0, "a"]}, {"process": [1, "b"]}, {"snapshot": 1},
                                             {"emit_barrier": 1}]}},
    "difference": "output.trace[0].process[0] = 0, Flink 1",
    "replay": "flinkspec replay --impl cmd:./engine --request '{}'",
}


def report() -> dict[str, Any]:
    ces = [counterexample("valve-no-flush", VALVE), counterexample("combined-no-flush", COMBINED),
           counterexample("jm-xmx-total-flink", MEMORY), ALIGNMENT]
    runs = [{"area": a, "flink": "2.3", "cases": 100, "seconds": 1.0, "verdict": "invalid", "infra_error": None}
            for a in ("watermark.valve", "watermark.combined", "memory.jobmanager", "checkpoint.alignment")]
    runs.append({"area": "memory.taskmanager", "flink": "2.3", "cases": 100, "seconds": 1.0, "verdict": "valid",
                 "infra_error": None})
    return {"schema": 1, "impl": "cmd:./engine", "conformance": "flink", "seed": 0, "verdict": "invalid",
            "cases": 500, "runs": runs, "counterexamples": ces,
            "unsupported": [{"area": "watermark.timers", "flink": "2.3", "rule": None, "why": "no timers yet",
                             "source": "capabilities"}]}


def test_timestamps_and_events_are_short_in_pictures() -> None:
    """Long.MIN/MAX are named, big values compacted, events described in a few characters."""
    assert ts(-(1 << 63)) == "MIN" and ts((1 << 63) - 2) == "MAX-1" and ts(5) == "5"
    assert describe({"channel": 1, "watermark": 6}) == "W1:6" and describe({"input": 0, "status": "IDLE"}) == "I0"


def test_first_divergence_names_the_event_of_a_sequence() -> None:
    """For per-event outputs the first difference is an event index; for traces an entry index."""
    ce = counterexample("valve-no-flush", VALVE)
    assert first_divergence(VALVE["input"], ce["expected"], ce["actual"]).startswith("event #2 (I0)")
    where = first_divergence(ALIGNMENT["request"]["input"], ALIGNMENT["expected"], ALIGNMENT["actual"])
    assert where.startswith("trace entry #0")


def test_timeline_has_a_lane_per_channel_and_marks_the_first_difference() -> None:
    """The SVG has one lane per channel, an idle span, and the first differing event marked."""
    ce = counterexample("valve-no-flush", VALVE)
    svg = timeline_svg(VALVE["input"], ce["expected"], ce["actual"])
    assert "channel 0" in svg and "channel 1" in svg and ">idle<" in svg and "first difference" in svg
    barriers = timeline_svg(ALIGNMENT["request"]["input"], ALIGNMENT["expected"], ALIGNMENT["actual"])
    assert "B1" in barriers and "rec" in barriers and "ended" in barriers and "emit_barrier" in barriers


def test_matrix_shows_pass_fail_and_not_supported() -> None:
    """The matrix has a fail cell linked to its counterexample, pass cells and n/s for unsupported."""
    page = render([report()])
    assert "<a href='#ce-1'>fail</a>" in page
    assert "class='pass'" in page and "class='unsupported'" in page


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (apt-get install -y chromium)")
def test_report_renders_in_headless_chromium(tmp_path: Path) -> None:
    """Chromium loads the page, lays out every timeline (non-empty bounding boxes) and shows the
    rule, request, answers, first difference and replay of each counterexample."""
    page = tmp_path / "report.html"
    page.write_text(render([report()]))
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--user-data-dir={tmp_path}/p"]
    dom = subprocess.run([CHROMIUM, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True,
                         timeout=120).stdout
    body = re.search(r"<body[^>]*>", dom)
    assert body is not None, dom[:500]
    assert 'data-svgs="3"' in body.group(0) and 'data-rendered="3"' in body.group(0), body.group(0)
    assert dom.count("<svg") == 3  # valve, combined, alignment; the memory counterexample gets a table
    for needle in ("WM-EQ", "CWM-", "JM-", "AL-EQ", "First point where they differ", "flinkspec replay",
                   "Minimal request", "The implementation answers", "Matrix"):
        assert needle in dom, needle
    shot = tmp_path / "shot.png"
    subprocess.run([CHROMIUM, *flags, "--window-size=1400,2000", f"--screenshot={shot}", page.as_uri()],
                   capture_output=True, timeout=120)
    assert shot.stat().st_size > 20_000


def test_flinkspec_html_puts_several_implementations_in_one_matrix(tmp_path: Path) -> None:
    """`flinkspec html a.json b.json --out page.html`: one matrix with a column group per
    implementation; a file that is no report is a usage error naming it."""
    other = {**report(), "impl": "mutant:other", "counterexamples": [], "verdict": "valid"}
    for name, data in (("a.json", report()), ("b.json", other)):
        (tmp_path / name).write_text(json.dumps(data))
    out = tmp_path / "page.html"
    cmd = [sys.executable, "-m", "flinkspec.cli", "html", str(tmp_path / "a.json"), str(tmp_path / "b.json"),
           "--out", str(out)]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    page = out.read_text()
    assert "<th colspan='1'>cmd:./engine</th>" in page and "<th colspan='1'>mutant:other</th>" in page
    (tmp_path / "bad.json").write_text("[]")
    res = subprocess.run([*cmd[:4], str(tmp_path / "bad.json"), "--out", str(out)], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 2 and "bad.json is not a flinkspec report.json" in res.stderr
