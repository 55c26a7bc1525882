"""One page per protocol area, as an implementer reads it: where the area's shape is defined, then every
rule that says how it behaves (the documented rules an invariant checks, and the rules of Flink's code
the oracle encodes, each with its Flink source and the releases it holds in). Written by
``flinkspec rules --markdown docs/protocol/areas``; a test holds the pages to the registry."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from properties.areas import AREAS
from properties.rules import DIFFERENTIAL, ORACLE, Rule

HEADER = "<!-- written by `flinkspec rules --markdown docs/protocol/areas`; do not edit -->"


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def page(area: str, rules: list[Rule]) -> str:
    """The page of one area."""
    documented = [r for r in rules if r.kind not in (ORACLE, DIFFERENTIAL)]
    oracle = [r for r in rules if r.kind == ORACLE]
    lines = [HEADER, "", f"# `{area}`: how it behaves", "",
             f"The input and output are defined in [the protocol](../{AREAS[area].page}). This page lists "
             "every rule an answer is judged by: a divergence from Flink names the rules below that explain it "
             "(`flinkspec check`, [Checking an implementation](../../check.md#how-divergences-are-told-apart)).", "",
             "## Documented rules", "",
             "What Flink's documentation (or the protocol) says; judged on every answer at both conformance levels "
             "(a rule Flink's own code breaks in some releases is not required there at level `flink`).", "",
             "| rule | what holds | source |", "|---|---|---|"]
    lines += [f"| `{r.id}` | {_cell(r.text)}{' (judged only with --strict-messages)' if r.wording else ''}"
              f"{f' Real Flink breaks it in {r.broken_in}.' if r.broken_in else ''} | {_cell(r.source)} |"
              for r in documented]
    lines += ["", "## Flink's code", "",
              "What Flink's classes do, as the oracle encodes them and real Flink's jars confirm; judged through "
              f"`{next((r.id for r in rules if r.kind == DIFFERENTIAL), '-EQ')}` (the answer equals Flink's) at "
              "conformance level `flink`.", ""]
    if oracle:
        lines += ["| rule | what Flink does | Flink source, releases |", "|---|---|---|"]
        lines += [f"| `{r.id}` | {_cell(r.text)} | {_cell(r.source)} |" for r in oracle]
    else:
        lines.append("The oracle numbers no rules of its own for this area: the documented rules above state them.")
    return "\n".join(lines) + "\n"


def write_pages(every: Mapping[str, Rule], directory: Path) -> list[Path]:
    """Write every area's page into ``directory``; returns the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for area in AREAS:
        path = directory / f"{area}.md"
        path.write_text(page(area, [r for r in every.values() if r.area == area]))
        out.append(path)
    return out
