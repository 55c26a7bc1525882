"""``checkpoint.recovery``: requests (alignment arrivals plus a failure point) and the guarantees
Flink's fault-tolerance documentation states for recovery, as checks on any implementation's answer.

Sources: a seed article on fault tolerance (a Japanese translation of Flink's former "Data Streaming
Fault Tolerance" page: exactly-once, the state eventually reflects every record exactly once;
at-least-once, records after a barrier are replayed as duplicates on recovery), Flink's docs "Fault
Tolerance Guarantees" and "Checkpointing" (restore from the latest completed checkpoint, sources
rewind to the checkpointed offsets).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable
from typing import Any, cast

from hypothesis import strategies as st

from oracle.alignment import Mode
from oracle.recovery import RECOVERY as AREA
from oracle.versions import FlinkVersion
from properties.checkpoint.alignment_invariants import monotonic_barriers, settled
from properties.checkpoint.alignment_strategies import adapt
from properties.checkpoint.alignment_strategies import inputs as alignment_inputs
from properties.draws import choice, integers, sampled, shuffled
from properties.rules import Request, Response, RuleBook, Violation

BOOK = RuleBook()  # the rules this module declares, named by its areas' declarations

ART = "seed article on fault tolerance"
DOCS = "Flink docs, Fault Tolerance Guarantees"
BOOK.differential(AREA, "RCV")


@st.composite
def _two_completed(draw: st.DrawFn) -> dict[str, Any]:
    """RCV-5's witness: two checkpoints complete (each barrier goes round every channel with nothing
    between), records around them, and the job fails after the second: it must restore the second. Half
    of them at-least-once on a single channel, which is exactly-once too (RCV-6's witness)."""
    channels = choice(draw, [1, 1, 2, 3])
    events: list[dict[str, Any]] = []
    for cid in (1, 2):
        events += [{"channel": draw(integers(0, channels - 1)), "record": "k"}
                   for _ in range(draw(integers(0, 3)))]
        events += [{"channel": c, "barrier": cid} for c in shuffled(draw, list(range(channels)))]
    after = len(events)
    events += [{"channel": draw(integers(0, channels - 1)), "record": "k"} for _ in range(draw(integers(1, 3)))]
    mode = "at_least_once" if channels == 1 else choice(draw, ["exactly_once", "at_least_once"])
    return {"mode": mode, "channels": channels, "events": events, "fail_after": draw(integers(after, len(events)))}


@st.composite
def inputs(draw: st.DrawFn, version: FlinkVersion) -> dict[str, Any]:
    if draw(integers(0, 9)) == 0:
        return draw(_two_completed())
    payload = cast("dict[str, Any]", draw(alignment_inputs(version)))  # an AlignmentInput, made a recovery one
    events = payload["events"]
    keys = draw(sampled([["k"], ["a", "b"], ["a", "b", "c", "d"]]))
    payload["events"] = [{**e, "record": draw(sampled(keys))} if "record" in e else e for e in events]
    if draw(integers(0, 5)):
        payload["fail_after"] = draw(integers(0, len(events)))
    return payload


def from_alignment(inp: dict[str, Any], version: FlinkVersion) -> dict[str, Any]:
    """A recovery input from a drawn alignment input (large runs share its corpus): the
    records' keys and the failure point are derived from the sequence itself, deterministically."""
    inp = adapt(inp, version)
    events = inp["events"]
    digest = int.from_bytes(hashlib.sha256(json.dumps(events, sort_keys=True).encode()).digest()[:8], "big")
    keys = (["k"], ["a", "b"], ["a", "b", "c", "d"])[digest % 3]
    keyed = [{**e, "record": keys[i % len(keys)]} if "record" in e else e for i, e in enumerate(events)]
    out = {**inp, "events": keyed}
    if digest % 6:
        out["fail_after"] = (digest >> 8) % (len(events) + 1)
    return out


def requests(version: FlinkVersion) -> st.SearchStrategy[dict[str, Any]]:
    return inputs(version).map(lambda i: {"area": AREA, "flink": str(version), "input": i})


def _accepted(resp: Response) -> bool:
    """The answer is an output, no error: any error answer, of whatever type or shape and even next to
    an output, is a refusal, and no rule judges its output."""
    return "output" in resp and resp.get("error") is None


def _long(x: object) -> bool:
    """A JSON integer (a bool is not one, though Python's ``True == 1``)."""
    return type(x) is int


def _well_formed(out: object) -> bool:
    """``restored_from`` (an id or null), ``offsets`` (integers), ``counts`` (key -> integer) and the sink's
    ``output`` ([key, count] pairs)."""
    return (isinstance(out, dict) and "restored_from" in out
            and (out["restored_from"] is None or _long(out["restored_from"]))
            and isinstance(out.get("offsets"), list) and all(_long(x) for x in out["offsets"])
            and isinstance(out.get("counts"), dict)
            and all(isinstance(k, str) and _long(n) for k, n in out["counts"].items())
            and isinstance(out.get("output"), list)
            and all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) and _long(p[1])
                    for p in out["output"]))


def _out(resp: Response) -> dict[str, Any] | None:
    """The output of a well-formed acceptance, else None."""
    out = resp.get("output")
    return out if _accepted(resp) and _well_formed(out) else None


def _occurrences(req: Request) -> Counter[str]:
    return Counter(e["record"] for e in req["input"]["events"] if "record" in e)


