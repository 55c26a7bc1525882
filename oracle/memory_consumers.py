"""Protocol area ``memory.consumers``: how a slot's managed memory is shared by its kinds of consumers
(MCW-1 ... MCW-7, declared in :data:`RULES`).

From a TaskManager's configuration (and a job's), the use cases a slot's operators declare and the
weights of its operators that declare OPERATOR, as a TaskManager computes it when a task starts
(``StreamConfig.getManagedMemoryFractionOperatorUseCaseOfSlot``): the consumer weights Flink reads
(``ManagedMemoryUtils.getManagedMemoryUseCaseWeightsFromConfig``), and the fraction of the slot's
managed memory each use case and each operator gets (``ManagedMemoryUtils.convertToFractionOfSlot``,
with the operator's fraction of its use case as ``StreamingJobGraphGenerator`` sets it). A fraction is a
Java double, written as the shortest decimal that reads back as the same double (:func:`decimal_text`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Literal

import attrs

from oracle import checkpoint_storage as cs
from oracle.changes import Change
from oracle.checkpoint_storage import DynamicCodeLoadingException, state_backend
from oracle.classloading_config import escaped_split
from oracle.explain import INPUT, at, because, decided_here, rejected_because
from oracle.javanum import INT_MAX, IllegalArgumentException, JavaBigDecimal, JavaException, parse_int
from oracle.memory_options import ConfigOption, Configuration, IllegalConfigurationException
from oracle.protocol import AreaFn, BadRequest, NotModelled, Rejected, field, string_map
from oracle.rules import Declared
from oracle.versions import FlinkVersion, pick

CONSUMERS = "memory.consumers"  # the protocol area (docs/protocol/memory-consumers.md)
KEY = "taskmanager.memory.managed.consumer-weights"
UseCase = Literal["OPERATOR", "STATE_BACKEND", "PYTHON"]
USE_CASES: tuple[UseCase, ...] = ("OPERATOR", "STATE_BACKEND", "PYTHON")  # ManagedMemoryUseCase, in its order
DEFAULT_WEIGHTS = {"OPERATOR": "70", "STATE_BACKEND": "70", "PYTHON": "30"}
SCALE = 16  # ManagedMemoryUtils.MANAGED_MEMORY_FRACTION_SCALE

RULES: tuple[Declared, ...] = (
    Declared("MCW-1",
             "The weights are the map option taskmanager.memory.managed.consumer-weights (no other key), default "
             "OPERATOR:70,STATE_BACKEND:70,PYTHON:30; a configured map replaces the default as a whole. They are read"
             " from the TaskManager's configuration, never from the job's.",
             "TaskManagerOptions.MANAGED_MEMORY_CONSUMER_WEIGHTS, StreamConfig"
             ".getManagedMemoryFractionOperatorUseCaseOfSlot"),
    Declared("MCW-2",
             "A map value is split at ',' and each entry at ':' (StructuredOptionsSplitter: quotes honoured, pieces "
             "trimmed); an entry that is not two pieces, a repeated name or a broken quote is "
             "IllegalArgumentException(\"Could not parse value '<value>' for key '<key>'.\"). From 1.19 a value that "
             "YAML reads as a map is that map (not modelled).",
             "ConfigurationUtils.convertToProperties, Configuration.getOptional"),
    Declared("MCW-3",
             "The consumer names are OPERATOR, STATE_BACKEND and PYTHON, matched case-sensitively; other names are "
             "ignored. Until 1.20 DATAPROC is the weight of OPERATOR and of STATE_BACKEND where their own name is "
             "absent.",
             "ManagedMemoryUtils.USE_CASE_CONSUMER_NAMES"),
    Declared("MCW-4",
             "A weight is Integer.parseInt of its value (NumberFormatException(\"For input string: \\\"<value>\\\"\"),"
             " not wrapped); a negative one is IllegalConfigurationException(\"Managed memory weight should not be "
             "negative. Configured weight for <USE_CASE> is <weight>.\"); they are read in the order OPERATOR, "
             "STATE_BACKEND, PYTHON and the first bad one throws. A use case without a weight has weight 0.",
             "ManagedMemoryUtils.getManagedMemoryUseCaseWeightsFromConfig"),
    Declared("MCW-5",
             "Whether the state backend uses managed memory: what the application's state backend says, else the "
             "backend loaded from the configuration (rocksdb and forst do, the others and no backend do not, a "
             "backend that cannot be loaded is taken to); before 1.19 from the TaskManager's configuration, from "
             "1.19 from the job's configuration laid over the TaskManager's.",
             "StateBackendLoader.stateBackendFromApplicationOrConfigOrDefaultUseManagedMemory, ManagedMemoryUtils"
             ".convertToFractionOfSlot"),
    Declared("MCW-6",
             "A use case's fraction of the slot is 0 for a STATE_BACKEND that uses no managed memory, else its "
             "weight divided by the int sum (overflow wraps) of the weights of the slot's use cases (a STATE_BACKEND "
             "without managed memory left out) as a BigDecimal of scale 16 rounded down, as a double (0 when the sum"
             " is not positive), times its fraction of the use case.",
             "ManagedMemoryUtils.convertToFractionOfSlot, getFractionRoundedDown"),
    Declared("MCW-7",
             "An operator's fraction of the OPERATOR use case is its weight divided by the sum of the weights of the"
             " slot's operators declaring OPERATOR, rounded down to 16 decimals; a slot-scope use case's is 1.",
             "StreamingJobGraphGenerator.setManagedMemoryFractionForOperator, ManagedMemoryUtils"
             ".getFractionRoundedDown"),
)

# Flink's changes in this area, each written once; the tables below read them
_OPS = {"use_cases": ["OPERATOR", "STATE_BACKEND"], "operator_weights": [1]}
JOB_CONFIG_BACKEND = Change(
    since="1.19",
    what="whether the state backend uses managed memory is read from the job's configuration laid over the "
    "TaskManager's (before: the TaskManager's only)",
    witnesses=({"config": {}, "job_config": {"state.backend": "rocksdb"}, **_OPS},
               {"config": {"state.backend": "rocksdb"}, "job_config": {"state.backend": "hashmap"}, **_OPS}))
YAML_MAPS = Change(since="1.19", what="a consumer-weights value YAML reads as a map is that map",
                   unseen="the oracle does not model YAML map values (a BadRequest), so no modelled input shows it")
DATAPROC_REMOVED = Change(
    since="2.0", what="the consumer name DATAPROC (the weight of OPERATOR and STATE_BACKEND) is no longer read",
    witnesses=({"config": {KEY: "DATAPROC:5,PYTHON:5"}, "use_cases": ["OPERATOR", "PYTHON"]},))
# checkpoint.storage's changes of which state backend a configuration loads, seen here as whether it uses
# managed memory (a backend that cannot be loaded is taken to)
_THREE = {"use_cases": ["OPERATOR", "STATE_BACKEND", "PYTHON"]}
BACKEND_TYPE_KEY = attrs.evolve(cs.BACKEND_TYPE_KEY, witnesses=({"config": {"state.backend.type": "bogus"}, **_THREE},))
LEGACY_BACKENDS_REMOVED = attrs.evolve(cs.LEGACY_BACKENDS_REMOVED, witnesses=(
    {"config": {"state.backend.type": "jobmanager"}, **_THREE},))
CHANGES: dict[str, tuple[Change, ...]] = {CONSUMERS: (BACKEND_TYPE_KEY, JOB_CONFIG_BACKEND, YAML_MAPS, DATAPROC_REMOVED,
                                                      LEGACY_BACKENDS_REMOVED)}

# ManagedMemoryUtils.USE_CASE_CONSUMER_NAMES: the names each use case's weight is looked up by, in order
CONSUMER_NAMES: Mapping[FlinkVersion, Mapping[UseCase, tuple[str, ...]]] = DATAPROC_REMOVED.table(
    {"OPERATOR": ("OPERATOR", "DATAPROC"), "STATE_BACKEND": ("STATE_BACKEND", "DATAPROC"), "PYTHON": ("PYTHON",)},
    {"OPERATOR": ("OPERATOR",), "STATE_BACKEND": ("STATE_BACKEND",), "PYTHON": ("PYTHON",)})
# whose configuration decides the state backend: the TaskManager's, or the job's laid over it
BACKEND_CONFIG: Mapping[FlinkVersion, str] = JOB_CONFIG_BACKEND.table("taskmanager", "job over taskmanager")
YAML_MAP_VALUES: Mapping[FlinkVersion, bool] = YAML_MAPS.table(False, True)
# the state backends that use managed memory (AbstractManagedMemoryStateBackend), by simple class name
MANAGED_BACKENDS = frozenset({"EmbeddedRocksDBStateBackend", "ForStStateBackend"})
BACKEND_KEYS = ("state.backend", "state.backend.type")
# what YAML could read as a map: a ':' or '?' before a blank or the end, a flow map, a quoted key
_YAML_MAPPISH = re.compile(r"[:?](?:[ \t\r\n]|$)|[{}'\"]")
OPTION = ConfigOption(KEY, "string", DEFAULT_WEIGHTS, "OPERATOR:70,STATE_BACKEND:70,PYTHON:30")


class IllegalStateException(JavaException):
    """``java.lang.IllegalStateException`` (``Collectors.toMap`` on a repeated key)."""


def parse_map(value: str) -> dict[str, str]:
    """MCW-2: ``ConfigurationUtils.convertToProperties`` of a string (the legacy pattern)."""
    out: dict[str, str] = {}
    for item in escaped_split(value, ","):
        pair = escaped_split(item, ":")
        if len(pair) != 2:
            raise IllegalArgumentException("Map item is not a key-value pair (missing ':'?)")
        if pair[0] in out:
            raise IllegalStateException(f"Duplicate key {pair[0]} (attempted merging values {out[pair[0]]} and "
                                        f"{pair[1]})")
        out[pair[0]] = pair[1]
    return out


def configured_weights(conf: Configuration, version: FlinkVersion) -> dict[str, str]:
    """MCW-1, MCW-2: ``config.get(MANAGED_MEMORY_CONSUMER_WEIGHTS)``."""
    because("MCW-1")
    raw = conf.raw(OPTION)
    if raw is not None:
        because("MCW-2")
    if isinstance(raw, str) and pick(YAML_MAP_VALUES, version) and _YAML_MAPPISH.search(raw):
        raise NotModelled(f"input.config[{KEY!r}] = {raw!r}", "values YAML may read as a map (a ':' before a "
                          "blank or at the end, braces, quotes)")
    weights: dict[str, str] = conf.get(OPTION, parse_map)
    return weights


def weights_of(conf: Configuration, version: FlinkVersion) -> dict[UseCase, int]:
    """MCW-3, MCW-4: ``ManagedMemoryUtils.getManagedMemoryUseCaseWeightsFromConfig``."""
    at(*INPUT)  # reading the option (MCW-1, MCW-2)
    configured = configured_weights(conf, version)
    out: dict[UseCase, int] = {}
    for use_case, names in pick(CONSUMER_NAMES, version).items():
        at("weights", use_case)
        because("MCW-3")
        text = next((configured[name] for name in names if name in configured), None)
        if text is None:
            continue
        because("MCW-4")
        weight = parse_int(text)
        if weight < 0:
            raise IllegalConfigurationException("Managed memory weight should not be negative. Configured weight "
                                                f"for {use_case} is {weight}.")
        out[use_case] = weight
    return out


def backend_uses_managed_memory(conf: Configuration, version: FlinkVersion) -> bool:
    """MCW-5: ``StateBackendLoader.stateBackendFromApplicationOrConfigOrDefaultUseManagedMemory`` without an
    application's state backend."""
    try:
        return state_backend(conf, version) in MANAGED_BACKENDS
    except (DynamicCodeLoadingException, IllegalConfigurationException):
        return True  # "Cannot decide whether state backend uses managed memory. Will reserve managed memory"


