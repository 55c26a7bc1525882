"""python -m flinkspec.tools.catch_rate: how reliably flinkspec check catches the built-in mutants.

Whether one check catches a mutant depends on what its seed draws. This runs the check of
flinkspec check (500 generated requests by default, as the command does) with seeds 0 .. N-1
for each chosen mutant: a historical one (flink-NNNNN) at the first release with its fix and
at the newest release, any other at the newest. Each check ends at the first failing case, unshrunk
(whether it is caught does not depend on shrinking; how small its counterexample shrinks is
tests/test_mutants.py's question). For each mutant it prints how many seeds caught it, and the most
requests and seconds one check took to catch it (requests go in batches of 256; all of them where it
escaped).

    python -m flinkspec.tools.catch_rate                    # the historical mutants, seeds 0-9
    python -m flinkspec.tools.catch_rate --mutants 'cc-*' --seeds 20 --jobs 2 --json rates.json
    python -m flinkspec.tools.catch_rate --conformance documented --mutants none \
        --impl checkpoint.coordinator=python:tests.documented_faults:late_failure

--conformance documented judges by the documented invariants alone, as check --conformance
documented does; a mutant that breaks no documented rule (its "undocumented" field says why: only
Flink's code decides what it changes) is then not checked but listed with that reason. --impl
AREA=SPEC (repeatable) adds an implementation of check --impl, checked in that area at the
newest release like a mutant.

--readme-from FILE runs no check: it fills the documented-level column of the mutant tables of a docs
page (--readme, default docs/mutants.md) from the JSON of a --conformance documented run:

    python -m flinkspec.tools.catch_rate --readme-from docs/evidence/catch-rate-documented.json

Exit codes: 0 every seed caught every mutant, 1 some seed let a mutant escape, 2 bad usage.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import multiprocessing
import sys
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from flinkspec.judge.verdict import Conformance
from oracle.versions import LATEST, FlinkVersion

if TYPE_CHECKING:
    from flinkspec.engine.check import Counterexample


@attrs.frozen
class Task:
    mutant: str
    area: str
    version: str
    seed: int
    examples: int
    conformance: Conformance = "flink"


@attrs.frozen
class Outcome:
    task: Task
    caught: bool
    cases: int
    seconds: float
    rule: str  # the rule of the smallest counterexample, "" when it escaped


@attrs.frozen
class Rate:
    mutant: str
    area: str
    version: str
    caught: int
    seeds: int
    most_cases: int
    most_seconds: float
    escaped: tuple[int, ...]  # the seeds that did not catch it
    rules: tuple[str, ...]  # the rules the smallest counterexamples named
    undocumented: str = ""  # not checked at the documented level: why the mutant breaks no documented rule


def plan(patterns: Sequence[str], seeds: int, examples: int, conformance: Conformance = "flink",
         impls: Sequence[tuple[str, str]] = ()) -> list[Task]:
    """Every (mutant, version, seed) to check, in the order of the mutants' names, then every
    (area, implementation spec) of ``impls`` at the newest release."""
    from flinkspec.mutants import MUTANTS

    names = sorted(n for n in MUTANTS if any(fnmatch.fnmatchcase(n, p) for p in patterns))
    tasks = []
    for name in names:
        for version in _versions(name):
            if conformance == "documented" and not MUTANTS[name].breaks_documented_rule(version):
                continue  # see excluded()
            tasks += [Task(name, MUTANTS[name].area, str(version), s, examples, conformance) for s in range(seeds)]
    for area, spec in impls:
        tasks += [Task(spec, area, str(LATEST), s, examples, conformance) for s in range(seeds)]
    return tasks


def _versions(name: str) -> list[FlinkVersion]:
    """Where a mutant is measured: a historical one at the first release with its fix and at the newest
    release, any other at the newest (or at its ``measured_at``)."""
    from flinkspec.mutants import MUTANTS

    return list(dict.fromkeys(v for v in (MUTANTS[name].first_fixed(), MUTANTS[name].measure_at()) if v is not None))


def excluded(patterns: Sequence[str], conformance: str) -> list[Rate]:
    """At the documented level, a row (no seeds) for each chosen mutant and version at which it breaks no
    documented rule, saying why; none at the flink level."""
    from flinkspec.mutants import MUTANTS

    if conformance != "documented":
        return []
    return [Rate(n, m.area, str(ver), 0, 0, 0, 0.0, (), (), m.undocumented) for n, m in sorted(MUTANTS.items())
            if any(fnmatch.fnmatchcase(n, p) for p in patterns)
            for ver in _versions(n) if not m.breaks_documented_rule(ver)]


def impl_spec(name: str) -> str:
    """The ``--impl`` value of a task's name: a mutant's name, or an implementation spec itself."""
    return name if ":" in name else f"mutant:{name}"


def run(task: Task) -> Outcome:
    """One ``flinkspec check`` of one mutant at one version and seed, in this process."""
    from flinkspec.engine.check import check_area
    from flinkspec.impls import open_impl
    from oracle.versions import parse_version
    from properties.areas import AREAS

    area = task.area
    started = time.monotonic()
    spec = impl_spec(task.mutant)
    impl = open_impl(spec)
    try:
        result = check_area(impl, spec, area, parse_version(task.version), examples=task.examples,
                             seed_value=task.seed, conformance=task.conformance, max_failures=1, shrink=False)
    finally:
        impl.close()
    found = sorted(result.counterexamples, key=lambda c: AREAS[area].size(c.request))
    return Outcome(task, bool(found), result.cases, time.monotonic() - started,
                   named_rule(found[0], task.conformance) if found else "")


def named_rule(found: Counterexample, conformance: str) -> str:
    """The rule a catch is named by: at the ``flink`` level the counterexample's own (the first rule that
    explains its departure from Flink's answer, an oracle rule if one does); at the ``documented`` level,
    which does not compare with Flink's answer, the first documented rule the answer breaks. The case
    is not shrunk (:func:`run`), so what explains it first may be another rule than what explains its
    shrunk form; what it breaks is what the level judges."""
    return found.rules[0] if conformance == "documented" and found.rules else found.rule


def run_all(tasks: Sequence[Task], jobs: int) -> list[Outcome]:
    """Every task, in order: in this process, or spread over ``jobs`` fresh interpreters (spawned, so a
    check's draws depend on its seed alone, not on the state of a forked parent)."""
    if jobs == 1:
        return [run(t) for t in tasks]
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        return list(pool.map(run, tasks))


def summarise(outcomes: Iterable[Outcome]) -> list[Rate]:
    """One rate per (mutant, version), in the order first seen."""
    groups: dict[tuple[str, str, str], list[Outcome]] = {}
    for o in outcomes:
        groups.setdefault((o.task.mutant, o.task.area, o.task.version), []).append(o)
    return [Rate(name, area, version, sum(o.caught for o in group), len(group),
                 max(o.cases for o in group), round(max(o.seconds for o in group), 1),
                 tuple(o.task.seed for o in group if not o.caught), tuple(sorted({o.rule for o in group if o.rule})))
            for (name, area, version), group in groups.items()]


def render(rates: Sequence[Rate]) -> str:
    rows = [("mutant", "area", "version", "caught", "most cases", "most s", "rules", "escaped with seeds")]
    rows += [(r.mutant, r.area, r.version, f"{r.caught}/{r.seeds}", str(r.most_cases), f"{r.most_seconds:.1f}",
              ", ".join(r.rules), " ".join(map(str, r.escaped))) for r in rates if not r.undocumented]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    table = "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
                      for row in rows) + "\n"
    return table + "".join(f"not checked at the documented level, it breaks no documented rule: {r.mutant} "
                           f"({r.version}): {r.undocumented}\n" for r in rates if r.undocumented)


