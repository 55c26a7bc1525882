"""The pytest route's one judge: every test that talks to the implementation under test goes through
a :class:`Gate`, which judges exactly as ``flinkspec check`` and ``flinkspec fanout`` do.

A request is fitted to what the implementation speaks (a case it cannot be sent, or whose Flink
answer its protocol version cannot express, is counted as not checked and rejected, never failed),
its answer is judged by :class:`flinkspec.judge.verdict.Judge` (the area's invariants and
metamorphic rules, the rules it declares unsupported, the differential rule against the oracle at
level ``flink``), and a failure is one divergence: its own exception class, the request
delta-debugged as ``check`` shrinks it, and the message a reader needs (where the answer departs
from Flink's, the rules that explain it, both answers, the replay command).

Real Flink's recorded answers and Flink's own test scenarios are judged the same way: the oracle
gives exactly those answers (the suite's own tests hold it to them), so judging against it is
judging against them.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, NoReturn

import attrs
import pytest
from hypothesis import reject
from hypothesis.control import current_build_context

from flinkspec.impls import Implementation, ImplementationBroken
from flinkspec.impls.capabilities import Capabilities
from flinkspec.judge.divergence import Cause
from flinkspec.judge.verdict import Conformance, Found, Judge, NotChecked, replay_command, said
from oracle.versions import FlinkVersion
from properties.areas import AREAS

ANSWER_LIMIT = 4000  # characters of an answer in a failure message

Request = dict[str, Any]


class Diverges(AssertionError):
    """An answer that breaks a rule of the area or differs from Flink's; one subclass per divergence."""


_DIVERGENCES: dict[Cause, type[Diverges]] = {}


def _divergence_type(key: Cause) -> type[Diverges]:
    """The exception class of one divergence (Hypothesis tells failures apart by their class)."""
    if key not in _DIVERGENCES:
        _DIVERGENCES[key] = type("Diverges", (Diverges,), {"__module__": __name__, "__doc__": " ".join(key[:2])})
    return _DIVERGENCES[key]


@attrs.define
class Gate:
    """The implementation under test as the pytest route judges it (one per session)."""

    impl: Implementation
    impl_spec: str
    capabilities: Capabilities
    conformance: Conformance
    strict_messages: bool
    not_sent: Counter[tuple[str, str, str]] = attrs.field(factory=Counter)

    def judge(self, area: str, version: FlinkVersion) -> Judge:
        return Judge(self.impl, AREAS[area], version, self.conformance, self.strict_messages, self.capabilities)

    def answer(self, area: str, version: FlinkVersion, payload: dict[str, Any], *, final: bool | None = None
               ) -> dict[str, Any]:
        """The implementation's answer to one request of ``area``, after it kept every rule; a
        divergence raises its :class:`Diverges`, a case that cannot be checked is rejected (Hypothesis
        draws another). ``final``: whether this is the run Hypothesis reports (the failure is then
        shrunk further and spelled out); None: ask Hypothesis."""
        __tracebackhide__ = True  # a failure shows the divergence, not the suite's code
        judge = self.judge(area, version)
        sent = judge.prepare({"area": area, "flink": str(version), "input": payload})
        if sent is None:
            self.not_checked(judge, area, version)
        req, actual = judge.ask(sent)
        try:
            found = judge.diverges(req, actual)
        except NotChecked as exc:
            judge.skip(str(exc))
            self.not_checked(judge, area, version)
        if found is not None:
            raise self.failure(judge, req, actual, found, final)
        return actual

    def judge_all(self, area: str, version: FlinkVersion, payloads: list[dict[str, Any]]) -> list[str]:
        """Judge the answers to ``payloads`` (pinned cases: real Flink's recorded answers, Flink's own
        scenarios), sent in one batch: the message of the first case of each divergence, in order of
        first appearance; cases the implementation cannot be sent or compared on are counted as not
        checked."""
        judge = self.judge(area, version)
        sent = []
        for payload in payloads:
            fitted = judge.prepare({"area": area, "flink": str(version), "input": payload})
            if fitted is not None:
                sent.append({"id": judge.next_id(), **fitted})
        found: dict[Cause, str] = {}
        for req, actual in zip(sent, self.impl.answer_many(sent) if sent else [], strict=True):
            try:
                diverged = judge.diverges(req, actual)
            except NotChecked as exc:
                judge.skip(str(exc))
                continue
            judge.checked += 1
            if diverged is not None and diverged[0].key not in found:
                found[diverged[0].key] = str(self.failure(judge, req, actual, diverged, final=True))
        for why, n in judge.not_checked.items():
            self.not_sent[(area, str(version), why)] += n
        if not judge.checked:
            whys = "; ".join(f"{why} ({n:,})" for why, n in judge.not_checked.items())
            pytest.skip(f"not checked: no case could be sent to the implementation or compared ({whys})")
        return list(found.values())

    def replay(self, request: Request, *, strict: bool = False) -> str:
        """The command that sends ``request`` to the implementation under test again."""
        return replay_command(self.impl_spec, request, strict)

    def not_checked(self, judge: Judge, area: str, version: FlinkVersion) -> NoReturn:
        """Count a case the implementation cannot be sent or compared on, by why, and reject it."""
        for why, n in judge.not_checked.items():
            self.not_sent[(area, str(version), why)] += n
        reject()

    def failure(self, judge: Judge, request: Request, actual: dict[str, Any], found: Found,
                final: bool | None = None) -> Diverges:
        """The exception of the divergence ``found``: while Hypothesis shrinks, its signature only; in
        the final report, the request delta-debugged as ``check`` does (:meth:`Judge.smallest`) and
        everything a reader needs."""
        kind = _divergence_type(found[0].key)
        if final is None:
            final = current_build_context().is_final
        if not final:
            return kind(found[0].text())
        try:
            smaller = judge.smallest(request, found[0].key)
        except ImplementationBroken:
            smaller = None
        if smaller is not None:
            request, actual, found = smaller
        return kind(message(judge, self.impl_spec, request, actual, found))


def message(judge: Judge, impl_spec: str, request: Request, actual: dict[str, Any], found: Found) -> str:
    """The divergence as a reader needs it: where the answer departs from Flink's, the rules that
    explain it and every rule broken with what it saw, the request as JSON, Flink's and the
    implementation's answers, the replay command."""
    sig, broken, expected = found
    plain = {k: request[k] for k in ("area", "flink", "input")}
    explaining = sig.explains
    lines = [f"{request['area']} at Flink {judge.version}: {sig.text()}"]
    if sig.difference():
        lines.append(f"  {sig.difference()}")
    if explaining:
        lines.append(f"  explained by {', '.join(explaining)}")
    lines += [*(f"  {rule}: {msg}" for rule, msg in zip(sig.rules, said(broken, sig.rules), strict=True)),
              "request:", f"  {json.dumps(plain, ensure_ascii=False)}",
              "Flink answers:", f"  {_answer_text(expected)}",
              "the implementation answers:", f"  {_answer_text(actual)}",
              "replay:", f"  {replay_command(impl_spec, plain, judge.strict)}"]
    return "\n".join(lines)


def _answer_text(answer: dict[str, Any]) -> str:
    """An answer as JSON, without the request id it echoes, cut at :data:`ANSWER_LIMIT` characters."""
    text = json.dumps({k: v for k, v in answer.items() if k != "id"}, ensure_ascii=False)
    return text if len(text) <= ANSWER_LIMIT else f"{text[:ANSWER_LIMIT]}... ({len(text):,} characters)"