def fraction_rounded_down(dividend: int, divisor: int) -> float:
    """``getFractionRoundedDown``: ``BigDecimal`` division at scale 16, ROUND_DOWN, as a double."""
    unscaled = abs(dividend) * 10**SCALE // abs(divisor)
    return JavaBigDecimal(-unscaled if (dividend < 0) != (divisor < 0) else unscaled, -SCALE).double_value()


def java_int(value: int) -> int:
    """A sum as Java's ``int`` arithmetic leaves it (overflow wraps)."""
    return (value + 2**31) % 2**32 - 2**31


def fraction_of_slot(use_case: UseCase, of_use_case: float, use_cases: frozenset[UseCase],
                     weights: Mapping[UseCase, int], backend_managed: bool) -> float:
    """MCW-6: ``ManagedMemoryUtils.convertToFractionOfSlot``."""
    if use_case == "STATE_BACKEND" and not backend_managed:
        return 0.0
    total = java_int(sum(weights.get(uc, 0) for uc in use_cases if uc != "STATE_BACKEND" or backend_managed))
    of_slot = fraction_rounded_down(weights.get(use_case, 0), total) if total > 0 else 0.0
    return of_use_case * of_slot


def decimal_text(value: float) -> str:
    """A double as the shortest decimal that reads back as it (the closest such), in plain notation."""
    text = format(Decimal(repr(value)).normalize(), "f")
    return "0" if text in ("-0", "0") else text


