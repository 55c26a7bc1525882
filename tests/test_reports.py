"""report.md and the JUnit XML lead with the number of distinct divergences and carry each one in full.

The reports are made by the real check engine (:func:`flinkspec.engine.check.check_area`, a second or two
each) against small in-process implementations built from the built-in mutants, so that they hold
what ``flinkspec check`` writes: a report with two divergences (the valve re-emits a watermark when
a channel becomes active; the JobManager's -Xmx is its total Flink memory), rules the implementation
declares unsupported, cases it cannot be sent (a configuration key it does not model), a rule real
Flink breaks at the version, and a report whose implementation answers with hostile text
(``<script>``, quotes, ``&``, a control character) in its name, its requests and its messages.
The HTML page is tested in tests/test_html_report.py from the same reports.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from typing import Any
from xml.etree import ElementTree as ET

import oracle
from flinkspec.engine.check import check_area
from flinkspec.impls import InProcess, capabilities, features
from flinkspec.impls.capabilities import Capabilities
from flinkspec.mutants import MUTANTS
from flinkspec.reports.report import to_json, to_junit, to_markdown
from oracle.versions import parse_version
from properties.areas import AREAS, RULES

V23 = parse_version("2.3")
TWO_BUGS = "python:tests.test_reports:two_bugs"  # replayable: flinkspec replay --impl python:...
UNMODELLED = "taskmanager.memory.network.fraction"
NOT_SUPPORTED_WHY = "we round managed memory our own way"
HOSTILE = "<script>alert(\"x\")</script> & 'co'\x07"
HOSTILE_SPEC = "cmd:./engine --name \"<script>alert('x')</script> & co\""
HOSTILE_KEY = "x.<script>\"&'"
Answer = Callable[[dict[str, Any]], dict[str, Any]]


def by_area(answers: dict[str, Answer]) -> Answer:
    """An implementation that answers each area as ``answers`` says, and every other as Flink does."""
    return lambda req: answers.get(req["area"], oracle.answer)(req)


two_bugs = by_area({"watermark.valve": MUTANTS["valve-reemit-on-active"].answer,
                    "memory.jobmanager": MUTANTS["jm-xmx-total-flink"].answer})


@functools.cache
def two_divergences() -> dict[str, Any]:
    """A ``flink``-level report with two divergences (watermark.valve and memory.jobmanager at 2.3),
    a rule declared unsupported, cases not checked, an area not supported, and WM-7 (which real Flink
    2.3 breaks) not required."""
    impl = InProcess(TWO_BUGS, two_bugs)
    caps = capabilities.parse(
        {"protocol": features.CURRENT, "unmodelled_keys": [UNMODELLED],
         "unsupported": [{"area": "memory.taskmanager", "rule": "TM-3", "why": NOT_SUPPORTED_WHY},
                         {"area": "watermark.timers", "why": "no timers yet"}]},
        "test", known_areas=AREAS, known_rules=RULES)
    runs = [check_area(impl, TWO_BUGS, area, V23, examples=300, seed_value=0, capabilities=caps)
            for area in ("watermark.valve", "memory.jobmanager", "memory.taskmanager")]
    why = caps.why("watermark.timers", V23) or ""
    return json.loads(json.dumps(to_json(runs, TWO_BUGS, "flink", 0, caps, [("watermark.timers", "2.3", why)])))


def _hostile_jobmanager(req: dict[str, Any]) -> dict[str, Any]:
    """Rejects every configuration Flink accepts, with a message full of markup."""
    flink = oracle.answer(req)
    if "error" in flink:
        return flink
    return {"id": req["id"], "error": {"type": "InvalidConfiguration", "exception": "IllegalConfigurationException",
                                       "message": f"bad {HOSTILE} memory"}}


class _SentWithHostileKey(Capabilities):
    """Speaks everything; every request is sent with a configuration key of markup added (Flink
    ignores keys it does not know), so that the request itself carries hostile text."""

    def fit(self, request: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
        inp = request["input"]
        return {**request, "input": {**inp, "config": {**inp.get("config", {}), HOSTILE_KEY: HOSTILE}}}, None


@functools.cache
def hostile() -> dict[str, Any]:
    """A report whose implementation's name, requests and messages are hostile text."""
    impl = InProcess(HOSTILE_SPEC, by_area({"memory.jobmanager": _hostile_jobmanager}))
    run = check_area(impl, HOSTILE_SPEC, "memory.jobmanager", V23, examples=200, seed_value=0,
                     capabilities=_SentWithHostileKey(protocol=features.CURRENT))
    return json.loads(json.dumps(to_json([run], HOSTILE_SPEC, "flink", 0)))


def test_engine_reports_are_what_the_tests_need() -> None:
    """The engine gave what the other tests look for (a guard: they would pass vacuously otherwise)."""
    rep = two_divergences()
    assert rep["divergences"] == 2 and rep["verdict"] == "invalid"
    assert {c["area"] for c in rep["counterexamples"]} == {"watermark.valve", "memory.jobmanager"}
    assert any(len(c["rules"]) > 1 for c in rep["counterexamples"])
    tm = next(r for r in rep["runs"] if r["area"] == "memory.taskmanager")
    assert tm["not_checked"] == {f"needs config key {UNMODELLED}": tm["not_checked"][f"needs config key {UNMODELLED}"]}
    assert tm["failing"] == 0 and tm["cases"] > 0
    bad = hostile()["counterexamples"]
    assert bad and HOSTILE_KEY in bad[0]["request"]["input"]["config"] and "<script>" in bad[0]["signature"]


