"""flinkspec memory: what Flink derives from a memory configuration, as its startup log shows it.

    flinkspec memory -D taskmanager.memory.process.size=4g
    flinkspec memory --jobmanager --config conf/config.yaml --flink 1.17
    flinkspec memory --config conf/flink-conf.yaml -D taskmanager.memory.managed.fraction=0.5 --json
    flinkspec memory -D taskmanager.memory.process.size=4g --impl flink:2.3          # real Flink answers
    flinkspec memory -D taskmanager.memory.process.size=4g --impl flink:lib/flink-dist.jar  # your build
    flinkspec memory -D taskmanager.memory.process.size=1g --partitions 1x200,2x100:BLOCKING  # does it fit?
    flinkspec memory --flink 1.16 --gates 2x100 --partitions 1x200   # with 2 input gates of 100 channels each
    flinkspec memory -D state.backend.type=rocksdb --consumers OPERATOR,STATE_BACKEND,PYTHON  # a slot's shares
    flinkspec memory --gates 1x600:BLOCKING,1x2+3      # a batch gate, and one of 2 remote and 3 local channels

-D options override the file. With --partitions: whether a task with these result partitions fits on
the TaskManager (memory.network): its network buffers and each partition's pool, or Flink's own
"Insufficient number of network buffers" error (exit 1). --gates adds input gates: remote channels, local ones
(+LOCAL) and the consumed partition's type (:TYPE, default PIPELINED_BOUNDED). Exit 0 with the breakdown, 1 when
Flink rejects the
configuration (its exception and message are printed), 2 for bad usage (an unreadable file, an
unknown version). With --consumers, also how a slot's managed memory is shared by the use cases its operators
declare (memory.consumers): the weights read from taskmanager.memory.managed.consumer-weights as that release
reads them, and each use case's fraction of the slot (--operator-weights: each operator's, of those declaring
OPERATOR); weights Flink refuses print its exception (exit 1).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import oracle
from flinkspec.errors import CliError
from flinkspec.impls.flinkconf import ConfigFileError, load, parse_dynamic
from oracle.memory import JOBMANAGER, TASKMANAGER, derive_jobmanager, derive_taskmanager, dynamic_configs
from oracle.memory_consumers import BACKEND_KEYS, CONSUMERS, OPTION, USE_CASES
from oracle.memory_network import NETWORK, partition_types
from oracle.memory_process import JvmArgs
from oracle.memsize import MemorySize
from oracle.protocol import Rejected
from oracle.versions import LATEST, FlinkVersion, UnknownVersion, parse_version

MODES = {
    "fine-grained": "explicit task heap and managed memory",
    "total-flink": "total Flink memory",
    "total-process": "total process memory",
}

TM_LINES = [
    ("Total Process Memory:          ", "total_process"),
    ("  Total Flink Memory:          ", "total_flink"),
    ("    Total JVM Heap Memory:     ", "heap"),
    ("      Framework:               ", "framework_heap"),
    ("      Task:                    ", "task_heap"),
    ("    Total Off-heap Memory:     ", "off_heap_total"),
    ("      Managed:                 ", "managed"),
    ("      Total JVM Direct Memory: ", "direct"),
    ("        Framework:             ", "framework_off_heap"),
    ("        Task:                  ", "task_off_heap"),
    ("        Network:               ", "network"),
    ("  JVM Metaspace:               ", "jvm_metaspace"),
    ("  JVM Overhead:                ", "jvm_overhead"),
]
JM_LINES = [
    ("Total Process Memory: ", "total_process"),
    ("  Total Flink Memory: ", "total_flink"),
    ("    JVM Heap:         ", "heap"),
    ("    Off-heap:         ", "off_heap"),
    ("  JVM Metaspace:      ", "jvm_metaspace"),
    ("  JVM Overhead:       ", "jvm_overhead"),
]


def _human(n: int) -> str:
    return MemorySize(n).to_human_readable_string()


def breakdown(out: Mapping[str, Any], jobmanager: bool) -> list[str]:
    """The lines of Flink's "Final TaskExecutor/Master Memory configuration" log."""
    values = dict(out)
    if not jobmanager:
        values["heap"] = out["framework_heap"] + out["task_heap"]
        values["direct"] = out["framework_off_heap"] + out["task_off_heap"] + out["network"]
        values["off_heap_total"] = out["managed"] + values["direct"]
    title = "Final Master Memory configuration:" if jobmanager else "Final TaskExecutor Memory configuration:"
    return [title] + [f"  {label}{_human(values[key])}" for label, key in (JM_LINES if jobmanager else TM_LINES)]


