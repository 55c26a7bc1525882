"""An implementation that refuses every request with a ``BadRequest``, for the tests that no route
ever reads a refusal as a pass. usage: python tests/refusing_impl.py"""

from __future__ import annotations

import json
import sys

for line in sys.stdin:
    if line.strip():
        rid = json.loads(line).get("id")
        print(json.dumps({"id": rid, "error": {"type": "BadRequest", "message": "not implemented"}}), flush=True)
