"""The pytest plugin (entry point ``pytest11``): options, markers, Hypothesis profiles, the
implementation under test and what it declares about itself.

A third-party engine gates its CI with::

    pip install flinkspec
    pytest --pyargs properties --impl cmd:./my-engine --flink 2.3

Options: ``--impl`` (default ``oracle``), ``--flink`` (comma-separated, ``all``; default: the
impl's pinned version, else all supported), ``--area`` (comma-separated areas, ``all``; default
all), ``--capabilities FILE``, ``--conformance flink|documented``, ``--strict-messages``. Effort
comes from the Hypothesis profile named by ``HYPOTHESIS_PROFILE``: ``dev`` (default, quick),
``ci``, ``thorough``.

Like ``flinkspec check``, the run honours what the implementation declares
(:mod:`flinkspec.impls.capabilities`, from ``--capabilities FILE`` and its own answer to the
capabilities request, asked once per session): a test of an (area, version) it declares
unsupported, or of an area its protocol version lacks, is skipped with the why; requests it
cannot be sent are not checked (counted in the terminal summary); rules it declares unsupported
are not held against it. A test belongs to an area by its ``area`` (or recorded ``corpus``)
parameter, else by its ``flinkspec_area`` marker (a module's ``pytestmark`` names its area).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Generator, Iterator
from typing import TYPE_CHECKING

import attrs
import pytest
from hypothesis import HealthCheck, Verbosity, settings
from hypothesis.errors import Unsatisfiable

from oracle.versions import SUPPORTED, FlinkVersion, UnknownVersion, select_versions

if TYPE_CHECKING:
    from flinkspec.impls.capabilities import Capabilities
    from flinkspec.judge.verdict import Conformance
    from properties.under_test import Implementation, Judged

# Hypothesis's own default derandomizes where it sees a CI (CI=true, as GitHub Actions sets): dev and
# thorough say derandomize=False, so that --hypothesis-seed counts there as anywhere
settings.register_profile("dev", max_examples=40, deadline=None, derandomize=False)
settings.register_profile("ci", max_examples=150, deadline=None, derandomize=True, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=3000, deadline=None, derandomize=False, verbosity=Verbosity.normal,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

# Registered here, not only in this repository's pyproject.toml, so that ``pytest --pyargs
# properties`` from an installed package knows them too.
MARKERS = (
    "flink: needs the real-Flink bridge (a JDK and the jar from PyPI)",
    "slow: long-running",
    "spark: starts Spark (embedded local[N], or a standalone master and worker on 127.0.0.1)",
    "flinkspec_area(name): the protocol area a test checks (for --area and the implementation's capabilities)",
    "flinkspec_self: a test of flinkspec itself that talks to the implementation (malformed requests: no Flink "
    "answer to judge by), run only against the built-in implementations",
)
# --impl kinds that flinkspec runs itself: its own tests (the oracle's, the bridge's) are run against them;
# against any other implementation only the tests that judge it are collected
BUILT_IN = ("oracle", "flink", "mutant")

# The area of the tests that talk to the implementation about one area without saying so in a
# parameter; a test's ``flinkspec_area`` marker or ``area`` parameter takes precedence.

@attrs.define
class SessionState:
    """What the plugin keeps for a session: the areas selected, the implementation's declaration
    (once asked) and the requests not sent to it, counted by (area, version, why)."""

    areas: tuple[str, ...] | None = None  # None: every area
    capabilities: Capabilities | None = None
    not_sent: Counter[tuple[str, str, str]] = attrs.field(factory=Counter)
    own_tests: int = 0  # tests of flinkspec itself deselected against a third-party implementation


STATE = pytest.StashKey[SessionState]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("flinkspec")
    group.addoption("--impl", default="oracle", help="implementation under test (see `flinkspec check --help`)")
    group.addoption("--flink", default=None, help="Flink versions: comma-separated X.Y, or all")
    group.addoption("--area", default=None, help="areas to check: comma-separated names, or all (default)")
    group.addoption("--capabilities", default=None, metavar="FILE",
                    help="JSON file of the areas, versions and rules the implementation does not support")
    group.addoption("--conformance", default="flink", choices=("flink", "documented"))
    group.addoption("--strict-messages", action="store_true", help="compare exception names and messages too")


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers; bad --impl / --flink / --area / --capabilities values stop the run
    before any test, as usage errors."""
    from flinkspec.impls import UsageError, check_spec
    from flinkspec.impls.capabilities import CapabilitiesError, load_file
    from properties.areas import AREAS, all_rules

    for line in MARKERS:
        config.addinivalue_line("markers", line)
    try:
        check_spec(config.getoption("--impl"))
    except UsageError as exc:
        raise pytest.UsageError(str(exc)) from None
    selected_versions(config)
    path = config.getoption("--capabilities")
    if path:
        try:
            load_file(path, known_areas=AREAS, known_rules=all_rules())
        except CapabilitiesError as exc:
            raise pytest.UsageError(str(exc)) from None
    config.stash[STATE] = SessionState(areas=selected_areas(config))


