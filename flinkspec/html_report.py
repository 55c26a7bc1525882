"""``report.html``: one self-contained page for people, from one or more ``report.json`` values.

For every counterexample: the rule (ID and text), the minimal request, Flink's (the oracle's) and
the implementation's answers, the first point where they differ, the replay command and a picture:
for event sequences an inline SVG timeline (one lane per channel or input with its watermarks, idle
spans, records, barriers and ends; below it what Flink and the implementation emitted per event, or
their traces, the first difference marked), for other areas a table of the answers' fields. Then a
matrix implementation x Flink version x rule (pass / fail / not supported / not required), like
wpt.fyi, over every report given (``flinkspec html a.json b.json --out matrix.html``).

Rendering only: nothing here judges anything; it reads the report's fields (docs/report-schema.md).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from typing import Any

INDEX_KEYS = ("channel", "input")
LONG_MIN, LONG_MAX = -(1 << 63), (1 << 63) - 1
STEP, LANE_H, LEFT, TOP = 70, 34, 150, 34
MAX_EVENTS = 120

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:0 auto;max-width:1400px;padding:0 24px 48px;
color:#1d232b}
h1{font-size:24px;margin:24px 0 4px}h2{font-size:19px;margin:32px 0 8px;border-bottom:1px solid #d6dbe1}
h3{font-size:16px;margin:0 0 6px}code,pre{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
pre{background:#f5f7f9;border:1px solid #e1e5ea;padding:8px;overflow:auto;max-height:360px;margin:4px 0}
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #d6dbe1;padding:3px 8px;text-align:left;
vertical-align:top}th{background:#f0f2f5}.verdict{font-weight:600;padding:1px 8px;border-radius:10px}
.valid,.pass{background:#d9f2dd;color:#165c25}.invalid,.fail{background:#fbd9d7;color:#8c1d18}
.unknown{background:#fdebc8;color:#7a4b00}.unsupported{background:#e4e6ea;color:#4a525c}
.na{background:#fafbfc;color:#8a939e}.norun{background:#fff}
.matrix td{text-align:center;font-size:12px;min-width:34px}.matrix td.rule{text-align:left;white-space:nowrap}
.matrix a{color:inherit}.ce{border:1px solid #d6dbe1;border-radius:6px;padding:12px 16px;margin:16px 0}
.cols{display:flex;gap:12px}.cols>div{flex:1;min-width:0}.diff{background:#fbd9d7}
blockquote{margin:4px 0 8px;padding:2px 10px;border-left:3px solid #8aa4c8;color:#333}
.first{font-weight:600;color:#8c1d18}.muted{color:#69727d}svg{display:block;margin:8px 0;max-width:100%;height:auto}
"""

SCRIPT = """
(function(){var s=document.querySelectorAll('svg.timeline'),n=0;
for(var i=0;i<s.length;i++){var b=s[i].getBBox();if(b.width>0&&b.height>0)n++;}
document.body.setAttribute('data-svgs',String(s.length));document.body.setAttribute('data-rendered',String(n));})();
"""


def render(reports: Sequence[dict[str, Any]]) -> str:
    """The whole page for ``reports`` (one per implementation or run)."""
    title = "flinkspec: " + ", ".join(escape(str(r.get("impl"))) for r in reports)
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{title}</title>",
             f"<meta name='viewport' content='width=device-width'><style>{CSS}</style></head><body>",
             f"<h1>{title}</h1>"]
    parts += [_summary(r) for r in reports]
    anchors = _anchors(reports)
    parts.append(_matrix(reports, anchors))
    for i, r in enumerate(reports):
        ces = r.get("counterexamples", [])
        parts.append(f"<h2>Counterexamples of {escape(str(r.get('impl')))} ({len(ces)})</h2>")
        if not ces:
            parts.append("<p class='muted'>None.</p>")
        shown: set[str] = set()
        for j, c in enumerate(ces):
            if anchors[i][j] not in shown:
                shown.add(anchors[i][j])
                versions = [d["flink"] for k, d in enumerate(ces) if anchors[i][k] == anchors[i][j]]
                parts.append(_counterexample(c, anchors[i][j], versions))
        parts.append(_infra(r))
    parts.append(f"<script>{SCRIPT}</script></body></html>\n")
    return "\n".join(parts)


