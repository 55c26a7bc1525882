"""The generic conformance property: for every area and version, every generated request gets
an answer that keeps every rule of the area and (at level ``flink``) equals real Flink's.

It judges through :class:`flinkspec.plugin.gate.Gate`, the same judge as ``flinkspec check``: requests and
Flink's answers are fitted to what the implementation speaks (a case it cannot be sent or compared
on is rejected, counted, never failed), rules it declares unsupported are not held against it, and
a failure is one *divergence*. Each divergence raises its own exception class, so that Hypothesis
shrinks and reports two bugs apart; the final report delta-debugs the request further
(:mod:`flinkspec.judge.reduce`, Hypothesis cannot shrink the seeded event sequences) and prints it as
JSON with where the answer departs from Flink's, the rules that explain it, both answers and the
replay command.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracle.versions import FlinkVersion
from properties.areas import AREAS
from properties.under_test import Judged

DRAW_LIMIT = 600  # characters of a drawn request Hypothesis prints; the failure has the request sent

Request = dict[str, Any]


@pytest.mark.parametrize("area", list(AREAS))
@settings(suppress_health_check=[*settings().suppress_health_check, HealthCheck.filter_too_much])
@given(data=st.data())
def test_answers_keep_every_rule_of_the_area(gate: Judged, area: str, flink_version: FlinkVersion,
                                              data: st.DataObject) -> None:
    """Every answer keeps the area's invariants and agrees with the oracle."""
    if flink_version not in AREAS[area].versions:
        pytest.skip(f"{area} is not defined for Flink {flink_version}")
    drawn = data.draw(_requests(area, flink_version), label="request").request
    gate.answer(area, flink_version, drawn["input"])


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
