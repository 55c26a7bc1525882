"""``flinkspec html``: report.json files (of check or fanout) as one page, a matrix implementation x
version x rule.

    flinkspec html reports/flink/report.json reports/my-engine/report.json --out matrix.html
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from flinkspec.cli.options import EXIT_OK
from flinkspec.errors import CliError


def add_parser(sub: Any) -> None:
    h = sub.add_parser("html", allow_abbrev=False,
                       help="one HTML page (matrix implementation x version x rule) from report.json files")
    h.add_argument("reports", nargs="+", help="report.json files (of check or fanout)")
    h.add_argument("--out", required=True, help="the HTML file to write")
    h.set_defaults(fn=cmd_html)


def cmd_html(args: argparse.Namespace) -> int:
    from flinkspec.reports.html_report import render

    reports = []
    for path in args.reports:
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, ValueError) as exc:
            raise CliError(f"cannot read report {path}: {exc}") from None
        if not isinstance(data, dict) or data.get("schema") != 1:
            raise CliError(f"{path} is not a flinkspec report.json (schema 1)")
        reports.append(data)
    out = Path(args.out)
    try:
        out.write_text(render(reports))
    except OSError as exc:
        raise CliError(f"cannot write {out}: {exc}") from None
    print(f"wrote {out}")
    return EXIT_OK