def selected_versions(config: pytest.Config) -> list[FlinkVersion]:
    text = config.getoption("--flink")
    impl = config.getoption("--impl")
    if text is None and impl.startswith("flink:"):
        text = impl.split(":", 1)[1]
    if text is None:
        return list(SUPPORTED)
    try:
        return select_versions(text)
    except UnknownVersion as exc:
        raise pytest.UsageError(f"--flink: {exc}") from None
    except ValueError as exc:
        raise pytest.UsageError(f"--flink {exc}") from None


def selected_areas(config: pytest.Config) -> tuple[str, ...] | None:
    """The areas ``--area`` names (None: all), validated as ``flinkspec check --area`` does."""
    text = config.getoption("--area")
    if text is None or text.strip() == "all":
        return None
    from properties.areas import AREAS

    names = [a.strip() for a in text.split(",") if a.strip()]
    if not names:
        raise pytest.UsageError(f"--area names no area; known: {', '.join(AREAS)}")
    unknown = [a for a in names if a not in AREAS]
    if unknown:
        raise pytest.UsageError(f"--area: unknown area(s) {', '.join(unknown)}; known: {', '.join(AREAS)}")
    return tuple(names)


def area_of(item: pytest.Item) -> str | None:
    """The protocol area a test checks, if it names one (see the module docstring)."""
    params = _params(item)
    area, corpus = params.get("area"), params.get("corpus")
    if isinstance(area, str):
        return area
    if isinstance(corpus, str):
        from properties.areas import area_of_corpus

        return area_of_corpus(corpus)
    marker = item.get_closest_marker("flinkspec_area")
    return str(marker.args[0]) if marker is not None and marker.args else None


def version_of(item: pytest.Item) -> FlinkVersion | None:
    """The Flink version a test is parametrized with, if any."""
    version = _params(item).get("flink_version")
    return version if isinstance(version, FlinkVersion) else None


def _has_release(area: str, version: FlinkVersion | None) -> bool:
    """Whether the area covers ``version`` (no version: yes; an area the registry does not know: yes)."""
    from properties.areas import AREAS

    return version is None or area not in AREAS or version in AREAS[area].versions


def _params(item: pytest.Item) -> dict[str, object]:
    callspec = getattr(item, "callspec", None)
    return dict(callspec.params) if callspec is not None else {}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "flink_version" in metafunc.fixturenames:
        versions = selected_versions(metafunc.config)
        metafunc.parametrize("flink_version", versions, ids=[str(v) for v in versions])


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``--area``: the tests of other areas are deselected (tests of no area are kept). Against an
    implementation flinkspec does not run itself, only the tests that judge it are kept: a test of
    flinkspec itself (one that never asks the implementation, or a ``flinkspec_self`` one) is
    deselected and counted in the summary, so that it never counts as the implementation's pass."""
    state = config.stash[STATE]
    wanted = state.areas
    foreign = str(config.getoption("--impl")).partition(":")[0] not in BUILT_IN
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        area = area_of(item)
        if foreign and not judges_the_implementation(item):
            state.own_tests += 1
            dropped.append(item)
        elif wanted is not None and area is not None and area not in wanted:
            dropped.append(item)
        elif area is not None and not _has_release(area, version_of(item)):
            dropped.append(item)  # a release before the area's first (an area may start after 1.13)
        else:
            kept.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def judges_the_implementation(item: pytest.Item) -> bool:
    """Whether a test judges the implementation under test (not flinkspec itself)."""
    names = getattr(item, "fixturenames", ())
    return ("impl" in names or "gate" in names) and item.get_closest_marker("flinkspec_self") is None


@pytest.fixture(scope="session")
def impl(request: pytest.FixtureRequest) -> Iterator[Implementation]:
    """The implementation under test, opened once per session (never per example)."""
    from flinkspec.impls import UsageError, open_impl
    from flinkspec.plugin.halting import Halting

    try:
        handle = open_impl(request.config.getoption("--impl"))
    except UsageError as exc:
        raise pytest.UsageError(str(exc)) from None
    yield Halting(handle)  # a break fails the test with its cause, not as a Hypothesis example
    handle.close()


