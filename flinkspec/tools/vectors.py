"""Conformance test vectors: Flink's answers to chosen requests, as files any engine's CI can run.

Model: ethereum/consensus-specs, whose executable spec generates versioned test vectors. Here the
vectors are requests of the protocol (docs/protocol/v1.md, docs/protocol/v2.md) with real Flink's answer,
chosen for what they catch rather than for volume, and written per area and Flink release to
``<bundle>/<area>/<release>.jsonl.gz`` with a ``manifest.json`` (docs/vectors.md is the format):

- ``boundary``: for every built-in mutant (a planted bug on a rule's boundary) and every release,
  the smallest request the mutant answers differently from Flink;
- ``historical``: the same for every historical mutant (a real Flink bug, ``flink-NNNNN``): its witness;
- ``change``: every known change between releases (:data:`flinkspec.engine.diff_versions.KNOWN`), one
  input on both sides of the release that changed it;
- ``deviation``: where real Flink breaks one of its documented rules (``flink_violates``);
- ``example``: the scenarios of Flink's own unit tests the suite pins;
- ``random``: a small seeded sample of the recorded answers of the real jars.

Answers come from the recordings of the real jars (``properties/recorded``) wherever the input was
recorded at that release, else from the oracle (proven equal to the jars), optionally replayed on
the real jar at export (``confirm``). Every answer is compared the way the runners compare
(:func:`disagreement`): the whole output as JSON, only the error ``type`` of an error, and the
protocol's tie rule for ``watermark.timers`` and ``watermark.windows``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

import oracle
from flinkspec.impls import features as feat
from oracle.versions import LATEST, SUPPORTED, FlinkVersion, parse_version
from oracle.watermark import TIMERS
from oracle.watermark_join import JOIN
from oracle.watermark_windows import WINDOWS

Input = dict[str, Any]
Answer = dict[str, Any]

FORMAT = 1  # the layout of a bundle and of a vector (docs/vectors.md); bumped on any incompatible change
BUNDLE = Path(__file__).resolve().parents[1] / "vectors_bundle"  # the bundle the package carries
MANIFEST = "manifest.json"
RANDOM_PER_RELEASE = 50  # the random tier: recorded answers per area and release
DEFAULT_SEED = 0
# why a vector is there; a file lists its vectors in this order of their first reason, then by size
KINDS: dict[str, str] = {
    "historical": "a historical Flink bug (flink-NNNNN mutant) answers it wrongly: the bug's witness",
    "boundary": "a built-in mutant (a rule's boundary drawn wrongly) answers it wrongly",
    "change": "a known change of Flink between two releases shows on it (at the release before and the one with it)",
    "deviation": "real Flink breaks a documented rule on it",
    "example": "a scenario of Flink's own unit tests (or pinned real-Flink example) the suite transcribes",
    "random": "drawn at random (seeded) from the recorded answers of the real jars",
}
SOURCES = ("recorded", "flink", "example", "oracle")


# ------------------------------------------------------------------------------------------------
# comparing answers the way the runners do


def canonical(value: object) -> str:
    """A JSON value as one canonical line: keys sorted, no spaces (what every file holds)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def json_equal(a: object, b: object) -> bool:
    """JSON equality: objects by keys, arrays in order, numbers by value, ``true`` never ``1``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def tie_normal(output: object, key: str = "fired") -> object:
    """The tie rule of ``watermark.timers`` (docs/protocol/v1.md: timers with equal timestamps may come in any
    order) and of ``watermark.windows`` (``key`` "outputs", docs/protocol/watermark-windows.md: windows fired with
    equal timestamps may come in any order).

    Each list of fired timers (each event's emissions) becomes its timestamps in the order given (so the order of
    distinct timestamps still counts; a late record's is null) and the items sorted by their canonical JSON (so
    equal-timestamp items compare as a multiset)."""
    if not isinstance(output, dict) or not isinstance(output.get(key), list):
        return output
    steps = output[key]
    if not all(isinstance(s, list) and all(isinstance(t, dict) for t in s) for s in steps):
        return output
    normal = [{"timestamps": [_stamp(t) for t in s], "timers": sorted(s, key=canonical)} for s in steps]
    return {**output, key: normal}


def _stamp(item: dict[str, Any]) -> object:
    fired = item.get("fired")
    return fired.get("timestamp") if isinstance(fired, dict) else item.get("timestamp")


# the areas with a tie rule, and the list it applies to (watermark.join: the pairs one record joins, in any order,
# docs/protocol/watermark-join.md; a joined pair has no top-level timestamp, so each event's pairs are a multiset)
TIE_KEYS = {TIMERS: "fired", WINDOWS: "outputs", JOIN: "outputs"}


def disagreement(area: str, expected: Answer, actual: Answer) -> str | None:
    """Why ``actual`` is not ``expected`` for a vector runner, or None when it passes: for an output,
    the whole output as JSON (the tie rule applied in ``watermark.timers``, ``watermark.windows`` and
    ``watermark.join``); for an
    error, its ``type``."""
    if isinstance(expected.get("error"), dict):
        err = actual.get("error")
        want = expected["error"].get("type")
        if not isinstance(err, dict):
            return f"expected error {want}, got an output"
        return None if err.get("type") == want else f"expected error {want}, got error {err.get('type')}"
    if "output" not in actual:
        return f"expected an output, got {canonical(actual.get('error'))[:200]}"
    exp, act = expected.get("output"), actual["output"]
    if area in TIE_KEYS:
        exp, act = tie_normal(exp, TIE_KEYS[area]), tie_normal(act, TIE_KEYS[area])
    return None if json_equal(exp, act) else "the output differs"


# ------------------------------------------------------------------------------------------------
# values


@attrs.frozen
class Why:
    """One reason a vector is there: its ``kind`` (a key of :data:`KINDS`) and what names it."""

    kind: str
    detail: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, **dict(self.detail)}


def why(kind: str, **detail: str) -> Why:
    return Why(kind, tuple(sorted(detail.items())))


@attrs.frozen
class Candidate:
    """A request of one area at one release with Flink's answer and where that answer comes from."""

    area: str
    flink: str
    input: Input
    answer: Answer
    source: str  # one of SOURCES
    corpus: str = ""  # the recorded corpus it comes from, if any

    @property
    def key(self) -> str:
        return canonical(self.input)

    @property
    def size(self) -> int:
        return len(self.key)

    def request(self) -> dict[str, Any]:
        return {"area": self.area, "flink": self.flink, "input": self.input}


