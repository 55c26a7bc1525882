"""The pytest plugin (entry point ``pytest11``): options, Hypothesis profiles, the impl fixture.

A third-party engine gates its CI with::

    pip install flinkspec
    pytest --pyargs properties --impl cmd:./my-engine --flink 2.3

Options: ``--impl`` (default ``oracle``), ``--flink`` (comma-separated, ``all``; default: the
impl's pinned version, else all supported), ``--conformance flink|documented``,
``--strict-messages``. Effort comes from the Hypothesis profile named by ``HYPOTHESIS_PROFILE``:
``dev`` (default, quick), ``ci``, ``thorough``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, Verbosity, settings

from oracle.versions import SUPPORTED, FlinkVersion, UnknownVersion, parse_version

settings.register_profile("dev", max_examples=40, deadline=None)
settings.register_profile("ci", max_examples=150, deadline=None, derandomize=True, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=3000, deadline=None, verbosity=Verbosity.normal,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("flinkspec")
    group.addoption("--impl", default="oracle", help="implementation under test (see `flinkspec check --help`)")
    group.addoption("--flink", default=None, help="Flink versions: comma-separated X.Y, or all")
    group.addoption("--conformance", default="flink", choices=("flink", "documented"))
    group.addoption("--strict-messages", action="store_true", help="compare exception names and messages too")


def pytest_configure(config: pytest.Config) -> None:
    """Bad --impl / --flink values stop the run before any test, as usage errors."""
    from flinkspec.impls import UsageError, check_spec

    try:
        check_spec(config.getoption("--impl"))
    except UsageError as exc:
        raise pytest.UsageError(str(exc)) from None
    selected_versions(config)


def selected_versions(config: pytest.Config) -> list[FlinkVersion]:
    text = config.getoption("--flink")
    impl = config.getoption("--impl")
    if text is None and impl.startswith("flink:"):
        text = impl.split(":", 1)[1]
    if text is None or text == "all":
        return list(SUPPORTED)
    try:
        return [parse_version(t) for t in text.split(",") if t.strip()]
    except UnknownVersion as exc:
        raise pytest.UsageError(f"--flink: {exc}") from None


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "flink_version" in metafunc.fixturenames:
        versions = selected_versions(metafunc.config)
        metafunc.parametrize("flink_version", versions, ids=[str(v) for v in versions])


@pytest.fixture(scope="session")
def impl(request: pytest.FixtureRequest) -> Iterator[object]:
    """The implementation under test, opened once per session (never per example)."""
    from flinkspec.impls import UsageError, open_impl

    try:
        handle = open_impl(request.config.getoption("--impl"))
    except UsageError as exc:
        raise pytest.UsageError(str(exc)) from None
    yield handle
    handle.close()


@pytest.fixture(scope="session")
def conformance(request: pytest.FixtureRequest) -> str:
    return str(request.config.getoption("--conformance"))


@pytest.fixture(scope="session")
def strict_messages(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--strict-messages"))
