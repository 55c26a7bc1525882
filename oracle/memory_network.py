"""Protocol area ``memory.network``: a TaskManager's network buffers and the buffer pools of a task's result
partitions (NET-1 ... NET-12, declared in :data:`RULES`).

From a TaskManager's configuration: its network memory as ``memory.taskmanager`` derives it
(``TaskExecutorProcessUtils``), the size and number of its network buffers
(``NettyShuffleEnvironmentConfiguration.fromConfiguration``), and, for a task's result partitions in order, the
minimum and maximum buffers of each partition's pool (``ResultPartitionFactory.createBufferPoolFactory``,
``NettyShuffleUtils.getMinMaxNetworkBuffersPerResultPartition``) as the ``NetworkBufferPool`` creates them, or
Flink's exception for the first pool it cannot create ("Insufficient number of network buffers: ...").
Then, from 1.14 to 1.16, the task's input gates in order, after all its partitions (``Task.setupPartitionsAndGates``):
each gate's floating pool (NET-13) and each of its remote channels' exclusive buffers (NET-14), or Flink's
exception for the first request the ``NetworkBufferPool`` refuses. Gates of other releases, local channels and
hybrid partitions are not modelled (NotModelled says so).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from oracle import memory_tm as tm
from oracle.changes import Change
from oracle.checkpoint_storage import IOException
from oracle.explain import INPUT, at, because, decided_here, rejected_because
from oracle.javanum import INT_MAX, IllegalArgumentException, JavaException
from oracle.memory_options import ConfigOption, Configuration
from oracle.protocol import AreaFn, BadRequest, NotModelled, Rejected, field, string_map
from oracle.rules import Declared
from oracle.versions import FlinkVersion, pick

NETWORK = "memory.network"  # the protocol area (docs/protocol/memory-network.md)
TN = "taskmanager.network."
BUFFERS_PER_CHANNEL = ConfigOption(TN + "memory.buffers-per-channel", "int", 2, "2")
FLOATING_PER_GATE = ConfigOption(TN + "memory.floating-buffers-per-gate", "int", 8, "8")
MAX_PER_CHANNEL = ConfigOption(TN + "memory.max-buffers-per-channel", "int", 10, "10")
OVERDRAFT = ConfigOption(TN + "memory.max-overdraft-buffers-per-gate", "int", 5, "5")
SORT_MIN_BUFFERS_KEY = TN + "sort-shuffle.min-buffers"
SORT_MIN_PARALLELISM_KEY = TN + "sort-shuffle.min-parallelism"
# the partition types modelled, and what ResultPartitionType says of each (the same in every release)
BOUNDED = frozenset({"PIPELINED_BOUNDED", "PIPELINED_APPROXIMATE"})  # isBounded
BLOCKING = frozenset({"BLOCKING", "BLOCKING_PERSISTENT"})  # isBlocking (1.13: not isPipelined)
TYPES = ("PIPELINED", "PIPELINED_BOUNDED", "PIPELINED_APPROXIMATE", "BLOCKING", "BLOCKING_PERSISTENT")
# configuration keys whose effect the oracle does not model
UNMODELLED_KEYS = ("execution.batch-shuffle-mode", "taskmanager.network.memory.buffer-debloat.",
                   "taskmanager.memory.starting-segment-size", TN + "memory.read-buffer.",
                   TN + "hybrid-shuffle.", "taskmanager.network.numberOfBuffers")

RULES: tuple[Declared, ...] = (
    Declared("NET-1",
             "A TaskManager's network memory is the one memory.taskmanager derives from its configuration "
             "(the legacy heap keys mapped first); a configuration it rejects is rejected here with the same "
             "exception.",
             "TaskExecutorProcessUtils.processSpecFromConfig, TaskManagerServices"),
    Declared("NET-2",
             "A network buffer is one memory segment: taskmanager.memory.segment-size (default 32kb), an int "
             "(IllegalArgumentException \"Cannot downcast long value <n> to integer.\"), at least 4096 and a power"
             " of two (IllegalConfigurationException \"Invalid configuration value for taskmanager.memory.segment"
             "-size : <n> - Minimum memory segment size is 4096\" / \"... - Memory segment size must be a power of"
             " 2.\").",
             "ConfigurationParserUtils.getPageSize"),
    Declared("NET-3",
             "The TaskManager's number of network buffers is its network memory in bytes divided by the buffer "
             "size, rounded down; more than Integer.MAX_VALUE is IllegalArgumentException(\"The given number of "
             "memory bytes (<n>) corresponds to more than MAX_INT pages.\").",
             "NettyShuffleEnvironmentConfiguration.calculateNumberOfNetworkBuffers"),
    Declared("NET-4",
             "Until 2.0 the buffers per channel (taskmanager.network.memory.buffers-per-channel, default 2), the "
             "floating buffers per gate (...floating-buffers-per-gate, default 8) and the max buffers per channel "
             "(...max-buffers-per-channel, default 10) are int options; from 2.0 they are no options and always 2,"
             " 8 and 10.",
             "NettyShuffleEnvironmentConfiguration.fromConfiguration, NettyShuffleEnvironmentOptions"),
    Declared("NET-5",
             "taskmanager.network.sort-shuffle.min-buffers is an int option, default 64 until 1.15 and 512 from "
             "1.15; taskmanager.network.sort-shuffle.min-parallelism an int option, default Integer.MAX_VALUE "
             "until 1.15 and 1 from 1.15, and from 2.0 no option and always 1.",
             "NettyShuffleEnvironmentOptions.NETWORK_SORT_SHUFFLE_MIN_BUFFERS, NETWORK_SORT_SHUFFLE_MIN_PARALLELISM"),
    Declared("NET-6",
             "A partition is sort-shuffled when it is blocking (BLOCKING, BLOCKING_PERSISTENT) and has at least "
             "the sort-shuffle min parallelism subpartitions; its pool's minimum is then the sort-shuffle min "
             "buffers, else the number of subpartitions plus one.",
             "NettyShuffleUtils.getMinMaxNetworkBuffersPerResultPartition (1.13: ResultPartitionFactory)"),
    Declared("NET-7",
             "A bounded partition's (PIPELINED_BOUNDED, PIPELINED_APPROXIMATE) pool's maximum is subpartitions * "
             "buffers per channel + floating buffers per gate, in int arithmetic (it wraps); any other's is "
             "unbounded (Integer.MAX_VALUE), except from 1.15 a sort-shuffled one's: max(minimum, 4 * "
             "subpartitions) (FLINK-25774).",
             "NettyShuffleUtils.getMinMaxNetworkBuffersPerResultPartition"),
    Declared("NET-8",
             "From 1.14 the maximum is at least the minimum (Math.max); in 1.13 a maximum below the minimum is "
             "LocalBufferPool's IllegalArgumentException(\"Maximum number of memory segments (<max>) should not be"
             " smaller than minimum (<min>).\").",
             "NettyShuffleUtils.getMinMaxNetworkBuffersPerResultPartition, LocalBufferPool"),
    Declared("NET-9",
             "The partitions' pools are created in order from the NetworkBufferPool, each reserving its minimum;"
             " a pool whose minimum exceeds what the earlier ones left is IOException(\"Insufficient number of "
             "network buffers: required <min>, but only <left> available. The total number of network buffers is"
             " currently set to <n> of <size> bytes each. You can increase this number by setting the "
             "configuration keys 'taskmanager.memory.network.fraction', 'taskmanager.memory.network.min', and "
             "'taskmanager.memory.network.max'.\"). A pool that fits exactly is created.",
             "NetworkBufferPool.createBufferPool, getConfigDescription"),
    Declared("NET-10",
             "From 1.17 until 2.0 floating buffers per gate below 1 is IllegalArgumentException(\"The configured "
             "floating buffer should be at least 1, please increase the value of taskmanager.network.memory"
             ".floating-buffers-per-gate.\").",
             "NettyShuffleEnvironmentConfiguration.fromConfiguration", since="1.17", until="2.0"),
    Declared("NET-11",
             "An int option's value that is not an int is IllegalArgumentException(\"Could not parse value "
             "'<value>' for key '<key>'.\"); the options are read in the order buffers per channel, floating "
             "buffers, max buffers per channel, overdraft buffers (1.16-1.20), sort-shuffle min buffers, sort-"
             "shuffle min parallelism, after the buffer size and count.",
             "Configuration.getInteger, NettyShuffleEnvironmentConfiguration.fromConfiguration"),
    Declared("NET-12",
             "What the task reserves is the sum of its partitions' pools' minimums (and, where gates are modelled, "
             "each gate's floating minimum and its channels' exclusive buffers), and what the TaskManager has"
             " left is its number of network buffers minus that sum.",
             "NetworkBufferPool.numTotalRequiredBuffers"),
    Declared("NET-13",
             "From 1.14 to 1.16 an input gate's floating pool has minimum 1 and maximum the floating buffers per "
             "gate; it is created from the NetworkBufferPool after all the task's partitions' pools and the earlier"
             " gates' buffers, like a partition's (NET-9: required 1), and a maximum below 1 is then LocalBufferPool"
             "'s IllegalArgumentException(\"Maximum number of memory segments (<max>) should not be smaller than "
             "minimum (1).\").",
             "Task.setupPartitionsAndGates, SingleInputGate.setup, SingleInputGateFactory.createBufferPoolFactory, "
             "NettyShuffleUtils.getMinMaxFloatingBuffersPerInputGate", since="1.14", until="1.17"),
    Declared("NET-14",
             "From 1.14 to 1.16, after its floating pool, each of a gate's remote channels in order requests the "
             "buffers per channel as exclusive buffers from the NetworkBufferPool (none when 0); a request above "
             "what the earlier pools and requests left is IOException(\"Insufficient number of network buffers: "
             "required <buffers per channel>, but only <left> available. ...\", NET-9's message).",
             "SingleInputGate.setupChannels, RemoteInputChannel.setup, BufferManager.requestExclusiveBuffers, "
             "NetworkBufferPool.requestUnpooledMemorySegments", since="1.14", until="1.17"),
)

# Flink's changes in this area, each written once; the tables below read them
_P = {"config": {"taskmanager.memory.process.size": "1g"}}
MAX_AT_LEAST_MIN = Change(
    since="1.14", what="a partition pool's maximum is at least its minimum (before: a maximum below the minimum "
    "is LocalBufferPool's IllegalArgumentException)",
    witnesses=({**_P, "config": {**_P["config"], BUFFERS_PER_CHANNEL.key: "0", FLOATING_PER_GATE.key: "1"},
                "partitions": [{"subpartitions": 4, "type": "PIPELINED_BOUNDED"}]},))
SORT_SHUFFLE_DEFAULTS = Change(
    since="1.15", what="sort-shuffle by default: taskmanager.network.sort-shuffle.min-parallelism defaults to 1 "
    "(before: Integer.MAX_VALUE) and ...sort-shuffle.min-buffers to 512 (before: 64)",
    witnesses=({**_P, "partitions": [{"subpartitions": 10, "type": "BLOCKING"}]},))
SORT_SHUFFLE_CAP = Change(
    since="1.15", what="a sort-shuffled partition's pool is bounded: max(minimum, 4 * subpartitions) (before: "
    "unbounded)", issue="FLINK-25774",
    witnesses=({"config": {**_P["config"], SORT_MIN_PARALLELISM_KEY: "1"},
                "partitions": [{"subpartitions": 300, "type": "BLOCKING"}]},))
FLOATING_AT_LEAST_ONE = Change(
    since="1.17", what="floating buffers per gate below 1 is rejected",
    witnesses=({"config": {**_P["config"], FLOATING_PER_GATE.key: "0"}},))
OPTIONS_REMOVED = Change(
    since="2.0", what="buffers-per-channel, floating-buffers-per-gate, max-buffers-per-channel, max-overdraft-"
    "buffers-per-gate and sort-shuffle.min-parallelism are no longer options (fixed 2, 8, 10, 5, 1)",
    witnesses=({"config": {**_P["config"], BUFFERS_PER_CHANNEL.key: "5"},
                "partitions": [{"subpartitions": 2, "type": "PIPELINED_BOUNDED"}]},
               {"config": {**_P["config"], SORT_MIN_PARALLELISM_KEY: "100"},
                "partitions": [{"subpartitions": 10, "type": "BLOCKING"}]}))
OVERDRAFT_OPTION = Change(
    since="1.16", what="taskmanager.network.memory.max-overdraft-buffers-per-gate is read (an int option)",
    witnesses=({"config": {**_P["config"], OVERDRAFT.key: "x"}},))
CHANGES: dict[str, tuple[Change, ...]] = {NETWORK: (MAX_AT_LEAST_MIN, SORT_SHUFFLE_DEFAULTS, SORT_SHUFFLE_CAP,
                                                    OVERDRAFT_OPTION, FLOATING_AT_LEAST_ONE, OPTIONS_REMOVED)}

SORT_MIN_BUFFERS: Mapping[FlinkVersion, ConfigOption] = SORT_SHUFFLE_DEFAULTS.table(
    ConfigOption(SORT_MIN_BUFFERS_KEY, "int", 64, "64"), ConfigOption(SORT_MIN_BUFFERS_KEY, "int", 512, "512"))
SORT_MIN_PARALLELISM: Mapping[FlinkVersion, ConfigOption] = SORT_SHUFFLE_DEFAULTS.table(
    ConfigOption(SORT_MIN_PARALLELISM_KEY, "int", INT_MAX, str(INT_MAX)),
    ConfigOption(SORT_MIN_PARALLELISM_KEY, "int", 1, "1"))
CONFIGURABLE: Mapping[FlinkVersion, bool] = OPTIONS_REMOVED.table(True, False)
SORT_CAPPED: Mapping[FlinkVersion, bool] = SORT_SHUFFLE_CAP.table(False, True)
MAX_RAISED: Mapping[FlinkVersion, bool] = MAX_AT_LEAST_MIN.table(False, True)
READS_OVERDRAFT: Mapping[FlinkVersion, bool] = OVERDRAFT_OPTION.table(False, True)
CHECKS_FLOATING: Mapping[FlinkVersion, bool] = FLOATING_AT_LEAST_ONE.table(False, True)
# the releases whose input gates are modelled (NET-13, NET-14): 1.13 assigns the channels' exclusive buffers
# before the gate's pool with its own pool sizes (ResultPartitionType-dependent); 1.17 sizes gates with
# InputGateSpecUtils (a per-gate threshold, exclusive buffers that can drop to 0); neither is modelled yet
GATES_FROM, GATES_UNTIL = FlinkVersion(1, 14, 0), FlinkVersion(1, 17, 0)


def gates_modelled(version: FlinkVersion) -> bool:
    """Whether ``version``'s input gates are modelled (1.14 ... 1.16)."""
    return GATES_FROM <= version < GATES_UNTIL