@attrs.frozen
class Vector:
    """A candidate chosen for ``why`` (every reason found), with the rule IDs it witnesses."""

    case: Candidate
    why: tuple[Why, ...]
    rules: tuple[str, ...]

    def features(self) -> tuple[str, ...]:
        return features_of(self.case.request(), self.case.answer)

    def to_json(self, vid: str) -> dict[str, Any]:
        names = self.features()
        return {"id": vid, "request": self.case.request(), "answer": self.case.answer, "source": self.case.source,
                "why": [w.to_json() for w in self.why], "rules": list(self.rules), "features": list(names),
                "protocol": protocol_of(names)}


def features_of(request: Mapping[str, Any], answer: Answer) -> tuple[str, ...]:
    """The protocol features (:mod:`flinkspec.impls.features`) a request uses and its answer shows, those
    added since protocol 1 (a vector of odd config spellings, ``config.spelling``, is of protocol 1)."""
    used = [f.name for f in feat.FEATURES if f.version > 1 and f.used(dict(request))]
    out = answer.get("output")
    shown = [f.name for f in feat.ANSWER_FEATURES
             if f.area == request.get("area") and isinstance(out, dict) and f.shown(out)]
    return tuple(sorted({*used, *shown}))


def protocol_of(names: Iterable[str]) -> int:
    """The protocol version an implementation must speak to be sent the vector and held to its answer."""
    return max((feat.BY_NAME[n].version for n in names), default=1)