def jvm_args_text(jvm: JvmArgs) -> str:
    parts = [f"-Xmx{jvm['Xmx']}", f"-Xms{jvm['Xms']}"]
    if "MaxDirectMemorySize" in jvm:
        parts.append(f"-XX:MaxDirectMemorySize={jvm['MaxDirectMemorySize']}")
    parts.append(f"-XX:MaxMetaspaceSize={jvm['MaxMetaspaceSize']}")
    return " ".join(parts)


def version_and_config(flink: str | None, config_file: str | None, dynamic: list[str] | None,
                       ) -> tuple[FlinkVersion, dict[str, str]]:
    """``--flink`` (default: the newest), and ``--config`` overridden by ``-D``; usage errors otherwise."""
    try:
        version = parse_version(flink) if flink else LATEST
    except UnknownVersion as exc:
        raise CliError(f"--flink: {exc}") from None
    try:
        config = load(Path(config_file)) if config_file else {}
        config.update(parse_dynamic(dynamic or []))
    except ConfigFileError as exc:
        raise CliError(str(exc)) from None
    return version, config


def _kind(option: str, kind: str, version: FlinkVersion) -> str:
    kind = kind.upper() or "PIPELINED_BOUNDED"
    types = partition_types(version)
    if kind not in types:
        raise CliError(f"{option}: {kind} is no partition type of Flink {version} ({', '.join(types)})")
    return kind


def partitions_spec(text: str, version: FlinkVersion = LATEST) -> list[dict[str, Any]]:
    """``--partitions COUNTxSUBPARTITIONS[:TYPE],...`` as the protocol's partitions (type: PIPELINED_BOUNDED)."""
    out: list[dict[str, Any]] = []
    for item in filter(None, (p.strip() for p in text.split(","))):
        shape, _, kind = item.partition(":")
        count, x, subs = shape.partition("x")
        if not x or not count.isdigit() or not subs.isdigit() or int(count) < 1 or int(subs) < 1:
            raise CliError(f"--partitions: {item!r} is not COUNTxSUBPARTITIONS[:TYPE] (e.g. 2x100:BLOCKING)")
        kind = _kind("--partitions", kind, version)
        out.extend({"subpartitions": int(subs), "type": kind} for _ in range(int(count)))
    return out


def gates_spec(text: str, version: FlinkVersion = LATEST) -> list[dict[str, Any]]:
    """``--gates COUNTxCHANNELS[+LOCAL][:TYPE],...`` as the protocol's input gates: remote channels, local ones and
    the consumed partition's type (PIPELINED_BOUNDED when not given)."""
    out: list[dict[str, Any]] = []
    for item in filter(None, (p.strip() for p in text.split(","))):
        shape, colon, kind = item.partition(":")
        count, x, channels = shape.partition("x")
        remote, plus, local = channels.partition("+")
        if (not x or not count.isdigit() or not remote.isdigit() or (plus and not local.isdigit())
                or int(count) < 1 or int(remote) + int(local or 0) < 1):
            raise CliError(f"--gates: {item!r} is not COUNTxCHANNELS[+LOCAL][:TYPE] (e.g. 2x100, 1x10+5:BLOCKING)")
        gate: dict[str, Any] = {"channels": int(remote)}
        if plus:
            gate["local"] = int(local)
        if colon:
            gate["type"] = _kind("--gates", kind, version)
        out.extend(dict(gate) for _ in range(int(count)))
    return out


def consumers_spec(text: str) -> list[str]:
    """``--consumers USE_CASE,...``: the use cases a slot's operators declare (distinct, Flink's names)."""
    out: list[str] = []
    for item in filter(None, (p.strip() for p in text.split(","))):
        if item not in USE_CASES:
            raise CliError(f"--consumers: {item!r} is no use case (one of {', '.join(USE_CASES)}, in capitals)")
        if item in out:
            raise CliError(f"--consumers: {item} is named twice")
        out.append(item)
    if not out:
        raise CliError(f"--consumers: name one use case or more ({', '.join(USE_CASES)})")
    return out