def java_int(value: int) -> int:
    """A value as Java's ``int`` arithmetic leaves it (overflow wraps)."""
    return (value + 2**31) % 2**32 - 2**31


def network_buffers(network_bytes: int, page: int) -> int:
    """NET-3: ``calculateNumberOfNetworkBuffers``."""
    count = network_bytes // page
    if count > INT_MAX:
        raise IllegalArgumentException(f"The given number of memory bytes ({network_bytes}) corresponds to more "
                                       "than MAX_INT pages.")
    return count


def options(conf: Configuration, version: FlinkVersion) -> dict[str, int]:
    """NET-4, NET-5, NET-10, NET-11: the buffer options ``fromConfiguration`` reads, in its order."""
    configurable = pick(CONFIGURABLE, version)
    out: dict[str, int] = {}
    at(*INPUT)
    because("NET-4")
    if configurable:
        for name, option in (("buffers_per_channel", BUFFERS_PER_CHANNEL), ("floating_per_gate", FLOATING_PER_GATE),
                             ("max_per_channel", MAX_PER_CHANNEL)):
            if conf.contains(option):
                because("NET-11")
            out[name] = conf.get(option)
        if pick(READS_OVERDRAFT, version):
            if conf.contains(OVERDRAFT):
                because("NET-11")
            conf.get(OVERDRAFT)
    else:
        out.update(buffers_per_channel=2, floating_per_gate=8, max_per_channel=10)
    because("NET-5")
    sort_buffers = pick(SORT_MIN_BUFFERS, version)
    if conf.contains(sort_buffers):
        because("NET-11")
    out["sort_min_buffers"] = conf.get(sort_buffers)
    if configurable:
        sort_parallelism = pick(SORT_MIN_PARALLELISM, version)
        if conf.contains(sort_parallelism):
            because("NET-11")
        out["sort_min_parallelism"] = conf.get(sort_parallelism)
    else:
        out["sort_min_parallelism"] = 1
    if configurable and pick(CHECKS_FLOATING, version) and out["floating_per_gate"] < 1:
        because("NET-10")
        raise IllegalArgumentException("The configured floating buffer should be at least 1, please increase the "
                                       f"value of {FLOATING_PER_GATE.key}.")
    return out