def _use_cases(inp: Mapping[str, Any]) -> tuple[UseCase, ...]:
    raw = field(inp, "use_cases", list, "input")
    for name in raw:
        if name not in USE_CASES:
            raise BadRequest(f"input.use_cases: {name!r} is no use case (one of {', '.join(USE_CASES)})")
    if len(set(raw)) != len(raw):
        raise BadRequest("input.use_cases must not repeat a use case")
    return tuple(uc for uc in USE_CASES if uc in raw)


def _operator_weights(inp: Mapping[str, Any], use_cases: tuple[UseCase, ...]) -> tuple[int, ...]:
    raw = field(inp, "operator_weights", list, "input") if "operator_weights" in inp else []
    for w in raw:
        if isinstance(w, bool) or not isinstance(w, int) or not 1 <= w <= INT_MAX:
            raise BadRequest(f"input.operator_weights: {w!r} must be an integer in [1, {INT_MAX}] (an operator "
                             "declares a positive int weight)")
    if sum(raw) > INT_MAX:
        raise BadRequest("input.operator_weights: their sum must fit an int")
    if raw and "OPERATOR" not in use_cases:
        raise BadRequest("input.operator_weights: operators declaring OPERATOR need OPERATOR in input.use_cases")
    return tuple(raw)


def _config(inp: Mapping[str, Any], name: str) -> dict[str, str]:
    config = string_map(inp, name, "input")
    for key in config:
        if key.startswith(("state.", "execution.checkpointing.")) and key not in BACKEND_KEYS:
            raise NotModelled(f"input.{name}[{key!r}]", "the state backends' own options "
                             f"(only {' and '.join(BACKEND_KEYS)})")
    return config


