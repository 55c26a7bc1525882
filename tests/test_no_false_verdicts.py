"""A verdict is never false (issue 17): an implementation is told it is wrong only where Flink answers
otherwise.

For every area, drawn requests are judged by every invariant (:func:`properties.areas.judge`, at both
conformance levels) on

- the oracle's own answer, at every release: no rule is broken, except a documented rule that real
  Flink of that version breaks (``flink_violates``), and only at the ``documented`` level;
- refusals of every kind (BadRequest, InvalidConfiguration with an exception Flink never throws,
  BridgeError, an unknown type, an error of garbage shape, and each of them next to the oracle's
  output): a refusal is never an acceptance, so no rule is broken, except the rejection-kind rules,
  which judge the exception of an InvalidConfiguration answer;
- garbage outputs (the wrong type anywhere, booleans where ints belong, nulls, missing keys, values
  out of range; whole outputs and single nodes): judging never raises, and where the garbage is a
  wrong type only the area's shape rule (and a rule saying that the input must be rejected, for an
  input Flink rejects) may object.

Refusals and garbage are judged at the releases between which judging can change
(:data:`JUDGING_CHANGES`: the newest patch of every minor and each side of every change); judging the
same answer at a release between two of them gives what it gives at its neighbours.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from typing import Any

import pytest

import oracle
from oracle.versions import SUPPORTED, FlinkVersion, first_release, release_before, v
from properties import corpus
from properties.areas import AREAS, CHECKS, RULES, judge, judge_levels

N, SEED = 60, 17
PATH_REQUESTS, PATHS = 8, 40  # garbage at single nodes: on the first requests, at up to PATHS nodes each
CASES = [(area, ver) for area, spec in AREAS.items() for ver in spec.versions]

# the rule of each area about the answer's shape: the only one that may object to a wrong type
# (each area's first rule, <prefix>-1: test_the_listed_rules_exist checks that each is an invariant)
SHAPE_RULES = {f"{spec.prefix}-1" for spec in AREAS.values()}
# which exception an InvalidConfiguration answer names: judged on such answers only, by these rules
KIND_RULES = {"TM-10", "JM-6"}
# "this input is rejected": any acceptance of an input Flink rejects breaks them, whatever its output
MUST_REJECT = {"TM-8", "TM-9", "JM-5", "CLR-10", "CSR-4"}
# "this input is accepted": each area's rule that a request the documented rules call valid is answered
# (whatever a rejection says); it may name a rejection (InvalidConfiguration) of such a request, and only
# where Flink itself accepts it
MUST_ACCEPT: dict[str, str] = {area: f"{spec.prefix}-ACCEPTED" for area, spec in AREAS.items()
                               if f"{spec.prefix}-ACCEPTED" in RULES}
MUST_ACCEPT.setdefault("memory.consumers", "MMC-6")  # the documented consumer kinds are accepted (and read as given)

_DELETE = object()  # a replacement that deletes the node
TYPE_GARBAGE: tuple[Any, ...] = (None, True, False, "x", 1.5, [None], [[None]], {"x": None}, [], {}, [1])
VALUE_GARBAGE: tuple[Any, ...] = (-1, 0, 2**63, 2**70, -(2**70), "", "x")
WHOLE_GARBAGE: tuple[Any, ...] = (
    None, True, 0, 1.5, "x", [], [1], {}, {"x": None},
    {"emitted": "x"}, {"emitted": [None]}, {"emitted": [[{"watermark": True}]]},
    {"fired": [[1]]}, {"fired": ["ab"]}, {"fired": [[{"timestamp": [1], "key": None}]]},
    {"steps": [1]}, {"steps": [{"triggered": 5}]}, {"steps": [{"aborted": {"x": None}}]},
    {"trace": [None]}, {"trace": [{"process": [[0], [1]]}]}, {"trace": [{"abort": [[1], {}]}]},
    {"patterns": [None], "resolved": None, "resources": "x"},
    {"restored_from": False, "offsets": [True], "counts": {"a": "x"}, "output": None},
    {"restored_from": None, "offsets": [], "counts": {"a": None}, "output": []},
    {"network": True, "jvm_overhead": "x", "jvm_args": {"Xmx": None}},
    {"heap": [], "jvm_args": []},
)


def _refusals(rid: int) -> Iterator[tuple[dict[str, Any], set[str]]]:
    """Error answers of every kind, each with the rules it may break (at conformance ``flink``)."""
    yield {"id": rid, "error": {"type": "BadRequest", "message": "no"}}, set()
    yield {"id": rid, "error": {"type": "BridgeError", "message": "the JVM went away"}}, set()
    yield {"id": rid, "error": {"type": "InvalidConfiguration", "exception": "NoSuchThingException",
                                "message": "no"}}, KIND_RULES
    yield {"id": rid, "error": {"type": "InvalidConfiguration"}}, KIND_RULES
    yield {"id": rid, "error": {"type": "SomethingElse", "message": None}}, set()
    for garbage in ("x", [], {}, 0, True):
        yield {"id": rid, "error": garbage}, set()


def _requests(area: str, ver: FlinkVersion) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    out = []
    for i, inp in enumerate(corpus.inputs(area, ver, N, SEED)):
        req = {"id": i, "area": area, "flink": str(ver), "input": inp}
        out.append((req, oracle.answer(req)))
    return out


@contextlib.contextmanager
def _judging(req: dict[str, Any], answer: dict[str, Any]) -> Iterator[None]:
    """An invariant that raises is a suite bug, reported as such."""
    try:
        yield
    except Exception as exc:
        raise AssertionError(f"judging {str(answer)[:300]} to {str(req)[:300]} raised {exc!r}") from exc


def _violated(area: str, req: dict[str, Any], answer: dict[str, Any], ver: FlinkVersion,
              documented_only: bool) -> set[str]:
    with _judging(req, answer):
        found = judge(area, req, answer, ver, documented_only=documented_only)
    return {v.rule for v in found}


def _both_levels(area: str, req: dict[str, Any], answer: dict[str, Any], ver: FlinkVersion) -> set[str]:
    with _judging(req, answer):
        flink, documented = judge_levels(area, req, answer, ver)
    return {v.rule for v in (*flink, *documented)}


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, x in items:
        yield from _paths(x, (*path, key))


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """A copy of ``value`` with the node at ``path`` replaced by ``new`` (or deleted)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        if not rest and new is _DELETE:
            return {k: x for k, x in value.items() if k != head}
        return {**value, head: _replace(value[head], rest, new)}
    if not rest and new is _DELETE:
        return [*value[:head], *value[head + 1:]]
    return [*value[:head], _replace(value[head], rest, new), *value[head + 1:]]