def partition_pool(subpartitions: int, kind: str, opts: Mapping[str, int], version: FlinkVersion,
                   ) -> tuple[int, int]:
    """NET-6, NET-7, NET-8: the (minimum, maximum) of a result partition's pool."""
    sort_shuffle = kind in BLOCKING and subpartitions >= opts["sort_min_parallelism"]
    minimum = opts["sort_min_buffers"] if sort_shuffle else subpartitions + 1
    if kind in BOUNDED:
        maximum = java_int(subpartitions * opts["buffers_per_channel"] + opts["floating_per_gate"])
    elif sort_shuffle and pick(SORT_CAPPED, version):
        maximum = max(minimum, java_int(4 * subpartitions))
    else:
        maximum = INT_MAX
    if pick(MAX_RAISED, version):
        maximum = max(minimum, maximum)
    elif maximum < minimum:
        raise IllegalArgumentException(f"Maximum number of memory segments ({maximum}) should not be smaller "
                                       f"than minimum ({minimum}).")
    return minimum, maximum


def gate_buffers(channels: int, opts: Mapping[str, int]) -> tuple[int, int, int]:
    """NET-13, NET-14: a gate's floating pool's (minimum, maximum) and its remote channels' exclusive buffers each."""
    return 1, opts["floating_per_gate"], opts["buffers_per_channel"]


