"""The documented window rules, as checks on any implementation's own answers.

Sources: Flink's documentation "Windows" (tumbling windows of a fixed size, aligned to the epoch plus an offset;
sliding windows of a size every slide; session windows closed by a gap of inactivity; "the window is completely
removed when the time passes the end of the window plus the user-specified allowed lateness"; "when the watermark
passes the end of the window" an event-time trigger fires; "late elements that arrive within the allowed lateness
... will cause the window to fire again"; elements later than that are dropped, or emitted on the side output of
``sideOutputLateData``), the javadoc of ``EventTimeTrigger`` (fires once the watermark passes the end of the
window) and ``TimeWindow.maxTimestamp`` (end - 1, the emitted result's timestamp), the metric
``numLateRecordsDropped`` (Flink's metrics page), and the protocol page for the answer's shape. The windows
of an element are computed as the documentation describes them (the multiples of the size or slide, shifted by
the offset, that contain the timestamp), not as the oracle does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from oracle.versions import FlinkVersion
from oracle.watermark_windows import LONG_MAX, LONG_MIN, WINDOW_START, WINDOWS
from properties.rules import Request, Response, RuleBook, Violation

BOOK = RuleBook()  # the rules this module declares, named by the area's declaration
BOOK.differential(WINDOWS, "WMW")

DOCS = "Flink docs: Windows (Window Assigners, Allowed Lateness, Getting late data as a side output)"
TRIGGER = "EventTimeTrigger javadoc; TimeWindow.maxTimestamp javadoc; " + DOCS
METRICS = "Flink docs: Metrics (numLateRecordsDropped); " + DOCS
SAFE = 2**61  # the documented checks replay only requests whose arithmetic stays far from a long's bounds


def _input(req: Request) -> Mapping[str, Any]:
    inp: Mapping[str, Any] = req.get("input", {})
    return inp


def output_of(resp: Response) -> Mapping[str, Any] | None:
    """The answer's output object, or None for an error or another shape (the watermark operator areas' reader)."""
    out = resp.get("output") if resp.get("error") is None else None
    return out if isinstance(out, Mapping) else None


def is_long(x: Any) -> bool:
    """An integer (not a bool) that fits a Java long."""
    return isinstance(x, int) and not isinstance(x, bool) and LONG_MIN <= x <= LONG_MAX


def _item_ok(item: Any) -> bool:
    if not isinstance(item, Mapping) or len(item) != 1:
        return False
    if "fired" in item:
        f = item["fired"]
        return (isinstance(f, Mapping) and set(f) == {"key", "start", "end", "values", "timestamp"}
                and isinstance(f["key"], str) and all(is_long(f[k]) for k in ("start", "end", "timestamp"))
                and isinstance(f["values"], list) and all(is_long(x) for x in f["values"]))
    if "late" in item:
        late = item["late"]
        return (isinstance(late, Mapping) and set(late) == {"key", "timestamp", "value"}
                and isinstance(late["key"], str) and is_long(late["timestamp"]) and is_long(late["value"]))
    return False


@BOOK.invariant("WMW-1", WINDOWS, "The answer holds one list per event of what reached the operator's output, each "
                "{fired: {key, start, end, values, timestamp}} or {late: {key, timestamp, value}}, and one "
                "numLateRecordsDropped count per event.", "docs/protocol/watermark-windows.md")
def shape(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    out = output_of(resp)
    if "output" not in resp or resp.get("error") is not None:
        return []
    events = _input(req).get("events", [])
    if out is None or not isinstance(out.get("outputs"), list) or len(out["outputs"]) != len(events):
        return [Violation("WMW-1", "output.outputs must be a list with one entry per event")]
    if not isinstance(out.get("dropped"), list) or len(out["dropped"]) != len(events) \
            or not all(is_long(d) for d in out["dropped"]):
        return [Violation("WMW-1", "output.dropped must be a list with one count per event")]
    for i, items in enumerate(out["outputs"]):
        if not isinstance(items, list) or not all(_item_ok(x) for x in items):
            return [Violation("WMW-1", f"output.outputs[{i}] = {items!r} is not a list of emissions")]
    return []


def _replay(req: Request, resp: Response) -> list[tuple[int, Mapping[str, Any], list[Any], int, int]] | None:
    """Per event: its index, the event, its emissions, the watermark after it and the dropped count after it."""
    if shape(req, resp, None) != [] or output_of(resp) is None:  # type: ignore[arg-type]
        return None
    out = output_of(resp)
    assert out is not None
    wm = LONG_MIN
    rows = []
    for i, (ev, items, dropped) in enumerate(zip(_input(req)["events"], out["outputs"], out["dropped"], strict=True)):
        if "watermark" in ev:
            wm = ev["watermark"]
        rows.append((i, ev, items, wm, dropped))
    return rows


@BOOK.invariant("WMW-2", WINDOWS, "A window fires only once the watermark has passed its end: a fired window's end "
                "- 1 (its maxTimestamp, the result's timestamp) is at most the current watermark.", TRIGGER)
def fires_after_end(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    replay = _replay(req, resp)
    if replay is None:
        return []
    for i, _ev, items, wm, _d in replay:
        for item in items:
            f = item.get("fired")
            if f is None or not -SAFE < f["end"] < SAFE:
                continue
            if f["timestamp"] != f["end"] - 1:
                return [Violation("WMW-2", f"event {i}: window [{f['start']}, {f['end']}) emitted with timestamp "
                                  f"{f['timestamp']}, not its end - 1")]
            if f["end"] - 1 > wm:
                return [Violation("WMW-2", f"event {i}: window [{f['start']}, {f['end']}) fired at watermark {wm}, "
                                  "before the watermark passed its end")]
    return []


@BOOK.invariant("WMW-3", WINDOWS, "A window holds the elements of its key whose timestamps lie in it: a fired "
                "window [start, end)'s values are values of records of that key with start <= timestamp < end.",
                DOCS)
def contents_in_window(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    replay = _replay(req, resp)
    if replay is None:
        return []
    seen: list[tuple[str, int, int]] = []
    for i, ev, items, _wm, _d in replay:
        if "key" in ev:
            seen.append((ev["key"], ev["timestamp"], ev["value"]))
        for item in items:
            f = item.get("fired")
            if f is None or not f["start"] < f["end"]:
                continue
            inside = Counter(v for k, ts, v in seen if k == f["key"] and f["start"] <= ts < f["end"])
            if Counter(f["values"]) - inside:
                return [Violation("WMW-3", f"event {i}: window [{f['start']}, {f['end']}) of key {f['key']!r} holds "
                                  f"{f['values']}, but its records with timestamps in it have the values "
                                  f"{sorted(inside.elements())}")]
    return []


def documented_windows(inp: Mapping[str, Any], ts: int) -> list[tuple[int, int]] | None:
    """The tumbling or sliding windows containing ``ts`` as the documentation describes them (None: a session,
    or arithmetic near a long's bounds)."""
    kind = inp.get("assigner")
    if kind not in ("tumbling", "sliding") or not -SAFE < ts < SAFE:
        return None
    size = inp.get("size_ms")
    slide = size if kind == "tumbling" else inp.get("slide_ms")
    offset = inp.get("offset_ms", 0)
    if not (isinstance(size, int) and isinstance(slide, int) and isinstance(offset, int)) \
            or not 0 < slide <= size < 10**6 or abs(offset) >= slide:
        return None
    last = ts - (ts - offset) % slide  # the latest start at or before ts, aligned to the offset
    return [(s, s + size) for s in range(last, ts - size, -slide)]


def _lateness(inp: Mapping[str, Any]) -> int | None:
    lateness = inp.get("allowed_lateness_ms", 0)
    return lateness if isinstance(lateness, int) and 0 <= lateness < SAFE else None


@BOOK.invariant("WMW-4", WINDOWS, "Tumbling and sliding windows: a record whose every window ended (end - 1) at "
                "least the allowed lateness before the current watermark is late: it is emitted on the late side "
                "output if there is one, else counted in numLateRecordsDropped, and fires no window; a record with "
                "a window that ended but is within the allowed lateness fires that window again at once.", DOCS)
def late_records(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    inp = _input(req)
    replay, lateness = _replay(req, resp), _lateness(inp)
    if replay is None or lateness is None:
        return []
    before, last = LONG_MIN, 0
    for i, ev, items, wm, dropped in replay:
        windows = documented_windows(inp, ev["timestamp"]) if "key" in ev else None
        if windows and before > LONG_MIN:
            fired = {(f["fired"]["start"], f["fired"]["end"]) for f in items if "fired" in f}
            lates = [x for x in items if "late" in x]
            if all(e - 1 + lateness <= before for _s, e in windows):
                counted = dropped - last
                if fired or (lates == [] and counted != 1) or (lates and (counted or not inp.get("late_output"))):
                    return [Violation("WMW-4", f"event {i}: a record later than the allowed lateness (watermark "
                                      f"{before}) gave {items} and {counted} dropped, not one late record")]
            else:
                for s, e in windows:
                    if e - 1 <= before < e - 1 + lateness and (s, e) not in fired:
                        return [Violation("WMW-4", f"event {i}: a late record within the allowed lateness did not "
                                          f"fire its window [{s}, {e}) again (watermark {before})")]
        before, last = wm, dropped
    return []


@BOOK.invariant("WMW-5", WINDOWS, "numLateRecordsDropped counts the late records dropped: it never decreases, grows "
                "by at most one per record and not on a watermark, stays 0 with a late side output, and a late "
                "record goes to the side output only if the operator has one.", METRICS)
def dropped_counter(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    replay = _replay(req, resp)
    if replay is None:
        return []
    side = bool(_input(req).get("late_output"))
    last = 0
    for i, ev, items, _wm, dropped in replay:
        grew = dropped - last
        if grew < 0 or grew > ("key" in ev) or (side and grew):
            return [Violation("WMW-5", f"event {i}: numLateRecordsDropped went from {last} to {dropped}")]
        if not side and any("late" in x for x in items):
            return [Violation("WMW-5", f"event {i}: a late record on the side output of an operator without one")]
        last = dropped
    return []


@BOOK.invariant("WMW-6", WINDOWS, "Tumbling and sliding windows fire once when the watermark passes their end: a "
                "window that received a record not late fires on the first watermark at or past its end - 1 (or at "
                "the record itself, if the watermark had passed it), and never again on a watermark.", TRIGGER)
def fires_once(req: Request, resp: Response, version: FlinkVersion) -> list[Violation]:
    inp = _input(req)
    replay, lateness = _replay(req, resp), _lateness(inp)
    if replay is None or lateness is None or inp.get("assigner") not in ("tumbling", "sliding"):
        return []
    pending: dict[tuple[str, int, int], int] = {}  # window -> the record that opened it
    fired_on_watermark: set[tuple[str, int, int]] = set()
    before = LONG_MIN
    for i, ev, items, wm, _d in replay:
        fired = {(f["fired"]["key"], f["fired"]["start"], f["fired"]["end"]) for f in items if "fired" in f}
        if "key" in ev:
            windows = documented_windows(inp, ev["timestamp"])
            if windows is None:
                return []
            for s, e in windows:
                if e - 1 + lateness > before and e - 1 > before:
                    pending.setdefault((ev["key"], s, e), i)
        else:
            for w in fired:
                if w in fired_on_watermark:
                    return [Violation("WMW-6", f"event {i}: window {w} fired a second time on a watermark")]
                fired_on_watermark.add(w)
            for w, opened in sorted(pending.items()):
                if w[2] - 1 <= wm:
                    if w not in fired:
                        return [Violation("WMW-6", f"event {i}: watermark {wm} passed the end of window {w} "
                                          f"(opened by event {opened}) but it did not fire")]
                    del pending[w]
        before = wm
    return []


BOOK.accepted("WMW-ACCEPTED", WINDOWS, lambda req, _v: _documented_valid(_input(req)),
              "whose assigner has a positive size, slide or gap with abs(offset) < size or slide",
              "Flink docs: Window Assigners; TumblingEventTimeWindows.of, SlidingEventTimeWindows.of, "
              "EventTimeSessionWindows.withGap javadoc")


def _documented_valid(inp: Mapping[str, Any]) -> bool:
    kind = inp.get("assigner")
    if kind == "session":
        return isinstance(inp.get("gap_ms"), int) and inp["gap_ms"] > 0
    size, slide, offset = inp.get("size_ms"), inp.get("slide_ms", inp.get("size_ms")), inp.get("offset_ms", 0)
    return (isinstance(size, int) and isinstance(slide, int) and isinstance(offset, int) and slide > 0
            and 0 < size < 10**7 and abs(offset) < slide)


# Documented rules that real Flink itself breaks (docs/documented-rules.md)
_START = ("TimeWindow.getWindowStartWithOffset put a timestamp more than a window size before the offset into the "
          "window after it (timestamp - offset + size < 0: a tumbling window of 10 ms gets the element -15 in "
          "[-10, 0)), FLINK-26334, fixed in 1.14.5")
for _rule in ("WMW-3", "WMW-4", "WMW-6"):
    BOOK.flink_violates(_rule, _START, before=WINDOW_START)
BOOK.flink_violates("WMW-ACCEPTED", "a session merge checks mergeResult.maxTimestamp() + allowedLateness <= the "
                    "current watermark without the overflow guard cleanupTime has, so with an allowed lateness near "
                    "Long.MAX_VALUE the sum wraps negative and the merge throws UnsupportedOperationException (\"The "
                    "end timestamp of an event-time window cannot become earlier than the current watermark by "
                    "merging\"): gap 5, lateness Long.MAX_VALUE, records at 10 and 12 around a watermark of 100")


def normalize(resp: dict[str, Any]) -> dict[str, Any]:
    """docs/protocol/watermark-windows.md's tie rule: windows one event fires with equal timestamps (of different
    keys) may come in any order; they are compared sorted by key, start and end."""
    return each_event(resp, _sorted_ties)


def each_event(resp: dict[str, Any], order: Callable[[list[Any]], list[Any]]) -> dict[str, Any]:
    """``resp`` with ``order`` applied to what each event emitted (its ``output.outputs``), unchanged where the answer
    has another shape."""
    out = resp.get("output")
    if not isinstance(out, dict) or not isinstance(out.get("outputs"), list):
        return resp
    try:
        return {**resp, "output": {**out, "outputs": [order(items) for items in out["outputs"]]}}
    except (KeyError, TypeError, AttributeError):
        return resp


def _sorted_ties(items: list[Any]) -> list[Any]:
    result: list[Any] = []
    run: list[Any] = []
    for item in [*items, None]:
        if run and (item is None or "fired" not in item or item["fired"]["timestamp"] != run[0]["fired"]["timestamp"]):
            result.extend(sorted(run, key=lambda x: (x["fired"]["key"], x["fired"]["start"], x["fired"]["end"])))
            run = []
        if item is not None and "fired" in item:
            run.append(item)
        elif item is not None:
            result.append(item)
    return result
