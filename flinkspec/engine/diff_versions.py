"""flinkspec diff-versions A B: every behaviour of the oracle that differs between two Flink versions.

    flinkspec diff-versions 1.16 1.17 --area memory.taskmanager
    flinkspec diff-versions 1.13 2.3 --json --out changes.json
    flinkspec diff-versions 1.14 1.15 --no-confirm --markdown

For each area the suite's strategies draw inputs for version A and for version B (they can depend
on the version: an input only one version accepts is itself a difference), plus a few directed
inputs per known change, and the oracle of A and of B answers each. Where the two
answers differ, the oracle of every version in between is asked too, and each version step at
which the answer changes gives a *signature*: the step, what differs there (the first differing
output path without list indices, which side rejects the input with which exception, or how the
error message changes) and the area. One signature is one change: its simplest input is shrunk
with :func:`flinkspec.judge.reduce.reduce` (then empty fields dropped and sizes written in whole units)
while it still shows that change, so the witness is 1-minimal. Unless ``--no-confirm``, real Flink
A and B and real Flink on both sides of the step (the JVM bridges, one at a time) answer each
witness, and a change is *confirmed* only if all four answers equal the oracle's (error messages
compared exactly in the areas whose messages the oracle reproduces byte for byte, and wherever the
change is a message); anything else is reported as NOT CONFIRMED. Known changes (FLINK_RULES.md
section 6) are named, option defaults that differ are listed with a witness, and known changes no
protocol answer can show are listed as such. Changes that a later version undoes are not reported
(an input on which A and B agree is not examined).

Exit codes: 0 the report was produced (with or without changes), 1 a witness did not reproduce on
the real jars, 2 bad usage (unknown version or area).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import attrs

import oracle
from flinkspec.judge.reduce import reduce
from oracle.memsize import parse_bytes
from oracle.protocol import not_modelled
from oracle.versions import RELEASES, FlinkVersion, first_release, parse_version, pick, release_before, v
from properties import corpus
from properties.area import AnswerShape, OptionDefault
from properties.areas import AREAS
from properties.compare import compare

Input = dict[str, Any]
Response = dict[str, Any]

DEFAULT_EXAMPLES = 1000  # inputs drawn per area and per version (so up to 2x that per area)
SHRINK_CALLS = 400  # candidate inputs tried per witness
STRICT_MESSAGE_AREAS = frozenset(name for name, area in AREAS.items() if area.strict_messages)
KINDS = {
    "output": "both accept, the outputs differ",
    "rejected-before": "accepted from this version on",
    "rejected-after": "rejected from this version on",
    "error": "both reject the input, differently",
}


# --------------------------------------------------------------------------------------------
# Known changes: each area's table of changes (oracle.changes.Change, the area's ``changes``), read
# here as the changes to find, the inputs that show them and the changes no answer can show.


@attrs.frozen
class Known:
    area: str
    since: str
    text: str
    pattern: str = ""

    @property
    def step(self) -> FlinkVersion:
        """The release where the change shows: the first release on PyPI at or after ``since``."""
        first = first_release(v(self.since))
        assert first is not None, f"{self.since} is after the newest release"
        return first

    def matches(self, area: str, step: str, what: str) -> bool:
        """Whether a change found at the release ``step`` is this one (a change since a minor shows at
        that minor's first release on PyPI: ``"1.15"`` at 1.15.0)."""
        return (area == self.area and step == str(self.step)
                and re.search(self.pattern, what) is not None)


KNOWN: tuple[Known, ...] = tuple(Known(name, c.since, c.what, c.pattern)
                                 for name, area in AREAS.items() for c in area.changes if not c.unseen)

# Version changes the oracle knows that no protocol answer shows (so no witness can exist), or that the
# generated inputs do not reach: (area, first version, change, why). Listed in the report when in range.
UNSEEN: tuple[tuple[str, str, str, str], ...] = tuple(
    (name, c.since, c.what, c.unseen) for name, area in AREAS.items() for c in area.changes if c.unseen)

# Option defaults the oracle keys by version (each area's ``defaults``).
DEFAULT_TABLES: tuple[OptionDefault, ...] = tuple(d for area in AREAS.values() for d in area.defaults)

# Directed inputs added to the generated ones: each makes a known change visible at once, so every entry of
# KNOWN has a witness whatever the draws find (tests/test_diff_versions.py holds that).
SEEDS: Mapping[str, tuple[Input, ...]] = {
    name: seeds for name, area in AREAS.items()
    if (seeds := tuple(dict(w) for c in area.changes for w in c.witnesses))}


# --------------------------------------------------------------------------------------------
# Values


@attrs.frozen
class Witness:
    """A minimal input and what the oracle of A and of B answers (ids dropped)."""

    input: Input
    answer_a: Response
    answer_b: Response
    first_difference: str  # between A's and B's answers
    steps: tuple[str, ...]  # every version between A and B at which this input's answer changes


@attrs.frozen
class Confirmation:
    """What real Flink answered for the witness: ``confirmed`` if Flink A and B agree with the oracle,
    ``step_confirmed`` if Flink ``before`` and ``step`` do (the change happens where the oracle says)."""

    confirmed: bool
    step_confirmed: bool
    detail: str  # empty when both hold, else what differs or what broke

    @property
    def ok(self) -> bool:
        return self.confirmed and self.step_confirmed


@attrs.frozen
class Change:
    """One change of behaviour: at version ``step`` (against ``before``, the version preceding it)."""

    area: str
    before: str
    step: str
    kind: str  # a key of KINDS, between ``before`` and ``step``
    what: str  # what differs between ``before`` and ``step``, without the input's values
    known: tuple[str, ...]  # the known changes (FLINK_RULES section 6) this matches
    seen: int  # generated or directed inputs that showed it
    size: int  # the witness's size (keys / events / names)
    witness: Witness
    confirmation: Confirmation | None = None


@attrs.frozen
class DefaultChange:
    option: str
    area: str
    value_a: str
    value_b: str
    witness: int | None  # index into DiffResult.changes of a change of that area where the default changes


@attrs.frozen
class DiffResult:
    a: str
    b: str
    areas: tuple[str, ...]
    examples: int
    seed: int
    cases: int  # inputs judged (generated, directed and shrinking candidates)
    seconds: float
    changes: tuple[Change, ...]
    defaults: tuple[DefaultChange, ...]
    # known changes inside the range that A and B agree on (a release's bug fixed in its next patch), so
    # no change above shows them: each with its witness at its step and the releases that answer otherwise
    undone: tuple[tuple[Change, str], ...] = ()

    @property
    def unconfirmed(self) -> tuple[Change, ...]:
        return tuple(c for c in (*self.changes, *(u for u, _ in self.undone))
                     if c.confirmation is not None and not c.confirmation.ok)


@attrs.frozen
class _Signature:
    step: str
    kind: str
    what: str


# --------------------------------------------------------------------------------------------
# Pure logic


def versions_between(a: FlinkVersion, b: FlinkVersion) -> list[FlinkVersion]:
    """Every release from ``a`` to ``b``, patch releases included: a change can come at a patch step."""
    lo, hi = min(a, b), max(a, b)
    return [v for v in RELEASES if lo <= v <= hi]


def ask(area: str, version: FlinkVersion, inp: Input) -> Response:
    """The oracle's answer, without the id, in the area's normal form (its tie rule)."""
    resp = oracle.answer({"id": 0, "area": area, "flink": str(version), "input": inp})
    return AREAS[area].normalize({k: val for k, val in resp.items() if k != "id"})


def differing_paths(x: object, y: object, path: str = "") -> Iterator[tuple[str, object, object]]:
    """Every place where two JSON values differ: ``(path, value in x, value in y)``; absent is ``...``."""
    if isinstance(x, dict) and isinstance(y, dict):
        for k in list(x) + [k for k in y if k not in x]:
            yield from differing_paths(x.get(k, ...), y.get(k, ...), f"{path}.{k}" if path else k)
    elif isinstance(x, list) and isinstance(y, list):
        for i in range(max(len(x), len(y))):
            yield from differing_paths(x[i] if i < len(x) else ..., y[i] if i < len(y) else ..., f"{path}[{i}]")
    elif type(x) is not type(y) or x != y:
        yield path, x, y


def _short(value: object, limit: int = 120) -> str:
    text = "(absent)" if value is ... else json.dumps(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _mask(message: str, limit: int = 70) -> str:
    """A message without its values (quoted or parenthesized text, numbers, a trailing value)."""
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'*'", message)
    text = re.sub(r"\([^)]*\)", "(*)", text)
    text = re.sub(r": [^.]*$", ": *", text)  # a trailing value ("Unknown resolve order: child_first")
    text = re.sub(r"\d+(\.\d+)?", "N", text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _general(path: str, shape: AnswerShape) -> str:
    """An output path without its data: list indices and the keys of the area's maps keyed by data
    (``shape.data_maps``: checkpoint ids, record keys) dropped."""
    path = re.sub(r"\[\d+\]", "[]", path)
    for name in shape.data_maps:
        path = re.sub(r"\." + name + r"\.[^.\[]+", f".{name}.*", path)
    return path


def _gist(err: Mapping[str, Any], words: int = 4) -> str:
    """An error's exception and the first words of its message, values masked: one change per gist."""
    head = " ".join(_mask(str(err.get("message", "")), 400).split()[:words])
    return f"{err.get('exception') or err.get('type')}: {head} ..."


def describe(ra: Response, rb: Response, a: str, b: str, shape: AnswerShape) -> tuple[str, str, str] | None:
    """``(kind, what, first difference)`` for the answers of versions ``a`` and ``b``, or None if equal."""
    ea, eb = ra.get("error"), rb.get("error")
    if ra == rb or (ea and eb and "BadRequest" in (ea.get("type"), eb.get("type"))) or not_modelled(ea) \
            or not_modelled(eb):
        # a request one version's protocol refuses and the other's refuses too, or Flink rejects,
        # says nothing about Flink beyond the inputs the later version accepts; nor does an input the
        # oracle of one version does not model
        return None
    if ea is None and eb is None:
        path, va, vb = next(differing_paths(ra.get("output"), rb.get("output"), "output"))
        return "output", _general(path, shape), f"{path}: {_short(va)} at {a}, {_short(vb)} at {b}"
    if eb is None:
        assert ea is not None  # both None: the output case above
        return "rejected-before", f"{a} rejects ({_gist(ea)}), {b} accepts", f"{a}: {_short(ea)}; {b}: output"
    if ea is None:
        return "rejected-after", f"{b} rejects ({_gist(eb)}), {a} accepts", f"{a}: output; {b}: {_short(eb)}"
    first = f"{a}: {_short(ea, 240)}; {b}: {_short(eb, 240)}"
    ma, mb = str(ea.get("message", "")), str(eb.get("message", ""))
    if ea.get("exception") == eb.get("exception") and ma != mb and (ma.endswith(mb) or mb.endswith(ma)):
        longer, shorter = (ma, mb) if len(ma) > len(mb) else (mb, ma)
        verb = "dropped" if longer is ma else "added"
        return "error", f"message prefix {longer[: len(longer) - len(shorter)]!r} {verb}", first
    ga, gb = _gist(ea), _gist(eb)
    return "error", f"another message: {ga}" if ga == gb else f"{ga} -> {gb}", first


def signatures(area: str, a: FlinkVersion, b: FlinkVersion, inp: Input) -> tuple[_Signature, ...]:
    """How the answer to ``inp`` changes at each version between ``a`` and ``b`` (nothing if A and B agree)."""
    if ask(area, a, inp) == ask(area, b, inp):
        return ()
    chain = versions_between(a, b)
    answers = [ask(area, v, inp) for v in chain]
    out = []
    for i in range(1, len(chain)):
        described = describe(answers[i - 1], answers[i], str(chain[i - 1]), str(chain[i]), AREAS[area].shape)
        if described is not None:
            out.append(_Signature(str(chain[i]), described[0], described[1]))
    return tuple(out)


def _size(area: str, inp: Input) -> tuple[int, int]:
    return AREAS[area].size({"input": inp}), len(json.dumps(inp))


def _witness(area: str, a: FlinkVersion, b: FlinkVersion, inp: Input) -> Witness:
    ra, rb = ask(area, a, inp), ask(area, b, inp)
    described = describe(ra, rb, str(a), str(b), AREAS[area].shape)
    first = described[2] if described else "(the same answer: only BadRequests)"
    return Witness(inp, ra, rb, first, tuple(s.step for s in signatures(area, a, b, inp)))


def _plainer(value: str) -> list[str]:
    """Plainer spellings of a configuration value: a memory size in its largest whole unit, trimmed."""
    out = []
    try:
        n = parse_bytes(value)
        unit = next((u for u, f in (("g", 2**30), ("m", 2**20), ("k", 2**10)) if n and n % f == 0), None)
        out.append(f"{n // {'g': 2**30, 'm': 2**20, 'k': 2**10}[unit]}{unit}" if unit else f"{n}b")
    except Exception:  # not a memory size
        pass
    return [v for v in (*out, value.strip()) if v != value]


def polish(inp: Input, keeps: Callable[[Input], bool]) -> Input:
    """``inp`` without the fields it can do without (empty lists, ``config: {}``) and with plainer config
    values, as long as ``keeps`` holds (what :func:`flinkspec.judge.reduce.reduce` does not try)."""
    for key in [k for k, val in inp.items() if val in ([], {})]:
        candidate = {k: val for k, val in inp.items() if k != key}
        if keeps(candidate):
            inp = candidate
    config = inp.get("config")
    for key, value in (config.items() if isinstance(config, dict) else ()):
        for plain in _plainer(value) if isinstance(value, str) else ():
            candidate = {**inp, "config": {**inp["config"], key: plain}}
            if keeps(candidate):
                inp = candidate
                break
    return inp


def _known(area: str, sig: _Signature) -> tuple[str, ...]:
    return tuple(k.text for k in KNOWN if k.matches(area, sig.step, sig.what))


def _release_before(version: FlinkVersion) -> FlinkVersion:
    before = release_before(version)
    assert before is not None, f"no release before {version}"
    return before


def _previous(version: str) -> str:
    return str(_release_before(parse_version(version)))


def area_changes(area: str, a: FlinkVersion, b: FlinkVersion, inputs: Sequence[Input],
                 counter: list[int], shrink_calls: int = SHRINK_CALLS) -> list[Change]:
    """The distinct changes ``inputs`` show between ``a`` and ``b``, each with a minimal witness.

    Members of a change are ranked by how many other changes they show, then by size; the best is
    shrunk while it keeps showing the change (and A and B keep disagreeing on it)."""
    groups: dict[_Signature, list[tuple[int, Input]]] = {}
    for inp in inputs:
        counter[0] += 1
        sigs = signatures(area, a, b, inp)
        for sig in sigs:
            groups.setdefault(sig, []).append((len(sigs), inp))
    changes = []
    for sig, members in groups.items():
        _, best = min(members, key=lambda m: (m[0], _size(area, m[1])))

        def same(candidate: dict[str, Any], sig: _Signature = sig) -> bool:
            counter[0] += 1
            try:
                return sig in signatures(area, a, b, candidate["input"])
            except Exception:  # a cut the oracle cannot answer (a field pointing past the events)
                return False

        minimal = reduce({"area": area, "input": best}, same, max_calls=shrink_calls)["input"]
        minimal = polish(minimal, lambda inp: same({"input": inp}))
        changes.append(Change(area, _previous(sig.step), sig.step, sig.kind, sig.what, _known(area, sig),
                              len(members), AREAS[area].size({"input": minimal}), _witness(area, a, b, minimal)))
    return changes


def undone_changes(a: FlinkVersion, b: FlinkVersion, areas: Sequence[str],
                   changes: Sequence[Change]) -> tuple[tuple[Change, str], ...]:
    """The known changes at a release inside (A, B] that no change between A and B shows because A and B
    answer alike (a release's bug fixed in its next patch), each shown by a directed witness of
    :data:`SEEDS` at its step, with the releases whose answer differs from A's (``"1.17.0"``)."""
    lo, hi = min(a, b), max(a, b)
    matched = {k for c in changes for k in c.known}
    chain = versions_between(lo, hi)
    out = []
    for k in KNOWN:
        if k.area not in areas or not lo < k.step <= hi or k.text in matched:
            continue
        before = _release_before(k.step)
        for inp in SEEDS.get(k.area, ()):
            described = describe(ask(k.area, before, inp), ask(k.area, k.step, inp), str(before), str(k.step),
                                 AREAS[k.area].shape)
            if described is None or not k.matches(k.area, str(k.step), described[1]):
                continue
            answers = [ask(k.area, r, inp) for r in chain]
            if answers[0] != answers[-1]:
                continue  # a change between A and B: the table of changes shows it
            odd = [r.release for r, answer in zip(chain, answers, strict=True) if answer != answers[0]]
            if not odd:
                continue
            change = Change(k.area, str(before), str(k.step), described[0], described[1], (k.text,), 1,
                            AREAS[k.area].size({"input": inp}), _witness(k.area, before, k.step, inp))
            out.append((change, odd[0] if len(odd) == 1 else f"{odd[0]} to {odd[-1]}"))
            break
    return tuple(out)


def default_changes(a: FlinkVersion, b: FlinkVersion, areas: Sequence[str],
                    changes: Sequence[Change]) -> tuple[DefaultChange, ...]:
    """The option defaults of ``areas`` that differ between ``a`` and ``b``, each with a change that shows it."""
    out = []
    lo, hi = min(a, b), max(a, b)
    for d in DEFAULT_TABLES:
        va, vb = pick(d.table, a), pick(d.table, b)
        if va == vb or d.area not in areas:
            continue
        # the step that brings the newer version's value first, then the earlier ones
        steps = [r for since in d.table if lo < since <= hi and (r := first_release(since)) is not None]
        rank = {str(step): -RELEASES.index(step) for step in steps}
        found = [i for i, c in enumerate(changes) if c.area == d.area and c.step in rank]
        best = min(found, key=lambda i: (rank[changes[i].step], len(changes[i].witness.steps), changes[i].size),
                   default=None)
        out.append(DefaultChange(d.option, d.area, d.show(va), d.show(vb), best))
    return tuple(out)


def diff(a: FlinkVersion, b: FlinkVersion, areas: Sequence[str], examples: int = DEFAULT_EXAMPLES, seed: int = 0,
         progress: Callable[[str], object] | None = None) -> DiffResult:
    """Every change between ``a`` and ``b`` in ``areas`` that ``examples`` generated inputs per version show."""
    started = time.monotonic()
    counter = [0]
    changes: list[Change] = []
    order = {name: i for i, name in enumerate(AREAS)}
    for area in areas if a != b else ():
        pool: dict[str, Input] = {}
        for ver in (a, b):
            for inp in [*corpus.inputs(area, ver, examples, seed), *SEEDS.get(area, ())]:
                pool.setdefault(json.dumps(inp, sort_keys=True), inp)
        found = area_changes(area, a, b, list(pool.values()), counter)
        if progress is not None:
            progress(f"{area}: {len(pool)} inputs, {len(found)} change(s) ({time.monotonic() - started:.0f} s)")
        changes.extend(found)
    changes.sort(key=lambda c: (parse_version(c.step), order[c.area], c.kind, c.what))
    return DiffResult(str(a), str(b), tuple(areas), examples, seed, counter[0], time.monotonic() - started,
                      tuple(changes), default_changes(a, b, areas, changes), undone_changes(a, b, areas, changes))


def judge_real(change: Change, a: str, b: str, real: Mapping[str, Response]) -> Confirmation:
    """Confirmed when real Flink A and B each answer the witness as the oracle of that version does;
    the step is confirmed when real Flink ``before`` and ``step`` do too (``real`` maps version -> answer)."""
    strict = change.area in STRICT_MESSAGE_AREAS or change.kind == "error"
    norm = AREAS[change.area].normalize
    expected = {a: change.witness.answer_a, b: change.witness.answer_b}
    problems: dict[str, str] = {}
    for ver in dict.fromkeys((a, b, change.before, change.step)):
        want = expected.get(ver) or ask(change.area, parse_version(ver), change.witness.input)
        why = compare(want, norm(real[ver]), strict_messages=strict)
        if why is not None:  # compare() calls the expected side "Flink": here that is the oracle
            problems[ver] = f"Flink {ver}: {why.replace('Flink', 'oracle').replace('answer', 'real Flink')}"
    return Confirmation(a not in problems and b not in problems,
                        change.before not in problems and change.step not in problems, "; ".join(problems.values()))


# --------------------------------------------------------------------------------------------
# Rendering


def unseen_changes(result: DiffResult) -> list[tuple[str, str, str, str]]:
    """The entries of :data:`UNSEEN` of the report's areas between A (exclusive) and B."""
    lo, hi = sorted((parse_version(result.a), parse_version(result.b)))
    return [u for u in UNSEEN if u[0] in result.areas and lo < (first_release(v(u[1])) or hi) <= hi]


def to_json(result: DiffResult) -> dict[str, Any]:
    out = attrs.asdict(result)
    out["unseen"] = [dict(zip(("area", "since", "change", "why"), u, strict=True)) for u in unseen_changes(result)]
    out["kinds"] = KINDS
    out["unconfirmed"] = len(result.unconfirmed)
    return out


def _status(change: Change) -> str:
    if change.confirmation is None:
        return "not checked"
    if change.confirmation.ok:
        return f"confirmed (and the step {change.before} -> {change.step})"
    return f"NOT CONFIRMED: {change.confirmation.detail}"


def render_text(result: DiffResult) -> str:
    every = (*result.changes, *(c for c, _ in result.undone))
    confirmed = sum(1 for c in every if c.confirmation is not None and c.confirmation.ok)
    checked = sum(1 for c in every if c.confirmation is not None)
    real = f"{confirmed} of {checked} witnesses confirmed on real Flink" if checked else "not run on real Flink"
    lines = [f"Flink {result.a} -> {result.b}: {len(result.changes)} change(s) in {len(result.areas)} area(s), "
             f"{real} ({result.cases} inputs judged, "
             f"{result.examples} drawn per area and version, seed {result.seed}, {result.seconds:.1f} s)"]
    if result.defaults:
        lines += ["", "Defaults that differ:"]
        for d in result.defaults:
            ref = f"change #{d.witness + 1}" if d.witness is not None else "no witness found"
            lines.append(f"  {d.option} ({d.area}, {ref})")
            lines.append(f"    {result.a}: {d.value_a}")
            lines.append(f"    {result.b}: {d.value_b}")
    step = None
    for i, c in enumerate(result.changes, 1):
        if c.step != step:
            step = c.step
            lines += ["", f"== changed in {c.step} (against {c.before}) =="]
        also = [s for s in c.witness.steps if s != c.step]
        lines += [
            "",
            f"#{i} {c.area}: {c.what}",
            f"   {KINDS[c.kind]}; seen on {c.seen} input(s)"
            + (f"; this witness also changes at {', '.join(also)}" if also else ""),
        ]
        lines += [f"   known: {k}" for k in c.known] or ["   known: (not in FLINK_RULES section 6)"]
        lines += [
            f"   witness: {json.dumps(c.witness.input)}",
            f"   first difference: {c.witness.first_difference}",
            f"   {result.a}: {_short(c.witness.answer_a, 400)}",
            f"   {result.b}: {_short(c.witness.answer_b, 400)}",
            f"   real Flink: {_status(c)}",
        ]
    if result.undone:
        lines += ["", f"Changes inside the range that {result.a} and {result.b} agree on:"]
        for c, odd in result.undone:
            lines += [f"  {c.step} {c.area}: {'; '.join(c.known)} (only {odd} answer otherwise)",
                      f"    witness: {json.dumps(c.witness.input)}",
                      f"    {c.before}: {_short(c.witness.answer_a, 300)}",
                      f"    {c.step}: {_short(c.witness.answer_b, 300)}",
                      f"    real Flink: {_status(c)}"]
    unseen = unseen_changes(result)
    if unseen:
        lines += ["", "Known changes in this range without a witness:"]
        lines += [f"  {since} {area}: {change} ({why})" for area, since, change, why in unseen]
    if result.unconfirmed:
        lines += ["", f"{len(result.unconfirmed)} witness(es) did NOT reproduce on real Flink: "
                  + ", ".join(f"#{result.changes.index(c) + 1}" for c in result.unconfirmed)]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(result: DiffResult, command: str | None = None) -> str:
    a, b = result.a, result.b
    checked = [c for c in (*result.changes, *(u for u, _ in result.undone)) if c.confirmation is not None]
    lines = [f"# What changed from Flink {a} to Flink {b}", ""]
    if command:
        lines += [f"Generated by `{command}`.", ""]
    lines += [
        f"{len(result.changes)} change(s) in {', '.join(result.areas)}; "
        f"{sum(1 for c in checked if c.confirmation and c.confirmation.ok)} of {len(checked)} witnesses reproduce "
        f"on the real jars ({result.examples} inputs drawn per area and version, seed {result.seed}, "
        f"{result.cases} inputs judged, {result.seconds:.0f} s).",
        "",
        "Each row is one change: the version where the answer changes (against the version before it), what "
        "differs there (the first differing output field, list indices dropped, or the error), the known change "
        "it matches, a 1-minimal witness input and the oracle's answers at both ends. *Real Flink* says whether "
        f"real Flink {a} and {b}, and real Flink on both sides of the step, answer the witness exactly so.",
        "",
        f"| # | changed in | area | change | known change | witness (input) | Flink {a} | Flink {b} | real Flink |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for i, c in enumerate(result.changes, 1):
        confirmed = "n/c" if c.confirmation is None else "yes" if c.confirmation.ok else "**NO**"
        lines.append("| " + " | ".join(_cell(x) for x in (
            str(i), c.step, c.area, f"{c.what} ({KINDS[c.kind]})", "; ".join(c.known) or "-",
            f"`{json.dumps(c.witness.input)}`", f"`{_short(c.witness.answer_a, 240)}`",
            f"`{_short(c.witness.answer_b, 240)}`", confirmed)) + " |")
    if result.defaults:
        lines += ["", "Option defaults that differ:", "",
                  f"| option | area | {a} default | {b} default | witness |", "|---|---|---|---|---|"]
        for d in result.defaults:
            ref = f"#{d.witness + 1}" if d.witness is not None else "none found"
            lines.append(f"| `{d.option}` | {d.area} | `{_cell(d.value_a)}` | `{_cell(d.value_b)}` | {ref} |")
    if result.undone:
        lines += ["", f"Changes inside this range that Flink {a} and {b} agree on (so the table above cannot show "
                  "them): the witness at the step, and real Flink on both sides of it.",
                  "", "| changed in | only these answer otherwise | area | change | witness (input) | before the step "
                  "| at the step | real Flink |",
                  "|---|---|---|---|---|---|---|---|"]
        for c, odd in result.undone:
            confirmed = "n/c" if c.confirmation is None else "yes" if c.confirmation.ok else "**NO**"
            lines.append("| " + " | ".join(_cell(x) for x in (
                c.step, odd, c.area, "; ".join(c.known), f"`{json.dumps(c.witness.input)}`",
                f"`{_short(c.witness.answer_a, 240)}`", f"`{_short(c.witness.answer_b, 240)}`", confirmed)) + " |")
    unseen = unseen_changes(result)
    if unseen:
        lines += ["", "Known changes in this range without a witness:", "",
                  "| version | area | change | why |", "|---|---|---|---|"]
        lines += [f"| {since} | {area} | {_cell(change)} | {_cell(why)} |" for area, since, change, why in unseen]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# I/O: real Flink and the command


def confirm(result: DiffResult, timeout: float,
            progress: Callable[[str], object] | None = None) -> DiffResult:
    """Each witness answered by real Flink A, B and the two versions of its step: one bridge per
    version, opened in turn (one JVM at a time), all its requests pipelined."""
    from flinkspec.impls import ImplementationBroken, open_impl

    # each witness with the two ends it is judged at: the report's, or (undone changes) its step's
    items = [(c, result.a, result.b) for c in result.changes] + [(c, c.before, c.step) for c, _ in result.undone]
    wanted: dict[str, list[int]] = {}
    for i, (c, end_a, end_b) in enumerate(items):
        for ver in dict.fromkeys((end_a, end_b, c.before, c.step)):
            wanted.setdefault(ver, []).append(i)
    real: dict[int, dict[str, Response]] = {i: {} for i in range(len(items))}
    broken: dict[int, str] = {}
    for ver in sorted(wanted, key=parse_version):
        if progress is not None:
            progress(f"  real Flink {ver}: {len(wanted[ver])} witness(es)")
        reqs: list[dict[str, Any]] = [
            {"id": i, "area": items[i][0].area, "flink": ver, "input": items[i][0].witness.input}
            for i in wanted[ver]]
        impl = open_impl(f"flink:{ver}", timeout=timeout)
        try:
            for req, resp in zip(reqs, impl.answer_many(reqs), strict=True):
                real[req["id"]][ver] = resp
        except ImplementationBroken as exc:
            broken.update({i: f"real Flink {ver} broke: {exc}" for i in wanted[ver]})
        finally:
            impl.close()
    judged = [attrs.evolve(c, confirmation=Confirmation(False, False, broken[i]) if i in broken
                           else judge_real(c, end_a, end_b, real[i]))
              for i, (c, end_a, end_b) in enumerate(items)]
    n = len(result.changes)
    return attrs.evolve(result, changes=tuple(judged[:n]),
                        undone=tuple((c, by) for c, (_, by) in zip(judged[n:], result.undone, strict=True)))