def insufficient(required: int, left: int, total: int, page: int) -> JavaException:
    """NET-9: ``NetworkBufferPool``'s IOException for a pool it cannot create."""
    return IOException(f"Insufficient number of network buffers: required {required}, but only {left} available. "
                        f"The total number of network buffers is currently set to {total} of {page} bytes each. You "
                        "can increase this number by setting the configuration keys 'taskmanager.memory.network"
                        ".fraction', 'taskmanager.memory.network.min', and 'taskmanager.memory.network.max'.")


def fits(reserved: int, minimum: int, total: int) -> bool:
    """NET-9: whether a pool of ``minimum`` buffers can be created after ``reserved`` of ``total`` are taken."""
    return reserved + minimum <= total


def _partitions(inp: Mapping[str, Any]) -> list[tuple[int, str]]:
    raw = field(inp, "partitions", list, "input") if inp.get("partitions") is not None else []
    out: list[tuple[int, str]] = []
    for i, item in enumerate(raw):
        where = f"input.partitions[{i}]"
        n = field(item, "subpartitions", int, where)
        if isinstance(n, bool) or not 1 <= n <= INT_MAX:
            raise BadRequest(f"{where}.subpartitions must be an integer in [1, {INT_MAX}]")
        kind = field(item, "type", str, where)
        if kind.startswith("HYBRID"):
            raise NotModelled(f"{where}.type = {kind!r}", "hybrid result partitions")
        if kind not in TYPES:
            raise BadRequest(f"{where}.type: {kind!r} is no partition type (one of {', '.join(TYPES)})")
        out.append((n, kind))
    return out


