"""The meta-tests every area's strategy passes, written once: :func:`corner_tests`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import oracle
from oracle.versions import SUPPORTED, FlinkVersion, parse_version
from properties.corpus import Corner, reaches, search
from properties.rules import Check

Requests = Callable[[FlinkVersion], st.SearchStrategy[dict[str, Any]]]


def corner_tests(requests: Requests, sample: int, corners: dict[str, Corner],
                 by_version: dict[str, tuple[str, Corner]] | None = None, *, keeps: Sequence[Check] = (),
                 answers: bool = False) -> tuple[Callable[..., None], ...]:
    """Three tests of ``requests``: each of ``corners`` holds of some of ``sample`` requests drawn at the
    newest release; each of ``by_version`` (release, corner) is found at its release; and the oracle
    answers 300 generated requests, never with a BadRequest (``answers``: always with an output), its
    answers keeping each of the invariants ``keeps``. Bind them to ``test_*`` names of a test module (an
    area without version corners binds the second to ``_``)."""
    @pytest.mark.parametrize("corner", list(corners))
    def test_strategy_reaches(corner: str) -> None:
        assert reaches(requests, SUPPORTED[-1], sample, corners[corner]), f"none of {sample} requests: {corner}"

    @pytest.mark.parametrize("corner", list(by_version or {}))
    def test_strategy_reaches_version_corner(corner: str) -> None:
        version, pred = (by_version or {})[corner]
        search(requests, parse_version(version), pred)

    @settings(max_examples=300, database=None, deadline=None, derandomize=True)
    @given(requests(SUPPORTED[-1]))
    def test_every_generated_request_is_well_formed(request: dict[str, Any]) -> None:
        """The oracle answers every generated request, never with a BadRequest, and keeps the invariants given."""
        resp = oracle.answer({"id": 0, **request})
        assert resp.get("error", {}).get("type") != "BadRequest", resp
        assert "output" in resp or not answers, resp
        for check in keeps:
            assert check(request, resp, SUPPORTED[-1]) == [], (check.__name__, request, resp)

    return test_strategy_reaches, test_strategy_reaches_version_corner, test_every_generated_request_is_well_formed