# -- summary and matrix ---------------------------------------------------------------------------

def _summary(r: dict[str, Any]) -> str:
    verdict = str(r.get("verdict"))
    fan = r.get("fanout") or {}
    lines = [f"<p><span class='verdict {escape(verdict)}'>{escape(verdict)}</span> "
             f"<b>{escape(str(r.get('impl')))}</b>: {r.get('cases', 0):,} cases, "
             f"{len(r.get('counterexamples', []))} counterexample(s), conformance level "
             f"<code>{escape(str(r.get('conformance')))}</code>, seed {escape(str(r.get('seed')))}"]
    if fan:
        lines.append(f"; fanned out on <code>{escape(str(fan.get('master')))}</code> in {fan.get('partitions')} "
                     f"partition(s), {fan.get('checked_cases', 0):,} cases checked in {fan.get('wall_seconds')} s "
                     f"({fan.get('cases_per_second')} cases/s)")
    lines.append(".</p><table><tr><th>area</th><th>Flink</th><th>cases</th><th>seconds</th><th>verdict</th></tr>")
    for run in r.get("runs", []):
        v = str(run.get("verdict"))
        extra = f": {escape(str(run['infra_error']))}" if run.get("infra_error") else ""
        lines.append(f"<tr><td>{escape(run['area'])}</td><td>{escape(run['flink'])}</td><td>{run['cases']:,}</td>"
                     f"<td>{run['seconds']}</td><td><span class='verdict {escape(v)}'>{escape(v)}</span>{extra}"
                     "</td></tr>")
    for u in r.get("unsupported", []):
        if u.get("rule") is None:
            lines.append(f"<tr><td>{escape(u['area'])}</td><td>{escape(u['flink'])}</td><td>0</td><td>0</td>"
                         f"<td><span class='verdict unsupported'>not supported</span> "
                         f"{escape(str(u.get('why') or ''))}</td></tr>")
    lines.append("</table>")
    return "".join(lines)


