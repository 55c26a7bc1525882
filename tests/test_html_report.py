"""report.html leads with the number of distinct divergences and lists them, then the matrix
implementation x Flink version x rule with each rule's text and a reason for every n/a cell, then
each divergence in full; it renders in a real browser (headless Chromium), where every divergence of
a sequence area gets an SVG timeline that lays out; every value from a report is escaped.

The reports are made by the real check engine (tests/test_reports.py builds them)."""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

from flinkspec.engine.check import Counterexample, check_area
from flinkspec.impls import open_impl
from flinkspec.judge.verdict import evaluate, replay_command
from flinkspec.mutants import MUTANTS
from flinkspec.reports import html_report
from flinkspec.reports.html_report import describe, first_divergence, render, timeline_svg, ts
from flinkspec.reports.report import to_json
from oracle.versions import parse_version
from properties.areas import AREAS, RULES
from tests.test_reports import (
    HOSTILE,
    HOSTILE_KEY,
    HOSTILE_SPEC,
    NOT_SUPPORTED_WHY,
    UNMODELLED,
    hostile,
    two_divergences,
)

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)


def counterexample(mutant: str, request: dict[str, Any]) -> dict[str, Any]:
    """The counterexample a mutant gives on one request, judged as flinkspec check judges it."""
    req = {"id": 1, **request}
    actual = MUTANTS[mutant].answer(req)
    broken = evaluate(req, actual, parse_version(req["flink"]), AREAS[req["area"]])
    assert broken, f"{mutant} does not fail on {request}"
    rule, message, expected = broken[0]
    return Counterexample(area=req["area"], flink=req["flink"], rule=rule, rule_text=RULES[rule].text,
                          request=request, expected=expected, actual=actual, difference=message,
                          replay=replay_command(f"mutant:{mutant}", request)).to_json()


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


@functools.cache
def documented_alignment() -> dict[str, Any]:
    """A report at conformance level ``documented``: checkpoint.alignment against a mutant that
    processes buffered records last-in first-out after unblocking."""
    spec = "mutant:align-lifo-after-unblock"
    run = check_area(open_impl(spec), spec, "checkpoint.alignment", parse_version("2.3"), examples=100, seed_value=0,
                     conformance="documented")
    return json.loads(json.dumps(to_json([run], spec, "documented", 0)))


