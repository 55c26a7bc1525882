"""``report.html``: one self-contained page for people, from one or more ``report.json`` values.

The page leads with the number of distinct divergences and a list of them, then the matrix
implementation x Flink version x rule (pass / fail / n/a, like wpt.fyi) with each rule's text beside
it and, under it, why every n/a cell is n/a; then every divergence in full: its signature (what
differs from Flink), its failing-case count, every rule it breaks with the rule's text and what the
rule saw, what the representative request is made of, the request, Flink's (the oracle's) and the
implementation's answers, the first point where they differ, the replay command and a picture: for
event sequences an SVG timeline (one lane per channel or input with its watermarks, idle spans,
records, barriers and ends; below it what Flink and the implementation emitted per event, or their
traces, the first difference marked), for other areas a table of the answers' fields. Several
reports make one page (``flinkspec html a.json b.json --out matrix.html``).

The markup lives in Jinja2 templates (``flinkspec/reports/templates``) with autoescaping on, so every
value from a report (requests, messages, the implementation's name) is escaped by default; this
module only computes what the templates show (view models, the timeline's geometry). Rendering
only: nothing here judges anything; it reads the report's fields (docs/report-schema.md).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
import jinja2
from markupsafe import Markup

INDEX_KEYS = ("channel", "input")
LANE_KEYS = ("side", "key")  # string fields that name a lane when no index does (a join's sides, a window's keys)
# the glyph of an operator's event by its "kind" (records, async completions, the processing-time clock)
GLYPH_OF_KIND = {"record": "record", "watermark": "watermark", "complete": "complete", "periodic": "clock",
                 "advance": "clock", "end": "end", "end_of_input": "end"}
LONG_MIN, LONG_MAX = -(1 << 63), (1 << 63) - 1
STEP, LANE_H, LEFT, TOP = 70, 34, 150, 34
MAX_EVENTS = 120
MAX_INDEX = 12  # divergences listed at the top of the page; the rest are below the matrix

Report = dict[str, Any]


@functools.cache
def _env() -> jinja2.Environment:
    """The template environment: autoescaping on for every template (HTML and SVG alike)."""
    env = jinja2.Environment(loader=jinja2.PackageLoader("flinkspec.reports", "templates"), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["pretty"] = lambda value: json.dumps(value, indent=2)
    env.filters["thousands"] = lambda n: f"{n:,}" if isinstance(n, int) else str(n)
    env.filters["plural"] = plural
    return env


def _macro(template: str, name: str) -> Callable[..., Markup]:
    """A macro of a template (a template module's attributes are its macros, which Jinja2 cannot type)."""
    macro: Callable[..., Markup] = getattr(_env().get_template(template).module, name)
    return macro


def plural(n: int, word: str) -> str:
    """``1 divergence``, ``2 divergences``, ``1,234 cases``."""
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def jar_text(report: Report) -> str | None:
    """The jar a report checked (``impl_jar``: a fork's own flink-dist), in words, or None."""
    jar = report.get("impl_jar")
    if not isinstance(jar, dict):
        return None
    if jar.get("error"):
        return f"The jar {jar.get('path')} could not be described: {jar['error']}."
    text = (f"The jar is {jar.get('path')} (sha256 {jar.get('sha256')}, vendor {jar.get('vendor') or 'not named'}, "
            f"version {jar.get('version') or 'not named'}), checked as Flink {jar.get('base')}. ")
    found = jar.get("fingerprint")
    if not isinstance(found, dict):
        return text + (f"Its classes could not be compared with Apache's: {jar.get('fingerprint_error')}."
                       if jar.get("fingerprint_error") else
                       f"`flinkspec fingerprint {jar.get('path')}` says which of the classes the suite drives differ "
                       f"from Apache's {jar.get('base')}.")
    areas = found.get("by_area") or []
    changed = [f"{', '.join(a['areas']) or 'no area'}: {', '.join(a['changed'])}" for a in areas if a.get("changed")]
    total = sum(a.get("classes", 0) for a in areas)
    if not changed:
        return text + (f"Every one of the {total} Flink classes the suite drives is byte-identical to Apache "
                       f"{found.get('apache_release')}'s: a 'valid' verdict says nothing about what this build "
                       "changed.")
    return text + (f"Of the {total} Flink classes the suite drives, these differ from Apache "
                   f"{found.get('apache_release')}'s (what a 'valid' verdict covers; the others restate Apache's "
                   f"behaviour): {'; '.join(changed)}.")


def speaks_text(report: Report) -> str | None:
    """What the implementation does not speak (``speaks`` of the report), in words; None when it
    speaks everything this suite sends."""
    speaks = report.get("speaks") or {}
    parts = []
    if speaks.get("not_spoken"):
        parts.append(f"does not speak {', '.join(map(str, speaks['not_spoken']))}")
    if speaks.get("unmodelled_keys"):
        parts.append(f"does not model the config keys {', '.join(map(str, speaks['unmodelled_keys']))}")
    if not parts:
        return None
    return f"speaks protocol {speaks.get('protocol', 1)}; " + "; ".join(parts)


def render(reports: Sequence[Report]) -> str:
    """The whole page for ``reports`` (one per implementation or run)."""
    pages = [_ReportView.of(i, r) for i, r in enumerate(reports)]
    return _env().get_template("report.html.j2").render(
        title=_title(pages), reports=pages, matrix=_matrix(reports, _counterexample_anchors(reports)),
        max_index=max(3, MAX_INDEX // max(1, len(pages))),  # the matrix stays on the first screen
    )


def _title(pages: Sequence[_ReportView]) -> str:
    """``flinkspec: IMPL — N distinct divergences`` (several reports: how many implementations; the
    lines under the title give each one's count)."""
    total = plural(sum(p.divergence_count for p in pages), "distinct divergence")
    who = pages[0].impl if len(pages) == 1 else f"{len(pages)} implementations"
    return f"flinkspec: {who} — {total}"


# -- the divergences ------------------------------------------------------------------------------

@attrs.frozen
class RuleBroken:
    """One rule a divergence breaks: its ID, its text and what it saw on the representative."""

    id: str
    text: str
    seen: str


@attrs.frozen
class DivergenceView:
    """One divergence as the page shows it (the same divergence found at several Flink versions,
    with the same request input and answers, is shown once with every version)."""

    anchor: str
    number: int
    signature: str
    area: str
    versions: tuple[str, ...]
    cases: int
    rules: tuple[RuleBroken, ...]
    features: tuple[str, ...]
    request: dict[str, Any]
    expected: dict[str, Any] | None
    actual: dict[str, Any]
    replay: str
    first: str
    timeline: Timeline | None
    fields: FieldsTable | None
    explained_by: tuple[RuleBroken, ...] = ()  # the rules that explain it, with their texts
    difference: str = ""  # Flink's answer and the implementation's where they part

    @property
    def versions_text(self) -> str:
        return _versions_text(self.versions)


@attrs.frozen
class _ReportView:
    """One report's summary line, runs table and divergences."""

    index: int
    impl: str
    verdict: str
    conformance: str
    seed: str
    cases: int
    checked_cases: int
    shrink_requests: int  # requests sent while shrinking, beyond the cases checked
    tested: tuple[tuple[str, str], ...]  # (area, the releases it was checked at)
    failing_cases: int | None
    not_checked_cases: int
    divergence_count: int
    divergences: tuple[DivergenceView, ...]
    runs: tuple[dict[str, Any], ...]
    skipped: tuple[dict[str, Any], ...]
    fanout: dict[str, Any]
    infra: tuple[tuple[str, str, str], ...]
    speaks: str | None
    jar: str | None

    @classmethod
    def of(cls, index: int, r: Report) -> _ReportView:
        ces = r.get("counterexamples", [])
        runs = tuple({**run, "not_checked": run.get("not_checked") or {}} for run in r.get("runs", []))
        texts = {rule["id"]: rule["text"] for rule in r.get("rules", [])}
        return cls(
            index, str(r.get("impl")), str(r.get("verdict")), str(r.get("conformance")), str(r.get("seed")),
            int(r.get("cases", 0)), _checked(r), max(0, int(r.get("cases", 0)) - _checked(r)), _tested(runs),
            r.get("failing_cases"),  # None: a report written before divergences
            int(r.get("not_checked_cases", sum(sum(run["not_checked"].values()) for run in runs))),
            int(r.get("divergences", len(ces))), _divergences(index, ces, texts), runs,
            tuple(u for u in r.get("unsupported", []) if u.get("rule") is None), r.get("fanout") or {},
            tuple((run["area"], run["flink"], str(run["infra_error"])) for run in runs if run.get("infra_error")),
            speaks_text(r), jar_text(r),
        )


def _checked(r: Report) -> int:
    """The cases checked (a report older than ``checked_cases`` counts the requests sent while shrinking too)."""
    return int(r.get("checked_cases") or r.get("cases") or 0)


def _tested(runs: Sequence[dict[str, Any]]) -> tuple[tuple[str, str], ...]:
    """The areas checked, each with the releases it was checked at, in the runs' order."""
    by_area: dict[str, list[str]] = {}
    for run in runs:
        by_area.setdefault(str(run["area"]), []).append(str(run["flink"]))
    return tuple((area, _versions_text(flinks)) for area, flinks in by_area.items())


def _rules_of(c: dict[str, Any]) -> tuple[str, ...]:
    """Every rule a counterexample breaks (reports before divergences name one)."""
    return tuple(c.get("rules") or [c["rule"]])


def _groups(ces: Sequence[dict[str, Any]]) -> list[list[int]]:
    """The counterexamples' positions grouped into what the page shows once: those that differ only
    in the Flink version (same rules, signature, request input and answers), in order of first one."""
    groups: dict[str, list[int]] = {}
    for j, c in enumerate(ces):
        key = json.dumps([_rules_of(c), c.get("signature"), c["area"], c["request"].get("input"),
                          _body(c.get("expected")), _body(c.get("actual"))], sort_keys=True)
        groups.setdefault(key, []).append(j)
    return list(groups.values())


def _anchor(report_index: int, number: int) -> str:
    return f"ce-{report_index + 1}-{number}"


def _divergences(index: int, ces: Sequence[dict[str, Any]], texts: dict[str, str]) -> tuple[DivergenceView, ...]:
    """The report's counterexamples, one view per divergence (merged across Flink versions)."""
    return tuple(_divergence(_anchor(index, n), n, [ces[j] for j in group], texts)
                 for n, group in enumerate(_groups(ces), 1))


def _counterexample_anchors(reports: Sequence[Report]) -> list[list[str]]:
    """The anchor of every counterexample of every report, in the report's order: the anchor of
    the divergence it is shown in."""
    out = []
    for i, r in enumerate(reports):
        ces = r.get("counterexamples", [])
        row = [""] * len(ces)
        for n, group in enumerate(_groups(ces), 1):
            for j in group:
                row[j] = _anchor(i, n)
        out.append(row)
    return out


def _body(resp: dict[str, Any] | None) -> object:
    return None if resp is None else {k: v for k, v in resp.items() if k != "id"}


def _divergence(anchor: str, number: int, cs: Sequence[dict[str, Any]], texts: dict[str, str]) -> DivergenceView:
    """The view of one divergence (``cs``: its counterexamples at each Flink version); rule texts
    from the report (``texts``), else from this suite's registry."""
    c = cs[0]
    rules = _rules_of(c)
    if any(r not in texts for r in rules):
        texts = {**_rule_texts(), **texts}
    messages = list(c.get("messages") or [c.get("difference", "")])
    seen = [messages[i] if i < len(messages) else "" for i in range(len(rules))]
    inp = c["request"].get("input", {})
    exp, act = c.get("expected"), c.get("actual") or {}
    sequence = isinstance(inp, dict) and isinstance(inp.get("events"), list)
    return DivergenceView(
        anchor, number, str(c.get("signature") or c.get("difference", "")), c["area"],
        tuple(dict.fromkeys(f for d in cs for f in (d.get("releases") or [d["flink"]]))),
        sum(int(d.get("cases", 1)) for d in cs),
        tuple(RuleBroken(r, c["rule_text"] if r == c["rule"] and c.get("rule_text") else texts.get(r, ""), s)
              for r, s in zip(rules, seen, strict=True)),
        tuple(c.get("features") or ()), c["request"], exp, act, str(c.get("replay", "")),
        (first_divergence(inp, exp, act) if isinstance(inp, dict) else None) or str(c.get("difference", "")),
        timeline(inp, exp, act) if sequence else None,
        None if sequence else fields(exp, act),
        tuple(RuleBroken(r, texts.get(r) or _rule_texts().get(r, ""), "") for r in c.get("explained_by") or ()),
        str(c.get("difference", "")),
    )


@functools.cache
def _rule_texts() -> dict[str, str]:
    """The text of every rule this suite knows, for rules a counterexample names beside its first."""
    from properties.areas import all_rules

    return {r.id: r.text for r in all_rules().values()}


def _versions_text(versions: Sequence[str]) -> str:
    if len(versions) <= 3:
        return ", ".join(versions)
    return f"{versions[0]} ... {versions[-1]} ({len(versions)} versions)"


# -- the matrix -----------------------------------------------------------------------------------

@attrs.frozen
class Cell:
    """One matrix cell: its class (for the colour), its text, the divergence it links to, and why
    it is what it is when that is not pass or fail (every n/a says why)."""

    cls: str
    text: str
    link: str | None = None
    why: str | None = None


@attrs.frozen
class MatrixRow:
    rule: dict[str, Any]
    cells: tuple[tuple[Cell, int | None], ...]  # each cell with its note's number (None: no note)


@attrs.frozen
class Matrix:
    """The matrix: column groups (implementation, versions), rows (rule, cells) grouped by area,
    and the notes (why each n/a and ? cell is so), numbered in order of first use."""

    groups: tuple[tuple[str, int], ...]
    versions: tuple[str, ...]
    areas: tuple[tuple[str, tuple[MatrixRow, ...]], ...]
    notes: tuple[str, ...]


def _rules(reports: Sequence[Report]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for r in reports:
        areas = {run["area"] for run in r.get("runs", [])} | {u["area"] for u in r.get("unsupported", [])}
        for rule in r.get("rules") or _installed_rules(areas):
            seen.setdefault(rule["id"], rule)
    return sorted(seen.values(), key=lambda x: (x["area"], _rule_key(x["id"])))


def _rule_key(rule_id: str) -> tuple[int, str, int]:
    """WM-1 ... WM-10, then WM-REFUSED, then WM-EQ."""
    prefix, _, num = rule_id.rpartition("-")
    if num.isdigit():
        return 0, prefix, int(num)
    return (2 if num == "EQ" else 1), rule_id, 0


def _installed_rules(areas: set[str]) -> list[dict[str, Any]]:
    """Reports written before ``rules`` was part of the schema: the rules this suite knows."""
    from properties.areas import RULES

    return [{"id": r.id, "area": r.area, "text": r.text, "documented": r.documented,
             "flink_violates": list(r.flink_violates)} for r in RULES.values() if r.area in areas]


@functools.cache
def _area_versions() -> dict[str, frozenset[str]]:
    """The Flink versions each area this suite knows is defined at."""
    from properties.areas import AREAS

    return {name: frozenset(str(v) for v in spec.versions) for name, spec in AREAS.items()}


def cell(report: Report, rule: dict[str, Any], version: str, anchors: Sequence[str] = ()) -> Cell:
    """The matrix cell of one rule at one version of one report."""
    area, rid = rule["area"], rule["id"]
    for u in report.get("unsupported", []):
        if u["area"] == area and u["flink"] == version and u.get("rule") in (None, rid):
            why = u.get("why") or f"declared by {u.get('source', 'the implementation')}"
            return Cell("unsupported", "n/s", why=f"not supported, as the implementation declares: {why}")
    run = next((x for x in report.get("runs", []) if x["area"] == area and x["flink"] == version), None)
    if run is None:
        return _not_run(area, version)
    failing = [j for j, c in enumerate(report.get("counterexamples", []))
               if c["area"] == area and c["flink"] == version and rid in _rules_of(c)]
    if failing:
        j = failing[0]
        text = "fail" if len(failing) == 1 else f"fail ×{len(failing)}"
        return Cell("fail", text, anchors[j] if j < len(anchors) else None)
    return _not_failed(report, rule, version, run)


def _not_run(area: str, version: str) -> Cell:
    known = _area_versions().get(area)
    if known is not None and version not in known:
        return Cell("na", "n/a", why=f"the rule is not defined at that Flink version ({area} starts later)")
    return Cell("norun", "–", why="not run: this report has no run of the rule's area at that version")


def _not_failed(report: Report, rule: dict[str, Any], version: str, run: dict[str, Any]) -> Cell:
    """A rule no divergence breaks: pass, or n/a (why), or ? (why)."""
    level = report.get("conformance", "flink")
    if level == "documented" and not rule.get("documented", True):
        return Cell("na", "n/a", why="not a documented rule: checked only at conformance level flink, "
                                     "not at level documented")
    if level == "flink" and version in rule.get("flink_violates", []):
        how = rule.get("status", "").removeprefix("checked (").removesuffix(")")
        return Cell("na", "n/a", why="real Flink of that version breaks this documented rule (flink_violates), "
                                     "so conformance level flink does not require it" + (f"; {how}" if how else ""))
    if run.get("infra_error"):
        return Cell("unknown", "?", why=f"infrastructure error: {run['infra_error']}")
    not_checked = run.get("not_checked") or {}
    if run.get("cases", 0) == 0:
        if not_checked:
            return Cell("notchecked", "n/a", why=_not_checked_why(not_checked))
        return Cell("unknown", "?", why="no case was checked")
    if not_checked:
        return Cell("pass", "pass", why="passed on the cases checked; " + _not_checked_why(not_checked))
    return Cell("pass", "pass")


def _not_checked_why(not_checked: dict[str, int]) -> str:
    return "not checked, the implementation does not speak what the cases need: " + "; ".join(
        sorted(not_checked))


def _matrix(reports: Sequence[Report], anchors: Sequence[Sequence[str]]) -> Matrix:
    cols: list[tuple[int, str]] = []
    groups: list[tuple[str, int]] = []
    for i, r in enumerate(reports):
        versions = {run["flink"] for run in r.get("runs", [])} | {u["flink"] for u in r.get("unsupported", [])}
        mine = sorted(versions, key=_version_key)
        cols += [(i, v) for v in mine]
        if mine:
            groups.append((str(r.get("impl")), len(mine)))
    notes: dict[str, int] = {}
    areas: dict[str, list[MatrixRow]] = {}
    for rule in _rules(reports):
        cells = []
        for i, v in cols:
            c = cell(reports[i], rule, v, anchors[i])
            note = notes.setdefault(c.why, len(notes) + 1) if c.why and c.cls != "norun" else None
            cells.append((c, note))
        areas.setdefault(rule["area"], []).append(MatrixRow(rule, tuple(cells)))
    return Matrix(tuple(groups), tuple(v for _, v in cols), tuple((a, tuple(rows)) for a, rows in areas.items()),
                  tuple(notes))


def _version_key(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split(".") if x.isdigit())


# -- where the answers part -----------------------------------------------------------------------

def _aligned_key(inp: dict[str, Any], *outs: dict[str, Any] | None) -> str | None:
    """The output field holding one list per input event (``emitted``, ``fired``, ``outputs``; ``steps`` whose
    every entry has an ``emitted`` list), if any."""
    n = len(inp.get("events", []))
    for out in outs:
        body = (out or {}).get("output")
        if isinstance(body, dict):
            for k, v in body.items():
                if isinstance(v, list) and len(v) == n and (
                        all(isinstance(x, list) for x in v)
                        or all(isinstance(x, dict) and isinstance(x.get("emitted"), list) for x in v)):
                    return str(k)  # a JSON object's key
    return None


def per_event(out: dict[str, Any] | None, key: str) -> list[Any]:
    """The per-event lists of ``out``'s ``key`` (a step's ``emitted`` list for steps)."""
    body = (out or {}).get("output")
    items = body.get(key, []) if isinstance(body, dict) else []
    if not isinstance(items, list):
        return []
    return [x.get("emitted") if isinstance(x, dict) and "emitted" in x else x for x in items]


def _sequence_key(*outs: dict[str, Any] | None) -> str | None:
    """The output field holding a flat list of actions (``trace``), if any."""
    for out in outs:
        body = (out or {}).get("output")
        if isinstance(body, dict):
            for k, v in body.items():
                if isinstance(v, list) and all(isinstance(x, dict) for x in v):
                    return str(k)  # a JSON object's key
    return None


def first_divergence(inp: dict[str, Any], exp: dict[str, Any] | None, act: dict[str, Any] | None) -> str | None:
    """Where Flink's and the implementation's answers first part, in terms of the request."""
    if exp is None or act is None:
        return None
    if ("error" in exp) != ("error" in act):
        return "Flink " + ("rejects" if "error" in exp else "accepts") + " the request, the implementation " + (
            "rejects" if "error" in act else "accepts") + " it"
    events = inp.get("events")
    key = _aligned_key(inp, exp, act) if isinstance(events, list) else None
    if key is not None and isinstance(events, list) and "output" in exp and "output" in act:
        e, a = per_event(exp, key), per_event(act, key)
        for i in range(max(len(e), len(a))):
            ei, ai = (e[i] if i < len(e) else None), (a[i] if i < len(a) else None)
            if ei != ai:
                return (f"event #{i} ({describe(events[i]) if i < len(events) else '-'}): Flink {key} "
                        f"{_items(ei)}, the implementation {_items(ai)}")
        return None
    key = _sequence_key(exp, act)
    if key is not None and "output" in exp and "output" in act:
        e, a = exp["output"].get(key, []), act["output"].get(key, [])
        for i in range(max(len(e), len(a))):
            ei, ai = (e[i] if i < len(e) else None), (a[i] if i < len(a) else None)
            if ei != ai:
                return f"{key} entry #{i}: Flink {_short(ei)}, the implementation {_short(ai)}"
    return None


def _items(items: list[Any] | None) -> str:
    if items is None:
        return "nothing (the list ends)"
    return "[" + ", ".join(label(x) for x in items) + "]" if items else "nothing"


def _short(value: object, limit: int = 80) -> str:
    text = "nothing" if value is None else json.dumps(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def ts(value: object) -> str:
    """A timestamp short enough for a picture: Long.MIN/MAX by name, large values compacted."""
    if not isinstance(value, int) or isinstance(value, bool):
        return str(value)
    for name, base in (("MIN", LONG_MIN), ("MAX", LONG_MAX)):
        if abs(value - base) <= 2:
            d = value - base
            return name + (f"{d:+d}" if d else "")
    if abs(value) >= 100_000:
        return f"{value:.2g}".replace("e+", "e")
    return str(value)


def describe(event: object) -> str:
    """One event in a few characters: ``W0:5``, ``I1``, ``A0``, ``r c2 'x'``, ``B c0 #3``, ``END c1``."""
    if not isinstance(event, dict):
        return str(event)
    where = next((f"{k[0]}{event[k]}" for k in INDEX_KEYS if k in event), "")
    if "watermark" in event:
        return f"W{where[1:]}:{ts(event['watermark'])}" if where else f"W:{ts(event['watermark'])}"
    if "status" in event:
        return f"{str(event['status'])[:1]}{where[1:]}"
    return f"{label(event)} {where}".strip()


def label(item: object) -> str:
    """A short label of an event or an emitted element (generic: the first field that says what it is)."""
    if not isinstance(item, dict):
        return _short(item, 24)
    if isinstance(item.get("kind"), str):  # an operator's event: record, complete, watermark, periodic ...
        return _kind_label(item)
    if isinstance(item.get("fired"), dict):
        f = item["fired"]
        return f"fire {f.get('key', '')} [{ts(f.get('start'))},{ts(f.get('end'))})"
    if isinstance(item.get("late"), dict):
        return f"late {ts(item['late'].get('timestamp'))}@{item['late'].get('key', '')}"
    if isinstance(item.get("joined"), dict):
        j = item["joined"]
        return f"join {_short(j.get('left'), 6)}+{_short(j.get('right'), 6)}@{ts(j.get('timestamp'))}"
    if "watermark" in item:
        return f"W {ts(item['watermark'])}"
    if "status" in item:
        return str(item["status"])
    if "record" in item:
        return f"rec {_short(item['record'], 10)}"
    if "barrier" in item:
        return f"B{ts(item['barrier'])}"
    if "cancel" in item:
        return f"✕{ts(item['cancel'])}"
    if "end" in item:
        return "END"
    if "register" in item or "delete" in item:
        op = "register" if "register" in item else "delete"
        return f"{'+' if op == 'register' else '−'}{ts(item[op])} {item.get('key', '')}".strip()
    if "timestamp" in item:
        return f"{ts(item['timestamp'])}@{item.get('key', '')}"
    if "process" in item and isinstance(item["process"], list) and len(item["process"]) == 2:
        return f"proc c{item['process'][0]} {_short(item['process'][1], 8)}"
    for key, short in (("snapshot", "snap"), ("emit_barrier", "emit B"), ("abort", "abort"), ("fail", "fail")):
        if key in item:
            value = item[key][0] if isinstance(item[key], list) and item[key] else item[key]
            return f"{short} {_short(value, 10)}"
    key = next((k for k in item if k not in ("at", *INDEX_KEYS)), "")  # "at": a time stamp, shown after
    text = f"{key[:8]} {_short(item[key], 8)}".strip() if key else "{}"
    return f"{text} @{item['at']}" if "at" in item else text


# -- the timeline picture: geometry here, drawing in templates/timeline.svg.j2 --------------------

@attrs.frozen
class Glyph:
    """One input event on its lane: ``kind`` picks the shape the template draws at (x, y)."""

    x: float
    y: float
    kind: str  # watermark | barrier | idle | active | end | cancel | record | complete | clock | other
    text: str
    tip: str


@attrs.frozen
class Span:
    """A hatched span of a lane: idle (IDLE until ACTIVE) or ended (after an end of partition)."""

    x: float
    y: float
    width: float
    what: str


@attrs.frozen
class Emitted:
    """One element an answer emitted at an event (or trace entry) column."""

    x: float
    y: float
    text: str
    tip: str


@attrs.frozen
class OutputRow:
    """What Flink or the implementation emitted: its elements, the differing columns marked, the
    count of elements not drawn per column, or the error it answered with."""

    who: str
    y: float
    error: str | None
    emitted: tuple[Emitted, ...]
    marks: tuple[float, ...]  # x of each differing column
    more: tuple[tuple[float, int], ...]  # (x, elements not drawn)


@attrs.frozen
class Timeline:
    """Everything timeline.svg.j2 draws, in pixels."""

    width: int
    height: int
    ticks: tuple[tuple[float, int], ...]
    lanes: tuple[tuple[str, float], ...]  # (name, y of its axis)
    spans: tuple[Span, ...]
    glyphs: tuple[Glyph, ...]
    output_title: str
    output_title_y: float
    first_difference: float | None
    rows: tuple[OutputRow, ...]
    left: int = LEFT
    top: int = TOP
    step: int = STEP
    lane_h: int = LANE_H


@attrs.frozen
class Lanes:
    """The timeline's lanes: one per channel or input (an int field of the events), per side or key (a string
    field: its values in order of appearance, and a last lane for the events without it), else one."""

    names: tuple[str, ...]
    field: str | None = None
    keyed: Mapping[str, int] = attrs.field(factory=dict)

    def of(self, e: object) -> int:
        if self.field is None or not isinstance(e, dict):
            return 0
        value = e.get(self.field)
        if self.keyed:
            return self.keyed.get(value, len(self.names) - 1) if isinstance(value, str) else len(self.names) - 1
        return max(0, min(value, len(self.names) - 1)) if isinstance(value, int) else 0


def _lanes(inp: dict[str, Any], events: list[Any]) -> Lanes:
    index = next((k for k in INDEX_KEYS if any(isinstance(e, dict) and k in e for e in events)), None)
    if index is not None:
        n = inp.get("channels") if isinstance(inp.get("channels"), int) else inp.get("inputs")
        if not isinstance(n, int):
            n = 1 + max((e[index] for e in events if isinstance(e, dict) and isinstance(e.get(index), int)),
                        default=0)
        return Lanes(tuple(f"{index} {lane}" for lane in range(max(1, min(n, 64)))), index)
    for key in LANE_KEYS:
        values = list(dict.fromkeys(e[key] for e in events if isinstance(e, dict) and isinstance(e.get(key), str)))
        if values:
            values = values[:16]
            rest = ("watermarks" if all("watermark" in e for e in events if isinstance(e, dict)
                                        and e.get(key) not in values) else "other",)
            return Lanes(tuple(f"{key} {v}" for v in values) + rest, key, {v: i for i, v in enumerate(values)})
    return Lanes(("events",))


def timeline(inp: dict[str, Any], exp: dict[str, Any] | None, act: dict[str, Any] | None) -> Timeline:
    """The geometry of an event sequence's timeline and of what Flink and the implementation emitted."""
    events = list(inp.get("events", []))[:MAX_EVENTS]
    lanes = _lanes(inp, events)
    aligned = _aligned_key(inp, exp, act)
    seq = None if aligned else _sequence_key(exp, act)
    rows = [("Flink", exp), ("implementation", act)] if exp is not None else [("implementation", act)]
    seq_len = max((len(per_event(o, seq)) for _, o in rows), default=0) if seq else 0
    width = LEFT + STEP * max(len(events), min(seq_len, MAX_EVENTS), 1) + 130
    out_top = TOP + len(lanes.names) * LANE_H + 26
    height = out_top + len(rows) * LANE_H + 28
    diff_cols = _differing(exp, act, aligned or seq)
    return Timeline(
        width, height, tuple((_x(i), i) for i in range(len(events))),
        tuple((name, TOP + lane * LANE_H + LANE_H / 2) for lane, name in enumerate(lanes.names)),
        tuple(_spans(events, lanes, width)), tuple(_glyph(i, e, lanes) for i, e in enumerate(events)),
        "emitted per event" if aligned else (seq or "answer"), out_top - 8,
        _x(diff_cols[0]) if diff_cols else None,
        tuple(_output_row(who, out, aligned or seq, out_top + r * LANE_H, diff_cols)
              for r, (who, out) in enumerate(rows)),
    )


def timeline_svg(inp: dict[str, Any], exp: dict[str, Any] | None, act: dict[str, Any] | None) -> str:
    """The SVG timeline alone (templates/timeline.svg.j2 drawing :func:`timeline`)."""
    return str(_macro("timeline.svg.j2", "timeline")(timeline(inp, exp, act)))


def _x(i: int) -> float:
    return LEFT + STEP * i + STEP / 2


def _spans(events: list[Any], lanes: Lanes, width: int) -> list[Span]:
    """Idle spans (IDLE until ACTIVE) and the time after an end of partition, per lane."""
    out: list[Span] = []
    open_at: dict[int, tuple[int, str]] = {}
    for i, e in enumerate(events):
        if not isinstance(e, dict):
            continue
        lane = lanes.of(e)
        if e.get("status") == "IDLE" and lane not in open_at:
            open_at[lane] = (i, "idle")
        elif e.get("status") == "ACTIVE" and lane in open_at and open_at[lane][1] == "idle":
            out.append(_span(open_at.pop(lane)[0], _x(i), lane, "idle"))
        elif e.get("end") is True:
            open_at[lane] = (i, "ended")
    out += [_span(start, width - 20, lane, what) for lane, (start, what) in open_at.items()]
    return out


def _span(start: int, x1: float, lane: int, what: str) -> Span:
    x0 = _x(start)
    return Span(x0, TOP + lane * LANE_H + 5, max(2, x1 - x0), what)


def _glyph(i: int, e: object, lanes: Lanes) -> Glyph:
    kind = "other"
    if isinstance(e, dict):
        status = {"IDLE": "idle"}.get(str(e.get("status")), "active")
        kind = GLYPH_OF_KIND.get(str(e.get("kind")), "other") if "kind" in e else next(
            (k for k, present in (("watermark", "watermark" in e), ("barrier", "barrier" in e),
                                  (status, "status" in e), ("end", "end" in e), ("cancel", "cancel" in e),
                                  ("record", "timestamp" in e and ("key" in e or "side" in e))) if present),
            "other")
    return Glyph(_x(i), TOP + lanes.of(e) * LANE_H + LANE_H / 2, kind, label(e), json.dumps(e))


def _kind_label(item: dict[str, Any]) -> str:
    kind = str(item["kind"])
    if kind == "record":
        at = f"{ts(item['timestamp'])}" if "timestamp" in item else "no ts"
        return f"rec {item['name']} {at}" if "name" in item else f"rec {at}"
    if kind == "complete":
        return f"done {item.get('name', '')}".strip()
    if kind == "watermark":
        return f"W {ts(item.get('timestamp'))}"
    if kind == "advance":
        return f"+{item.get('ms')}ms"
    if kind == "periodic":
        return "emit"
    return "END" if kind in ("end", "end_of_input") else kind[:8]


def _differing(exp: dict[str, Any] | None, act: dict[str, Any] | None, key: str | None) -> list[int]:
    if exp is None or act is None or key is None or "output" not in exp or "output" not in act:
        return []
    e, a = per_event(exp, key), per_event(act, key)
    return [i for i in range(max(len(e), len(a))) if (e[i] if i < len(e) else None) != (a[i] if i < len(a) else None)]


def _output_row(who: str, out: dict[str, Any] | None, key: str | None, y: float, diff_cols: list[int]) -> OutputRow:
    if out is not None and "error" in out:
        err = out["error"]
        text = f"rejected: {err.get('type')} {err.get('exception') or ''} {_short(err.get('message'), 90)}"
        return OutputRow(who, y, text, (), (), ())
    items = per_event(out, key) if key else []
    emitted, more = [], []
    for i, item in enumerate(items[:MAX_EVENTS]):
        group = item if isinstance(item, list) else [item]
        emitted += [Emitted(_x(i), y + 14 + 11 * j, label(el), json.dumps(el)) for j, el in enumerate(group[:2])]
        if isinstance(item, list) and len(item) > 2:
            more.append((_x(i) + STEP / 2 - 6, len(item) - 2))
    return OutputRow(who, y, None, tuple(emitted), tuple(_x(i) - STEP / 2 + 2 for i in diff_cols), tuple(more))


# -- other areas: a table of the answers' fields --------------------------------------------------

@attrs.frozen
class FieldsTable:
    """Flink's and the implementation's answers field by field: the differing fields, then the equal ones."""

    compared: bool  # False: no Flink answer (conformance level documented)
    differing: tuple[tuple[str, str, str], ...]
    same: tuple[tuple[str, str, str], ...]


def flatten(value: object, path: str = "") -> dict[str, object]:
    if isinstance(value, dict):
        out: dict[str, object] = {}
        for k, v in value.items():
            out.update(flatten(v, f"{path}.{k}" if path else str(k)))
        return out
    if isinstance(value, list) and value and all(isinstance(x, (dict, list)) for x in value):
        out = {}
        for i, v in enumerate(value):
            out.update(flatten(v, f"{path}[{i}]"))
        return out
    return {path: value}


def fields(exp: dict[str, Any] | None, act: dict[str, Any] | None) -> FieldsTable:
    """The fields table of two answers (``exp`` None: not compared)."""
    e, a = flatten(exp) if exp is not None else {}, flatten(act or {})
    keys = list(dict.fromkeys([*e, *a]))

    def row(k: str) -> tuple[str, str, str]:
        ev = "" if exp is None else (_short(e[k], 120) if k in e else "(absent)")
        return k, ev, _short(a[k], 120) if k in a else "(absent)"

    differing = [k for k in keys if exp is not None and e.get(k, "∅") != a.get(k, "∅")]
    return FieldsTable(exp is not None, tuple(row(k) for k in differing),
                       tuple(row(k) for k in keys if k not in differing))


def fields_table(exp: dict[str, Any] | None, act: dict[str, Any] | None) -> Markup:
    """The fields table as HTML (templates/divergence.html.j2's ``fields_table``)."""
    return _macro("divergence.html.j2", "fields_table")(fields(exp, act))