def _rules(reports: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for r in reports:
        areas = {run["area"] for run in r.get("runs", [])} | {u["area"] for u in r.get("unsupported", [])}
        for rule in r.get("rules") or _installed_rules(areas):
            seen.setdefault(rule["id"], rule)
    return sorted(seen.values(), key=lambda x: (x["area"], x["id"].endswith("-EQ"), _rule_key(x["id"])))


def _rule_key(rule_id: str) -> tuple[str, int]:
    prefix, _, num = rule_id.rpartition("-")
    return (prefix, int(num)) if num.isdigit() else (rule_id, 0)


def _installed_rules(areas: set[str]) -> list[dict[str, Any]]:
    """Reports written before ``rules`` was part of the schema: the rules this suite knows."""
    import properties.areas  # noqa: F401  (registers every rule)
    from properties.rules import RULES

    return [{"id": r.id, "area": r.area, "text": r.text, "documented": r.documented,
             "flink_violates": list(r.flink_violates)} for r in RULES.values() if r.area in areas]


def _anchors(reports: Sequence[dict[str, Any]]) -> list[list[str]]:
    """An anchor per counterexample; the same one for counterexamples that differ only in the Flink
    version (same rule, request input and answers), which the page shows once."""
    out: list[list[str]] = []
    groups: dict[str, str] = {}
    for i, r in enumerate(reports):
        row = []
        for c in r.get("counterexamples", []):
            key = json.dumps([i, c["rule"], c["area"], c["request"].get("input"), _body(c.get("expected")),
                              _body(c.get("actual"))], sort_keys=True)
            row.append(groups.setdefault(key, f"ce-{len(groups) + 1}"))
        out.append(row)
    return out


def _body(resp: dict[str, Any] | None) -> object:
    return None if resp is None else {k: v for k, v in resp.items() if k != "id"}


def cell(report: dict[str, Any], rule: dict[str, Any], version: str,
         anchors: Sequence[str] = ()) -> tuple[str, str, str | None]:
    """The matrix cell of one rule at one version: (class, text, link to the counterexample or None)."""
    area = rule["area"]
    for u in report.get("unsupported", []):
        if u["area"] == area and u["flink"] == version and u.get("rule") in (None, rule["id"]):
            return "unsupported", "n/s", None
    run = next((x for x in report.get("runs", []) if x["area"] == area and x["flink"] == version), None)
    if run is None:
        return "norun", "", None
    for j, c in enumerate(report.get("counterexamples", [])):
        if c["area"] == area and c["flink"] == version and c["rule"] == rule["id"]:
            return "fail", "fail", anchors[j] if j < len(anchors) else None
    if report.get("conformance") == "documented" and not rule.get("documented", True):
        return "na", "n/a", None
    if report.get("conformance", "flink") == "flink" and version in rule.get("flink_violates", []):
        return "na", "n/a", None
    if run.get("infra_error") or run.get("cases", 0) == 0:
        return "unknown", "?", None
    return "pass", "pass", None


def _matrix(reports: Sequence[dict[str, Any]], anchors: Sequence[Sequence[str]]) -> str:
    cols: list[tuple[int, str]] = []
    for i, r in enumerate(reports):
        versions = {run["flink"] for run in r.get("runs", [])} | {u["flink"] for u in r.get("unsupported", [])}
        cols += [(i, v) for v in sorted(versions, key=_version_key)]
    out = ["<h2>Matrix: implementation x Flink version x rule</h2>",
           "<p class='muted'>pass: no counterexample in the cases checked; fail: a counterexample (linked); "
           "n/s: the implementation declares it does not support it; n/a: not required at this conformance "
           "level (Flink itself breaks the rule in that version, or the rule is not documented); ?: "
           "infrastructure error; empty: not run.</p><table class='matrix'><tr><th rowspan='2'>rule</th>"]
    for i, r in enumerate(reports):
        span = sum(1 for j, _ in cols if j == i)
        if span:
            out.append(f"<th colspan='{span}'>{escape(str(r.get('impl')))}</th>")
    out.append("</tr><tr>" + "".join(f"<th>{escape(v)}</th>" for _, v in cols) + "</tr>")
    for rule in _rules(reports):
        row = [f"<tr><td class='rule' title='{escape(rule['text'], quote=True)}'>{escape(rule['id'])} "
               f"<span class='muted'>{escape(rule['area'])}</span></td>"]
        for i, v in cols:
            cls, text, link = cell(reports[i], rule, v, anchors[i])
            body = f"<a href='#{escape(link)}'>{text}</a>" if link else text
            row.append(f"<td class='{cls}'>{body}</td>")
        out.append("".join(row) + "</tr>")
    out.append("</table>")
    return "".join(out)


def _version_key(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split(".") if x.isdigit())


# -- one counterexample ---------------------------------------------------------------------------

def _json(value: object) -> str:
    return escape(json.dumps(value, indent=2))


def _versions_text(versions: Sequence[str]) -> str:
    if len(versions) <= 3:
        return ", ".join(versions)
    return f"{versions[0]} ... {versions[-1]} ({len(versions)} versions)"


def _counterexample(c: dict[str, Any], anchor: str, versions: Sequence[str] = ()) -> str:
    req, exp, act = c["request"], c.get("expected"), c.get("actual")
    inp = req.get("input", {})
    picture = timeline_svg(inp, exp, act) if isinstance(inp.get("events"), list) else fields_table(exp, act)
    first = first_divergence(inp, exp, act) or c.get("difference", "")
    expected_col = (f"<div><b>Flink (the oracle) answers</b><pre>{_json(exp)}</pre></div>" if exp is not None else
                    "<div><b>Flink</b><p class='muted'>not compared (conformance level documented)</p></div>")
    return "".join([
        f"<section class='ce' id='{anchor}'><h3>{escape(c['rule'])} at Flink "
        f"{escape(_versions_text(versions or [c['flink']]))} "
        f"<span class='muted'>({escape(c['area'])})</span></h3>",
        f"<blockquote>{escape(c.get('rule_text', ''))}</blockquote>",
        f"<p>What differs: {escape(c.get('difference', ''))}</p>",
        f"<p class='first'>First point where they differ: {escape(first)}</p>",
        picture,
        f"<div class='cols'><div><b>Minimal request</b><pre>{_json(req)}</pre></div>{expected_col}"
        f"<div><b>The implementation answers</b><pre>{_json(act)}</pre></div></div>",
        f"<p><b>Replay</b></p><pre>{escape(c.get('replay', ''))}</pre></section>",
    ])


def _aligned_key(inp: dict[str, Any], *outs: dict[str, Any] | None) -> str | None:
    """The output field holding one list per input event (``emitted``, ``fired``), if any."""
    n = len(inp.get("events", []))
    for out in outs:
        body = (out or {}).get("output")
        if isinstance(body, dict):
            for k, v in body.items():
                if isinstance(v, list) and len(v) == n and all(isinstance(x, list) for x in v):
                    return k
    return None


def _sequence_key(*outs: dict[str, Any] | None) -> str | None:
    """The output field holding a flat list of actions (``trace``), if any."""
    for out in outs:
        body = (out or {}).get("output")
        if isinstance(body, dict):
            for k, v in body.items():
                if isinstance(v, list) and all(isinstance(x, dict) for x in v):
                    return k
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
    if key is not None and "output" in exp and "output" in act:
        e, a = exp["output"].get(key, []), act["output"].get(key, [])
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


# -- the timeline picture -------------------------------------------------------------------------

def _lanes(inp: dict[str, Any], events: list[Any]) -> tuple[str | None, int]:
    index = next((k for k in INDEX_KEYS if any(isinstance(e, dict) and k in e for e in events)), None)
    n = inp.get("channels") if isinstance(inp.get("channels"), int) else inp.get("inputs")
    if not isinstance(n, int):
        n = 1 + max((e.get(index, 0) for e in events if isinstance(e, dict) and index), default=0)
    return index, max(1, min(n, 64))


def timeline_svg(inp: dict[str, Any], exp: dict[str, Any] | None, act: dict[str, Any] | None) -> str:
    """An SVG timeline of an event sequence and of what Flink and the implementation emitted."""
    events = list(inp.get("events", []))[:MAX_EVENTS]
    index, lanes = _lanes(inp, events)
    aligned = _aligned_key(inp, exp, act)
    seq = None if aligned else _sequence_key(exp, act)
    rows = [("Flink", exp), ("implementation", act)] if exp is not None else [("implementation", act)]
    seq_len = max((len((o or {}).get("output", {}).get(seq, [])) for _, o in rows), default=0) if seq else 0
    width = LEFT + STEP * max(len(events), min(seq_len, MAX_EVENTS), 1) + 130
    out_top = TOP + lanes * LANE_H + 26
    height = out_top + len(rows) * LANE_H + 28
    svg = [f"<svg class='timeline' xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
           f"viewBox='0 0 {width} {height}' font-family='ui-monospace,monospace' font-size='11'>",
           "<defs><pattern id='hatch' width='6' height='6' patternUnits='userSpaceOnUse' "
           "patternTransform='rotate(45)'><rect width='6' height='6' fill='#eef0f3'/>"
           "<line x1='0' y1='0' x2='0' y2='6' stroke='#c3c9d1' stroke-width='2'/></pattern></defs>",
           "<text x='4' y='16' font-weight='bold'>input events (left to right)</text>"]
    for i in range(len(events)):
        svg.append(f"<text x='{_x(i)}' y='{TOP - 4}' text-anchor='middle' fill='#8a939e'>#{i}</text>")
    for lane in range(lanes):
        y = TOP + lane * LANE_H
        name = f"{index} {lane}" if index else "events"
        svg.append(f"<text x='4' y='{y + LANE_H / 2 + 4}'>{escape(name)}</text>"
                   f"<line x1='{LEFT - 10}' y1='{y + LANE_H / 2}' x2='{width - 20}' y2='{y + LANE_H / 2}' "
                   "stroke='#c3c9d1'/>")
    svg += _spans(events, index, lanes, width)
    for i, e in enumerate(events):
        svg += _glyph(i, e, index, lanes)
    svg.append(f"<text x='4' y='{out_top - 8}' font-weight='bold'>"
               f"{escape('emitted per event' if aligned else (seq or 'answer'))}</text>")
    diff_cols = _differing(exp, act, aligned or seq)
    if diff_cols:
        x = _x(diff_cols[0])
        svg.append(f"<line x1='{x}' y1='{TOP - 14}' x2='{x}' y2='{height - 8}' stroke='#c0392b' "
                   f"stroke-dasharray='4 3'/><text x='{x + 4}' y='{height - 10}' fill='#c0392b'>"
                   "first difference</text>")
    for r, (who, out) in enumerate(rows):
        y = out_top + r * LANE_H
        svg.append(f"<text x='4' y='{y + LANE_H / 2 + 4}'>{escape(who)}</text>")
        svg += _output_row(out, aligned or seq, y, diff_cols)
    svg.append("</svg>")
    return "".join(svg)


def _x(i: int) -> float:
    return LEFT + STEP * i + STEP / 2


def _lane_of(e: object, index: str | None, lanes: int) -> int:
    if index and isinstance(e, dict) and isinstance(e.get(index), int):
        return max(0, min(e[index], lanes - 1))
    return 0


def _spans(events: list[Any], index: str | None, lanes: int, width: int) -> list[str]:
    """Idle spans (IDLE until ACTIVE) and the time after an end of partition, per lane."""
    out: list[str] = []
    open_at: dict[int, tuple[int, str]] = {}
    for i, e in enumerate(events):
        if not isinstance(e, dict):
            continue
        lane = _lane_of(e, index, lanes)
        if e.get("status") == "IDLE" and lane not in open_at:
            open_at[lane] = (i, "idle")
        elif e.get("status") == "ACTIVE" and lane in open_at and open_at[lane][1] == "idle":
            out.append(_span(open_at.pop(lane)[0], i, lane, "idle"))
        elif e.get("end") is True:
            open_at[lane] = (i, "ended")
    for lane, (start, what) in open_at.items():
        out.append(_span(start, None, lane, what, width))
    return out


def _span(start: int, end: int | None, lane: int, what: str, width: int = 0) -> str:
    x0 = _x(start)
    x1 = _x(end) if end is not None else width - 20
    y = TOP + lane * LANE_H + 5
    return (f"<rect x='{x0}' y='{y}' width='{max(2, x1 - x0)}' height='{LANE_H - 10}' fill='url(#hatch)' "
            f"opacity='0.9'><title>{what}</title></rect>"
            f"<text x='{x0 + 4}' y='{y + LANE_H - 12}' fill='#69727d' font-size='9'>{what}</text>")


def _glyph(i: int, e: object, index: str | None, lanes: int) -> list[str]:
    x, lane = _x(i), _lane_of(e, index, lanes)
    y = TOP + lane * LANE_H + LANE_H / 2
    tip = escape(json.dumps(e))
    text = escape(label(e))
    if isinstance(e, dict) and "watermark" in e:
        shape = f"<path d='M{x} {y - 6} L{x + 6} {y} L{x} {y + 6} L{x - 6} {y} Z' fill='#2b6cb0'/>"
    elif isinstance(e, dict) and "barrier" in e:
        shape = f"<rect x='{x - 2}' y='{y - 12}' width='4' height='24' fill='#b7791f'/>"
    elif isinstance(e, dict) and "status" in e:
        fill = "#69727d" if e["status"] == "IDLE" else "#2f855a"
        shape = f"<rect x='{x - 5}' y='{y - 5}' width='10' height='10' fill='{fill}'/>"
    elif isinstance(e, dict) and "end" in e:
        shape = f"<path d='M{x - 6} {y - 6} L{x + 6} {y + 6} M{x + 6} {y - 6} L{x - 6} {y + 6}' stroke='#1d232b' " \
                "stroke-width='2'/>"
    elif isinstance(e, dict) and "cancel" in e:
        shape = f"<circle cx='{x}' cy='{y}' r='6' fill='none' stroke='#c0392b' stroke-width='2'/>"
    else:
        shape = f"<circle cx='{x}' cy='{y}' r='4' fill='#4a5568'/>"
    return [f"<g><title>{tip}</title>{shape}<text x='{x}' y='{y - 9}' text-anchor='middle'>{text}</text></g>"]


def _differing(exp: dict[str, Any] | None, act: dict[str, Any] | None, key: str | None) -> list[int]:
    if exp is None or act is None or key is None or "output" not in exp or "output" not in act:
        return []
    e, a = exp["output"].get(key, []), act["output"].get(key, [])
    return [i for i in range(max(len(e), len(a))) if (e[i] if i < len(e) else None) != (a[i] if i < len(a) else None)]


def _output_row(out: dict[str, Any] | None, key: str | None, y: float, diff_cols: list[int]) -> list[str]:
    cells: list[str] = []
    if out is None:
        return cells
    if "error" in out:
        err = out["error"]
        text = f"rejected: {err.get('type')} {err.get('exception') or ''} {_short(err.get('message'), 90)}"
        return [f"<text x='{LEFT}' y='{y + LANE_H / 2 + 4}' fill='#8c1d18'>{escape(text)}</text>"]
    items = (out.get("output") or {}).get(key, []) if key else []
    for i, item in enumerate(items[:MAX_EVENTS]):
        x = _x(i)
        if i in diff_cols:
            cells.append(f"<rect x='{x - STEP / 2 + 2}' y='{y + 3}' width='{STEP - 4}' height='{LANE_H - 6}' "
                         "fill='#fbd9d7'/>")
        group = item if isinstance(item, list) else [item]
        for j, element in enumerate(group[:2]):
            cells.append(f"<text x='{x}' y='{y + 14 + 11 * j}' text-anchor='middle'>"
                         f"<title>{escape(json.dumps(element))}</title>{escape(label(element))}</text>")
        if isinstance(item, list) and len(item) > 2:
            cells.append(f"<text x='{x + STEP / 2 - 6}' y='{y + 12}' fill='#69727d'>+{len(item) - 2}</text>")
    for i in diff_cols:
        if i >= len(items):
            cells.append(f"<rect x='{_x(i) - STEP / 2 + 2}' y='{y + 3}' width='{STEP - 4}' height='{LANE_H - 6}' "
                         "fill='#fbd9d7'/>")
    return cells


# -- other areas: a table -------------------------------------------------------------------------

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


def fields_table(exp: dict[str, Any] | None, act: dict[str, Any] | None) -> str:
    """Flink's and the implementation's answers field by field; differing fields first and marked."""
    e, a = flatten(exp) if exp is not None else {}, flatten(act or {})
    keys = list(dict.fromkeys([*e, *a]))
    differing = [k for k in keys if exp is not None and e.get(k, "∅") != a.get(k, "∅")]
    same = [k for k in keys if k not in differing]

    def row(k: str, cls: str) -> str:
        ev = "" if exp is None else escape(_short(e[k], 120) if k in e else "(absent)")
        av = escape(_short(a[k], 120) if k in a else "(absent)")
        return f"<tr class='{cls}'><td><code>{escape(k)}</code></td><td>{ev}</td><td>{av}</td></tr>"

    head = "<table><tr><th>field</th><th>Flink</th><th>implementation</th></tr>"
    body = "".join(row(k, "diff") for k in differing)
    if same:
        body += (f"<tr><td colspan='3'><details><summary>{len(same)} equal field(s)</summary><table>"
                 + "".join(row(k, "") for k in same) + "</table></details></td></tr>")
    return head + body + "</table>"


def _infra(r: dict[str, Any]) -> str:
    """Infrastructure errors and lost partitions: the cases that could not be checked, and why."""
    rows = [(run["area"], run["flink"], run["infra_error"]) for run in r.get("runs", []) if run.get("infra_error")]
    fan = r.get("fanout") or {}
    details = [e for e in fan.get("infra_errors", []) if e.get("request")]
    if not rows and not details and not fan.get("lost_partitions"):
        return ""
    out = ["<h3>Infrastructure errors</h3><table><tr><th>area</th><th>Flink</th><th>what</th></tr>"]
    out += [f"<tr><td>{escape(a)}</td><td>{escape(f)}</td><td>{escape(str(e))}</td></tr>" for a, f, e in rows]
    out.append("</table>")
    for e in details[:20]:
        out.append(f"<p>{escape(e['area'])} at Flink {escape(e['flink'])}: {escape(e['cause'])}</p>"
                   f"<pre>{_json(e['request'])}</pre>")
    for lost in fan.get("lost_partitions", []):
        out.append(f"<p>partition {lost['partition']} ({lost['cases']} cases) lost: {escape(lost['cause'])}</p>")
    return "".join(out)
