"""A watermark valve written from the protocol pages alone, speaking protocol version 1, the way an
engine's author writes one: ``watermark.valve`` only, no capabilities answer, a ``BadRequest`` for
anything else. It keeps one watermark, status and alignment per channel and takes the minimum over
the aligned channels on every change (no heap), so it shares no code with the oracle.

usage: python tests/docs_valve.py [--bug no-flush|no-idle|reemit ...]

``--bug`` plants one mistake an author makes: ``no-flush`` (the last channel going idle does not flush
the maximum watermark), ``no-idle`` (IDLE is never forwarded), ``reemit`` (a channel becoming active
again re-emits the output watermark); ``--bug`` given several times plants them together.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

MIN = -(2**63)


class Valve:
    def __init__(self, channels: int, bugs: frozenset[str]) -> None:
        self.wm = [MIN] * channels
        self.idle = [False] * channels
        self.aligned = [True] * channels
        self.out_wm = MIN
        self.out_idle = False
        self.bugs = bugs

    def _new_min(self) -> list[dict[str, Any]]:
        aligned = [w for w, a in zip(self.wm, self.aligned, strict=True) if a]
        if aligned and min(aligned) > self.out_wm:
            self.out_wm = min(aligned)
            return [{"watermark": self.out_wm}]
        return []

    def watermark(self, ch: int, ts: int) -> list[dict[str, Any]]:
        if self.out_idle or self.idle[ch] or ts <= self.wm[ch]:
            return []
        self.wm[ch] = ts
        if not self.aligned[ch] and ts >= self.out_wm:
            self.aligned[ch] = True
        return self._new_min()

    def status(self, ch: int, idle: bool) -> list[dict[str, Any]]:
        if idle == self.idle[ch]:
            return []
        self.idle[ch] = idle
        if idle:
            self.aligned[ch] = False
            holds_min = self.wm[ch] == self.out_wm
            if all(self.idle):
                out: list[dict[str, Any]] = []
                top = max(self.wm)
                if holds_min and top > self.out_wm and "no-flush" not in self.bugs:
                    self.out_wm = top
                    out.append({"watermark": top})
                self.out_idle = True
                return out + ([] if "no-idle" in self.bugs else [{"status": "IDLE"}])
            return self._new_min() if holds_min else []
        if self.wm[ch] >= self.out_wm:
            self.aligned[ch] = True
        if self.out_idle:
            self.out_idle = False
            return [{"status": "ACTIVE"}] + ([{"watermark": self.out_wm}] if "reemit" in self.bugs else [])
        return []


def answer(req: dict[str, Any], bugs: frozenset[str] = frozenset()) -> dict[str, Any]:
    rid = req.get("id")
    if req.get("area") != "watermark.valve":
        return {"id": rid, "error": {"type": "BadRequest", "message": f"unknown area {req.get('area')}"}}
    inp = req.get("input", {})
    channels = inp.get("channels")
    if not isinstance(channels, int) or channels < 1:
        return {"id": rid, "error": {"type": "BadRequest", "message": "channels must be a positive integer"}}
    valve = Valve(channels, bugs)
    emitted = []
    for e in inp.get("events", []):
        ch = e.get("channel")
        if not isinstance(ch, int) or not 0 <= ch < channels:
            return {"id": rid, "error": {"type": "BadRequest", "message": "bad channel"}}
        if "watermark" in e:
            emitted.append(valve.watermark(ch, e["watermark"]))
        elif e.get("status") in ("IDLE", "ACTIVE"):
            emitted.append(valve.status(ch, e["status"] == "IDLE"))
        else:
            return {"id": rid, "error": {"type": "BadRequest", "message": "an event is a watermark or a status"}}
    return {"id": rid, "output": {"emitted": emitted}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bug", choices=("no-flush", "no-idle", "reemit"), action="append", default=[])
    bugs = frozenset(parser.parse_args().bug)
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(answer(json.loads(line), bugs)), flush=True)


if __name__ == "__main__":
    main()