# ------------------------------------------------------------------------------------------------
# the candidates: recorded answers, directed inputs and the oracle


@attrs.frozen
class Pool:
    """Candidates per (area, release), smallest first, and an index by (area, release, input)."""

    releases: Mapping[tuple[str, str], tuple[Candidate, ...]]
    index: Mapping[tuple[str, str, str], Candidate]

    def of(self, area: str, version: str) -> tuple[Candidate, ...]:
        return self.releases.get((area, version), ())

    def get(self, area: str, version: str, key: str) -> Candidate | None:
        return self.index.get((area, version, key))


def pool_of(cands: Iterable[Candidate]) -> Pool:
    by: dict[tuple[str, str], dict[str, Candidate]] = {}
    for c in cands:
        by.setdefault((c.area, c.flink), {}).setdefault(c.key, c)
    releases = {k: tuple(sorted(v.values(), key=_order)) for k, v in sorted(by.items())}
    return Pool(releases, {(c.area, c.flink, c.key): c for cs in releases.values() for c in cs})


def recorded_pool(areas: Sequence[str], versions: Sequence[FlinkVersion]) -> Pool:
    """Every recorded answer of the real jars for ``areas`` at ``versions``, each input once per
    release, smallest first. Inputs the oracle does not model (``oracle_refuses``) are left out:
    a vector's answer is one the reference itself gives."""
    from properties.areas import AREAS, EXTRA_CORPORA, area_of_corpus
    from properties.recordings import RECORDED, read

    wanted = {str(v) for v in versions}
    found = []
    for corpus in [*AREAS, *EXTRA_CORPORA]:
        area = area_of_corpus(corpus)
        path = RECORDED / f"{corpus}.jsonl.gz"
        if area not in areas or not path.exists():
            continue
        for rec in read(path)[1]:
            if rec["flink"] not in wanted or rec.get("oracle_refuses"):
                continue
            found.append(Candidate(area, rec["flink"], rec["input"], rec["answer"], "recorded", corpus))
    return pool_of(found)


def _order(c: Candidate) -> tuple[int, int, str]:
    """Smallest first; of equal size, Flink's recorded answer before one the oracle computes."""
    return c.size, SOURCES.index(c.source), c.key


def oracle_answer(area: str, version: str, inp: Input) -> Answer:
    """The oracle's answer, as a vector holds it (``output`` or ``error``, no id)."""
    resp = oracle.answer({"id": 0, "area": area, "flink": version, "input": inp})
    return {k: resp[k] for k in ("output", "error") if k in resp}


def candidate(area: str, version: str, inp: Input, pool: Pool, source: str = "oracle") -> Candidate:
    """``inp`` at ``version``: Flink's recorded answer if it was recorded there, else the oracle's."""
    found = pool.get(area, version, canonical(inp))
    return found or Candidate(area, version, inp, oracle_answer(area, version, inp), source)


def directed_inputs(area: str) -> list[Input]:
    """The directed inputs of ``flinkspec diff-versions`` for ``area``
    (:data:`~flinkspec.engine.diff_versions.SEEDS`)."""
    from flinkspec.engine.diff_versions import SEEDS

    return [dict(inp) for inp in SEEDS.get(area, ())]


def with_directed(area: str, version: str, pool: Pool) -> list[Candidate]:
    """The recorded candidates of a release and the directed inputs, smallest first."""
    extra = [candidate(area, version, inp, pool) for inp in directed_inputs(area)]
    return sorted({c.key: c for c in (*extra, *pool.of(area, version))}.values(), key=_order)


# ------------------------------------------------------------------------------------------------
# the tiers


def _wrong_rules(area: str, request: Mapping[str, Any], wrong: Answer, version: FlinkVersion) -> tuple[str, ...]:
    """The invariants a wrong answer breaks (``properties.areas.judge``, conformance ``flink``)."""
    from properties.areas import judge

    try:
        return tuple(sorted({v.rule for v in judge(area, request, wrong, version)}))
    except Exception:  # an invariant that cannot read a malformed wrong answer judges nothing
        return ()