class Cells(HTMLParser):
    """The matrix's cells as (class, text, title) and its notes, from the page's markup."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[tuple[str, str, str]] = []
        self.notes: list[str] = []
        self._in: str | None = None
        self._attrs: dict[str, str | None] = {}
        self._text = ""
        self._matrix = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table":
            self._matrix = a.get("class") == "matrix"
        elif tag == "ol" and a.get("class") == "notes":
            self._in = "notes"
        elif tag == "td" and self._matrix and a.get("class") not in ("rule", "text"):
            self._in, self._attrs, self._text = "cell", a, ""
        elif tag == "li" and self._in == "notes":
            self._text = ""

    def handle_data(self, data: str) -> None:
        self._text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._in == "cell":
            self.cells.append((self._attrs.get("class") or "", self._text, self._attrs.get("title") or ""))
            self._in = None
        elif tag == "li" and self._in == "notes":
            self.notes.append(self._text)
        elif tag == "ol":
            self._in = None
        elif tag == "table":
            self._matrix = False


def cells(page: str) -> Cells:
    parser = Cells()
    parser.feed(page)
    return parser


def test_page_leads_with_the_divergences_then_the_matrix() -> None:
    """The title and first heading say "2 distinct divergences"; the list of divergences (signature,
    failing cases, rules, where; each linked) comes first, then the matrix with each rule's text,
    then each divergence in full: signature, case count, every rule with its text and what it saw,
    what the request is made of, the request, both answers and the replay line."""
    rep = two_divergences()
    page = render([rep])
    assert re.search(r"<title>[^<]*— 2 distinct divergences</title>", page)
    assert page.index("<h2>2 distinct divergences</h2>") < page.index('<table class="matrix">') < page.index(
        'class="ce"')
    for n, c in enumerate(rep["counterexamples"], 1):
        sig = escape(c["signature"])
        assert f'<a href="#ce-1-{n}">{sig}</a></td>\n<td class="cases">{c["cases"]:,}</td>' in page
        card = page.split(f'<section class="ce" id="ce-1-{n}">', 1)[1].split("</section>", 1)[0]
        assert f"<h3>{n}. {sig}</h3>" in card and f"<b>{c['cases']:,} failing case" in card
        for rule, seen in zip(c["rules"], c["messages"], strict=True):
            assert f"<td><b>{rule}</b></td><td>{escape(RULES[rule].text)}</td><td class=\"seen\">{escape(seen)}" in card
        for feature in c["features"]:
            assert f'<code class="feature">{escape(feature)}</code>' in card
        assert f"<pre>{escape(json.dumps(c['request'], indent=2))}</pre>" in card
        assert f"<pre>{escape(json.dumps(c['expected'], indent=2))}</pre>" in card
        assert f'<pre class="replay">{escape(c["replay"])}</pre>' in card
    matrix = cells(page)
    assert ("fail", "fail", "") in matrix.cells and ("pass", "pass", "") in matrix.cells
    assert '<td class="text">Output watermarks strictly increase' in page  # the rule's text, not a tooltip


def test_every_na_cell_says_why() -> None:
    """Every cell that is neither pass nor fail has a reason in its title and a numbered note under the
    matrix: declared unsupported (with the implementation's why), not checked (what the cases need),
    real Flink breaks the rule at that version, not a documented rule at level documented."""
    page = render([two_divergences(), documented_alignment()])
    m = cells(page)
    assert m.notes
    for cls, text, title in m.cells:
        if not text.startswith(("pass", "fail")) and text != "–":
            assert title, (cls, text)
            number = int(re.sub(r"\D", "", text))
            assert m.notes[number - 1] == title, (text, title)
    notes = "\n".join(m.notes)
    assert f"not supported, as the implementation declares: {NOT_SUPPORTED_WHY}" in notes
    assert "not supported, as the implementation declares: no timers yet" in notes
    assert f"needs config key {UNMODELLED}" in notes
    assert "real Flink of that version breaks this documented rule" in notes
    assert "not a documented rule" in notes


def test_a_rule_of_an_area_not_defined_at_a_version_is_na_with_why(monkeypatch: pytest.MonkeyPatch) -> None:
    """A matrix column of a version the rule's area does not exist at says so."""
    monkeypatch.setattr(html_report, "_area_versions", lambda: {"watermark.valve": frozenset({"2.3"})})
    rep = two_divergences()
    rule = next(r for r in rep["rules"] if r["id"] == "WM-1")
    assert html_report.cell(rep, rule, "2.0").why == ("the rule is not defined at that Flink version "
                                                       "(watermark.valve starts later)")


def test_hostile_text_is_escaped_everywhere() -> None:
    """Markup in the implementation's name, a request's config key and value, and an error message
    is text on the page: no element but the page's own script, and the text reads back unchanged."""
    rep = hostile()
    page = render([rep, two_divergences()])
    assert page.count("<script>") == 1 and "&lt;script&gt;" in page
    assert HOSTILE not in page and HOSTILE_KEY not in page
    texts: list[str] = []

    class Text(HTMLParser):
        def handle_data(self, data: str) -> None:
            texts.append(data)

    Text().feed(page)
    text = "".join(texts)
    assert HOSTILE_SPEC in text and rep["counterexamples"][0]["signature"] in text
    assert json.dumps(rep["counterexamples"][0]["request"], indent=2) in text


def test_matrix_links_each_fail_to_its_divergence() -> None:
    """A fail cell links to the divergence that breaks the rule; two divergences breaking one rule
    at one version are both counted."""
    rep = two_divergences()
    page = render([rep])
    assert '<td class="fail"><a href="#ce-1-1">fail</a></td>' in page
    doubled = {**rep, "counterexamples": rep["counterexamples"] + [{**rep["counterexamples"][0], "signature": "x"}]}
    assert "fail ×2" in render([doubled])


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (apt-get install -y chromium)")
def test_report_renders_in_headless_chromium(tmp_path: Path) -> None:
    """Chromium loads a page of three reports, lays out every timeline (non-empty bounding boxes),
    runs no script but the page's own, and shows the divergences, the matrix and each divergence."""
    reports = [two_divergences(), documented_alignment(), hostile()]
    page = tmp_path / "report.html"
    page.write_text(render(reports))
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--user-data-dir={tmp_path}/p"]
    dom = subprocess.run([CHROMIUM, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True,
                         timeout=120).stdout
    body = re.search(r"<body[^>]*>", dom)
    assert body is not None, dom[:500]
    sequences = sum(1 for r in reports for c in r["counterexamples"] if "events" in c["request"]["input"])
    assert sequences == 2  # the valve's and the alignment's; the memory divergences get tables
    assert f'data-svgs="{sequences}" data-rendered="{sequences}"' in body.group(0), body.group(0)
    assert dom.count("<svg") == sequences and dom.count("<script>") == 1
    for needle in ("2 distinct divergences", "WM-2", "JM-2", "ALIGN-", "First point where they differ",
                   "flinkspec replay", "Flink (the oracle) answers", "The implementation answers", "Matrix",
                   "what the rule says", "The request is made of", "&lt;script&gt;"):
        assert needle in dom, needle
    shot = tmp_path / "shot.png"
    subprocess.run([CHROMIUM, *flags, "--window-size=1400,2000", f"--screenshot={shot}", page.as_uri()],
                   capture_output=True, timeout=120)
    assert shot.stat().st_size > 20_000


def test_flinkspec_html_puts_several_implementations_in_one_matrix(tmp_path: Path) -> None:
    """`flinkspec html a.json b.json --out page.html`: one matrix with a column group per
    implementation; a file that is no report is a usage error naming it."""
    for name, data in (("a.json", two_divergences()), ("b.json", documented_alignment())):
        (tmp_path / name).write_text(json.dumps(data))
    out = tmp_path / "page.html"
    cmd = [sys.executable, "-m", "flinkspec.cli", "html", str(tmp_path / "a.json"), str(tmp_path / "b.json"),
           "--out", str(out)]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    page = out.read_text()
    assert '<th colspan="1">python:tests.test_reports:two_bugs</th>' in page
    assert '<th colspan="1">mutant:align-lifo-after-unblock</th>' in page
    assert "<h1>flinkspec: 2 implementations — 3 distinct divergences</h1>" in page
    (tmp_path / "bad.json").write_text("[]")
    res = subprocess.run([*cmd[:4], str(tmp_path / "bad.json"), "--out", str(out)], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 2 and "bad.json is not a flinkspec report.json" in res.stderr


WINDOWS = {"area": "watermark.windows", "flink": "2.3", "input": {"assigner": "session", "gap_ms": 2, "events": [
    {"key": "a", "timestamp": 0, "value": 1}, {"key": "a", "timestamp": 2, "value": 2}, {"key": "b", "timestamp": 1,
                                                                                         "value": 3},
    {"watermark": 10}]}}
ASYNC = {"area": "watermark.async", "flink": "2.3", "input": {"mode": "ordered", "capacity": 2, "events": [
    {"kind": "record", "name": "r0", "timestamp": 1}, {"kind": "record", "name": "r1", "timestamp": 2},
    {"kind": "complete", "name": "r1", "results": [7]}, {"kind": "complete", "name": "r0", "results": [5]},
    {"kind": "end"}]}}


def test_the_operators_timelines_draw_records_windows_and_completions() -> None:
    """A window operator's timeline: a lane per key and one for the watermarks, records as records, the fired
    windows in the output rows; an async operator's: records, completions and the end, what each step emitted
    (its steps' ``emitted`` lists) with the first difference marked."""
    ce = counterexample("ww-touching-sessions-apart", WINDOWS)
    svg = timeline_svg(WINDOWS["input"], ce["expected"], ce["actual"])
    assert "key a" in svg and "key b" in svg and ">watermarks<" in svg and 'fill="#805ad5"' in svg
    assert "fire a [0,4)" in svg and "first difference" in svg
    ce = counterexample("wa-ordered-by-completion", ASYNC)
    svg = timeline_svg(ASYNC["input"], ce["expected"], ce["actual"])
    assert "rec r0 1" in svg and "done r1" in svg and ">END<" in svg and 'stroke="#2f855a"' in svg
    assert "first difference" in svg and "emitted per event" in svg
    assert first_divergence(ASYNC["input"], ce["expected"], ce["actual"]).startswith("event #2 (done r1)")
