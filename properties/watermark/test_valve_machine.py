"""A stateful test of the valve through the implementation under test: the answer for every
prefix of a sequence is a prefix of the answer (the valve decides online, never revises what it
emitted), and every documented rule holds after every step."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, rule

from oracle.versions import FlinkVersion
from properties.stateful import JudgedMachine, run
from properties.under_test import Judged
from properties.watermark.strategies import CORNER_TIMESTAMPS

pytestmark = pytest.mark.flinkspec_area("watermark.valve")  # a test with an area parameter checks that one

CHANNELS = 3
timestamps = st.one_of(st.sampled_from(CORNER_TIMESTAMPS), st.integers(-3, 12))


class ValveMachine(JudgedMachine):
    """Rules only draw events; the implementation and the oracle do the rest."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[dict[str, Any]] = []
        self.emitted: list[list[dict[str, Any]]] = []

    @initialize(channels=st.integers(1, CHANNELS))
    def start(self, channels: int) -> None:
        self.channels = channels

    def _send(self, event: dict[str, Any]) -> None:
        self.events.append({**event, "channel": event["channel"] % self.channels})
        emitted = self.judged("watermark.valve", {"channels": self.channels, "events": self.events},
                              len(self.events))["emitted"]
        assert emitted[:-1] == self.emitted, "the answer for a longer sequence revised an earlier emission"
        self.emitted = emitted

    @rule(channel=st.integers(0, CHANNELS - 1), ts=timestamps)
    def watermark(self, channel: int, ts: int) -> None:
        self._send({"channel": channel, "watermark": ts})

    @rule(channel=st.integers(0, CHANNELS - 1))
    def idle(self, channel: int) -> None:
        self._send({"channel": channel, "status": "IDLE"})

    @rule(channel=st.integers(0, CHANNELS - 1))
    def active(self, channel: int) -> None:
        self._send({"channel": channel, "status": "ACTIVE"})

    @invariant()
    def one_answer_per_event(self) -> None:
        assert len(self.emitted) == len(self.events)


def test_valve_machine(gate: Judged, flink_version: FlinkVersion) -> None:
    """Run the valve state machine against the implementation under test at each version."""
    run(ValveMachine, gate, flink_version)