def mutant_answer(name: str, request: Mapping[str, Any]) -> Answer:
    """What mutant ``name`` answers (``output`` or ``error``)."""
    from flinkspec.mutants import MUTANTS

    resp = MUTANTS[name].answer({"id": 0, **request})
    return {k: resp[k] for k in ("output", "error") if k in resp}


def first_kill(name: str, cands: Iterable[Candidate]) -> Candidate | None:
    """The first candidate mutant ``name`` answers differently from Flink (as a runner compares)."""
    return next((c for c in cands if disagreement(c.area, c.answer, mutant_answer(name, c.request()))), None)


def searched_kills(name: str, version: FlinkVersion, examples: int, seed: int) -> list[Input]:
    """Inputs found by ``flinkspec check``'s search (Hypothesis, then shrinking) on which mutant
    ``name`` answers differently from the oracle at ``version``: for a bug no recorded or directed
    input shows."""
    from flinkspec.engine.check import check_area
    from flinkspec.impls import open_impl
    from flinkspec.mutants import MUTANTS

    area = MUTANTS[name].area
    run = check_area(open_impl(f"mutant:{name}"), f"mutant:{name}", area, version, examples=examples,
                     seed_value=seed)
    found = [c.request["input"] for c in run.counterexamples]
    return [inp for inp in found if disagreement(area, oracle_answer(area, str(version), inp),
                                                 mutant_answer(name, {"area": area, "flink": str(version),
                                                                      "input": inp}))]


def _protocol(c: Candidate) -> int:
    return protocol_of(features_of(c.request(), c.answer))


def protocol_1_forms(cands: Iterable[Candidate], pool: Pool) -> Iterator[Candidate]:
    """The candidates a protocol-1 implementation takes: those that need nothing newer, and the
    others as :meth:`~flinkspec.impls.capabilities.Capabilities.fit` sends them to such an implementation
    (version-2 features stripped, the coordinator's defaults filled in), answered anew."""
    from flinkspec.impls.capabilities import NONE

    for c in cands:
        if _protocol(c) == 1:
            yield c
            continue
        fitted, _ = NONE.fit(c.request())
        if fitted is not None:
            form = candidate(c.area, c.flink, fitted["input"], pool)
            if _protocol(form) == 1:
                yield form


def kills(name: str, cands: Sequence[Candidate], pool: Pool) -> list[Candidate]:
    """The first candidate mutant ``name`` answers wrongly and, if that one needs protocol 2, the
    first a protocol-1 implementation can be held to as well (so both kinds of runner catch it)."""
    first = first_kill(name, cands)
    if first is None or _protocol(first) == 1:
        return [first] if first is not None else []
    plain = first_kill(name, protocol_1_forms(cands, pool))
    return [first, plain] if plain is not None else [first]


def mutant_vectors(area: str, versions: Sequence[FlinkVersion], pool: Pool,
                   search_examples: int = 500, seed: int = DEFAULT_SEED) -> list[Vector]:
    """For every mutant of ``area`` and every release, the smallest candidate it answers wrongly
    (and the smallest a protocol-1 implementation takes, if that is another).

    Candidates are the recorded answers and the directed inputs. Where none shows the mutant at its
    first fixed release or at the newest one, ``flinkspec check``'s search looks for an input, which
    is then tried at every release."""
    from flinkspec.mutants import MUTANTS

    out = []
    for name, m in sorted(MUTANTS.items()):
        if m.area != area:
            continue
        reason = why("historical", mutant=name, ticket=m.ticket) if m.ticket else why("boundary", mutant=name)
        found = {str(v): kills(name, with_directed(area, str(v), pool), pool) for v in versions}
        must = {str(v) for v in (m.first_fixed(), LATEST) if v is not None} & set(found)
        searched = [inp for v in sorted(must, key=parse_version) if not found[v]
                    for inp in searched_kills(name, parse_version(v), search_examples, seed)]
        for ver, chosen in found.items():
            if not chosen and searched:
                chosen = kills(name, sorted((candidate(area, ver, inp, pool) for inp in searched), key=_order), pool)
            for kill in chosen:
                wrong = mutant_answer(name, kill.request())
                out.append(Vector(kill, (reason,), _wrong_rules(area, kill.request(), wrong, parse_version(ver))))
    return out