# fields the protocol lets be null: there a null is a value like any other, judged as one (recovery's
# restored_from: null is "restored no checkpoint", which RCV-5 rightly rejects once a checkpoint completed)
NULLABLE = {"restored_from"}
# fields that are null or a value (checkpoint.storage: a directory, size or layout the storage has or has not,
# docs/protocol/checkpoint-storage.md): a value in place of a null, or a null in place of a value, is a value
EITHER = {"checkpoint_path", "savepoint_path", "max_state_size", "file_state_threshold", "write_buffer_size",
          "checkpoint", "savepoint", "shared", "taskowned"}
NULLABLE_ITEMS = {"resource"}  # protocol 3: getResource finds nothing (docs/protocol/v3.md)


def _wrong_type(old: Any, new: Any, path: tuple[Any, ...] = ()) -> bool:
    """``new`` is garbage of another type than ``old`` (a bool is not an int), or a container of nulls; a
    null where the protocol allows one is not."""
    if new is None and path and (path[-1] in NULLABLE or (len(path) > 1 and path[-2] in NULLABLE_ITEMS)):
        return False
    if path and path[-1] in EITHER and None in (old, new) and not isinstance(new, (list, dict)):
        return False
    return type(old) is not type(new) or new in ([None], [[None]], {"x": None})


def _allowed_on_garbage(ver: FlinkVersion, oracle_refused: bool) -> set[str]:
    """The rules garbage of a wrong type may break: the shape rules, the rules an acceptance of an input
    Flink rejects breaks, and (at the ``documented`` level) the rules Flink of ``ver`` itself breaks."""
    flink_breaks = {r for r, rule in RULES.items() if rule.broken_at(ver)}
    return SHAPE_RULES | (MUST_REJECT if oracle_refused else set()) | flink_breaks


def _around(edge: FlinkVersion | None) -> set[FlinkVersion]:
    """The last release before ``edge`` and the first from it."""
    return set() if edge is None else {r for r in (release_before(edge), first_release(edge)) if r is not None}


def _where_judging_changes(area: str) -> frozenset[FlinkVersion]:
    """The releases a judgment of ``area`` can differ between: the newest patch of every minor (the
    oracle's version tables are keyed by minor, or by a change), and each side of every change of the
    area (:class:`oracle.changes.Change`) and of every range of releases breaking one of its documented
    rules."""
    spec = AREAS[area]
    edges = [c.at for c in spec.changes] + [v(c.regressed) for c in spec.changes if c.regressed]
    edges += [e for r in RULES.values() if r.area == area and r.broken_in
              for e in (r.broken_in.since, r.broken_in.until)]
    return frozenset((set(SUPPORTED).union(*map(_around, edges))) & set(spec.versions))


JUDGING_CHANGES = {area: _where_judging_changes(area) for area in AREAS}
# refusals and garbage are judged where judging can change; the oracle's own answers at every release
JUDGED = [(area, ver) for area, ver in CASES if ver in JUDGING_CHANGES[area]]


