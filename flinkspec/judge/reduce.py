"""Delta debugging for counterexamples Hypothesis cannot shrink well (long seeded sequences).

``reduce(request, still_fails)`` removes chunks of ``input.events`` (halves, quarters ... single
events), whole channels or coordinator tasks with their events, then the names of class-loading
requests and memory.network's result partitions, then keys of ``input.config``, then the input's other keys
(those the area's protocol page makes optional), then lowers ``channels``/``inputs`` to what the events use,
keeping every change after which ``still_fails(request)`` holds. The result is 1-minimal: removing any single
event or key makes the failure go away.

Then, with what is left of the budget, the plainification pass (:func:`plainify`): every value is
replaced by the plainest spelling that still fails, so a counterexample reads ``"1g"`` rather than
``"\\t1Gb"`` or ``" 49545216000 BYTES"`` unless the failure needs the odd spelling. Deletions come first
because a removed key or event needs no plain value; if plainification changed anything, the deletion
passes run once more (a plainer value may make another key unnecessary), so the result stays 1-minimal.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from oracle.memsize import parse_bytes

Request = dict[str, Any]
# the class loader's requests: the names a counterexample can do without
# the coordinator's requests: the event fields that name a task
TASK_FIELDS = ("ack", "decline", "fail", "restart")
NAME_LISTS = ("lookups", "resource_lookups", "user_classes", "parent_classes", "user_resources", "parent_resources",
              "partitions", "gates")  # memory.network's result partitions and input gates


def _with(request: Request, name: str, value: Any) -> Request:
    out = copy.deepcopy(request)
    out["input"][name] = value
    return out


def _ddmin_list(request: Request, name: str, still_fails: Callable[[Request], bool], budget: list[int]) -> Request:
    items = list(request["input"][name])
    chunk = max(1, len(items) // 2)
    while chunk >= 1 and budget[0] > 0:
        i, removed_any = 0, False
        while i < len(items) and budget[0] > 0:
            candidate = items[:i] + items[i + chunk:]
            budget[0] -= 1
            if candidate != items and still_fails(_with(request, name, candidate)):
                items, removed_any = candidate, True
            else:
                i += chunk
        if not removed_any:
            chunk //= 2
    return _with(request, name, items)


def _ddmin_dict(request: Request, name: str, still_fails: Callable[[Request], bool], budget: list[int]) -> Request:
    items = dict(request["input"][name])
    for key in list(items):
        if budget[0] <= 0:
            break
        candidate = {k: val for k, val in items.items() if k != key}
        budget[0] -= 1
        if still_fails(_with(request, name, candidate)):
            items = candidate
    return _with(request, name, items)


def _fewer_channels(request: Request, still_fails: Callable[[Request], bool]) -> Request:
    for count, index in (("channels", "channel"), ("inputs", "input")):
        n = request["input"].get(count)
        events = request["input"].get("events")
        if not isinstance(n, int) or not isinstance(events, list) or "subpartitions" in request["input"]:
            continue
        used = max((e.get(index, 0) for e in events if isinstance(e, dict)), default=0) + 1
        if used < n and still_fails(_with(request, count, used)):
            return _with(request, count, used)
    return request


def _drop_channels(request: Request, still_fails: Callable[[Request], bool], budget: list[int]) -> Request:
    """Remove whole channels (their events go, higher channels are renumbered)."""
    for count, index in (("channels", "channel"), ("inputs", "input")):
        if not isinstance(request["input"].get(count), int) or "subpartitions" in request["input"]:
            continue
        c = 0
        while c < request["input"][count] and request["input"][count] > 1 and budget[0] > 0:
            events = [
                {**e, index: e[index] - (e[index] > c)} for e in request["input"]["events"]
                if isinstance(e, dict) and e.get(index) != c
            ]
            candidate = _with(_with(request, "events", events), count, request["input"][count] - 1)
            budget[0] -= 1
            if still_fails(candidate):
                request = candidate
            else:
                c += 1
    return request


def _drop_tasks(request: Request, still_fails: Callable[[Request], bool], budget: list[int]) -> Request:
    """Remove whole coordinator tasks: from ``tasks`` and ``sources``, with every event naming them; then
    ``sources`` itself, where the failure does not need it."""
    tasks = request["input"].get("tasks")
    if not isinstance(tasks, list) or not isinstance(request["input"].get("events"), list):
        return request
    for task in list(tasks):
        if budget[0] <= 0 or len(request["input"]["tasks"]) <= 1:
            break
        candidate = copy.deepcopy(request)
        inp = candidate["input"]
        inp["tasks"] = [t for t in inp["tasks"] if t != task]
        inp["events"] = [e for e in inp["events"]
                         if not (isinstance(e, dict) and any(e.get(f) == task for f in TASK_FIELDS))]
        if isinstance(inp.get("sources"), list):
            inp["sources"] = [t for t in inp["sources"] if t != task]
            if not inp["sources"]:
                del inp["sources"]  # the default: every task is a source
        budget[0] -= 1
        if still_fails(candidate):
            request = candidate
    if "sources" in request["input"] and budget[0] > 0:  # absent: every task is a source
        candidate = copy.deepcopy(request)
        del candidate["input"]["sources"]
        budget[0] -= 1
        if still_fails(candidate):
            request = candidate
    return request


# the input's keys the other passes cut down (events, channels, tasks, names, config keys)
STRUCTURE = ("events", "config", "channels", "inputs", "tasks", *NAME_LISTS)


def _drop_keys(request: Request, still_fails: Callable[[Request], bool], budget: list[int]) -> Request:
    """The input's other keys, one at a time (an optional one a failure does not need: an idle timeout, a flag;
    a required one is refused by the oracle, so it stays)."""
    current = request
    for key in [k for k in request["input"] if k not in STRUCTURE]:
        if budget[0] <= 0:
            break
        candidate = copy.deepcopy(current)
        del candidate["input"][key]
        budget[0] -= 1
        if still_fails(candidate):
            current = candidate
    return current


def _delete(request: Request, still_fails: Callable[[Request], bool], budget: list[int]) -> Request:
    """Every deletion pass, in order: chunks of events, channels, tasks, names, config keys, the input's other
    keys."""
    current = request
    if isinstance(current["input"].get("events"), list):
        current = _ddmin_list(current, "events", still_fails, budget)
        current = _drop_channels(current, still_fails, budget)
        current = _drop_tasks(current, still_fails, budget)
        current = _ddmin_list(current, "events", still_fails, budget)
    for name in NAME_LISTS:
        if isinstance(current["input"].get(name), list):
            current = _ddmin_list(current, name, still_fails, budget)
    if isinstance(current["input"].get("config"), dict):
        current = _ddmin_dict(current, "config", still_fails, budget)
    return _drop_keys(current, still_fails, budget)


def reduce(request: Request, still_fails: Callable[[Request], bool], max_calls: int = 2000) -> Request:
    """A 1-minimal variant of ``request`` that still fails, in the plainest spelling that still fails
    (within ``max_calls`` attempts: deletions first, plainification with what they leave)."""
    budget = [max_calls]
    current = _fewer_channels(_delete(request, still_fails, budget), still_fails)
    plain = plainify(current, still_fails, budget)
    if plain != current and budget[0] > 0:
        plain = _fewer_channels(_delete(plain, still_fails, budget), still_fails)
    return plain


# --------------------------------------------------------------------------------------------
# Plainification: each value replaced by the plainest candidate that still fails.

# Event fields holding numbers whose size is arbitrary (indices such as ``channel`` are left to the
# deletion passes). Fields in one family share a scale, so equal values move together.
INT_FAMILIES = (("at",), ("watermark", "register", "delete"), ("checkpoint", "barrier", "cancel"))
# class-name lists (resources are paths, left as they are)
CLASS_LISTS = ("lookups", "user_classes", "parent_classes")
SIZE_KEY_SUFFIXES = (".size", ".min", ".max", "segment-size")
UNITS = (("t", 1 << 40), ("g", 1 << 30), ("m", 1 << 20), ("k", 1 << 10))
# "0", then every power of two from 1 MiB to 1 TiB in its largest unit: the sizes people write
ROUND_SIZES = ("0", *(f"{1 << i}m" for i in range(10)), *(f"{1 << i}g" for i in range(10)), "1t")
ROUND_FRACTIONS = ("0", "1", "0.1", "0.5")
BOOLEAN_WORDS = ("true", "false", "yes", "no", "on", "off")
MAX_CANDIDATES = 32  # per value: the plainest ones
LONG_MIN, LONG_MAX = -(1 << 63), (1 << 63) - 1  # the protocol's integers are Java longs
_INT = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"([+-]?[0-9]*)([.,])([0-9]+)")


def plainness(text: str) -> tuple[int, int, int]:
    """How plain a spelling reads, smaller is plainer: its length, then its odd characters (upper case,
    whitespace, non-ASCII), then its significant digits (``1000`` is rounder than ``1234``; a lone
    ``0`` counts as one)."""
    odd = sum(1 for ch in text if ch.isupper() or ch.isspace() or not ch.isascii())
    digits = "".join(ch for ch in text if ch.isdigit()).rstrip("0").lstrip("0")
    return len(text), odd, max(1, len(digits))


def magnitude(text: str) -> float:
    """The size of the number ``text`` spells (bytes for a memory size), 0 for anything else (NaN too):
    among equally plain candidates the smallest comes first, the way shrinkers go (``"2g"`` before
    ``"8g"``)."""
    try:
        return float(parse_bytes(text))
    except Exception:  # not a size: maybe a signed integer or a decimal
        pass
    try:
        number = abs(float(text.replace(",", ".")))
    except ValueError:
        return 0.0
    return number if math.isfinite(number) else 0.0  # NaN would make the order depend on hashing


def _is_size(key: str, text: str) -> bool:
    """Whether ``text`` is a memory size: under a size key, or digits with a unit, parsing as Flink does."""
    try:
        parse_bytes(text)
    except Exception:  # any rejection: not a size
        return False
    return key.endswith(SIZE_KEY_SUFFIXES) or any(ch.isalpha() for ch in text)


def _canonical(key: str, text: str) -> tuple[str, bool]:
    """The plain spelling of the value ``text`` spells under ``key``, and whether that value is round
    (a round size, a number with one significant digit, a boolean)."""
    stripped = text.strip()
    if _is_size(key, text):
        spelled = size_spelling(parse_bytes(text))
        return spelled, spelled in ROUND_SIZES or plainness(spelled)[2] == 1
    if _INT.fullmatch(stripped):
        spelled = str(int(stripped))
        return spelled, plainness(spelled)[2] == 1
    if (decimal := _decimal_spelling(text)) is not None:
        return decimal, plainness(decimal)[2] == 1
    return stripped.lower(), stripped.lower() in ("true", "false")


def rank(key: str, text: str) -> tuple[int, ...]:
    """Where config value ``text`` (or a number written out, ``key`` "") stands, smaller is plainer:
    a round value in its plain spelling (``"0"``, ``"1g"``, ``"16g"``, ``"1000"``, ``"0.1"``, ``"true"``)
    is as plain as a value gets and is never replaced by another round one (``"16g"`` by ``"1t"`` would
    change the value without making it easier to read); then other values in their plain spelling
    (``"8660m"``), then anything else (padding, case, long units), each by :func:`plainness`."""
    canonical, round_value = _canonical(key, text)
    if text == canonical and round_value:
        return (0,)
    return (1 if text == canonical else 2, *plainness(text))


def _plainer(key: str, candidates: Iterable[str], than: str) -> list[str]:
    """``candidates`` strictly plainer than ``than`` under ``key``, in the order to try them: plainest
    first; among equally plain ones ``than``'s own value (``" 17179869184 "``: ``"16g"`` before ``"1t"``),
    then the shortest, the smallest, in text order; without repeats."""
    bar, same = rank(key, than), _canonical(key, than)[0]
    return sorted({c for c in candidates if rank(key, c) < bar},
                  key=lambda c: (rank(key, c), _canonical(key, c)[0] != same, plainness(c), magnitude(c), c),
                  )[:MAX_CANDIDATES]


def _rounded(n: int) -> Iterator[int]:
    """``n`` with 1, 2 and 3 significant digits: truncated toward zero, to the nearest, away from zero
    (1234: 1000, 2000, 1200, 1300, 1230, 1240)."""
    sign, digits = (-1 if n < 0 else 1), str(abs(n))
    for keep in range(1, min(3, len(digits) - 1) + 1):
        scale = 10 ** (len(digits) - keep)
        for carry in (0, scale // 2, scale - 1):
            yield sign * ((abs(n) + carry) // scale * scale)


def int_candidates(n: int) -> list[int]:
    """Plainer integers to try for ``n``: 0, 1, 2 (-1 for a negative), the powers of ten below it, then
    ``n`` rounded (1234: 1000, 2000, 1200 ...), plainest first; none longer than ``n`` written out, none
    at all for a round ``n`` (7, 10, 3000)."""
    sign, digits = (-1 if n < 0 else 1), len(str(abs(n)))
    pool = [0, 1, 2, *([-1] if n < 0 else []), *(sign * 10**k for k in range(1, digits)), *_rounded(n)]
    fits = (str(c) for c in pool if LONG_MIN <= c <= LONG_MAX and len(str(c)) <= len(str(n)))  # a Java long
    return [int(c) for c in _plainer("", fits, str(n))]


def size_spelling(n: int) -> str:
    """``n`` bytes in its plainest spelling: the largest unit that divides it, lower case, no space."""
    for unit, factor in UNITS:
        if n and n % factor == 0:
            return f"{n // factor}{unit}"
    return str(n)


def _decimal_spelling(text: str) -> str | None:
    """A decimal (``0.10``, `` 0,10 ``) without padding or trailing zeros, its separator kept; None if
    ``text`` is not one."""
    match = _DECIMAL.fullmatch(text.strip())
    if not match:
        return None
    whole, sep, frac = match.groups()
    frac = frac.rstrip("0")
    return f"{whole}{sep}{frac}" if frac else (whole or "0")


def _decimal_truncations(spelled: str) -> Iterator[str]:
    """A plain decimal cut to 1 and 2 places (``0.999`` -> ``0.9``, ``0.99``)."""
    match = _DECIMAL.fullmatch(spelled)
    if match:
        whole, sep, frac = match.groups()
        for places in (1, 2):
            if len(frac) > places and frac[:places].rstrip("0"):
                yield f"{whole}{sep}{frac[:places].rstrip('0')}"


def text_cleanups(text: str) -> list[str]:
    """The same text stripped, lower-cased, both, and with no whitespace at all."""
    stripped = text.strip()
    return [stripped, text.lower(), stripped.lower(), "".join(stripped.lower().split())]


def string_candidates(key: str, text: str) -> list[str]:
    """Plainer spellings to try for config value ``text`` under ``key``, plainest first: round values
    of its kind (sizes, fractions, integers, booleans), its own value spelled plainly, cleaned-up text."""
    pool = text_cleanups(text)
    stripped = text.strip()
    if _is_size(key, text):
        pool += [*ROUND_SIZES, size_spelling(parse_bytes(text))]
    elif _INT.fullmatch(stripped):
        pool += [str(c) for c in int_candidates(int(stripped))] + [str(int(stripped))]
    elif (decimal := _decimal_spelling(text)) is not None:
        pool += [*ROUND_FRACTIONS, decimal, *_decimal_truncations(decimal)]
    if stripped.lower() in BOOLEAN_WORDS:
        pool += ["true", "false"]
    return _plainer(key, pool, text)


def _try(candidate: Request, still_fails: Callable[[Request], bool], budget: list[int]) -> bool:
    """One attempt, counted against the budget."""
    budget[0] -= 1
    return still_fails(candidate)


def _plain_config(request: Request, still_fails: Callable[[Request], bool], budget: list[int]) -> Request:
    """Each config value (strings; ints, not booleans) replaced by its plainest candidate that fails."""
    for key in list(request["input"]["config"]):
        value = request["input"]["config"][key]
        if isinstance(value, str):
            candidates: list[Any] = string_candidates(key, value)
        elif isinstance(value, int) and not isinstance(value, bool):
            candidates = int_candidates(value)
        else:
            continue
        for plain in candidates:
            if budget[0] <= 0:
                return request
            candidate = _with(request, "config", {**request["input"]["config"], key: plain})
            if _try(candidate, still_fails, budget):
                request = candidate
                break
    return request


def _int_groups(events: list[Any], fields: tuple[str, ...]) -> dict[int, list[tuple[int, str]]]:
    """The positions ``(event index, field)`` of each integer value of a family, by first appearance."""
    groups: dict[int, list[tuple[int, str]]] = {}
    for i, event in enumerate(events):
        for field in fields:
            value = event.get(field) if isinstance(event, dict) else None
            if isinstance(value, int) and not isinstance(value, bool):
                groups.setdefault(value, []).append((i, field))
    return groups


def _plain_event_ints(request: Request, still_fails: Callable[[Request], bool], budget: list[int]) -> Request:
    """Each number of an event family replaced, at every place it occurs at once (so that equal
    timestamps stay equal), by its plainest candidate that still fails."""
    for fields in INT_FAMILIES:
        for value, places in _int_groups(request["input"]["events"], fields).items():
            for plain in int_candidates(value):
                if budget[0] <= 0:
                    return request
                events = copy.deepcopy(request["input"]["events"])
                for i, field in places:
                    events[i][field] = plain
                candidate = _with(request, "events", events)
                if _try(candidate, still_fails, budget):
                    request = candidate
                    break
    return request


# Where a request holds identifiers: names whose spelling only tells things apart (a class, a
# resource, a key, a task, a record), renamed everywhere they occur at once.
RESOURCE_LISTS = ("resource_lookups", "user_resources", "parent_resources")
TASK_LISTS = ("tasks", "sources")
IDENTIFIER_EVENT_FIELDS = ("key", "namespace", "record", *TASK_FIELDS)
_PLAIN_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]?(\.[A-Za-z][A-Za-z0-9]?)?")


def _plain_words() -> Iterator[str]:
    """``A`` ... ``Z``, ``a.A`` ... ``z.Z``: the plainest names, shortest first."""
    yield from "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    for package in "abcdefghijklmnopqrstuvwxyz":
        for cls in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
            yield f"{package}.{cls}"


def _identifier_places(request: Request) -> list[tuple[str, int, str | None]]:
    """Every place an identifier is written: ``(list name, index, None)`` in the input's name lists,
    ``("events", index, field)`` in its events."""
    inp = request["input"]
    places: list[tuple[str, int, str | None]] = []
    for name in (*CLASS_LISTS, *RESOURCE_LISTS, *TASK_LISTS):
        if isinstance(inp.get(name), list):
            places += [(name, i, None) for i, n in enumerate(inp[name]) if isinstance(n, str)]
    if isinstance(inp.get("events"), list):
        places += [("events", i, f) for i, e in enumerate(inp["events"]) if isinstance(e, dict)
                   for f in IDENTIFIER_EVENT_FIELDS if isinstance(e.get(f), str)]
    return places


def _read(request: Request, place: tuple[str, int, str | None]) -> str:
    name, i, field = place
    value = request["input"][name][i]
    return str(value if field is None else value[field])


def _renamed(request: Request, places: list[tuple[str, int, str | None]], old: str, new: str) -> Request:
    """``request`` with identifier ``old`` written ``new`` at every place it is written."""
    out = copy.deepcopy(request)
    for name, i, field in places:
        if _read(request, (name, i, field)) != old:
            continue
        if field is None:
            out["input"][name][i] = new
        else:
            out["input"][name][i][field] = new
    return out


def _identifier_candidates(old: str, taken: set[str]) -> Iterator[str]:
    """Plainer spellings of identifier ``old``, plainest first: an unused plain word, then ``old`` with
    one dotted (or slashed) segment at a time written as a plain letter, then with its last segments
    dropped, so that a name keeps only what the failure needs (a package a pattern matches)."""
    for word in _plain_words():
        if word not in taken:
            yield word
            break
    for sep in (".", "/", "$"):
        parts = old.split(sep)
        if len(parts) < 2:
            continue
        for cut in range(1, len(parts)):
            yield sep.join(parts[:cut])
        for i, part in enumerate(parts):
            for letter in ("a", "A"):
                if part != letter:
                    yield sep.join([*parts[:i], letter, *parts[i + 1:]])


def _plain_identifiers(request: Request, still_fails: Callable[[Request], bool], budget: list[int]) -> Request:
    """Each identifier renamed everywhere it occurs, to the plainest spelling that still fails (an
    unused ``A``, ``B`` ... where the failure does not need the name, else the name with each segment
    it does not need written plainly): ``𝔘nicode.1x.JR$DKY`` becomes ``A`` where ``A`` fails the same."""
    places = _identifier_places(request)
    for old in list(dict.fromkeys(_read(request, p) for p in places)):
        if _PLAIN_IDENTIFIER.fullmatch(old):
            continue  # "t0", "a.B", "k1": already as plain as a name reads
        current = old
        improved = True
        while improved and budget[0] > 0:
            improved = False
            taken = {_read(request, p) for p in _identifier_places(request)}
            for new in _identifier_candidates(current, taken):
                if budget[0] <= 0 or new in taken or plainness(new) >= plainness(current):
                    continue
                candidate = _renamed(request, _identifier_places(request), current, new)
                if _try(candidate, still_fails, budget):
                    request, current, improved = candidate, new, True
                    break
    return request


def plainify(request: Request, still_fails: Callable[[Request], bool], budget: list[int]) -> Request:
    """``request`` with every value in the plainest spelling that still fails: config values,
    identifiers (class and resource names, keys, tasks, records), then event numbers, each change
    kept only if ``still_fails`` holds (at most ``budget[0]`` attempts, decremented). Deterministic:
    candidates come in a fixed order."""
    if isinstance(request["input"].get("config"), dict):
        request = _plain_config(request, still_fails, budget)
    request = _plain_identifiers(request, still_fails, budget)
    if isinstance(request["input"].get("events"), list):
        request = _plain_event_ints(request, still_fails, budget)
    return request