def change_vectors(area: str, versions: Sequence[FlinkVersion],
                   pool: Pool) -> list[Vector]:
    """Every known change of ``area`` (:data:`~flinkspec.engine.diff_versions.KNOWN`) whose release and the
    one before are both exported: the smallest directed or recorded input that shows it, at both."""
    from flinkspec.engine.diff_versions import KNOWN, signatures

    wanted = {str(v) for v in versions}
    out = []
    for known in KNOWN:
        before = str(max(v for v in SUPPORTED if v < parse_version(known.since)))
        if known.area != area or not {before, known.since} <= wanted:
            continue
        inputs = [*directed_inputs(area), *(c.input for c in pool.of(area, known.since))]
        shows = next((inp for inp in inputs
                      if any(known.matches(area, s.step, s.what)
                             for s in signatures(area, parse_version(before), parse_version(known.since), inp))), None)
        if shows is None:
            raise ValueError(f"no input shows the known change of {area} at {known.since}: {known.text}")
        for ver, side in ((before, "before"), (known.since, "after")):
            out.append(Vector(candidate(area, ver, shows, pool),
                              (why("change", since=known.since, change=known.text, side=side),), ()))
    return out


def deviation_vectors(area: str, versions: Sequence[FlinkVersion],
                      pool: Pool) -> list[Vector]:
    """For every documented rule real Flink breaks at a release (``flink_violates``), the smallest
    recorded answer of that release that breaks it."""
    from properties.areas import all_rules, judge

    rules = [r for r in all_rules().values() if r.area == area and r.flink_violates]
    out = []
    for rule in rules:
        for ver in (v for v in versions if rule.broken_at(v)):
            hit = next((c for c in pool.of(area, str(ver))
                        if any(x.rule == rule.id for x in judge(area, c.request(), c.answer, ver,
                                                                documented_only=True))), None)
            if hit is not None:
                out.append(Vector(hit, (why("deviation", rule=rule.id),), (rule.id,)))
    return out


def _examples(area: str) -> list[tuple[str, tuple[str, ...], Input, Callable[[str], Answer]]]:
    """Flink's own scenarios the suite pins for ``area``: (name, releases, input, Flink's answer at a release)."""
    from oracle.watermark import COMBINED, VALVE
    from properties.checkpoint import examples as cp
    from properties.watermark.examples import COMBINED as COMBINED_TABLE
    from properties.watermark.examples import TIMERS as TIMER_TABLE
    from properties.watermark.examples import VALVE as VALVE_TABLE
    from properties.watermark.examples import emitted, events

    out: list[tuple[str, tuple[str, ...], Input, Callable[[str], Answer]]] = []
    if area in cp.FILES:
        for ex in cp.examples(area):
            def example_answer(ver: str, ex: dict[str, Any] = ex) -> Answer:
                return cp.expected(ex, parse_version(ver))

            out.append((ex["name"], tuple(ex["versions"]), ex["input"], example_answer))
    tables = {VALVE: (VALVE_TABLE, "channels"), COMBINED: (COMBINED_TABLE, "inputs")}
    if area in tables:
        table, field = tables[area]
        for em in table:
            inp = {field: em.width, "events": events(em.script, "channel" if field == "channels" else "input")}
            def emitted_answer(_ver: str, expected: str = em.expected) -> Answer:
                return {"output": {"emitted": emitted(expected)}}

            out.append((em.name, tuple(str(v) for v in em.versions), inp, emitted_answer))
    if area == TIMERS:
        for fi in TIMER_TABLE:
            def fired_answer(_ver: str, fired: list[list[dict[str, Any]]] = fi.fired) -> Answer:
                return {"output": {"fired": fired}}

            out.append((fi.name, tuple(str(v) for v in fi.versions), {"events": fi.events}, fired_answer))
    return out