def test_the_listed_rules_exist() -> None:
    """Every rule the exceptions below name is an invariant of some area."""
    checked = {rule.id for checks in CHECKS.values() for rule, _ in checks}
    assert (SHAPE_RULES | KIND_RULES | MUST_REJECT | set(MUST_ACCEPT.values())) <= checked
    assert all(RULES[r].documented is False for r in KIND_RULES)


@pytest.mark.parametrize("area", list(AREAS))
def test_judging_both_levels_at_once_is_judging_each(area: str) -> None:
    """:func:`judge_levels` (which the garbage tests judge by) gives what :func:`judge` gives at each level,
    at every release where judging can change, on the oracle's answers and on garbage."""
    for ver in sorted(JUDGING_CHANGES[area]):
        for req, answer in _requests(area, ver)[:10]:
            for resp in (answer, {"id": req["id"], "output": None}, {"id": req["id"], "output": {"x": [1]}}):
                assert judge_levels(area, req, resp, ver) == (judge(area, req, resp, ver),
                                                               judge(area, req, resp, ver, documented_only=True))


@pytest.mark.parametrize(("area", "ver"), CASES, ids=[f"{a}-{v}" for a, v in CASES])
def test_the_oracle_breaks_only_the_rules_flink_breaks(area: str, ver: FlinkVersion) -> None:
    """The invariants never contradict real Flink: the oracle's answers keep every rule, except at the
    ``documented`` level the documented rules Flink of this version itself breaks."""
    for req, answer in _requests(area, ver):
        assert _violated(area, req, answer, ver, False) == set(), (req, answer)
        broken = _violated(area, req, answer, ver, True)
        assert all(RULES[r].broken_at(ver) for r in broken), (broken, req, answer)


@pytest.mark.parametrize(("area", "ver"), JUDGED, ids=[f"{a}-{v}" for a, v in JUDGED])
def test_a_refusal_is_never_an_acceptance(area: str, ver: FlinkVersion) -> None:
    """An error answer of any type, even next to an output, breaks no rule but the rejection-kind rules
    (on an InvalidConfiguration naming an exception Flink never throws) and, for a rejection of a request
    Flink accepts, the area's rule that the documented rules accept it; no message says "accepted"."""
    for req, answer in _requests(area, ver):
        for refusal, may_break in _refusals(req["id"]):
            variants = [refusal] + ([{**refusal, "output": answer["output"]}] if "output" in answer else [])
            error = refusal.get("error")
            rejection = isinstance(error, dict) and error.get("type") == "InvalidConfiguration"
            accepts = {MUST_ACCEPT[area]} if area in MUST_ACCEPT and rejection and "output" in answer else set()
            for resp in variants:
                flink_level = _violated(area, req, resp, ver, False)
                assert flink_level <= may_break | accepts, (flink_level, req, resp)
                flink_breaks = {r for r in MUST_ACCEPT.values() if RULES[r].broken_at(ver)} if rejection else set()
                assert _violated(area, req, resp, ver, True) <= accepts | flink_breaks, (req, resp)
                messages = [v.message for v in judge(area, req, resp, ver)]
                assert not any("accepted" in m or "yet" in m for m in messages), (messages, req, resp)
        assert _both_levels(area, req, {"id": req["id"]}, ver) == set()  # neither output nor error


@pytest.mark.parametrize(("area", "ver"), JUDGED, ids=[f"{a}-{v}" for a, v in JUDGED])
def test_garbage_outputs_are_judged_without_raising(area: str, ver: FlinkVersion) -> None:
    """Judging garbage never raises; a whole output of garbage breaks the area's shape rule, and garbage of
    the wrong type anywhere breaks no other rule (but an input Flink rejects is still accepted)."""
    shape = next(rule.id for rule, _ in CHECKS[area] if rule.id in SHAPE_RULES)
    for n, (req, answer) in enumerate(_requests(area, ver)):
        allowed = _allowed_on_garbage(ver, "error" in answer)
        for garbage in WHOLE_GARBAGE:
            broken = _both_levels(area, req, {"id": req["id"], "output": garbage}, ver)
            assert shape in broken and broken <= allowed, (broken, garbage, req)
        if "output" not in answer or n >= PATH_REQUESTS:
            continue
        paths = [p for p in _paths(answer["output"]) if p]
        for path in random.Random(f"{area} {ver} {n}").sample(paths, min(PATHS, len(paths))):
            old = _at(answer["output"], path)
            for new, typed in [(g, True) for g in TYPE_GARBAGE] + [(g, False) for g in (*VALUE_GARBAGE, _DELETE)]:
                resp = {"id": req["id"], "output": _replace(answer["output"], path, new)}
                broken = _both_levels(area, req, resp, ver)  # never raises
                # a wrong type for the node it replaced; but where the area's shape admits it there (a list
                # of resources for a result that was an error), the answer is well-formed and judged as any other
                if typed and _wrong_type(old, new, path) and shape in broken:
                    assert broken <= allowed, (broken, path, new, req)
