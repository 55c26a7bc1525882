"""``flinkspec rules``: list the rules the suite checks."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from flinkspec.cli.options import (
    EXIT_OK,
)
from flinkspec.errors import CliError


def cmd_rules(args: argparse.Namespace) -> int:
    from properties.areas import AREAS, all_rules

    every = all_rules()
    areas = [a for a in AREAS if any(r.area == a for r in every.values())]
    if args.area is not None and args.area not in areas:
        raise CliError(f"--area: no rules for {args.area!r}; areas: {', '.join(areas)}")
    rules = [r for r in every.values() if (args.area is None or r.area == args.area)
             and (args.status is None or r.checked == (args.status == "checked"))]
    if args.markdown:
        from flinkspec.reports.rule_pages import write_pages

        for path in write_pages(every, Path(args.markdown)):
            print(path)
        return EXIT_OK
    if args.json:
        print(json.dumps([{"id": r.id, "area": r.area, "kind": r.kind, "text": r.text, "source": r.source,
                           "documented": r.documented, "status": r.status, "checked_by": list(r.checked_by),
                           "note": r.note, "flink_violates": list(r.flink_violates)} for r in rules], indent=2))
        return EXIT_OK
    for area in areas:
        group = [r for r in rules if r.area == area]
        if not group:
            continue
        checked = sum(r.checked for r in group)
        print(f"{area}: {len(group)} rule(s), {checked} checked, {len(group) - checked} not checked")
        for r in group:
            print(f"  {r.id:14s} {r.kind:12s} {r.status}\n{'':16s}{r.text}\n{'':16s}source: {r.source}")
            if r.checked_by:
                print(f"{'':16s}checked by: {', '.join(r.checked_by)}")
            if r.note:
                print(f"{'':16s}note: {r.note}")
    checked = sum(r.checked for r in rules)
    print(f"{len(rules)} rule(s): {checked} checked, {len(rules) - checked} not checked")
    return EXIT_OK
