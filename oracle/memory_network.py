"""Protocol area ``memory.network``: a TaskManager's network buffers and the buffer pools of a task's result
partitions (NET-1 ... NET-12, declared in :data:`RULES`).

From a TaskManager's configuration: its network memory as ``memory.taskmanager`` derives it
(``TaskExecutorProcessUtils``), the size and number of its network buffers
(``NettyShuffleEnvironmentConfiguration.fromConfiguration``), and, for a task's result partitions in order, the
minimum and maximum buffers of each partition's pool (``ResultPartitionFactory.createBufferPoolFactory``,
``NettyShuffleUtils.getMinMaxNetworkBuffersPerResultPartition``) as the ``NetworkBufferPool`` creates them, or
Flink's exception for the first pool it cannot create ("Insufficient number of network buffers: ...").
Then the task's input gates: from 1.17 each gate is sized when the task is built (``InputGateSpecUtils``, NET-15,
NET-16); after all its partitions' pools (``Task.setupPartitionsAndGates``) each gate's floating pool in order
(NET-13, NET-15), and then, as each gate's recovered channels become real ones, each of its remote channels'
exclusive buffers (NET-14); or Flink's exception for the first request that fails. Local channels take no exclusive
buffers (they count among a gate's channels from 1.17). Hybrid result partitions (1.16+) are pooled as unbounded
pipelined ones (NET-17).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from oracle import memory_tm as tm
from oracle.changes import Change
from oracle.checkpoint_storage import IOException
from oracle.explain import INPUT, at, because, decided_here, rejected_because
from oracle.javanum import INT_MAX, IllegalArgumentException, JavaException
from oracle.memory_consumers import IllegalStateException
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
HYBRID = frozenset({"HYBRID_FULL", "HYBRID_SELECTIVE"})  # isHybridResultPartition (1.16+)
TYPES = ("PIPELINED", "PIPELINED_BOUNDED", "PIPELINED_APPROXIMATE", "BLOCKING", "BLOCKING_PERSISTENT")
HYBRID_TYPES = ("HYBRID_FULL", "HYBRID_SELECTIVE")
# a gate consuming these is a streaming one (isPipelinedOrPipelinedBoundedResultPartition: not PIPELINED_APPROXIMATE)
STREAM_GATE = frozenset({"PIPELINED", "PIPELINED_BOUNDED"})
BATCH_GATE_MAX_REQUIRED = 1000  # InputGateSpecUtils.DEFAULT_MAX_REQUIRED_BUFFERS_PER_GATE_FOR_BATCH
GATE_DEFAULT_TYPE = "PIPELINED_BOUNDED"  # a gate's consumed partition type when the request names none
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
             "From 1.14 the maximum is at least the minimum (Math.max); in 1.13 a maximum below the minimum is, "
             "once the pool fits (NET-9: NetworkBufferPool checks that first), LocalBufferPool's "
             "IllegalArgumentException(\"Maximum number of memory segments (<max>) should not be smaller than "
             "minimum (<min>).\").",
             "NettyShuffleUtils.getMinMaxNetworkBuffersPerResultPartition, NetworkBufferPool.internalCreateBufferPool, "
             "LocalBufferPool"),
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
             "Until 1.17 an input gate's floating pool has minimum 1 and maximum the floating buffers per gate, "
             "whatever the consumed partition's type (1.13 passes the type and ignores it); the gates' pools are "
             "created in order from the NetworkBufferPool after all the task's partitions' pools, like a "
             "partition's (NET-9: required <minimum>), and a maximum below the minimum is then LocalBufferPool's "
             "IllegalArgumentException(\"Maximum number of memory segments (<max>) should not be smaller than "
             "minimum (1).\").",
             "Task.setupPartitionsAndGates, SingleInputGate.setup, SingleInputGateFactory.createBufferPoolFactory, "
             "NettyShuffleUtils.getMinMaxFloatingBuffersPerInputGate", until="1.17"),
    Declared("NET-14",
             "A gate's channels are created as recovered channels, which take no buffers when the gate is set up; "
             "after all the gates' pools, each gate in order turns them into real channels, and each remote "
             "channel in order then requests its exclusive buffers from the NetworkBufferPool (buffers per channel "
             "until 1.17, the gate's effective exclusive buffers per channel from 1.17, NET-15); a request above "
             "what the earlier pools and requests left is IOException(\"Insufficient number of network buffers: "
             "required <exclusive per channel>, but only <left> available. ...\", NET-9's message). From 1.14 a "
             "request of 0 is none; in 1.13 it is NetworkBufferPool.requestMemorySegments' "
             "IllegalArgumentException(\"Number of buffers to request must be larger than 0.\"). A local channel "
             "requests no exclusive buffers.",
             "SingleInputGateFactory.createKnownInputChannel, InputChannel.setup, SingleInputGate"
             ".convertRecoveredInputChannels, RemoteRecoveredInputChannel.toInputChannelInternal, RemoteInputChannel"
             ".setup, BufferManager.requestExclusiveBuffers, NetworkBufferPool.requestUnpooledMemorySegments (1.13: "
             "requestMemorySegments), LocalRecoveredInputChannel"),
    Declared("NET-15",
             "From 1.17 a gate of n channels (remote and local) consuming a partition of type t is sized by "
             "InputGateSpecUtils.createGateBuffersSpec, with b buffers per channel and f floating buffers per gate "
             "in int arithmetic: its required buffers are min(threshold, n * b + 1), the threshold Integer.MAX_VALUE"
             " when t is PIPELINED, PIPELINED_BOUNDED or hybrid and 1000 otherwise (PIPELINED_APPROXIMATE and "
             "blocking ones); its exclusive buffers per channel min(b, (required - 1) / n); its floating pool's "
             "minimum required - n * exclusive and maximum n * b + f - n * exclusive.",
             "InputGateSpecUtils.createGateBuffersSpec, GateBuffersSpec, SingleInputGateFactory.create",
             since="1.17"),
    Declared("NET-16",
             "From 1.17 a gate whose required buffers are below 1 is IllegalArgumentException(\"Require at least 1 "
             "buffer per gate.\"), and one whose floating minimum is not positive or above its maximum "
             "IllegalStateException(\"Must be positive.\" / \"Wrong number of floating buffers.\"); gates are "
             "sized when the task is built (NettyShuffleEnvironment.createInputGates), so this comes before any "
             "pool is created.",
             "InputGateSpecUtils.createGateBuffersSpec, getExclusiveBuffersPerChannel", since="1.17"),
    Declared("NET-17",
             "From 1.16 a result partition can be HYBRID_FULL or HYBRID_SELECTIVE (before, no such type): neither "
             "bounded nor blocking, its pool is a PIPELINED one's (minimum subpartitions + 1, maximum "
             "Integer.MAX_VALUE) as long as no tiered storage is configured.",
             "ResultPartitionType, NettyShuffleUtils.getMinMaxNetworkBuffersPerResultPartition", since="1.16"),
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
EXCLUSIVE_ZERO_SKIPPED = Change(
    since="1.14", what="a remote channel with 0 buffers per channel requests no exclusive buffers (before: "
    "NetworkBufferPool.requestMemorySegments' IllegalArgumentException \"Number of buffers to request must be "
    "larger than 0.\")",
    witnesses=({"config": {**_P["config"], BUFFERS_PER_CHANNEL.key: "0"}, "gates": [{"channels": 1}]},))
HYBRID_PARTITIONS = Change(
    since="1.16", what="result partitions and input gates of type HYBRID_FULL and HYBRID_SELECTIVE (before: no such"
    " type)",
    witnesses=({**_P, "partitions": [{"subpartitions": 4, "type": "HYBRID_FULL"}]},))
GATE_SPEC = Change(
    since="1.17", what="an input gate is sized by InputGateSpecUtils: a batch gate requires at most 1000 buffers, its "
    "channels' exclusive buffers drop (to 0) to stay below that, and the rest of its buffers are its floating pool's "
    "minimum; local channels count among its channels (before: a floating pool of minimum 1 and maximum floating-"
    "buffers-per-gate, buffers-per-channel exclusive buffers per remote channel)",
    witnesses=({**_P, "gates": [{"channels": 600, "type": "BLOCKING"}]},
               {**_P, "gates": [{"channels": 1, "local": 999, "type": "BLOCKING"}]}))
CHANGES: dict[str, tuple[Change, ...]] = {NETWORK: (MAX_AT_LEAST_MIN, EXCLUSIVE_ZERO_SKIPPED, SORT_SHUFFLE_DEFAULTS,
                                                    SORT_SHUFFLE_CAP, OVERDRAFT_OPTION, HYBRID_PARTITIONS,
                                                    FLOATING_AT_LEAST_ONE, GATE_SPEC, OPTIONS_REMOVED)}

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
SKIPS_ZERO_EXCLUSIVE: Mapping[FlinkVersion, bool] = EXCLUSIVE_ZERO_SKIPPED.table(False, True)
HAS_HYBRID: Mapping[FlinkVersion, bool] = HYBRID_PARTITIONS.table(False, True)
SIZED_BY_SPEC: Mapping[FlinkVersion, bool] = GATE_SPEC.table(False, True)


def partition_types(version: FlinkVersion) -> tuple[str, ...]:
    """The ResultPartitionTypes of ``version`` that the area takes (NET-17: hybrid ones from 1.16)."""
    return TYPES + (HYBRID_TYPES if pick(HAS_HYBRID, version) else ())


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
    """NET-6, NET-7, NET-8: the (minimum, maximum) of a result partition's pool (in 1.13 the maximum can be below
    the minimum: :func:`create_pool` refuses it)."""
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
    return minimum, maximum


def gate_buffers(remote: int, local: int, kind: str, opts: Mapping[str, int], version: FlinkVersion,
                 ) -> tuple[int, int, int]:
    """NET-13, NET-15, NET-16: a gate's floating pool's (minimum, maximum) and its remote channels' exclusive buffers
    each, or (1.17+) InputGateSpecUtils' exception."""
    per_channel, floating = opts["buffers_per_channel"], opts["floating_per_gate"]
    if not pick(SIZED_BY_SPEC, version):
        return 1, floating, per_channel
    channels = remote + local
    threshold = INT_MAX if kind in STREAM_GATE or kind in HYBRID else BATCH_GATE_MAX_REQUIRED
    required = min(threshold, java_int(channels * per_channel + 1))
    if required < 1:
        raise IllegalArgumentException("Require at least 1 buffer per gate.")
    exclusive = min(per_channel, (required - 1) // channels)
    per_gate = java_int(channels * exclusive)
    floating_min = java_int(required - per_gate)
    floating_max = java_int(java_int(channels * per_channel + floating) - per_gate)
    if floating_min <= 0:
        raise IllegalStateException("Must be positive.")
    if floating_min > floating_max:
        raise IllegalStateException("Wrong number of floating buffers.")
    return floating_min, floating_max, exclusive


def insufficient(required: int, left: int, total: int, page: int) -> JavaException:
    """NET-9: ``NetworkBufferPool``'s IOException for a pool it cannot create."""
    return IOException(f"Insufficient number of network buffers: required {required}, but only {left} available. "
                        f"The total number of network buffers is currently set to {total} of {page} bytes each. You "
                        "can increase this number by setting the configuration keys 'taskmanager.memory.network"
                        ".fraction', 'taskmanager.memory.network.min', and 'taskmanager.memory.network.max'.")


def fits(reserved: int, minimum: int, total: int) -> bool:
    """NET-9: whether a pool of ``minimum`` buffers can be created after ``reserved`` of ``total`` are taken."""
    return reserved + minimum <= total


def create_pool(reserved: int, minimum: int, maximum: int, total: int, page: int) -> JavaException | None:
    """NET-9, NET-8: ``NetworkBufferPool.internalCreateBufferPool``'s refusal of a pool, if any: first the fit, then
    ``LocalBufferPool``'s check of its maximum against its minimum."""
    if not fits(reserved, minimum, total):
        return insufficient(minimum, total - reserved, total, page)
    if maximum < minimum:
        return IllegalArgumentException(f"Maximum number of memory segments ({maximum}) should not be smaller than "
                                        f"minimum ({minimum}).")
    return None


def _type(item: Mapping[str, Any], where: str, version: FlinkVersion, default: str | None = None) -> str:
    kind = field(item, "type", str, where) if default is None or item.get("type") is not None else default
    types = partition_types(version)
    if kind not in types:
        raise BadRequest(f"{where}.type: {kind!r} is no partition type of {version} (one of {', '.join(types)})")
    return kind


def _partitions(inp: Mapping[str, Any], version: FlinkVersion) -> list[tuple[int, str]]:
    raw = field(inp, "partitions", list, "input") if inp.get("partitions") is not None else []
    out: list[tuple[int, str]] = []
    for i, item in enumerate(raw):
        where = f"input.partitions[{i}]"
        n = field(item, "subpartitions", int, where)
        if isinstance(n, bool) or not 1 <= n <= INT_MAX:
            raise BadRequest(f"{where}.subpartitions must be an integer in [1, {INT_MAX}]")
        out.append((n, _type(item, where, version)))
    return out


def _count(item: Mapping[str, Any], key: str, where: str) -> int:
    n = item.get(key, 0)
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= INT_MAX:
        raise BadRequest(f"{where}.{key} must be an integer in [0, {INT_MAX}]")
    return n


def _gates(inp: Mapping[str, Any], version: FlinkVersion) -> list[tuple[int, int, str]]:
    """Each input gate's remote and local channel counts and consumed partition type (``input.gates[i]``)."""
    raw = field(inp, "gates", list, "input") if inp.get("gates") is not None else []
    out: list[tuple[int, int, str]] = []
    for i, item in enumerate(raw):
        where = f"input.gates[{i}]"
        if not isinstance(item, Mapping):
            raise BadRequest(f"{where} must be an object")
        field(item, "channels", int, where)
        remote, local = _count(item, "channels", where), _count(item, "local", where)
        if not 1 <= remote + local <= INT_MAX:
            raise BadRequest(f"{where}: channels + local must be in [1, {INT_MAX}]")
        out.append((remote, local, _type(item, where, version, GATE_DEFAULT_TYPE)))
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
    """A TaskManager's network buffers, its task's result partitions' pools and its input gates' buffers, or Flink's
    exception."""
    config = _config(inp)
    partitions = _partitions(inp, version)
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
    if gates and opts["buffers_per_channel"] < 0:
        raise NotModelled("input.config", "negative buffers per channel with input gates")
    sized = pick(SIZED_BY_SPEC, version)
    specs: list[tuple[int, int, int]] = []
    for i, (remote, local, kind) in enumerate(gates):  # built with the task, before any pool (NET-16)
        at("gates", i)
        because(*(("NET-15", "NET-16") if sized else ("NET-13",)))
        try:
            specs.append(gate_buffers(remote, local, kind, opts, version))
        except JavaException as exc:
            return _rejected(exc, "NET-16", "NET-15")
    pools: list[dict[str, int]] = []
    required = 0
    for i, (n, kind) in enumerate(partitions):
        at("partitions", i, "min")
        because("NET-6", *(("NET-17",) if kind in HYBRID else ()))
        at("partitions", i, "max")
        because("NET-7", "NET-8")
        minimum, maximum = partition_pool(n, kind, opts, version)
        at("partitions", i)
        because("NET-9")
        refused = create_pool(required, minimum, maximum, total, page)
        if refused is not None:
            return _rejected(refused, *(("NET-9", "NET-6") if isinstance(refused, IOException) else ("NET-8", "NET-7")))
        required += minimum
        pools.append({"min": minimum, "max": maximum})
    pool_rule = "NET-15" if sized else "NET-13"
    for i, (floating_min, floating_max, _) in enumerate(specs):
        at("gates", i, "floating_min")
        because(pool_rule)
        at("gates", i, "floating_max")
        because(pool_rule, "NET-4")
        at("gates", i)
        because(pool_rule, "NET-9")
        refused = create_pool(required, floating_min, floating_max, total, page)
        if refused is not None:
            return _rejected(refused, pool_rule, "NET-9" if isinstance(refused, IOException) else "NET-4")
        required += floating_min
    gate_out: list[dict[str, int]] = []
    for i, ((remote, _, _), (floating_min, floating_max, per_channel)) in enumerate(zip(gates, specs, strict=True)):
        at("gates", i, "exclusive")
        because("NET-14", pool_rule if sized else "NET-4")
        if per_channel == 0 and remote and not pick(SKIPS_ZERO_EXCLUSIVE, version):
            return _rejected(IllegalArgumentException("Number of buffers to request must be larger than 0."),
                             "NET-14")
        if per_channel:
            if (total - required) // per_channel < remote:
                return _rejected(insufficient(per_channel, total - required - (total - required) // per_channel
                                              * per_channel, total, page), "NET-14", "NET-9")
            required += remote * per_channel
        gate_out.append({"floating_min": floating_min, "floating_max": floating_max,
                         "exclusive_per_channel": per_channel, "exclusive": remote * per_channel})
    at("required")
    because("NET-12", "NET-6", *(("NET-14", pool_rule) if gates else ()))
    at("available")
    because("NET-12", "NET-3")
    out: dict[str, Any] = {"network_memory": network, "buffer_size": page, "network_buffers": total,
                           "partitions": pools}
    if gates:
        out["gates"] = gate_out
    out.update(required=required, available=total - required)
    return out


ENTRIES: dict[str, AreaFn] = {NETWORK: network_area}