def example_vectors(area: str, versions: Sequence[FlinkVersion],
                    pool: Pool) -> list[Vector]:
    """The pinned scenarios of Flink's own tests at every exported release they hold for; their
    expected answer must be the oracle's (as the suite's example tests hold)."""
    wanted = {str(v) for v in versions}
    out = []
    for name, vers, inp, expected in _examples(area):
        for ver in (v for v in vers if v in wanted):
            cand = candidate(area, ver, inp, pool, source="example")
            if disagreement(area, expected(ver), cand.answer):
                raise ValueError(f"example {name} at {ver}: Flink's expected answer is not the oracle's")
            out.append(Vector(cand, (why("example", name=name),), ()))
    return out


def random_vectors(area: str, versions: Sequence[FlinkVersion], pool: Pool,
                   n: int = RANDOM_PER_RELEASE, seed: int = DEFAULT_SEED) -> list[Vector]:
    """``n`` recorded answers per release, drawn with a seeded generator (the same bundle every time)."""
    out = []
    for ver in versions:
        cands = pool.of(area, str(ver))
        rng = random.Random(f"{seed}/{area}/{ver}")
        for cand in rng.sample(list(cands), min(n, len(cands))):
            out.append(Vector(cand, (why("random", corpus=cand.corpus),), ()))
    return out


# ------------------------------------------------------------------------------------------------
# putting a bundle together


def merged(vectors: Iterable[Vector]) -> list[Vector]:
    """One vector per (area, release, input), with every reason and rule of its duplicates."""
    by: dict[tuple[str, str, str], Vector] = {}
    for vec in vectors:
        k = (vec.case.area, vec.case.flink, vec.case.key)
        old = by.get(k)
        if old is None:
            by[k] = vec
            continue
        best = min(old.case, vec.case, key=lambda c: SOURCES.index(c.source))
        by[k] = Vector(best, tuple(dict.fromkeys((*old.why, *vec.why))), tuple(sorted({*old.rules, *vec.rules})))
    return list(by.values())


def witnessed_rules(vec: Vector, mutants: Sequence[str]) -> tuple[str, ...]:
    """The rule IDs a vector witnesses: its area's ``-EQ`` (and ``-REFUSED`` for a well-formed
    request), the rules it was chosen for, and the invariants each of ``mutants`` breaks on it
    when it answers it wrongly."""
    from properties.areas import AREAS

    prefix = AREAS[vec.case.area].prefix
    out = {*vec.rules, f"{prefix}-EQ"}
    if vec.case.answer.get("error", {}).get("type") != "BadRequest":
        out.add(f"{prefix}-REFUSED")
    req, ver = vec.case.request(), parse_version(vec.case.flink)
    for name in mutants:
        wrong = mutant_answer(name, req)
        if disagreement(vec.case.area, vec.case.answer, wrong):
            out.update(_wrong_rules(vec.case.area, req, wrong, ver))
    return tuple(sorted(out))


def _sorted(vectors: Iterable[Vector]) -> list[Vector]:
    kinds = list(KINDS)
    return sorted(vectors, key=lambda vec: (min(kinds.index(w.kind) for w in vec.why), vec.case.size, vec.case.key))


def select(area: str, versions: Sequence[FlinkVersion], pool: Pool, *,
           random_n: int = RANDOM_PER_RELEASE, seed: int = DEFAULT_SEED) -> dict[str, list[Vector]]:
    """Every tier of ``area`` at ``versions``, merged, rules filled in; per release, in file order."""
    from flinkspec.mutants import MUTANTS

    chosen = merged([*mutant_vectors(area, versions, pool, seed=seed), *change_vectors(area, versions, pool),
                     *deviation_vectors(area, versions, pool), *example_vectors(area, versions, pool),
                     *random_vectors(area, versions, pool, random_n, seed)])
    names = sorted(n for n, m in MUTANTS.items() if m.area == area)
    out: dict[str, list[Vector]] = {}
    for vec in chosen:
        out.setdefault(vec.case.flink, []).append(attrs.evolve(vec, rules=witnessed_rules(vec, names)))
    return {ver: _sorted(vecs) for ver, vecs in sorted(out.items(), key=lambda kv: parse_version(kv[0]))}


