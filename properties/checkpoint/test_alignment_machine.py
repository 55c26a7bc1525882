"""A stateful test of barrier handling through the implementation under test: the trace for every
prefix of an arrival sequence is a prefix of the trace for the whole (a task acts online and never
takes back a processed record, a snapshot or an abort), and every rule holds after every arrival."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, precondition, rule

from oracle.versions import FlinkVersion
from properties.stateful import JudgedMachine, run
from properties.under_test import Judged

pytestmark = pytest.mark.flinkspec_area("checkpoint.alignment")  # a test with an area parameter checks that one

CHANNELS = 4


class AlignmentMachine(JudgedMachine):
    """Rules draw arrivals (records, barriers of recent ids, cancel markers, ends); the
    implementation answers the whole sequence so far and the answers must only grow."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[dict[str, Any]] = []
        self.trace: list[dict[str, Any]] = []
        self.ended: set[int] = set()
        self.newest = 1
        self.records = 0

    @initialize(channels=st.integers(1, CHANNELS), mode=st.sampled_from(["exactly_once", "at_least_once"]))
    def start(self, channels: int, mode: str) -> None:
        self.channels, self.mode = channels, mode

    def _send(self, channel: int, **event: Any) -> None:
        channel %= self.channels
        if channel in self.ended:
            return
        self.events.append({"channel": channel, **event})
        if "end" in event:
            self.ended.add(channel)
        trace = self.judged("checkpoint.alignment",
                            {"mode": self.mode, "channels": self.channels, "events": self.events},
                            len(self.events))["trace"]
        assert trace[:len(self.trace)] == self.trace, "a longer arrival sequence revised the trace"
        self.trace = trace

    @rule(channel=st.integers(0, CHANNELS - 1))
    def record(self, channel: int) -> None:
        self.records += 1
        self._send(channel, record=f"r{self.records}")

    @rule(channel=st.integers(0, CHANNELS - 1), back=st.sampled_from([0, 0, 0, 1, 2]), new=st.booleans())
    def barrier(self, channel: int, back: int, new: bool) -> None:
        if new:
            self.newest += 1
        self._send(channel, barrier=max(1, self.newest - back))

    @rule(channel=st.integers(0, CHANNELS - 1), ahead=st.sampled_from([-1, 0, 1]))
    def cancel(self, channel: int, ahead: int) -> None:
        self._send(channel, cancel=max(1, self.newest + ahead))

    @precondition(lambda self: len(self.ended) < self.channels - 1)
    @rule(channel=st.integers(0, CHANNELS - 1))
    def end(self, channel: int) -> None:
        self._send(channel, end=True)

    @invariant()
    def nothing_runs_after_a_failure(self) -> None:
        assert all("fail" not in s for s in self.trace[:-1])


def test_alignment_machine(gate: Judged, flink_version: FlinkVersion) -> None:
    """Run the alignment state machine against the implementation under test at each version."""
    run(AlignmentMachine, gate, flink_version, steps=25)
