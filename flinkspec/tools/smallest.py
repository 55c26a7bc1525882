"""python -m flinkspec.tools.smallest: the smallest counterexample ``flinkspec check`` reports for each built-in mutant.

Each built-in mutant is checked as tests/test_mutants.py checks it (``Mutant.measured_check``: its release, 400
requests with seed 0, memory 2,000 with seed 1), shrunk as ``check`` shrinks; of its divergences the smallest
request (by its area's size: config keys, events or class names) is kept, with the rule ``check`` names it by.

    python -m flinkspec.tools.smallest --jobs 2 --json docs/evidence/mutants-smallest.json
    python -m flinkspec.tools.smallest --readme-from docs/evidence/mutants-smallest.json   # docs/mutants.md

--readme-from FILE runs no check: it writes the "rule of the smallest counterexample" and "its size" columns
of the built-in mutant table of a docs page (--readme, default docs/mutants.md) from a --json file.

Exit codes: 0 every mutant was caught within its area's size bar, 1 one was not, 2 bad usage.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import multiprocessing
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import attrs

RULE_COLUMN = "rule of the smallest counterexample"
SIZE_COLUMN = "its size (keys / events / class names)"


@attrs.frozen
class Smallest:
    mutant: str
    area: str
    version: str
    examples: int
    seed: int
    caught: bool
    rule: str  # the rule check names its smallest counterexample by ("" when it escaped)
    size: int  # that request's size by its area's measure (-1 when it escaped)
    bar: int  # the area's size bar (Area.size_bar)
    divergences: int


def built_in() -> list[str]:
    """The built-in mutants (those that re-create no Flink issue), by name."""
    from flinkspec.mutants import MUTANTS

    return sorted(name for name, m in MUTANTS.items() if m.first_fixed() is None)


def measure(name: str) -> Smallest:
    """One mutant's check at its measured release, shrunk, in this process."""
    from flinkspec.engine.check import check_area
    from flinkspec.impls import open_impl
    from flinkspec.mutants import MUTANTS
    from properties.areas import AREAS

    m = MUTANTS[name]
    area = AREAS[m.area]
    version, examples, seed = m.measured_check()
    impl = open_impl(f"mutant:{name}")
    try:
        run = check_area(impl, f"mutant:{name}", m.area, version, examples=examples, seed_value=seed)
    finally:
        impl.close()
    found = sorted(run.counterexamples, key=lambda c: area.size(c.request))  # stable: check's order among equals
    first = found[0] if found else None
    return Smallest(name, m.area, str(version), examples, seed, first is not None, first.rule if first else "",
                    area.size(first.request) if first else -1, area.size_bar, len(found))


def measure_all(names: Sequence[str], jobs: int) -> list[Smallest]:
    if jobs == 1:
        return [measure(n) for n in names]
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        return list(pool.map(measure, names))


def fill_readme(text: str, rows: Sequence[Smallest]) -> str:
    """``text`` with the rule and size columns of every table whose header has both set from ``rows``; a
    mutant the rows do not hold keeps its cells."""
    by_name = {r.mutant: r for r in rows}
    out: list[str] = []
    at: tuple[int, int] | None = None
    for line in text.split("\n"):
        if not line.startswith("|"):
            at = None
            out.append(line)
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if RULE_COLUMN in cells and SIZE_COLUMN in cells:
            at = (cells.index(RULE_COLUMN), cells.index(SIZE_COLUMN))
        elif at is not None and not set(line.strip()) <= set("|-"):
            row = by_name.get(cells[0].strip("`"))
            if row is not None and row.caught:
                cells[at[0]], cells[at[1]] = row.rule, str(row.size)
                line = "| " + " | ".join(cells) + " |"
        out.append(line)
    return "\n".join(out)


def render(rows: Sequence[Smallest]) -> str:
    table = [("mutant", "area", "version", "requests", "seed", "rule", "size", "bar", "divergences")]
    table += [(r.mutant, r.area, r.version, str(r.examples), str(r.seed), r.rule or "ESCAPED",
               str(r.size) if r.caught else "-", str(r.bar), str(r.divergences)) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in table) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m flinkspec.tools.smallest", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mutants", default="*", help="comma-separated name patterns of built-in mutants (fnmatch)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    parser.add_argument("--readme-from", metavar="JSON", help="run nothing: fill the columns from this --json")
    parser.add_argument("--readme", default="docs/mutants.md", metavar="PAGE",
                        help="the page (default docs/mutants.md)")
    args = parser.parse_args(argv)
    if args.readme_from:
        try:
            rows = [Smallest(**r) for r in json.loads(Path(args.readme_from).read_text())]
            page = Path(args.readme)
            page.write_text(fill_readme(page.read_text(), rows))
        except (OSError, ValueError, TypeError) as exc:
            parser.error(f"--readme-from {args.readme_from}: {exc}")
        return 0
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    patterns = [p.strip() for p in args.mutants.split(",") if p.strip()]
    names = [n for n in built_in() if any(fnmatch.fnmatchcase(n, p) for p in patterns)]
    if not names:
        parser.error(f"no built-in mutant matches {args.mutants!r}")
    started = time.monotonic()
    rows = measure_all(names, args.jobs)
    sys.stdout.write(render(rows))
    within = sum(r.caught and r.size <= r.bar for r in rows)
    print(f"{within} of {len(rows)} built-in mutants caught within their area's size bar "
          f"({time.monotonic() - started:.0f} s)")
    if args.json:
        Path(args.json).write_text(json.dumps([attrs.asdict(r) for r in rows], indent=1) + "\n")
    return 0 if within == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