Files = Mapping[tuple[str, str], list[Vector]]


def confirm(vectors: Files, spec: str = "flink") -> dict[tuple[str, str], list[Vector]]:
    """Every vector whose answer the oracle computed, replayed on real Flink (``spec``): it takes
    the jar's answer (source ``flink``); a jar that answers otherwise than the oracle is an error."""
    from flinkspec.impls import open_impl

    todo = [(k, i) for k, vecs in vectors.items() for i, v in enumerate(vecs) if v.case.source in ("oracle", "example")]
    if not todo:
        return dict(vectors)
    impl = open_impl(spec)
    try:
        reqs = [{"id": n, **vectors[k][i].case.request()} for n, (k, i) in enumerate(todo)]
        answers = impl.answer_many(reqs)
    finally:
        impl.close()
    out = {k: list(vecs) for k, vecs in vectors.items()}
    for (k, i), req, resp in zip(todo, reqs, answers, strict=True):
        vec = out[k][i]
        jar: Answer = {key: resp[key] for key in ("output", "error") if key in resp}
        why_not = disagreement(vec.case.area, vec.case.answer, jar)
        if why_not:
            raise ValueError(f"real Flink does not give the oracle's answer to {canonical(req)}: {why_not}")
        if vec.case.source == "oracle":
            out[k][i] = attrs.evolve(vec, case=attrs.evolve(vec.case, answer=jar, source="flink"))
    return out


# ------------------------------------------------------------------------------------------------
# files


def suite_version() -> str:
    """The suite's version (pyproject's), as the installed package knows it."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("flinkspec")
    except PackageNotFoundError:  # a checkout not installed
        import tomllib

        pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
        return str(tomllib.loads(pyproject.read_text())["project"]["version"])


def file_name(area: str, release: str) -> str:
    return f"{area}/{release}.jsonl.gz"


def encode(vectors: Sequence[Vector], area: str, release: str) -> bytes:
    """A file's bytes: one canonical JSON line per vector, gzipped without a timestamp (same bytes every time)."""
    lines = "".join(canonical(v.to_json(f"{area}/{release}/{i:04d}")) + "\n" for i, v in enumerate(vectors, 1))
    return gzip.compress(lines.encode("utf-8"), compresslevel=9, mtime=0)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def manifest(files: Mapping[tuple[str, str], tuple[Sequence[Vector], bytes]],
             selection: Mapping[str, Any]) -> dict[str, Any]:
    """The bundle's manifest: versions, what was selected how, and per area and release the file,
    its vector counts (by reason and by protocol) and its sha256."""
    areas: dict[str, dict[str, Any]] = {}
    for (area, release), (vecs, data) in sorted(files.items(), key=lambda kv: (kv[0][0], parse_version(kv[0][1]))):
        kinds: dict[str, int] = {}
        for v in vecs:
            for k in dict.fromkeys(w.kind for w in v.why):
                kinds[k] = kinds.get(k, 0) + 1
        areas.setdefault(area, {})[release] = {
            "file": file_name(area, release), "sha256": sha256(data), "bytes": len(data), "vectors": len(vecs),
            "why": dict(sorted(kinds.items())),
            "protocol_1": sum(protocol_of(v.features()) == 1 for v in vecs),
        }
    total = sum(e["vectors"] for rels in areas.values() for e in rels.values())
    return {"format": FORMAT, "protocol": feat.CURRENT, "suite": suite_version(), "vectors": total,
            "selection": dict(selection), "kinds": KINDS, "areas": areas}


