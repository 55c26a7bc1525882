"""Root conftest: loads flinkspec's pytest plugin when running from a checkout (an installed
package loads it through its ``pytest11`` entry point): the options --impl, --flink, --area,
--capabilities, --conformance and --strict-messages, the markers, and the Hypothesis profiles
dev/ci/thorough chosen by HYPOTHESIS_PROFILE."""

from __future__ import annotations

import collections

import pytest

pytest_plugins = ["flinkspec.plugin"]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The test files that cost the most time (setup, call and teardown summed over their tests, on
    all workers): where the CI test command's minutes go, printed at the end of every run."""
    per_file: collections.defaultdict[str, float] = collections.defaultdict(float)
    for reports in terminalreporter.stats.values():
        for report in reports:
            if isinstance(report, pytest.TestReport):
                per_file[report.nodeid.split("::")[0]] += report.duration
    if not per_file:
        return
    total = sum(per_file.values())
    terminalreporter.write_sep("=", f"slowest test files ({total:.0f} s of test time in all)")
    for path, seconds in sorted(per_file.items(), key=lambda kv: -kv[1])[:25]:
        terminalreporter.write_line(f"{seconds:8.1f} s {100 * seconds / total:5.1f}%  {path}")