@pytest.fixture(scope="session")
def impl_spec(request: pytest.FixtureRequest) -> str:
    """The ``--impl`` value, as a replay command names the implementation."""
    return str(request.config.getoption("--impl"))


@pytest.fixture(scope="session")
def capabilities(request: pytest.FixtureRequest, impl: Implementation, impl_spec: str) -> Capabilities:
    """What the implementation declares (``--capabilities FILE`` plus its own answer, asked once)."""
    from flinkspec.impls.capabilities import resolve
    from properties.areas import AREAS, all_rules

    state = request.config.stash[STATE]
    if state.capabilities is None:
        state.capabilities = resolve(impl_spec, impl, request.config.getoption("--capabilities"),
                                     known_areas=AREAS, known_rules=all_rules())
    return state.capabilities


@pytest.fixture(scope="session")
def gate(request: pytest.FixtureRequest, impl: Implementation, impl_spec: str, capabilities: Capabilities,
         conformance: Conformance, strict_messages: bool) -> Judged:
    """The implementation under test as every test judges it: the same judge as ``flinkspec check``."""
    from flinkspec.plugin.gate import Gate

    return Gate(impl, impl_spec, capabilities, conformance, strict_messages,
                request.config.stash[STATE].not_sent)


@pytest.fixture(scope="session")
def not_sent(request: pytest.FixtureRequest) -> Counter[tuple[str, str, str]]:
    """Generated requests the implementation could not be sent, by (area, version, why)."""
    return request.config.stash[STATE].not_sent


@pytest.fixture(scope="session")
def conformance(request: pytest.FixtureRequest) -> Conformance:
    level: Conformance = request.config.getoption("--conformance")  # one of the option's choices
    return level


@pytest.fixture(scope="session")
def strict_messages(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--strict-messages"))


@pytest.fixture(autouse=True)
def _flinkspec_capabilities_gate(request: pytest.FixtureRequest) -> None:
    """Skip, with the why, a test of the implementation that checks what it declared it does not
    support (an area, a version) or an area its protocol version lacks, as ``flinkspec check`` does."""
    if "impl" not in request.fixturenames and "gate" not in request.fixturenames:
        return
    area, version = area_of(request.node), version_of(request.node)
    caps: Capabilities = request.getfixturevalue("capabilities")
    declared = caps.run_unsupported(area or "", version or "")
    if declared is not None:
        where = " at Flink ".join(str(x) for x in (area, version) if x is not None) or "this test"
        why = declared.why or f"declared by {declared.source}"
        pytest.skip(f"{where}: not supported by the implementation ({why})")
    needs = caps.area_needs(area) if area is not None else None
    if needs is not None:
        pytest.skip(f"{area}: not checked ({needs})")


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Generator[None, object, object]:
    """A property none of whose generated requests could be sent to the implementation is skipped
    with the why (Hypothesis calls that unsatisfiable), not failed; a broken implementation fails
    the test with the cause alone (:mod:`flinkspec.plugin.halting`)."""
    from flinkspec.impls import ImplementationBroken
    from flinkspec.plugin.halting import Halt, message

    try:
        return (yield)
    except (Halt, ImplementationBroken) as exc:  # an error, never a verdict: the cause alone, no traceback
        config = pyfuncitem.config
        broken = message(exc, config.getoption("--impl"), config.getoption("--strict-messages"))
    except Unsatisfiable:
        why = _not_sent_for(pyfuncitem)
        if not why:
            raise
        pytest.skip(f"no generated request could be sent to the implementation: {why}")
    pytest.fail(broken, pytrace=False)  # outside the except: no chained exceptions shown


def _not_sent_for(item: pytest.Item) -> str:
    """Why the requests of the item's (area, version) were not sent, with their counts."""
    area, version = area_of(item), str(version_of(item))
    counts = item.config.stash[STATE].not_sent
    return "; ".join(f"{why} ({n:,} of them)" for (a, v, why), n in counts.items() if (a, v) == (area, version))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """The implementation's declaration warnings and the generated requests it could not be sent."""
    state = config.stash.get(STATE, None)
    if state is None:
        return
    lines = [f"warning: {w}" for w in (state.capabilities.warnings if state.capabilities else ())]
    if state.own_tests:
        lines.append(f"{state.own_tests:,} test(s) of flinkspec itself deselected: they check the suite, not the "
                     "implementation")
    lines += [f"{area} at Flink {version}: {n:,} generated request(s) not sent ({why})"
              for (area, version, why), n in sorted(state.not_sent.items())]
    if lines:
        terminalreporter.write_sep("-", "flinkspec")
        for line in lines:
            terminalreporter.write_line(line)