def operator_weights_spec(text: str) -> list[int]:
    """``--operator-weights W,...``: the weights of the slot's operators declaring OPERATOR (positive ints)."""
    out: list[int] = []
    for item in filter(None, (p.strip() for p in text.split(","))):
        if not item.isdigit() or not 1 <= int(item) <= 2**31 - 1:
            raise CliError(f"--operator-weights: {item!r} is no operator weight (an integer from 1 to 2147483647)")
        out.append(int(item))
    return out


def consumers_request(args: argparse.Namespace, version: FlinkVersion, config: Mapping[str, str],
                      ) -> dict[str, Any]:
    """The memory.consumers request of ``--consumers``: of the configuration, only what that area reads (the
    weights and the state backend's name; Flink reads nothing else there)."""
    use_cases = consumers_spec(args.consumers)
    inp: dict[str, Any] = {"config": {k: val for k, val in config.items() if k in (*OPTION.keys, *BACKEND_KEYS)},
                           "use_cases": use_cases}
    if args.operator_weights is not None:
        if "OPERATOR" not in use_cases:
            raise CliError("--operator-weights: the operators declare OPERATOR, so --consumers must name it")
        inp["operator_weights"] = operator_weights_spec(args.operator_weights)
    return {"id": 1, "area": CONSUMERS, "flink": str(version), "input": inp}


def ask_consumers(args: argparse.Namespace, request: dict[str, Any]) -> dict[str, Any]:
    """The answer of the oracle or of ``--impl``; a request the area refuses (not modelled) is a usage error."""
    from flinkspec.cli.options import ask_once

    resp = oracle.answer(request) if args.impl == "oracle" else ask_once(args.impl, args.timeout, request)
    err = resp.get("error")
    if err is not None and err.get("type") != "InvalidConfiguration":
        raise CliError(f"--consumers: {err.get('message')}")
    return resp


def consumers_lines(request: Mapping[str, Any], resp: Mapping[str, Any], version: FlinkVersion, who: str,
                    ) -> list[str]:
    """The consumers' shares of a slot's managed memory as text, or Flink's exception for the weights."""
    if "error" in resp:
        err = resp["error"]
        return [f"Flink {version}{who} rejects the managed memory consumer weights (when a task starts):",
                f"{err.get('exception')}: {err.get('message')}"]
    out, inp = resp["output"], request["input"]
    weights = ", ".join(f"{uc} {w}" for uc, w in out["weights"].items()) or "none"
    lines = [f"Managed memory of a slot, shared by its consumers (weights read: {weights}):"]
    lines += [f"  {uc + ':':<15}{fraction}" for uc, fraction in out["fractions"].items()]
    lines += [f"    operator {i} (weight {w}): {fraction}"
              for i, (w, fraction) in enumerate(zip(inp.get("operator_weights", []), out["operator_fractions"],
                                                    strict=True))]
    return lines


