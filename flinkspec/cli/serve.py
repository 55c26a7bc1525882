"""``flinkspec serve``: run an implementation as a JSON-lines process on stdin/stdout."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from flinkspec.cli.options import (
    EXIT_OK,
    open_impl_option,
)


def cmd_serve(args: argparse.Namespace) -> int:
    impl = open_impl_option(args.impl, args.timeout)
    from flinkspec.impls import answer_one

    out = sys.stdout
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                req = json.loads(line)
            except ValueError as exc:
                resp: dict[str, Any] = {"id": None, "error": {"type": "BadRequest", "message": f"not JSON: {exc}"}}
            else:
                if not isinstance(req, dict):
                    resp = {"id": None, "error": {"type": "BadRequest", "message": "a request must be a JSON object"}}
                else:
                    resp = answer_one(impl, req)
            out.write(json.dumps(resp, separators=(",", ":")) + "\n")
            out.flush()
    finally:
        impl.close()
    return EXIT_OK