@BOOK.invariant("RCV-1", AREA, "The answer names the checkpoint restored (or null), one offset per source, the counts "
           "per key after the replay and the sink's output [key, count] during it.", "docs/protocol/v2.md")
def shape(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    if not _accepted(resp):
        return []
    out = _out(resp)
    if out is None or len(out["offsets"]) != req["input"]["channels"]:
        return [Violation("RCV-1", f"malformed answer {str(resp.get('output'))[:200]}")]
    return []


def _miscounted(rule: str, mode: Mode, req: Request, resp: Response,
                wrong: Callable[[int, int], bool]) -> list[Violation]:
    """The first key (in order) whose count after recovery is ``wrong(counted, occurrences)``, for
    requests of ``mode`` whose channels deliver barriers in increasing id order."""
    out = _out(resp)
    if out is None or req["input"]["mode"] != mode or not monotonic_barriers(req):
        return []
    want = _occurrences(req)
    bad = sorted(k for k in set(want) | set(out["counts"]) if wrong(out["counts"].get(k, 0), want[k]))
    if bad:
        k = bad[0]
        return [Violation(rule, f"key {k!r} counted {out['counts'].get(k, 0)} times, it occurs {want[k]} times")]
    return []


@BOOK.invariant("RCV-2", AREA, "Exactly-once: after recovery every record is counted exactly once (each channel "
           "delivering barriers in increasing id order, as upstream tasks emit them).",
           f"{ART} (translated): 'even in the face of failures, the program state eventually reflects every record "
           f"from the data stream exactly once'; {DOCS}")
def exactly_once(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    return _miscounted("RCV-2", "exactly_once", req, resp, lambda counted, occurs: counted != occurs)


@BOOK.invariant("RCV-3", AREA,
                "At-least-once: after recovery no record is lost: every key is counted at least as often "
           "as it occurs (possibly more; each channel delivering barriers in increasing id order).",
           f"{ART} (translated): 'a switch to downgrade the guarantee to at least once'; without alignment, 'on "
           f"recovery those records will occur as duplicates'; {DOCS}")
def at_least_once(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    return _miscounted("RCV-3", "at_least_once", req, resp, lambda counted, occurs: counted < occurs)


@BOOK.invariant("RCV-6", AREA, "At-least-once on a single input channel (nothing to align) is exactly-once: after "
           "recovery every record is counted exactly once.",
           "Flink docs, Stateful Stream Processing (also in the seed article on fault tolerance): 'Alignment happens "
           "only for operators with multiple predecessors (joins) as well as operators with multiple senders (after a "
           "stream repartitioning/shuffle). Because of that, dataflows with only embarrassingly parallel streaming "
           "operations (map(), flatMap(), filter(), ...) actually give exactly once guarantees even in at least once "
           "mode.'")
def single_input_exactly_once(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    if req["input"]["channels"] != 1:
        return []
    return _miscounted("RCV-6", "at_least_once", req, resp, lambda counted, occurs: counted != occurs)


@BOOK.invariant("RCV-4", AREA,
                "The job restores a checkpoint the operator snapshotted before the failure, and each source "
           "rewinds to an offset within its log.", "Flink docs, Checkpointing (restore from the latest checkpoint)")
def restores_a_snapshot(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _out(resp)
    if out is None:
        return []
    logs = Counter(e["channel"] for e in req["input"]["events"] if "record" in e)
    for ch, offset in enumerate(out["offsets"]):
        if not 0 <= offset <= logs[ch]:
            return [Violation("RCV-4", f"source {ch} rewinds to {offset!r}; its log has {logs[ch]} records")]
    cid = out["restored_from"]
    before = req["input"]["events"][: req["input"].get("fail_after", len(req["input"]["events"]))]
    if cid is not None and not any(e.get("barrier") == cid for e in before):
        return [Violation("RCV-4", f"restored checkpoint {cid}, whose barrier never arrived before the failure")]
    return []



@BOOK.invariant("RCV-5", AREA,
                "The job restores the latest completed checkpoint: never none and never an older one when "
           "a checkpoint's alignment settled before the failure (ALIGN-8: barrier n arrived on every channel, or the "
           "channel ended with checkpoints after finish on, nothing but records between the first and the last of "
           "them, no barrier or cancel marker of n or newer before them; each channel delivering barriers in "
           "increasing id order).",
           "Flink docs, Stateful Stream Processing, Recovery (also in the seed article on fault tolerance): 'Upon a "
           "failure, Flink selects the latest completed checkpoint k. The system then re-deploys the entire "
           "distributed dataflow, and gives each operator the state that was snapshotted as part of checkpoint k'")
def restores_the_latest(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = _out(resp)
    if out is None or not monotonic_barriers(req):
        return []
    inp = req["input"]
    done = settled(inp, version, inp.get("fail_after", len(inp["events"])))
    if not done:
        return []
    latest = max(n for n, _ in done)
    cid = out["restored_from"]
    if cid is None or cid < latest:
        return [Violation("RCV-5", f"restored {'no checkpoint' if cid is None else f'checkpoint {cid}'}, though "
                                   f"checkpoint {latest} completed before the failure")]
    return []


BOOK.accepted("RCV-ACCEPTED", AREA, lambda _req, _v: True, "of a job failing and recovering",
              "docs/protocol/v2.md checkpoint.recovery: any alignment input and failure point")