def _rejected(exc: JavaException, *rules: str) -> Rejected:
    """Flink's exception, decided by ``rules`` (oracle.explain)."""
    rejected_because(*rules)
    return Rejected(exc.simple_name, exc.message)


def consumers_area(inp: Mapping[str, Any], version: FlinkVersion) -> dict[str, Any] | Rejected:
    """The consumer weights a TaskManager reads, and each use case's and operator's fraction of a slot."""
    config, job_config = _config(inp, "config"), _config(inp, "job_config")
    use_cases = _use_cases(inp)
    operators = _operator_weights(inp, use_cases)
    from_app = field(inp, "state_backend_uses_managed_memory", bool, "input") \
        if inp.get("state_backend_uses_managed_memory") is not None else None
    cluster = Configuration(config)
    backend_conf = cluster if pick(BACKEND_CONFIG, version) == "taskmanager" else Configuration(
        {**config, **job_config})
    try:
        weights = weights_of(cluster, version)
    except JavaException as exc:
        return _rejected(exc, *decided_here()[::-1])  # the rule that threw, then those that led to it
    try:
        managed = from_app if from_app is not None else backend_uses_managed_memory(backend_conf, version)
    except JavaException as exc:
        return _rejected(exc, "MCW-5")
    in_slot = frozenset(use_cases)
    group = sum(operators)

    def share(of_use_case: float, use_case: UseCase, *path: str | int) -> str:
        at(*path)
        if use_case == "STATE_BACKEND":
            because("MCW-5")  # whether the state backend uses managed memory decides its share first
        because(*(("MCW-7",) if path[0] == "operator_fractions" else ()), "MCW-6")
        if "STATE_BACKEND" in in_slot:
            because("MCW-5")  # whether the state backend's weight counts in the total
        return decimal_text(fraction_of_slot(use_case, of_use_case, in_slot, weights, managed))

    return {
        "weights": {uc: weights[uc] for uc in USE_CASES if uc in weights},
        "fractions": {uc: share(1.0, uc, "fractions", uc) for uc in use_cases},
        "operator_fractions": [share(fraction_rounded_down(w, group), "OPERATOR", "operator_fractions", i)
                               for i, w in enumerate(operators)],
    }


ENTRIES: dict[str, AreaFn] = {CONSUMERS: consumers_area}
