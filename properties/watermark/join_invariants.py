"""The documented interval-join rules, as checks on any implementation's own answers.

Sources: Flink's documentation "Joining" (its section "Interval Join": ``b.timestamp ∈ [a.timestamp + lowerBound;
a.timestamp + upperBound]``, both bounds inclusive unless ``lowerBoundExclusive()`` / ``upperBoundExclusive()``,
an inner join of elements sharing a key, each pair passed to the function with the larger of the two timestamps),
the javadoc of ``KeyedStream.IntervalJoined`` (``sideOutputLeftLateData`` / ``sideOutputRightLateData``, 1.17+:
late data of a side goes to its tag), the "Timely Stream Processing" and "Generating Watermarks" pages (a
watermark(t) declares that no more elements with a timestamp t' <= t come; an operator with several inputs takes
the minimum of its inputs' event times) and the protocol page for the answer's shape. The checks replay the
request with the combined watermark each record met, as the documentation defines it; where a long's arithmetic
could wrap they do not judge.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from oracle.versions import FlinkVersion
from oracle.watermark_join import JOIN, LATE_OUTPUT_FIELDS, LATE_OUTPUTS
from oracle.watermark_windows import LONG_MIN
from properties.rules import Request, Response, RuleBook, Violation
from properties.watermark.windows_invariants import each_event, is_long, output_of

BOOK = RuleBook()  # the rules this module declares, named by the area's declaration
BOOK.differential(JOIN, "WMJ")

DOCS = "Flink docs: Joining (Interval Join); KeyedStream.IntervalJoined javadoc"
WATERMARKS = "Flink docs: Timely Stream Processing (Event Time and Watermarks, Watermarks in Parallel Streams)"
SAFE = 2**61  # the documented checks replay only requests whose arithmetic stays far from a long's bounds
_JOINED = {"key", "left", "right", "left_timestamp", "right_timestamp", "timestamp"}


def _item_ok(item: Any) -> bool:
    if not isinstance(item, Mapping) or len(item) != 1:
        return False
    if "joined" in item:
        j = item["joined"]
        return isinstance(j, Mapping) and set(j) == _JOINED and isinstance(j["key"], str) \
            and all(is_long(j[k]) for k in _JOINED - {"key"})
    if "late" in item:
        late = item["late"]
        return isinstance(late, Mapping) and set(late) == {"side", "key", "timestamp", "value"} \
            and late["side"] in ("left", "right") and isinstance(late["key"], str) and is_long(late["timestamp"]) \
            and is_long(late["value"])
    return "watermark" in item and is_long(item["watermark"])


def _outputs(req: Request, resp: Response) -> list[list[Mapping[str, Any]]] | None:
    """The answer's outputs if they have the protocol's shape, one list per event."""
    out = output_of(resp)
    events = req.get("input", {}).get("events", [])
    if out is None or not isinstance(out.get("outputs"), list) or len(out["outputs"]) != len(events):
        return None
    if not all(isinstance(o, list) and all(_item_ok(i) for i in o) for o in out["outputs"]):
        return None
    outputs: list[list[Mapping[str, Any]]] = out["outputs"]
    return outputs


@BOOK.invariant("WMJ-1", JOIN, "The answer holds one list per event: what the operator emitted then, each a "
                "{joined: key, left, right, left_timestamp, right_timestamp, timestamp}, a {late: side, key, "
                "timestamp, value} or a {watermark}.", "docs/protocol/watermark-join.md")
def shape(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    if "output" not in resp or resp.get("error") is not None:
        return []  # an error answer: judged by the rules of rejections
    if _outputs(req, resp) is None:
        return [Violation("WMJ-1", "output.outputs must be a list with one list of emitted items per event")]
    return []


def _bounds(inp: Mapping[str, Any]) -> tuple[int, int] | None:
    """The documented join interval of a left record, relative to its timestamp (inclusive), or None where the
    bounds are far from small."""
    lower, upper = inp.get("lower_bound_ms"), inp.get("upper_bound_ms")
    if not (isinstance(lower, int) and isinstance(upper, int) and is_long(lower) and is_long(upper)) \
            or abs(lower) > SAFE or abs(upper) > SAFE:
        return None
    return lower + (1 if inp.get("lower_exclusive") else 0), upper - (1 if inp.get("upper_exclusive") else 0)


def _safe(req: Request) -> bool:
    return all(abs(e.get("timestamp", 0)) <= SAFE for e in req["input"].get("events", []))


def _records(req: Request) -> list[tuple[int, Mapping[str, Any], int]]:
    """Each record with its index and the combined watermark (the least of the inputs' last) when it arrived."""
    marks = {"left": LONG_MIN, "right": LONG_MIN}
    out: list[tuple[int, Mapping[str, Any], int]] = []
    for i, e in enumerate(req["input"].get("events", [])):
        if "watermark" in e:
            marks[e["side"]] = e["watermark"]
        else:
            out.append((i, e, min(marks.values())))
    return out


@BOOK.invariant("WMJ-2", JOIN, "Every emitted pair joins a left and a right record of the request that share the "
                "pair's key, the right one's timestamp in [left + lowerBound, left + upperBound] (a bound marked "
                "exclusive excluded), emitted when the later of the two arrives, with the larger of the two "
                "timestamps.", DOCS)
def join_condition(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    outputs = _outputs(req, resp)
    rel = _bounds(req.get("input", {}))
    if outputs is None or rel is None or not _safe(req):
        return []
    events = req["input"]["events"]
    for i, items in enumerate(outputs):
        for item in items:
            if "joined" not in item:
                continue
            j = item["joined"]
            if j["timestamp"] != max(j["left_timestamp"], j["right_timestamp"]):
                return [Violation("WMJ-2", f"outputs[{i}]: a pair's timestamp {j['timestamp']} is not the larger "
                                  f"of {j['left_timestamp']} and {j['right_timestamp']}")]
            if not rel[0] <= j["right_timestamp"] - j["left_timestamp"] <= rel[1]:
                return [Violation("WMJ-2", f"outputs[{i}]: {j} lies outside the interval [{rel[0]}, {rel[1]}]")]
            ev = events[i]
            mine = "left" if ev.get("side") == "left" else "right"
            other = "right" if mine == "left" else "left"
            partner = [e for e in events[:i] if e.get("side") == other and "watermark" not in e
                       and e.get("key") == j["key"] and e.get("timestamp") == j[f"{other}_timestamp"]
                       and e.get("value") == j[other]]
            if "watermark" in ev or ev.get("key") != j["key"] or ev.get("timestamp") != j[f"{mine}_timestamp"] \
                    or ev.get("value") != j[mine] or not partner:
                return [Violation("WMJ-2", f"outputs[{i}]: the pair {j} is not of this {mine} record and an earlier "
                                  f"{other} record of its key")]
    return []


@BOOK.invariant("WMJ-3", JOIN, "Two records of one key, both on time (each timestamp above the combined watermark "
                "when it arrived), the right one's timestamp within the left one's interval, are joined exactly "
                "once, when the later one arrives.", DOCS + "; " + WATERMARKS)
def every_pair(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    outputs = _outputs(req, resp)
    rel = _bounds(req.get("input", {}))
    if outputs is None or rel is None or not _safe(req) or rel[0] > rel[1]:
        return []
    on_time = [(i, e) for i, e, wm in _records(req) if e["timestamp"] > wm]
    for n, (i, e) in enumerate(on_time):
        for k, f in on_time[:n]:
            if f["side"] == e["side"] or f["key"] != e["key"]:
                continue
            left, right = (e, f) if e["side"] == "left" else (f, e)
            if not rel[0] <= right["timestamp"] - left["timestamp"] <= rel[1]:
                continue
            want = {"key": e["key"], "left": left["value"], "right": right["value"],
                    "left_timestamp": left["timestamp"], "right_timestamp": right["timestamp"]}
            found = sum(1 for item in outputs[i] if "joined" in item
                        and {x: item["joined"][x] for x in want} == want)
            if found != 1:
                return [Violation("WMJ-3", f"outputs[{i}]: the on-time records {k} and {i} of key {e['key']!r} "
                                  f"are joined {found} times, not once")]
    return []


@BOOK.invariant("WMJ-4", JOIN, "A record whose timestamp is below the combined watermark when it arrives is late: "
                "it is joined with nothing, and (1.17+) goes to its side's late-data side output, with its own "
                "key, timestamp and value, exactly when that side has one; nothing else goes there.",
                DOCS + "; " + WATERMARKS)
def late(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    outputs = _outputs(req, resp)
    if outputs is None:
        return []
    inp = req["input"]
    has_tag = {side: version >= LATE_OUTPUTS.at and inp.get(name) is True for side, name in LATE_OUTPUT_FIELDS.items()}
    records = _records(req)
    late_at = {i: e for i, e, wm in records if LONG_MIN < e["timestamp"] < wm}
    on_time = {_ident(e) for i, e, _ in records if i not in late_at}
    only_late = {_ident(e) for e in late_at.values()} - on_time
    for i, items in enumerate(outputs):
        lates = [item["late"] for item in items if "late" in item]
        e = late_at.get(i)
        want = [{"side": e["side"], "key": e["key"], "timestamp": e["timestamp"], "value": e["value"]}] \
            if e is not None and has_tag[e["side"]] else []
        if lates != want:
            return [Violation("WMJ-4", f"outputs[{i}]: the late side outputs got {lates}, not {want}")]
        for item in items:
            j = item.get("joined")
            if j is not None and (e is not None or {("left", j["key"], j["left_timestamp"], j["left"]),
                                                    ("right", j["key"], j["right_timestamp"], j["right"])}
                                  & only_late):
                return [Violation("WMJ-4", f"outputs[{i}]: a late record is joined: {j}")]
    return []


def _ident(e: Mapping[str, Any]) -> tuple[Any, ...]:
    return e["side"], e["key"], e["timestamp"], e["value"]


@BOOK.invariant("WMJ-5", JOIN, "The operator's event time is the least of its two inputs' watermarks: a watermark "
                "event emits that least value once it rises above every watermark emitted before, else nothing; "
                "a record emits no watermark.", WATERMARKS)
def watermarks(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    outputs = _outputs(req, resp)
    if outputs is None:
        return []
    marks = {"left": LONG_MIN, "right": LONG_MIN}
    emitted = LONG_MIN
    for i, (e, items) in enumerate(zip(req["input"]["events"], outputs, strict=True)):
        want: list[int] = []
        if "watermark" in e:
            marks[e["side"]] = e["watermark"]
            if min(marks.values()) > emitted:
                emitted = min(marks.values())
                want = [emitted]
        got = [item["watermark"] for item in items if "watermark" in item]
        if got != want:
            return [Violation("WMJ-5", f"outputs[{i}]: emitted watermarks {got}, the inputs' least gives {want}")]
    return []


def normalize(resp: dict[str, Any]) -> dict[str, Any]:
    """docs/protocol/watermark-join.md's order rule: the pairs one record joins come in the order the other
    buffer's map iterates (Flink defines none); they are compared sorted."""
    return each_event(resp, _sorted_pairs)


def _sorted_pairs(items: list[Any]) -> list[Any]:
    if not all(isinstance(i, dict) and "joined" in i for i in items):
        return items
    return sorted(items, key=lambda x: (x["joined"]["left_timestamp"], x["joined"]["right_timestamp"],
                                        x["joined"]["left"], x["joined"]["right"]))