def read_rates(path: Path) -> list[Rate]:
    """The rates a ``--json`` file holds."""
    return [Rate(**{**r, "escaped": tuple(r["escaped"]), "rules": tuple(r["rules"])})
            for r in json.loads(path.read_text())]


DOCUMENTED_COLUMN = "documented level: seeds 0-9 that catch it (rules)"
_DOCUMENTED_NOTE = "<!-- documented-level column: python -m flinkspec.tools.catch_rate --readme-from {} -->"


def documented_cell(rates: Sequence[Rate]) -> str:
    """One mutant's documented-level figures: caught/seeds per measured version, in order (a version where it
    breaks no documented rule says so), then the rules of the smallest counterexamples."""
    parts = [f"{r.caught}/{r.seeds}" if not r.undocumented else "no documented rule" for r in rates]
    rules = sorted({rule for r in rates for rule in r.rules})
    return ", ".join(parts) + (f" ({', '.join(rules)})" if rules else "")


def fill_readme(text: str, rates: Sequence[Rate], source: str) -> str:
    """``text`` with the documented-level column of every mutant table (a table whose header starts with
    ``| mutant |``) set from ``rates``: added after the last column, or replaced where it is; a mutant the
    rates do not hold is "not measured". A comment above each table names the command."""
    from oracle.versions import parse_version

    by_mutant: dict[str, list[Rate]] = {}
    for r in sorted(rates, key=lambda r: parse_version(r.version)):  # oldest first, as the tables' columns
        by_mutant.setdefault(r.mutant, []).append(r)
    note = _DOCUMENTED_NOTE.format(source)
    out: list[str] = []
    lines = text.split("\n")
    has_column, columns = False, 0
    for i, line in enumerate(lines):
        if line.startswith("<!-- documented-level column"):
            continue  # written again above its table
        if not line.startswith("|") or not (columns or line.startswith("| mutant |")):
            out.append(line)
            continue
        cells = line.rstrip().rstrip("|").rstrip().split(" | ")
        if line.startswith("| mutant |"):
            has_column = cells[-1] == DOCUMENTED_COLUMN
            cells = cells[:-1] if has_column else cells
            columns = len(cells) + 1
            out += [note, " | ".join([*cells, DOCUMENTED_COLUMN]) + " |"]
        elif set(line.strip()) <= set("|-"):
            out.append("|" + "---|" * columns)
        else:
            cells = cells[:-1] if has_column else cells
            name = cells[0].strip("| `")
            out.append(" | ".join([*cells, documented_cell(by_mutant[name]) if name in by_mutant else "not measured"])
                       + " |")
        if i + 1 == len(lines) or not lines[i + 1].startswith("|"):
            columns = 0
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m flinkspec.tools.catch_rate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mutants", default="flink-*",
                        help="comma-separated name patterns (fnmatch; default 'flink-*': the historical ones)")
    parser.add_argument("--seeds", type=int, default=10, help="seeds 0 .. N-1 per mutant and version (default 10)")
    parser.add_argument("--examples", type=int, default=500, help="requests per check (default 500, as check)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--json", metavar="FILE", help="also write the rates as JSON")
    parser.add_argument("--conformance", choices=("flink", "documented"), default="flink",
                        help="the level of flinkspec check --conformance (default flink)")
    parser.add_argument("--impl", action="append", default=[], metavar="AREA=SPEC",
                        help="also an implementation (a flinkspec check --impl value) in one area; repeatable")
    parser.add_argument("--readme-from", metavar="JSON",
                        help="run nothing: fill the documented-level column of the mutant tables from this "
                             "--json of a --conformance documented run")
    parser.add_argument("--readme", default="docs/mutants.md", metavar="PAGE",
                        help="the page whose mutant tables --readme-from fills (default docs/mutants.md)")
    args = parser.parse_args(argv)
    if args.readme_from:
        try:
            readme = Path(args.readme)
            readme.write_text(fill_readme(readme.read_text(), read_rates(Path(args.readme_from)), args.readme_from))
        except (OSError, ValueError, TypeError, KeyError) as exc:
            parser.error(f"--readme-from {args.readme_from}: {exc}")
        return 0
    if args.seeds < 1 or args.examples < 1 or args.jobs < 1:
        parser.error("--seeds, --examples and --jobs must be at least 1")
    impls = [tuple(i.split("=", 1)) for i in args.impl]
    if any(len(i) != 2 or not i[0] or not i[1] for i in impls):
        parser.error("--impl takes AREA=SPEC")
    patterns = [p.strip() for p in args.mutants.split(",") if p.strip()]
    tasks = plan(patterns, args.seeds, args.examples, args.conformance, impls)
    skipped = excluded(patterns, args.conformance)
    if not tasks and not skipped:
        from flinkspec.mutants import MUTANTS

        parser.error(f"no mutant matches {args.mutants!r}; `flinkspec mutants` lists {len(MUTANTS)}")
    started = time.monotonic()
    rates = summarise(run_all(tasks, args.jobs)) + skipped
    sys.stdout.write(render(rates))
    escaped = sum(r.seeds - r.caught for r in rates)
    print(f"{len(tasks) - escaped} of {len(tasks)} checks caught their mutant ({len(rates) - len(skipped)} "
          f"mutant-version pairs, "
          f"{args.examples} requests each, {time.monotonic() - started:.0f} s)")
    if args.json:
        Path(args.json).write_text(json.dumps([attrs.asdict(r) for r in rates], indent=1) + "\n")
    return 1 if escaped else 0


if __name__ == "__main__":
    sys.exit(main())
