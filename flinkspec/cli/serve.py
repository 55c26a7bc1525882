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
    """Answer JSON lines on stdin until it closes. The capabilities request (docs/protocol/v2.md) is
    answered as the suite sees the implementation: a built-in one (oracle, real Flink, a mutant)
    speaks the suite's protocol version; a ``cmd:`` or ``python:`` one answers it itself."""
    impl = open_impl_option(args.impl, args.timeout)
    from flinkspec.impls import answer_one
    from flinkspec.impls.capabilities import asks
    from flinkspec.impls.features import CURRENT

    builtin = not asks(args.impl)

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
                elif builtin and req.get("area") == "capabilities":
                    resp = {"id": req.get("id"), "output": {"protocol": CURRENT}}
                else:
                    resp = answer_one(impl, req)
            out.write(json.dumps(resp, separators=(",", ":")) + "\n")
            out.flush()
    finally:
        impl.close()
    return EXIT_OK
