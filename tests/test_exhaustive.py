"""`flinkspec exhaustive` enumerates every short sequence and finds a planted bug."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from flinkspec.engine.exhaustive import Shape, run, sequences
from flinkspec.impls import open_impl

ROOT = Path(__file__).resolve().parents[1]


def test_enumeration_counts_every_sequence() -> None:
    """2 channels, 5 timestamps: 14 symbols, so 1 + 14 + 14^2 + 14^3 sequences of length <= 3."""
    seqs = list(sequences("watermark.valve", Shape(2, 3), [0, 1, 2, -(1 << 63), (1 << 63) - 1]))
    assert len(seqs) == 1 + 14 + 14**2 + 14**3
    assert len({repr(s) for s in seqs}) == len(seqs)


def test_exhaustive_finds_a_planted_bug_and_passes_the_oracle() -> None:
    """A mutant that skips the all-idle flush differs on a short sequence; the oracle never does."""
    args = [sys.executable, "-m", "flinkspec.cli", "exhaustive", "--flink", "2.3", "--shape", "2x3"]
    bad = subprocess.run([*args, "--impl", "mutant:valve-no-flush"], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 1 and "difference" in bad.stdout
    good = subprocess.run([*args, "--impl", "oracle"], capture_output=True, text=True, cwd=ROOT)
    assert good.returncode == 0 and "no difference" in good.stdout


@pytest.mark.parametrize(("area", "mutant", "shape"), [
    ("watermark.generation", "wg-idle-repeated", Shape(1, 5)),
    ("watermark.windows", "ww-touching-sessions-apart", Shape(1, 3)),
    ("watermark.async", "wa-watermark-waits", Shape(1, 3)),
    ("watermark.async", "wa-timeout-ignored", Shape(1, 3)),
    ("watermark.async", "wa-late-completion-emitted", Shape(1, 3)),
    ("watermark.async", "wa-timeout-from-start", Shape(1, 3)),
])
def test_the_operator_areas_are_enumerated_and_a_planted_bug_found(area: str, mutant: str, shape: Shape) -> None:
    """The generators, the window operator and the async operator: every short sequence, the oracle passes
    and a mutant of the area differs; a sequence the oracle refuses is not sent (not an input of the area)."""
    timestamps = [0, 1, 2]
    clean = run(open_impl("oracle"), area, "2.3", shape, timestamps)
    assert clean.sequences > 0 and not clean.differences
    assert clean.sequences + clean.not_inputs == sum(1 for _ in sequences(area, shape, timestamps))
    bad = run(open_impl(f"mutant:{mutant}"), area, "2.3", shape, timestamps, keep=1)
    assert bad.differences and bad.differences[0]["request"]["area"] == area


def test_the_async_enumeration_times_out_and_fails_requests_only_where_a_timeout_is() -> None:
    """The async operator's timed bases reach a timeout (default and overridden) and a failed request; the bases
    without a timeout send none of the feature's events (watermark.async.timeouts), so they are the requests of an
    implementation without it."""
    import oracle

    causes: set[str] = set()
    overridden = False
    for inp in sequences("watermark.async", Shape(1, 3), [0, 1, 2]):
        kinds = {e["kind"] for e in inp["events"]}
        if "timeout" not in inp:
            assert not kinds & {"advance", "fail"} and "timeout_results" not in inp
            continue
        answer = oracle.answer({"id": 0, "area": "watermark.async", "flink": "2.3", "input": inp})
        for step in answer.get("output", {}).get("steps", []):
            causes.update(f["cause"]["exception"] for f in step.get("failures", []))
            overridden |= "timeout_results" in inp and "advance" in kinds and any(
                e == {"record": -1, "timestamp": 0} for e in step["emitted"])
    assert causes == {"java.util.concurrent.TimeoutException", "java.io.IOException"}
    assert overridden


def test_an_implementation_without_async_timeouts_is_sent_the_untimed_sequences_only() -> None:
    """A sequence carrying a feature the implementation does not speak is not sent, and counted apart: without
    watermark.async.timeouts, the timeout mutant is sent only the bases without a timeout, where it is right."""
    import oracle
    from flinkspec.impls.capabilities import Capabilities

    caps = Capabilities(protocol=4, unsupported_features=("watermark.async.timeouts",))
    shape, timestamps = Shape(1, 3), [0, 1, 2]
    every = run(open_impl("oracle"), "watermark.async", "2.3", shape, timestamps)
    spoken = run(open_impl("mutant:wa-timeout-ignored"), "watermark.async", "2.3", shape, timestamps,
                 capabilities=caps)
    untimed = sum(1 for inp in sequences("watermark.async", shape, timestamps) if "timeout" not in inp
                  and "output" in oracle.answer({"id": 0, "area": "watermark.async", "flink": "2.3", "input": inp}))
    assert not spoken.differences and spoken.sequences == untimed > 0
    assert spoken.not_inputs == every.not_inputs and spoken.sequences + spoken.not_spoken == every.sequences
