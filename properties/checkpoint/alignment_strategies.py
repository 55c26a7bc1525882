"""Requests for ``checkpoint.alignment``: barrier arrival orders with records interleaved.

1 to 8 channels (now and then up to 64), several checkpoints in flight: a barrier is mostly of the
newest id, sometimes a new one (with jumps), an older one (overtaken, duplicate, obsolete) or near
``Long.MAX_VALUE``; broadcast bursts put one id on every open channel in a drawn order; cancel
markers of old, current and future ids; ends of partition (nothing follows on that channel); and
long at-least-once runs past the tracker's 50 tracked checkpoints; one in ten (of the rest) the
classic exactly-once scenario (a record after its channel's barrier while another's is pending, the
checkpoint completing, records after it) that recovery's RCV-2 turns on, and one in twenty of the rest
checkpoints completing without the channels that ended (ALIGN-8's witness).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from oracle.alignment import AFTER_FINISH_ON, CHANNEL_SETS, AlignmentEvent, AlignmentInput
from oracle.alignment import ALIGNMENT as AREA
from oracle.versions import FlinkVersion
from properties.draws import booleans, choice, integers, lists_of, shuffled

LONG_MAX = (1 << 63) - 1


@st.composite
def _events(draw: st.DrawFn, channels: int, length: int) -> list[AlignmentEvent]:
    events: list[AlignmentEvent] = []
    ended: set[int] = set()
    ids: list[int] = []
    next_id = choice(draw, [1, 1, 2, 10])
    records = 0
    while len(events) < length:
        open_ch = [c for c in range(channels) if c not in ended]
        if not open_ch:
            break
        kind = choice(draw, ["record"] * 7 + ["barrier"] * 8 + ["burst"] * 3 + ["cancel", "end"])
        c = choice(draw, open_ch)
        if kind == "record":
            events.append({"channel": c, "record": f"r{records}"})
            records += 1
        elif kind in ("barrier", "burst"):
            which = choice(draw, ["new", "newest", "newest", "older", "jump", "max"] if ids else ["new"])
            if which in ("new", "jump"):
                next_id += draw(integers(1, 5)) if which == "jump" else 0
                ids.append(next_id)
                cid, next_id = next_id, next_id + 1
            elif which == "newest":
                cid = ids[-1]
            elif which == "older":
                cid = choice(draw, ids)
            else:
                cid = LONG_MAX - draw(integers(0, 2))
            targets = shuffled(draw, open_ch) if kind == "burst" else [c]
            events.extend({"channel": t, "barrier": cid} for t in targets)
        elif kind == "cancel":
            cid = choice(draw, [*ids[-3:], next_id, next_id + 1]) if ids else next_id
            events.append({"channel": c, "cancel": cid})
        elif len(open_ch) > 1 or draw(booleans()):
            events.append({"channel": c, "end": True})
            ended.add(c)
    return events


@st.composite
def _many_in_flight(draw: st.DrawFn) -> AlignmentInput:
    """At-least-once with more checkpoints in flight than the tracker keeps (50)."""
    channels = draw(integers(2, 4))
    first, count = draw(integers(1, 3)), draw(integers(45, 60))
    events: list[AlignmentEvent] = [{"channel": 0, "barrier": first + i} for i in range(count)]
    late = draw(lists_of([0, 1, count - 52, count - 51, count - 50, count - 49, count - 1],
                         min_size=1, max_size=8))
    for k in late:
        events.append({"channel": draw(integers(1, channels - 1)), "barrier": max(1, first + k)})
    return {"mode": "at_least_once", "channels": channels, "events": events}


@st.composite
def _exactly_once_classic(draw: st.DrawFn) -> AlignmentInput:
    """The classic exactly-once scenario (alignment as Flink's fault-tolerance documentation describes
    it): on 2 or 3 channels, a record arrives on a channel after its barrier while another channel's
    barrier is still pending (aligned: it waits), the checkpoint completes, and records follow, so a
    failure after them restores that checkpoint (RCV-2: an at-least-once snapshot would count the
    early record twice)."""
    channels = choice(draw, [2, 2, 3])
    first = draw(integers(0, channels - 1))
    others = shuffled(draw, [c for c in range(channels) if c != first])
    events: list[AlignmentEvent] = [{"channel": c, "record": f"r{i}"} for i, c in enumerate(shuffled(
        draw, list(range(channels)))[:draw(integers(0, channels))])]
    events.append({"channel": first, "barrier": 1})
    events += [{"channel": first, "record": f"a{i}"} for i in range(draw(integers(1, 2)))]
    events += [{"channel": others[0], "record": "b0"}] if draw(booleans()) else []
    events += [{"channel": c, "barrier": 1} for c in others]
    events += [{"channel": draw(integers(0, channels - 1)), "record": f"t{i}"}
               for i in range(draw(integers(3, 10)))]
    return {"mode": "exactly_once", "channels": channels, "events": events}


@st.composite
def _finished_input(draw: st.DrawFn, version: FlinkVersion) -> AlignmentInput:
    """ALIGN-8's witness with finished inputs: on 2 to 4 channels some channels end (before the first
    barrier, or while its checkpoint is pending), every other one delivers barrier 1 with records
    between, then a second checkpoint goes round the open channels; checkpoints after finish on (from
    1.15 often by default), so each checkpoint completes without the finished channels."""
    channels = choice(draw, [2, 2, 3, 4])
    order = shuffled(draw, list(range(channels)))
    finished = set(order[:draw(integers(1, channels - 1))])
    steps: list[AlignmentEvent] = [{"channel": c, "barrier": 1} for c in order if c not in finished]
    for c in finished:  # an end before the first barrier, between two, or after the last
        steps.insert(draw(integers(0, len(steps))), {"channel": c, "end": True})
    events: list[AlignmentEvent] = []
    for i, step in enumerate(steps):
        events += [{"channel": step["channel"], "record": f"r{i}"}] if draw(booleans()) else []
        events.append(step)
    open_ch = [c for c in order if c not in finished]
    events += [{"channel": c, "record": f"s{c}"} for c in open_ch if draw(booleans())]
    if draw(booleans()):
        events += [{"channel": c, "barrier": 2} for c in shuffled(draw, open_ch)]
        events += [{"channel": choice(draw, open_ch), "record": f"t{i}"} for i in range(draw(integers(0, 3)))]
    payload: AlignmentInput = {"mode": choice(draw, ["exactly_once", "at_least_once"]), "channels": channels,
                               "events": events}
    if version >= CHANNEL_SETS.at and (version < AFTER_FINISH_ON.at or draw(booleans())):
        payload["checkpoints_after_finish"] = True
    return payload


@st.composite
def inputs(draw: st.DrawFn, version: FlinkVersion) -> AlignmentInput:
    if draw(integers(0, 19)) == 0:
        return draw(_many_in_flight())
    if draw(integers(0, 9)) == 0:
        return draw(_exactly_once_classic())
    if draw(integers(0, 19)) == 0:
        return draw(_finished_input(version))
    channels = choice(draw, [1, 2, 2, 3, 3, 4, 5, 8])
    if draw(integers(0, 29)) == 0:
        channels = draw(integers(9, 64))
    length = choice(draw, [draw(integers(0, 12)), draw(integers(5, 40)), draw(integers(20, 120))])
    payload: AlignmentInput = {"mode": choice(draw, ["exactly_once", "at_least_once"]),
                               "channels": channels, "events": draw(_events(channels, length))}
    if version >= CHANNEL_SETS.at and draw(integers(0, 2)) == 0:
        payload["checkpoints_after_finish"] = draw(booleans())
    return payload


@st.composite
def _ending(draw: st.DrawFn, version: FlinkVersion) -> dict[str, Any]:
    """A short run on 2 or 3 channels where barriers of a few ids, cancel markers and ends of
    partition meet: the paths of ALO-6 ... ALO-11 the long runs above reach only now and then."""
    channels = choice(draw, [2, 2, 3])
    events: list[dict[str, Any]] = []
    ended: set[int] = set()
    for _ in range(draw(integers(2, 8))):
        open_ch = [c for c in range(channels) if c not in ended]
        if not open_ch:
            break
        c = choice(draw, open_ch)
        kind = choice(draw, ["barrier", "barrier", "barrier", "end", "end", "cancel"])
        if kind == "end":
            events.append({"channel": c, "end": True})
            ended.add(c)
        else:  # mostly the newest id or the next one, sometimes an older one
            newest = max((e.get("barrier", e.get("cancel", 0)) for e in events), default=0)
            events.append({"channel": c, kind: max(1, newest + choice(draw, [0, 1, 1, 1, -1]))})
    payload: dict[str, Any] = {"mode": choice(draw, ["at_least_once"] * 4 + ["exactly_once"]),
                               "channels": channels, "events": events}
    if version >= CHANNEL_SETS.at and draw(integers(0, 3)) > 0:
        payload["checkpoints_after_finish"] = draw(integers(0, 3)) > 0
    return payload


def ending_requests(version: FlinkVersion) -> st.SearchStrategy[dict[str, Any]]:
    """Requests of short runs that end their channels (an extra recorded corpus)."""
    return _ending(version).map(lambda i: {"area": AREA, "flink": str(version), "input": i})


def requests(version: FlinkVersion) -> st.SearchStrategy[dict[str, Any]]:
    """Protocol requests for ``checkpoint.alignment`` and ``version``."""
    return inputs(version).map(lambda i: {"area": AREA, "flink": str(version), "input": i})


def adapt(inp: dict[str, Any], version: FlinkVersion) -> dict[str, Any]:
    """A corpus input for ``version``: 1.13 has no checkpoints-after-finish option."""
    if version < CHANNEL_SETS.at and "checkpoints_after_finish" in inp:
        return {k: val for k, val in inp.items() if k != "checkpoints_after_finish"}
    return inp