def _gates(inp: Mapping[str, Any], version: FlinkVersion) -> list[int]:
    """The remote channel count of each input gate (``input.gates[i].channels``)."""
    raw = field(inp, "gates", list, "input") if inp.get("gates") is not None else []
    out: list[int] = []
    for i, item in enumerate(raw):
        where = f"input.gates[{i}]"
        n = field(item, "channels", int, where)
        if isinstance(n, bool) or not 1 <= n <= INT_MAX:
            raise BadRequest(f"{where}.channels must be an integer in [1, {INT_MAX}]")
        local = item.get("local", 0)
        if isinstance(local, bool) or not isinstance(local, int) or local < 0:
            raise BadRequest(f"{where}.local must be a non-negative integer")
        if local:
            raise NotModelled(f"{where}.local", "local input channels (they reserve segments of the gate's pool)")
        out.append(n)
    if out and not gates_modelled(version):
        raise NotModelled("input.gates", f"input gates of {version} (modelled from 1.14 to 1.16)")
    return out


def _config(inp: Mapping[str, Any]) -> dict[str, str]:
    config = string_map(inp, "config", "input")
    for key in config:
        if key.startswith(UNMODELLED_KEYS):
            raise NotModelled(f"input.config[{key!r}]", "this option's effect on network buffers")
    return config