def export(out: Path, areas: Sequence[str], versions: Sequence[FlinkVersion], *, random_n: int = RANDOM_PER_RELEASE,
           seed: int = DEFAULT_SEED, confirm_on: str | None = None,
           progress: Callable[[str], object] | None = None) -> dict[str, Any]:
    """Select, write and list the vectors of ``areas`` at ``versions`` in ``out``; the manifest."""
    from flinkspec.engine.check import versions_for

    pool = recorded_pool(areas, versions)
    chosen: dict[tuple[str, str], list[Vector]] = {}
    for area in areas:
        for release, vecs in select(area, versions_for(area, versions), pool, random_n=random_n, seed=seed).items():
            chosen[(area, release)] = vecs
        if progress is not None:
            progress(f"{area}: {sum(len(v) for (a, _), v in chosen.items() if a == area)} vectors")
    if confirm_on is not None:
        chosen = confirm(chosen, confirm_on)
    files = {k: (vecs, encode(vecs, *k)) for k, vecs in chosen.items()}
    selection = {"areas": list(areas), "flink": [str(v) for v in versions], "random_per_release": random_n,
                 "seed": seed, "confirmed_on": confirm_on or ""}
    man = manifest(files, selection)
    _clear(out)
    for (area, release), (_, data) in files.items():
        path = out / file_name(area, release)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (out / MANIFEST).write_text(json.dumps(man, sort_keys=True, indent=1) + "\n")
    return man


def _clear(out: Path) -> None:
    """Make ``out`` ready for a bundle: a new or empty directory, or a bundle's, whose files go."""
    if out.exists() and any(out.iterdir()):
        if not (out / MANIFEST).is_file():
            raise FileExistsError(f"{out} is not empty and holds no {MANIFEST}: not overwriting it")
        old = json.loads((out / MANIFEST).read_text())
        for rels in old.get("areas", {}).values():
            for entry in rels.values():
                (out / entry["file"]).unlink(missing_ok=True)
        for sub in out.iterdir():
            if sub.is_dir() and not any(sub.iterdir()):
                sub.rmdir()
    out.mkdir(parents=True, exist_ok=True)


def read_manifest(bundle: Path) -> dict[str, Any]:
    manifest: dict[str, Any] = json.loads((bundle / MANIFEST).read_text())
    return manifest


def verify(bundle: Path) -> list[str]:
    """What is wrong with a bundle: a missing manifest or file, a sha256 or count that does not
    match, a file the manifest does not list; empty when it is intact."""
    if not (bundle / MANIFEST).is_file():
        return [f"{bundle}: no {MANIFEST}"]
    man = read_manifest(bundle)
    problems = []
    if man.get("format") != FORMAT:
        problems.append(f"{MANIFEST}: format {man.get('format')!r}, this suite reads format {FORMAT}")
    listed = set()
    for rels in man.get("areas", {}).values():
        for entry in rels.values():
            path = bundle / entry["file"]
            listed.add(path.resolve())
            if not path.is_file():
                problems.append(f"{entry['file']}: missing")
                continue
            data = path.read_bytes()
            if sha256(data) != entry["sha256"]:
                problems.append(f"{entry['file']}: sha256 {sha256(data)}, the manifest says {entry['sha256']}")
                continue
            count = len(_lines(data))
            if count != entry["vectors"]:
                problems.append(f"{entry['file']}: {count} vectors, the manifest says {entry['vectors']}")
    for path in sorted(bundle.glob("*/*.jsonl.gz")):
        if path.resolve() not in listed:
            problems.append(f"{path.relative_to(bundle)}: not in {MANIFEST}")
    return problems


def _lines(data: bytes) -> list[str]:
    return gzip.decompress(data).decode("utf-8").splitlines()


def load(bundle: Path) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Every vector of a bundle, per (area, release), as written."""
    out = {}
    for area, rels in read_manifest(bundle).get("areas", {}).items():
        for release, entry in rels.items():
            out[(area, release)] = [json.loads(line) for line in _lines((bundle / entry["file"]).read_bytes())]
    return out


def bundle_size(bundle: Path) -> int:
    """Bytes of the bundle's files (manifest included)."""
    return sum(p.stat().st_size for p in bundle.rglob("*") if p.is_file())
