"""The generic conformance property: for every area and version, every generated request gets
an answer that keeps every rule of the area and (at level ``flink``) equals real Flink's.

It judges through ``flinkspec check``'s own :class:`flinkspec.judge.verdict.Judge`: requests and Flink's
answers are fitted to what the implementation speaks (a case it cannot be sent or compared on is
rejected, counted, never failed), rules it declares unsupported are not held against it, and a
failure is one *divergence*. Each divergence
raises its own exception class, so that Hypothesis shrinks and reports two bugs apart; the final
report delta-debugs the request further (:mod:`flinkspec.judge.reduce`, Hypothesis cannot shrink the
seeded event sequences) and prints it as JSON with both answers and the replay command.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from typing import Any, NoReturn

import attrs
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from hypothesis.control import current_build_context

from flinkspec.impls import Implementation, ImplementationBroken
from flinkspec.impls.capabilities import Capabilities
from flinkspec.judge.verdict import Found, Judge, NotChecked, replay_command, said
from oracle.versions import FlinkVersion
from properties.areas import AREAS

DRAW_LIMIT = 600  # characters of a drawn request Hypothesis prints; the failure has the request sent
ANSWER_LIMIT = 4000  # characters of an answer in a failure message

Request = dict[str, Any]


@pytest.mark.parametrize("area", list(AREAS))
@settings(suppress_health_check=[*settings().suppress_health_check, HealthCheck.filter_too_much])
@given(data=st.data())
def test_answers_keep_every_rule_of_the_area(impl: Implementation, impl_spec: str, capabilities: Capabilities,
                                              not_sent: Counter[tuple[str, str, str]], area: str,
                                              flink_version: FlinkVersion, conformance: str, strict_messages: bool,
                                              data: st.DataObject) -> None:
    """Every answer keeps the area's invariants and agrees with the oracle."""
    if flink_version not in AREAS[area].versions:
        pytest.skip(f"{area} is not defined for Flink {flink_version}")
    judge = Judge(impl, AREAS[area], flink_version, conformance, strict_messages, capabilities)
    request = judge.prepare(data.draw(_requests(area, flink_version), label="request").request)
    if request is None:
        not_checked(judge, area, flink_version, not_sent)
    req, actual = judge.ask(request)
    try:
        found = judge.diverges(req, actual)
    except NotChecked as exc:
        judge.skip(str(exc))
        not_checked(judge, area, flink_version, not_sent)
    if found is not None:
        raise failure(judge, impl_spec, req, actual, found)


def not_checked(judge: Judge, area: str, version: FlinkVersion, not_sent: Counter[tuple[str, str, str]]) -> NoReturn:
    """Count a case the implementation cannot be sent or compared on, by why, and reject it
    (Hypothesis draws another)."""
    for why, n in judge.not_checked.items():
        not_sent[(area, str(version), why)] += n
    reject()


@attrs.frozen(repr=False)
class Drawn:
    """A generated request. Its repr is what Hypothesis prints for the draw: the request as JSON
    (the area's strategy builds it with a lambda, which Hypothesis would print with the lambda's
    placeholders instead of the values)."""

    request: Request

    def __repr__(self) -> str:
        text = json.dumps(self.request, ensure_ascii=False)
        if len(text) <= DRAW_LIMIT:
            return text
        return f"{text[:DRAW_LIMIT]}... ({len(text):,} characters; the failure shows the request sent, reduced)"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))


@cache
def _requests(area: str, version: FlinkVersion) -> st.SearchStrategy[Drawn]:
    """The area's requests at ``version``, each wrapped so that it prints as JSON."""
    return AREAS[area].requests(version).map(Drawn)


class Diverges(AssertionError):
    """An answer that breaks a rule of the area or differs from Flink's; one subclass per divergence."""


_DIVERGENCES: dict[tuple[str, tuple[str, ...]], type[Diverges]] = {}


def _divergence_type(key: tuple[str, tuple[str, ...]]) -> type[Diverges]:
    """The exception class of one divergence (Hypothesis tells failures apart by their class)."""
    if key not in _DIVERGENCES:
        _DIVERGENCES[key] = type("Diverges", (Diverges,), {"__module__": __name__, "__doc__": key[0]})
    return _DIVERGENCES[key]


def failure(judge: Judge, impl_spec: str, request: Request, actual: dict[str, Any], found: Found) -> Diverges:
    """The exception of the divergence ``found``: while Hypothesis shrinks, its signature only; in
    the final report, the request delta-debugged as ``check`` does (:meth:`Judge.smallest`) and
    everything a reader needs."""
    kind = _divergence_type(found[0].key)
    if not current_build_context().is_final:
        return kind(found[0].text())
    try:
        smaller = judge.smallest(request, found[0].key)
    except ImplementationBroken:
        smaller = None
    if smaller is not None:
        request, actual, found = smaller
    return kind(message(judge, impl_spec, request, actual, found))


def message(judge: Judge, impl_spec: str, request: Request, actual: dict[str, Any], found: Found) -> str:
    """The divergence as a reader needs it: what differs and every rule broken with what it saw,
    the request as JSON, Flink's and the implementation's answers, the replay command."""
    sig, broken, expected = found
    plain = {k: request[k] for k in ("area", "flink", "input")}
    lines = [f"{request['area']} at Flink {judge.version}: {sig.text()}",
             *(f"  {rule}: {msg}" for rule, msg in zip(sig.rules, said(broken, sig.rules), strict=True)),
             "request:", f"  {json.dumps(plain, ensure_ascii=False)}",
             "Flink answers:", f"  {_answer_text(expected)}",
             "the implementation answers:", f"  {_answer_text(actual)}",
             "replay:", f"  {replay_command(impl_spec, plain, judge.strict)}"]
    return "\n".join(lines)


def _answer_text(answer: dict[str, Any]) -> str:
    """An answer as JSON, without the request id it echoes, cut at :data:`ANSWER_LIMIT` characters."""
    text = json.dumps({k: v for k, v in answer.items() if k != "id"}, ensure_ascii=False)
    return text if len(text) <= ANSWER_LIMIT else f"{text[:ANSWER_LIMIT]}... ({len(text):,} characters)"
