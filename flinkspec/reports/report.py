"""Reports of a check: ``report.json`` (machines), ``report.md`` and ``report.html`` (people), JUnit XML (CI).

``report.json`` schema 1 (stable; new keys may be added, none removed; docs/report-schema.md)::

    {"schema": 1, "impl": str, "conformance": "flink"|"documented", "seed": int,
     "verdict": "valid"|"invalid"|"unknown", "cases": int,
     "checked_cases": int, "divergences": int, "failing_cases": int, "not_checked_cases": int,
     "runs": [{"area", "flink", "cases", "seconds", "verdict", "infra_error", "checked", "failing", "divergences",
               "not_checked": {why: cases}}],
     "counterexamples": [{"area", "flink", "rule", "rule_text", "request", "expected", "actual",
                          "difference", "replay", "rules", "signature", "cases", "features", "messages"}],
     "unsupported": [{"area", "flink", "rule", "why", "source"}],
     "rules": [{"id", "area", "text", "documented", "flink_violates", "status"}]}
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import jinja2

from flinkspec.engine.check import AreaRun, divergences
from flinkspec.impls.capabilities import EVERYTHING, Capabilities
from flinkspec.reports.html_report import jar_text, plural, speaks_text


def overall_verdict(runs: Sequence[AreaRun]) -> str:
    if any(r.counterexamples for r in runs):
        return "invalid"
    return "unknown" if not runs or any(r.verdict == "unknown" for r in runs) else "valid"


def to_json(runs: Sequence[AreaRun], impl: str, conformance: str, seed: int,
            capabilities: Capabilities | None = None, skipped: Sequence[tuple[str, str, str]] = ()) -> dict[str, Any]:
    """The report; ``skipped`` lists the (area, version, why) the implementation does not support.
    Each divergence is reported once whatever releases it was seen at (:func:`divergences`)."""
    merged = divergences(runs)
    return {
        "schema": 1,
        "impl": impl,
        "conformance": conformance,
        "seed": seed,
        "verdict": overall_verdict(runs),
        "cases": sum(r.cases for r in runs),
        "checked_cases": sum(r.checked for r in runs),
        "divergences": len(merged),
        "failing_cases": sum(r.failing for r in runs),
        "not_checked_cases": sum(sum(r.not_checked.values()) for r in runs),
        "runs": [
            {"area": r.area, "flink": r.flink, "cases": r.cases, "seconds": round(r.seconds, 3),
             "verdict": r.verdict, "infra_error": r.infra_error,
             **({"infra_replay": r.infra_replay} if r.infra_replay else {}), "checked": r.checked, "failing": r.failing,
             "divergences": len(r.counterexamples), "not_checked": dict(r.not_checked)}
            for r in runs
        ],
        "counterexamples": [c.to_json() for c in merged],
        "speaks": (capabilities or EVERYTHING).speaks.to_json(),
        "impl_jar": _jar(impl),
        **_support(runs, capabilities, skipped),
    }


@functools.cache
def _jar(impl: str) -> dict[str, Any] | None:
    """The jar ``--impl flink:PATH`` names (path, sha256, manifest vendor and version, base release),
    once per run: hashing a 200 MB jar after every (area, version) would cost seconds."""
    from flinkspec.impls.fingerprint import describe_impl

    return describe_impl(impl)


def _support(runs: Sequence[AreaRun], caps: Capabilities | None,
             skipped: Sequence[tuple[str, str, str]]) -> dict[str, Any]:
    from properties.areas import RULES

    unsupported = [{"area": a, "flink": f, "rule": None, "why": why, "source": "capabilities"} for a, f, why in skipped]
    for r in runs:
        for rule in sorted(caps.rules_unsupported(r.area, r.flink) if caps else ()):
            why = (caps.why(r.area, r.flink, rule) if caps else None) or ""
            unsupported.append({"area": r.area, "flink": r.flink, "rule": rule, "why": why, "source": "capabilities"})
    areas = {r.area for r in runs} | {a for a, _, _ in skipped}
    rules = [{"id": r.id, "area": r.area, "text": r.text, "documented": r.documented,
              "flink_violates": list(r.flink_violates), "status": r.status}
             for r in RULES.values() if r.area in areas]
    return {"unsupported": unsupported, "rules": rules}


# -- what report.md and the JUnit XML say (report.html: flinkspec.reports.html_report) ---------------------

def headline(report: dict[str, Any]) -> str:
    """The line every report leads with: ``invalid — 3 distinct divergences in 1,234 failing of
    24,000 cases`` (and the cases not checked, if any)."""
    return f"{report['verdict']} — {counts(report)}"


def counts(report: dict[str, Any]) -> str:
    """``3 distinct divergences in 1,234 failing of 24,000 cases checked[; 12 cases not checked]`` (a
    report older than ``checked_cases`` counts the requests sent while shrinking too)."""
    failing = report.get("failing_cases")
    if failing is None:
        failing = sum(cases(c) for c in report.get("counterexamples", []))
    text = (f"{plural(divergence_count(report), 'distinct divergence')} in {failing:,} failing of "
            f"{plural(report.get('checked_cases', report['cases']), 'case')} checked")
    not_checked = report.get("not_checked_cases") or 0
    return text + (f"; {plural(not_checked, 'case')} not checked" if not_checked else "")


def divergence_count(report: dict[str, Any]) -> int:
    return int(report.get("divergences", len(report.get("counterexamples", []))))


def rules_of(c: dict[str, Any]) -> list[str]:
    """Every rule a divergence breaks (a report written before divergences names one)."""
    return list(c.get("rules") or [c["rule"]])


def signature_of(c: dict[str, Any]) -> str:
    return str(c.get("signature") or c.get("difference") or c["rule"])


def cases(c: dict[str, Any]) -> int:
    return int(c.get("cases", 1))


def broken_rules(report: dict[str, Any], c: dict[str, Any]) -> list[tuple[str, str, str]]:
    """``(rule, its text, what it saw)`` for every rule a divergence breaks."""
    texts = {r["id"]: r["text"] for r in report.get("rules", [])}
    texts.setdefault(c["rule"], c.get("rule_text", ""))
    messages = list(c.get("messages") or [c.get("difference", "")])
    return [(r, texts.get(r, ""), messages[i] if i < len(messages) else "") for i, r in enumerate(rules_of(c))]


def not_applicable(report: dict[str, Any]) -> list[str]:
    """Why some (area, version, rule) were not judged: declared unsupported, cases not checked
    (the implementation does not speak what they need), rules real Flink breaks at a version, rules
    not documented at level ``documented``."""
    out = []
    for u in report.get("unsupported", []):
        what = f"rule {u['rule']}" if u.get("rule") else "the whole area"
        out.append(f"{u['area']} at Flink {u['flink']}: {what} not supported, as the implementation declares: "
                   f"{u.get('why') or 'no reason given'}")
    for r in report["runs"]:
        for why, n in sorted((r.get("not_checked") or {}).items()):
            out.append(f"{r['area']} at Flink {r['flink']}: {plural(n, 'case')} not checked, the implementation "
                       f"does not speak what they need: {why}")
    ran = {(r["area"], r["flink"]) for r in report["runs"]}
    level = report.get("conformance", "flink")
    for rule in report.get("rules", []):
        versions = sorted(v for a, v in ran if a == rule["area"])
        if level == "flink" and (violated := [v for v in versions if v in rule.get("flink_violates", [])]):
            out.append(f"{rule['id']} at Flink {', '.join(violated)}: not required, real Flink of that version "
                       "breaks this documented rule")
        if level == "documented" and versions and not rule.get("documented", True):
            out.append(f"{rule['id']}: not a documented rule, checked only at conformance level flink")
    return out


# what Markdown (or HTML in it) acts on: emphasis, code, tags, entities, table cells, link text ends;
# an underscore only at a word's edge (intraword ones never emphasise), so field names stay readable
_MD_SPECIAL = re.compile(r"([\\`*<>|&]|(?<!\w)_|_(?!\w)|\](?=\())")
_INVALID_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _md(text: object) -> str:
    """Text for a Markdown line or table cell: every character Markdown or HTML would act on escaped."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def _code(text: str) -> str:
    """An inline code span that holds ``text`` whatever backticks it has."""
    fence = "`" * (max((len(m) for m in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _block(text: str, lang: str = "") -> list[str]:
    """A fenced code block that ``text`` cannot close early."""
    fence = "`" * max(3, max((len(m) for m in re.findall("`+", text)), default=0) + 1)
    return [fence + lang, text, fence]


@functools.cache
def _md_env() -> jinja2.Environment:
    """The environment of report.md's template (templates/report.md.j2): Markdown, so no autoescaping
    (that is HTML's); the template escapes what it inserts with the filters ``md``, ``code`` and
    ``block`` (the helpers above), and the report's numbers and words come from the functions above."""
    env = jinja2.Environment(loader=jinja2.PackageLoader("flinkspec.reports", "templates"), autoescape=False,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    env.filters.update(md=_md, code=_code, block=lambda text, lang="": "\n".join(_block(text, lang)),
                       pretty=lambda value: json.dumps(value, indent=2), thousands=lambda n: f"{n:,}", plural=plural)
    env.globals.update(counts=counts, divergence_count=divergence_count, signature_of=signature_of, cases=cases,
                       releases_text=releases_text,
                       broken_rules=broken_rules, not_applicable=not_applicable, speaks_text=speaks_text,
                       jar_text=jar_text)
    return env


def to_markdown(report: dict[str, Any]) -> str:
    """``report.md``: the headline, the runs, what was not applicable and why, then one section per
    divergence (its signature as the heading), rendered by templates/report.md.j2."""
    return _md_env().get_template("report.md.j2").render(report=report)


def _xml(text: object) -> str:
    """Text XML 1.0 can hold (control characters an implementation may answer with replaced)."""
    return _INVALID_XML.sub("\ufffd", str(text))


def to_junit(report: dict[str, Any]) -> str:
    """JUnit XML: one failing testcase per divergence (its name the divergence, its message the
    signature, where it departs and the rules that explain it), one passing testcase per (area,
    version) that showed none, an error per (area, version) the implementation broke in, skipped
    testcases for the (area, version) not supported and the cases not checked; the divergence count
    in the suite's properties. The rules not held against the implementation are in each testcase's
    output."""
    suite = ET.Element("testsuite", name=_xml(f"flinkspec {report['impl']}"))
    props = ET.SubElement(suite, "properties")
    for name, value in (("divergences", divergence_count(report)), ("summary", headline(report)),
                        ("failing_cases", report.get("failing_cases", "")),
                        ("not_checked_cases", report.get("not_checked_cases", 0)), ("verdict", report["verdict"]),
                        ("conformance", report["conformance"]), ("seed", report["seed"])):
        ET.SubElement(props, "property", name=name, value=_xml(value))
    showed = {(c["area"], r) for c in report["counterexamples"] for r in c.get("releases") or [c["flink"]]}
    failures = errors = tests = skipped = 0
    for number, c in enumerate(report["counterexamples"], 1):
        tests, failures = tests + 1, failures + 1
        case = _testcase(suite, c["area"], f"divergence {number}: {signature_of(c)}", 0)
        explained = ", ".join(c.get("explained_by") or rules_of(c))
        f = ET.SubElement(case, "failure", type="divergence", message=_xml(
            f"{signature_of(c)} — {plural(cases(c), 'failing case')} at Flink {releases_text(c)}; "
            f"explained by {explained}"))
        f.text = _xml(_junit_text(report, c))
        run = next((r for r in report["runs"] if (r["area"], r["flink"]) == (c["area"], c["flink"])), None)
        held_back = _not_held(report, run) if run else []
        if held_back:
            ET.SubElement(case, "system-out").text = _xml("\n".join(held_back))
    for r in report["runs"]:
        if (r["area"], r["flink"]) in showed and not r["infra_error"]:
            continue  # its divergences are testcases of their own
        tests += 1
        case = _testcase(suite, r["area"], f"flink-{r['flink']}", r["seconds"])
        if r["infra_error"]:
            errors += 1
            err = ET.SubElement(case, "error", message=_xml(r["infra_error"]))
            if r.get("infra_replay"):
                err.text = _xml(f"replay the request it broke on: {r['infra_replay']}")
        held_back = _not_held(report, r)
        if held_back:
            ET.SubElement(case, "system-out").text = _xml("\n".join(held_back))
    for r in report["runs"]:
        if r.get("not_checked"):
            tests, skipped = tests + 1, skipped + 1
            why = "; ".join(f"{plural(n, 'case')}: {w}" for w, n in sorted(r["not_checked"].items()))
            ET.SubElement(_testcase(suite, r["area"], f"flink-{r['flink']} not checked", 0), "skipped",
                          message=_xml(f"not checked, the implementation does not speak what they need: {why}"))
    for u in report.get("unsupported", []):
        if u.get("rule") is None:
            tests, skipped = tests + 1, skipped + 1
            ET.SubElement(_testcase(suite, u["area"], f"flink-{u['flink']}", 0), "skipped",
                          message=_xml(f"not supported: {u.get('why') or 'declared by the implementation'}"))
    for key, value in (("tests", tests), ("skipped", skipped), ("failures", failures), ("errors", errors)):
        suite.set(key, str(value))
    return ET.tostring(suite, encoding="unicode")


def releases_text(c: dict[str, Any]) -> str:
    """The releases a divergence was seen at: ``2.3`` or ``2.3, 2.2, 2.1`` or ``2.3 and 11 more``."""
    releases = list(c.get("releases") or [c["flink"]])
    return ", ".join(releases) if len(releases) <= 3 else f"{releases[0]} and {len(releases) - 1} more"


def _not_held(report: dict[str, Any], run: dict[str, Any]) -> list[str]:
    """The rules of a run not held against the implementation, and why: declared unsupported, or
    broken by real Flink of that version (at level ``flink``)."""
    out = [f"{u['rule']} not supported, as the implementation declares: {u.get('why') or 'no reason given'}"
           for u in report.get("unsupported", [])
           if u.get("rule") and u["area"] == run["area"] and u["flink"] == run["flink"]]
    if report.get("conformance", "flink") == "flink":
        out += [f"{rule['id']} not required: real Flink {run['flink']} breaks this documented rule"
                for rule in report.get("rules", [])
                if rule["area"] == run["area"] and run["flink"] in rule.get("flink_violates", [])]
    return out


def _testcase(suite: ET.Element, area: str, name: str, seconds: float) -> ET.Element:
    return ET.SubElement(suite, "testcase", classname=_xml(f"flinkspec.{area}"), name=_xml(name),
                         time=str(seconds))


def _junit_text(report: dict[str, Any], c: dict[str, Any]) -> str:
    """A failure's text: the divergence as report.md spells it, in plain lines."""
    lines = [signature_of(c), f"{plural(cases(c), 'failing case')} of {c['area']} at Flink {releases_text(c)}"]
    if c.get("difference"):
        lines.append(str(c["difference"]))
    if c.get("explained_by"):
        lines.append(f"explained by: {', '.join(c['explained_by'])}")
    lines.append("rules it breaks:")
    for rule, text, seen in broken_rules(report, c):
        lines.append(f"  {rule}: {text}" + (f"\n    seen: {seen}" if seen else ""))
    if c.get("features"):
        lines.append(f"made of: {'; '.join(map(str, c['features']))}")
    lines.append(f"request: {json.dumps(c['request'])}")
    if c.get("expected") is not None:
        lines.append(f"Flink answers: {json.dumps(c['expected'])}")
    lines += [f"the implementation answers: {json.dumps(c['actual'])}", f"replay: {c['replay']}"]
    return "\n".join(lines)


def write(report: dict[str, Any], directory: Path | None, junit: Path | None) -> None:
    """Write the report files; called after every (area, version) so nothing found is ever lost."""
    if directory is not None:
        directory.mkdir(parents=True, exist_ok=True)
        tmp = directory / "report.json.part"
        tmp.write_text(json.dumps(report, indent=2) + "\n")
        tmp.replace(directory / "report.json")
        (directory / "report.md").write_text(to_markdown(report))
        from flinkspec.reports.html_report import render

        (directory / "report.html").write_text(render([report]))
    if junit is not None:
        junit.parent.mkdir(parents=True, exist_ok=True)
        junit.write_text(to_junit(report))