def _fit(args: argparse.Namespace) -> int:
    """``--partitions``: whether a task with these result partitions fits on the TaskManager (memory.network)."""
    from flinkspec.cli.options import ask_once
    from flinkspec.impls import spec_pinned_version

    pinned = spec_pinned_version(args.impl) if args.impl != "oracle" else None
    version, config = version_and_config(args.flink or pinned, args.config, args.D)
    partitions = partitions_spec(args.partitions or "", version)
    gates = gates_spec(args.gates or "", version)
    inp: dict[str, Any] = {"config": config, "partitions": partitions}
    if gates:
        inp["gates"] = gates
    request = {"id": 1, "area": NETWORK, "flink": str(version), "input": inp}
    resp = oracle.answer(request) if args.impl == "oracle" else ask_once(args.impl, args.timeout, request)
    who = "" if args.impl == "oracle" else f" ({args.impl})"
    if "error" in resp:
        err = resp["error"]
        if args.json:
            print(json.dumps({"flink": str(version), "fits": False, "error": err}, indent=2))
        elif err.get("type") == "BadRequest":
            raise CliError(str(err.get("message")))
        else:
            what = ("rejects this TaskManager configuration" if err.get("exception") == "IllegalConfigurationException"
                    else "cannot set up the task on this TaskManager")
            print(f"Flink {version}{who} {what}:\n{err.get('exception')}: {err.get('message')}")
        return 1 if err.get("type") != "BadRequest" else 2
    out = resp["output"]
    if args.json:
        print(json.dumps({"flink": str(version), "fits": True, **out}, indent=2))
        return 0
    print(f"Flink {version}{who}: {out['network_buffers']} network buffers of {_human(out['buffer_size'])} "
          f"({_human(out['network_memory'])} of network memory)")
    for i, (part, pool) in enumerate(zip(partitions, out["partitions"], strict=True)):
        top = "unbounded" if pool["max"] == 2**31 - 1 else str(pool["max"])
        print(f"  partition {i}: {part['subpartitions']} subpartitions, {part['type']}: "
              f"requires {pool['min']} buffers, at most {top}")
    for i, (gate, g) in enumerate(zip(gates, out.get("gates") or [], strict=True)):
        local = f" and {gate['local']} local" if gate.get("local") else ""
        kind = f", consuming {gate['type']}" if "type" in gate else ""
        print(f"  input gate {i}: {gate['channels']} remote{local} channels{kind}: {g['exclusive']} exclusive buffers "
              f"({g['exclusive_per_channel']} per channel), a floating pool requiring {g['floating_min']}, at most "
              f"{g['floating_max']}")
    print(f"The task fits: it requires {out['required']} buffers, {out['available']} left.")
    return 0


def cmd_memory(args: argparse.Namespace) -> int:
    if args.consumers is None and args.operator_weights is not None:
        raise CliError("--operator-weights needs --consumers (the use cases of the slot, OPERATOR among them)")
    if args.consumers is not None and (args.jobmanager or args.partitions is not None or args.gates is not None):
        raise CliError("--consumers shares a TaskManager slot's managed memory: not with --jobmanager, --partitions"
                       " or --gates")
    if args.partitions is not None or args.gates is not None:
        return _fit(args)
    if args.impl != "oracle":
        return _memory_by_impl(args)
    version, config = version_and_config(args.flink, args.config, args.D)
    shares = consumers_request(args, version, config) if args.consumers is not None else None
    prefix = "jobmanager.memory." if args.jobmanager else "taskmanager.memory."
    known = _known_keys(args.jobmanager)
    for key in config:
        if key.startswith(prefix) and key not in known:
            print(f"warning: Flink does not know the key {key!r} and ignores it", file=sys.stderr)
    result = (derive_jobmanager if args.jobmanager else derive_taskmanager)(config, version)
    if isinstance(result, Rejected):
        if args.json:
            print(json.dumps({"flink": str(version), "error": result.to_error()}, indent=2))
        else:
            print(f"Flink {version} rejects this configuration:\n{result.exception}: {result.message}")
        return 1
    out = result.to_output()
    answer = ask_consumers(args, shares) if shares is not None else None
    if args.json:
        print(json.dumps({"flink": str(version), "mode": result.mode, **out,
                          "dynamic_configs": dynamic_configs(result), **_consumers_json(answer)}, indent=2))
        return _consumers_exit(answer)
    print(f"Flink {version}, derived from {MODES.get(result.mode, result.mode)}")
    print("\n".join(breakdown(out, args.jobmanager)))
    print(f"JVM arguments: {jvm_args_text(out['jvm_args'])}")
    print(f"Dynamic configs: {dynamic_configs(result)}")
    if shares is not None and answer is not None:
        print("\n".join(consumers_lines(shares, answer, version, "")))
    return _consumers_exit(answer)


def _consumers_json(answer: Mapping[str, Any] | None) -> dict[str, Any]:
    """The JSON of ``--consumers``: its output as ``consumers``, or Flink's rejection as ``consumers_error``."""
    if answer is None:
        return {}
    return {"consumers_error": answer["error"]} if "error" in answer else {"consumers": answer["output"]}


def _consumers_exit(answer: Mapping[str, Any] | None) -> int:
    """1 when Flink rejects the consumer weights, else 0."""
    return 1 if answer is not None and "error" in answer else 0