def _rejected(exc: JavaException, *rules: str) -> Rejected:
    """Flink's exception, decided by ``rules`` (oracle.explain)."""
    rejected_because(*rules)
    return Rejected(exc.simple_name, exc.message)


def network_area(inp: Mapping[str, Any], version: FlinkVersion) -> dict[str, Any] | Rejected:
    """A TaskManager's network buffers and its task's result partitions' pools, or Flink's exception."""
    config = _config(inp)
    partitions = _partitions(inp)
    gates = _gates(inp, version)
    conf = Configuration(config)
    try:
        memory = tm.process_spec(tm.map_legacy_heap(conf, version), version)
    except JavaException as exc:
        return _rejected(exc, "NET-1")
    network = memory.spec.flink.network.bytes
    at("network_memory")
    because("NET-1")
    try:
        at("buffer_size")
        because("NET-2")
        page = tm.page_size(conf)
        at("network_buffers")
        because("NET-2", "NET-3")
        total = network_buffers(network, page)
        opts = options(conf, version)
    except JavaException as exc:
        return _rejected(exc, *decided_here()[::-1])
    pools: list[dict[str, int]] = []
    required = 0
    for i, (n, kind) in enumerate(partitions):
        at("partitions", i, "min")
        because("NET-6")
        at("partitions", i, "max")
        because("NET-7", "NET-8")
        try:
            minimum, maximum = partition_pool(n, kind, opts, version)
        except JavaException as exc:
            return _rejected(exc, "NET-8", "NET-7")
        at("partitions", i)
        because("NET-9")
        if not fits(required, minimum, total):
            return _rejected(insufficient(minimum, total - required, total, page), "NET-9", "NET-6")
        required += minimum
        pools.append({"min": minimum, "max": maximum})
    gate_out: list[dict[str, int]] = []
    for i, channels in enumerate(gates):
        at("gates", i, "floating_min")
        because("NET-13")
        at("gates", i, "floating_max")
        because("NET-13", "NET-4")
        at("gates", i)
        because("NET-13", "NET-9")
        floating_min, floating_max, per_channel = gate_buffers(channels, opts)
        if not fits(required, floating_min, total):
            return _rejected(insufficient(floating_min, total - required, total, page), "NET-13", "NET-9")
        if floating_max < floating_min:
            return _rejected(IllegalArgumentException(f"Maximum number of memory segments ({floating_max}) should "
                                                      f"not be smaller than minimum ({floating_min})."),
                             "NET-13", "NET-4")
        required += floating_min
        if per_channel < 0 or java_int(required + per_channel) != required + per_channel:
            raise NotModelled("input.config", "negative or int-overflowing buffers per channel with input gates")
        at("gates", i, "exclusive")
        because("NET-14", "NET-4")
        if per_channel:
            if (total - required) // per_channel < channels:
                return _rejected(insufficient(per_channel, total - required - (total - required) // per_channel
                                              * per_channel, total, page), "NET-14", "NET-9")
            required += channels * per_channel
        gate_out.append({"floating_min": floating_min, "floating_max": floating_max,
                         "exclusive_per_channel": per_channel, "exclusive": channels * per_channel})
    at("required")
    because("NET-12", "NET-6", *(("NET-13", "NET-14") if gates else ()))
    at("available")
    because("NET-12", "NET-3")
    out: dict[str, Any] = {"network_memory": network, "buffer_size": page, "network_buffers": total,
                           "partitions": pools}
    if gates:
        out["gates"] = gate_out
    out.update(required=required, available=total - required)
    return out


ENTRIES: dict[str, AreaFn] = {NETWORK: network_area}