def test_markdown_leads_with_the_divergence_count_and_carries_each_divergence() -> None:
    """report.md's first line says "2 distinct divergences"; then the headline with the failing and
    checked cases; a section per divergence headed by its signature with its case count, every rule
    it breaks with its text, what the request is made of, the request, both answers and the replay."""
    rep = two_divergences()
    md = to_markdown(rep)
    first = md.partition("\n")[0]
    assert first.endswith(": 2 distinct divergences") and first.startswith("# ")
    lead = f"2 distinct divergences in {rep['failing_cases']:,} failing of {rep['checked_cases']:,} cases checked"
    assert f"**invalid** — {lead}" in md
    for n, c in enumerate(rep["counterexamples"], 1):
        section = md.split(f"\n## {n}. ", 1)[1].split("\n## ", 1)[0]
        assert section.split("\n", 1)[0].replace("\\", "") == c["signature"]  # Markdown-escaped
        assert f"**{c['cases']:,} failing case" in section
        for rule in c["rules"]:
            assert f"- **{rule}**: {RULES[rule].text[:40]}" in section
        for feature in c["features"]:
            assert f"`{feature}`" in section
        assert json.dumps(c["request"], indent=2) in section and c["replay"] in section
        assert json.dumps(c["actual"], indent=2) in section and json.dumps(c["expected"], indent=2) in section


def test_markdown_says_why_what_was_not_judged() -> None:
    """The not-applicable list names the unsupported rule and area with the implementation's reasons,
    the cases not checked with what they need, and the rule real Flink breaks at the version."""
    md = to_markdown(two_divergences())
    na = md.split("## Not applicable, and why", 1)[1].split("\n## ", 1)[0]
    assert f"rule TM-3 not supported, as the implementation declares: {NOT_SUPPORTED_WHY}" in na
    assert "watermark.timers at Flink 2.3: the whole area not supported" in na and "no timers yet" in na
    assert "not checked, the implementation does not speak what they need: needs config key" in na
    assert "WM-7 at Flink 2.3: not required, real Flink of that version breaks this documented rule" in na


def test_junit_has_a_failure_per_divergence_and_skips_what_was_not_checked() -> None:
    """One testcase per (area, version); one failure per divergence whose message starts with its
    signature and whose text lists its rules (with their text), cases, request and replay; the suite's
    properties carry the divergence count; an unsupported area and the cases not checked are skipped
    with why; the rules not held against the implementation are in the run's output with why."""
    rep = two_divergences()
    suite = ET.fromstring(to_junit(rep))
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["divergences"] == "2" and props["summary"].startswith("invalid — 2 distinct divergences in ")
    assert suite.get("failures") == "2" and suite.get("errors") == "0"
    cases = {(c.get("classname"), c.get("name")): c for c in suite.iter("testcase")}
    assert int(suite.get("tests")) == len(cases) and int(suite.get("skipped")) == len(list(suite.iter("skipped")))
    divergence_cases = {}
    for number, c in enumerate(rep["counterexamples"], 1):
        (name,) = [n for (cls, n) in cases
                   if cls == f"flinkspec.{c['area']}" and n.startswith(f"divergence {number}: ")]
        divergence_cases[c["area"]] = cases[(f"flinkspec.{c['area']}", name)]
        (failure,) = divergence_cases[c["area"]].findall("failure")
        assert failure.get("message").startswith(c["signature"] + " — ")
        assert f"{c['cases']:,} failing case" in failure.get("message")
        for rule in c["rules"]:
            assert f"  {rule}: {RULES[rule].text}" in failure.text
        assert json.dumps(c["request"]) in failure.text and f"replay: {c['replay']}" in failure.text
    assert not cases[("flinkspec.memory.taskmanager", "flink-2.3")].findall("failure")
    skipped = {name: c.find("skipped").get("message") for (_, name), c in cases.items()
               if c.find("skipped") is not None}
    assert "needs config key " + UNMODELLED in skipped["flink-2.3 not checked"]
    assert skipped["flink-2.3"] == "not supported: no timers yet"
    held_back = {area: (divergence_cases.get(area) or cases[(f"flinkspec.{area}", "flink-2.3")]).findtext("system-out")
                 for area in ("memory.taskmanager", "watermark.valve")}
    assert f"TM-3 not supported, as the implementation declares: {NOT_SUPPORTED_WHY}" in held_back["memory.taskmanager"]
    assert "WM-7 not required: real Flink 2.3 breaks this documented rule" in held_back["watermark.valve"]


def test_hostile_text_stays_text_in_markdown_and_junit() -> None:
    """Markup in a request or a message is escaped in report.md's prose (it stays as it is in code
    blocks, which Markdown never interprets) and is well-formed XML in JUnit, control character and all."""
    rep = hostile()
    md = to_markdown(rep)
    prose = re.sub(r"(?ms)^(`{3,})[^\n]*\n.*?^\1$", "", md)  # the fenced blocks taken out
    prose = re.sub(r"`[^`\n]*`", "", prose)  # and the inline code spans
    assert "<script>" not in prose and "\\<script\\>" in prose
    assert HOSTILE_KEY in md  # in the request's code block and the features' code spans
    xml = to_junit(rep)
    suite = ET.fromstring(xml)  # well-formed despite the markup and the control character
    (failure,) = suite.iter("failure")
    assert "<script>" in failure.get("message") and "\x07" not in xml
    assert HOSTILE_KEY in failure.text and "&" in failure.text
    assert suite.get("name") == f"flinkspec {HOSTILE_SPEC}"