def _memory_by_impl(args: argparse.Namespace) -> int:
    """The breakdown as ``--impl`` (real Flink, a fork's jar, any implementation) answers it."""
    from flinkspec.cli.options import ask_once
    from flinkspec.impls import spec_pinned_version

    pinned = spec_pinned_version(args.impl)
    version, config = version_and_config(args.flink or pinned, args.config, args.D)
    if pinned and parse_version(pinned) != version:
        raise CliError(f"--flink {args.flink}: the implementation {args.impl} is pinned to Flink {pinned}")
    area = JOBMANAGER if args.jobmanager else TASKMANAGER
    request = {"id": 1, "area": area, "flink": str(version), "input": {"config": config}}
    shares = consumers_request(args, version, config) if args.consumers is not None else None
    resp = ask_once(args.impl, args.timeout, request)
    if "error" in resp:
        err = resp["error"]
        if args.json:
            print(json.dumps({"flink": str(version), "impl": args.impl, "error": err}, indent=2))
        else:
            print(f"Flink {version} ({args.impl}) rejects this configuration:\n"
                  f"{err.get('exception')}: {err.get('message')}")
        return 1
    out = resp["output"]
    answer = ask_consumers(args, shares) if shares is not None else None
    if args.json:
        print(json.dumps({"flink": str(version), "impl": args.impl, **out, **_consumers_json(answer)}, indent=2))
        return _consumers_exit(answer)
    print(f"Flink {version}, as {args.impl} derives it")
    print("\n".join(breakdown(out, args.jobmanager)))
    print(f"JVM arguments: {jvm_args_text(out['jvm_args'])}")
    if shares is not None and answer is not None:
        print("\n".join(consumers_lines(shares, answer, version, f" ({args.impl})")))
    return _consumers_exit(answer)


def _known_keys(jobmanager: bool) -> set[str]:
    from properties.memory.strategies import JM_SIZE_KEYS, TM_FRACTION_KEYS, TM_SIZE_KEYS

    if jobmanager:
        return {*JM_SIZE_KEYS, "jobmanager.memory.jvm-overhead.fraction",
                "jobmanager.memory.enable-jvm-direct-memory-limit"}
    return {*TM_SIZE_KEYS, *TM_FRACTION_KEYS, "taskmanager.memory.segment-size",
            "taskmanager.memory.managed.consumer-weights", "taskmanager.memory.min-segment-size",
            "taskmanager.memory.framework.off-heap.batch-shuffle.size", "taskmanager.memory.size"}


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("memory", allow_abbrev=False,
                       help="the memory Flink derives from a configuration, as its log shows it",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--jobmanager", action="store_true", help="the JobManager (default: the TaskManager)")
    p.add_argument("--flink", help="Flink release X.Y (its newest patch) or X.Y.Z (default: the newest)")
    p.add_argument("--config", help="config.yaml (2.x; nested or flat) or a legacy flink-conf.yaml")
    p.add_argument("-D", action="append", metavar="KEY=VALUE", help="a configuration option (repeatable)")
    p.add_argument("--json", action="store_true", help="print the breakdown (or the rejection) as JSON")
    p.add_argument("--impl", default="oracle",
                   help="who answers: oracle (default), flink:X.Y for real Flink, flink:PATH/flink-dist.jar for a "
                        "fork's own jar, or any --impl of check")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for the answer")
    p.add_argument("--partitions", metavar="NxS[:TYPE],...",
                   help="a task's result partitions: N partitions of S subpartitions each, of TYPE (default "
                        "PIPELINED_BOUNDED): does the task fit on this TaskManager (memory.network)")
    p.add_argument("--gates", metavar="NxC,...",
                   help="a task's input gates: N gates of C remote channels each, +L local ones, :TYPE the consumed "
                   "partition's type (default PIPELINED_BOUNDED), e.g. 2x100,1x10+5:BLOCKING")
    p.add_argument("--consumers", metavar="USE_CASE,...",
                   help="the use cases a slot's operators declare (OPERATOR, STATE_BACKEND, PYTHON): also print how "
                        "the slot's managed memory is shared by them (memory.consumers)")
    p.add_argument("--operator-weights", metavar="W,...",
                   help="with --consumers naming OPERATOR: the weights of the slot's operators declaring it, each "
                        "operator's share printed")
    p.set_defaults(fn=cmd_memory)
