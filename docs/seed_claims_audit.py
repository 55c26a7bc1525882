"""Writes docs/seed-claims-audit.md: each claim that SEED_CLAIMS.md (the steering repo's shared/ list of the
seeds' checkable claims) marks NONE, with the rule that covers it now or why no rule can check it.

    python docs/seed_claims_audit.py /work/shared/SEED_CLAIMS.md > docs/seed-claims-audit.md

The decisions are data below, one per claim, keyed by the claim's exact text. The script fails (exit 1)
when a NONE claim has no decision, a decision's claim is not a NONE claim any more, or a decision names a
rule the registry (`flinkspec rules`) does not hold; so the audit cannot silently drift from either.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

COVERED, NEW, NOT_YET, NOT_CHECKABLE = "covered now", "new rule", "not yet covered", "not checkable"

# claim -> (decision, rule IDs, why / how)
DECISIONS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "network memory is carved into network buffers (buffers-per-channel, floating)": (
        NEW, ("MNB-2", "MNB-3", "MNB-4", "MNB-6", "MNB-8", "NET-3", "NET-4", "NET-7", "NET-9", "NET-13", "NET-14",
              "NET-15"),
        "memory.network answers how "
        "a TaskManager's network memory is carved into buffers of the segment size (MNB-2, NET-3) and what a task's "
        "result partitions take of them: each pool's required buffers (MNB-3), its maximum of buffers-per-channel x "
        "subpartitions + floating buffers (MNB-6, NET-4, NET-7), and whether the pools fit (MNB-4, NET-9). And the "
        "input gates: until 1.16 each remote channel's buffers-per-channel exclusive buffers and each gate's floating "
        "pool of at most floating-buffers-per-gate (MNB-8, NET-13, NET-14); from 1.17 InputGateSpecUtils caps a batch "
        "gate at 1000 required buffers, its channels' exclusive buffers dropping (NET-15; Flink then breaks MNB-8)."),
    "managed memory shared by sort/hash/RocksDB consumers (consumer weights)": (
        NEW, ("MMC-3", "MMC-5", "MCW-3", "MCW-6", "MCW-7"), "memory.consumers answers the share of a slot's managed "
        "memory each kind of consumer (OPERATOR: sort, hash and the other batch operators; STATE_BACKEND: RocksDB; "
        "PYTHON) and each operator gets from taskmanager.memory.managed.consumer-weights (MMC-3 and MCW-6: "
        "proportional to the weights of the kinds in the slot; MMC-5: a state backend without managed memory gets "
        "none; MCW-3: the consumer names; MCW-7: operators of one kind by their own weights)."),
    "commit phase: notifyCheckpointComplete broadcast to all vertices": (
        NEW, ("CCR-11", "CCR-12", "CC-20", "CC-21"), "checkpoint.coordinator's steps show the notifications sent to "
        "the tasks (protocol 4, notified): CCR-11 and CC-20, every task is told to commit a completed checkpoint "
        "in the step it completes (1.15+: with the last subsumed checkpoint; not for an intermediate savepoint); "
        "CCR-12 and CC-21, every task is told of every aborted checkpoint."),
    "trigger refused when coordinator shut down / timer cancelled": (
        NEW, ("CCR-13", "CC-22", "CC-23"), "The shutdown and stop_scheduler events (protocol 4): CCR-13 and CC-22, "
        "after a shutdown nothing is pending and every trigger is refused CHECKPOINT_COORDINATOR_SHUTDOWN; CC-23, "
        "once the periodic scheduler is stopped (its timer cancelled) a periodic trigger is refused "
        "PERIODIC_SCHEDULER_SHUTDOWN."),
    "id-counter failure aborts trigger": (
        NEW, ("CCR-13", "CC-24"), "The id_counter event (protocol 4) makes the checkpoint ID counter fail: CCR-13, no "
        "checkpoint is triggered afterwards; CC-24, the trigger fails TRIGGER_CHECKPOINT_FAILURE without an id."),
    "savepoint/externalized metadata written to FS; ZK holds handle": (
        NEW, ("CSR-7", "CSR-8", "CST-11", "CST-12", "CHA-2", "HA-1", "HA-2"), "The file-system half: "
        "checkpoint.storage answers where a checkpoint's and a savepoint's metadata file go (CSR-7 and CST-11: "
        "<dir>/<job id>/chk-N/_metadata; CSR-8 and CST-12: <savepoint dir>/savepoint-<short job id>-<random>/"
        "_metadata). The ZooKeeper half: checkpoint.ha (every release; before 1.17 with the distribution's "
        "lib/flink-shaded-zookeeper) drives the completed checkpoint store against an in-process ZooKeeper: "
        "CHA-2, every checkpoint znode holds a RetrievableStreamStateHandle of a file under "
        "high-availability.storageDir, which is there; HA-1, the znode paths (/<root>/<cluster-id>/<job id>/"
        "checkpoints/<id as 19 digits>); HA-2, the metadata file "
        "<storageDir>/<cluster-id>/completedCheckpoint<random>."),
    "snapshots stored in configurable place (JM memory default / HDFS)": (
        NEW, ("CSR-2", "CSR-3", "CSR-6", "CST-1", "CST-3"), "checkpoint.storage answers which state backend and "
        "checkpoint storage Flink builds from a configuration: CSR-2 (the JobManager's memory when no checkpoint "
        "directory is configured, else the file system), CSR-3 (the storage's shortcut names), CSR-6 (the memory "
        "storage's limits), CST-1 and CST-3 (the keys of each release)."),
    "async snapshots (copy-on-write, keep processing)": (
        NEW, ("CSN-3", "KSS-2", "KSS-3"), "checkpoint.snapshot: the heap backend's snapshot takes a copy-on-write "
        "snapshot of its state tables in the synchronous part (KSS-2) and writes that state in the asynchronous part "
        "however the state changed since (KSS-3); CSN-3, puts and removes after the synchronous part do not change "
        "what the snapshot holds. The seed names RocksDB as the copy-on-write example; the area checks the heap "
        "backend's CopyOnWriteStateTable."),
    "incremental snapshots restored as base + increments": (
        NEW, ("CSN-5", "CSN-8", "CSN-9", "KSS-9", "KSS-10", "KSS-11", "KSS-12", "KSS-13"), "checkpoint.snapshot with "
        "\"backend\": \"rocksdb\" (feature checkpoint.snapshot.rocksdb): Flink's RocksDBKeyedStateBackend with "
        "incremental checkpoints; a run snapshot answers how many SST files it uploads and how many it refers to as "
        "placeholders, the files of the last completed checkpoint (KSS-9 ... KSS-11; CSN-8: nothing to build on "
        "before a completion, CSN-9: a snapshot after a completed one uploads only the changes since); a restore "
        "resolves the placeholders through Flink's SharedStateRegistry and gives the full state, base and increments "
        "(KSS-13, CSN-5). Real Flink adds that from 2.0.2 / 2.1.2 / 2.2.0 the base leaves out files a later "
        "checkpoint uploaded again (KSS-12)."),
    "snapshot = sync + async FutureTask, cancelable": (
        NEW, ("CSN-2", "CSN-4", "KSS-2", "KSS-5", "KSS-8"), "checkpoint.snapshot: the backend's snapshot returns a "
        "RunnableFuture (a FutureTask, AsyncSnapshotCallable.AsyncSnapshotTask) not yet done after the synchronous "
        "part (KSS-2, CSN-2); cancelled before it runs, it yields no snapshot, after it ran cancel fails (KSS-5, "
        "CSN-4); disposing the backend cancels the tasks not yet run (KSS-8)."),
    "classloader.fail-on-metaspace-oom-error=true -> fatal on Metaspace OOM": (
        NEW, ("CLC-3", "CLL-7", "CLL-8"), "classloading.lifecycle plants classes whose loading throws any Throwable "
        "(a Metaspace OutOfMemoryError among them) and answers what the class-loading exception handler received "
        "and whether it made it fatal: CLC-3 (the documented option), CLL-7 (which messages are a Metaspace OOM in "
        "each release), CLL-8 (the message it is rethrown with)."),
    "classloader.check-leaked-classloader=true -> use after close fails": (
        NEW, ("CLC-2", "CLL-1", "CLL-2", "CLL-3"), "classloading.lifecycle closes the loader between lookups: CLC-2 "
        "(with the check on, a lookup after close fails), CLL-1 (Flink's IllegalStateException), CLL-2 (the check "
        "off: what a closed URLClassLoader still answers), CLL-3 (Class.forName of a class the JVM already "
        "recorded succeeds even with the check on)."),
    "loadClass under per-name lock; exception handler sees every Throwable, rethrows": (
        NEW, ("CLL-4", "CLL-5", "CLL-9"), "The handler half: classloading.lifecycle answers every Throwable the "
        "handler receives, in order: CLL-4 (every Throwable leaving loadClass, a ClassNotFoundException too, "
        "rethrown as it is), CLL-5 (once more per loadClass it leaves, as for a superclass), CLL-9 (a static "
        "initializer's never). The per-name lock is not observable: the protocol's operations run one at a time."),
    "registerAsParallelCapable": (
        NEW, ("CLL-13",), "classloading.lifecycle answers parallel_capable (protocol 4 feature "
        "classloading.lifecycle.parallel-capable), ClassLoader.isRegisteredAsParallelCapable() of the loader Flink "
        "builds: CLL-13. The claim holds from 1.15 only: in 1.13-1.14 FlinkUserCodeClassLoader does not register, so "
        "the JDK refuses its subclasses' registerAsParallelCapable() and the loader is parallel capable only with "
        "classloader.check-leaked-classloader true (the SafetyNetWrapperClassLoader, a URLClassLoader)."),
    "resolve -> resolveClass": (NOT_CHECKABLE, (), "No observation can check it: on JDK 17 "
                                "ClassLoader.resolveClass(c) does nothing but throw NullPointerException for a null "
                                "c (the JVM links a class when it needs to, whether or not resolveClass was called)."),
    "RecordWriterOutput blocks watermarks while task IDLE": (
        NEW, ("WMO-2", "RWO-2", "RWO-3", "RWO-7", "WM-6"), "watermark.output drives Flink's RecordWriterOutput over "
        "its RecordWriter and decodes what it serializes: no watermark leaves while the task is idle (WMO-2, RWO-2: "
        "from 1.14 its announcedStatus, in 1.13 the operator chain's status it asks), a status leaves only when it "
        "changes (RWO-3); records and latency markers pass (WMO-4). With a TimestampsAndWatermarksOperator chained in "
        "front (RWO-7), an upstream IDLE holds back the operator's watermarks in 1.13 ... 1.14.4. At the valve, whose "
        "output status the task's output follows, WM-6 (docs/protocol/watermark-output.md)."),
    "finished source sends MAX_WATERMARK, not IDLE": (
        NEW, ("WMO-3", "RWO-5", "RWO-6"), "watermark.output's end event runs a source task's own "
        "advanceToEndOfEventTime: Long.MAX_VALUE and no IDLE status (WMO-3). Real Flink breaks it in every release "
        "when the output is idle at the end: the watermark goes out with no ACTIVE status first and RecordWriterOutput "
        "drops it (RWO-5, SourceOperatorStreamTask; RWO-6, a legacy SourceStreamTask from 1.14.0, FLINK-23808; 1.13's "
        "StreamSource marks ACTIVE first); FLINK-40499, open, proposes the fix (docs/documented-rules.md)."),
    "window/interval-join/KeyedCoProcess firing on watermark": (
        NEW, ("WMW-2", "WMW-6", "WW-5", "WW-7", "WMJ-5", "IJ-5", "IJ-6"), "The window half: watermark.windows "
        "drives Flink's WindowOperator with the EventTimeTrigger: WMW-2, a window fires only once the watermark has "
        "passed its end; WMW-6, it fires once when the watermark passes its end; WW-5 and WW-7, the element and "
        "watermark paths that fire it. The interval join: watermark.join drives Flink's IntervalJoinOperator, whose "
        "cleanup timers fire once the least of its two inputs' watermarks reaches them (IJ-5, IJ-6, WMJ-5). "
        "KeyedCoProcessFunction is not modelled yet; the timers it registers fire by TIMER-2 and TIMER-3."),
    "TimestampsAndWatermarksOperator ignores upstream wm except MAX": (
        NEW, ("WMS-4", "TWO-6", "TWO-3"), "watermark.assigner: TimestampsAndWatermarksOperator.processWatermark drops "
        "every upstream watermark but Long.MAX_VALUE, which goes through its WatermarkEmitter (so once: TWO-3); "
        "upstream watermarks are overwritten (WMS-4); upstream statuses are dropped too from 1.14.5 (TWO-7, "
        "FLINK-26708) (docs/protocol/watermark-assigner.md)."),
    "AsyncWaitOperator: watermark completed entry, emits at once if queue head": (
        NEW, ("WMA-6", "AQ-3", "AQ-4", "AQ-6"), "watermark.async: a watermark is done when put (AQ-3, AQ-4) and the "
        "operator emits completed elements after putting it (AQ-6); WMA-6, a watermark taken when every earlier "
        "request has completed is emitted in that step. The operator's loop is the bridge's own around Flink's "
        "queues (docs/protocol/watermark-async.md)."),
    "ordered queue: watermark in FIFO": (
        NEW, ("WMA-2", "AQ-3"), "watermark.async: OrderedStreamElementQueue is one FIFO of records and watermarks "
        "(AQ-3); WMA-2, ordered mode emits results and watermarks in the order the operator took them."),
    "unordered queue: watermark segment of capacity 1, no reordering across it": (
        NEW, ("WMA-3", "AQ-4"), "watermark.async: UnorderedStreamElementQueue's segments, a watermark in a segment "
        "of its own between the records' (AQ-4); WMA-3, no record is emitted across a watermark."),
}

# claims SEED_CLAIMS.md counts covered (by the oracle or the -EQ rule only, or partly) that a documented rule
# of issue 18 now checks as well
STRENGTHENED: dict[str, tuple[str, ...]] = {
    "task heap unset -> network fraction 0.1 first, heap = remainder": ("TM-12",),
    "network = capped fraction of Flink memory (min/max/fraction)": ("TM-12",),
    "recover from latest completed checkpoint": ("RCV-5",),
    "recovery: latest k, redeploy, restore, source from S_k": ("RCV-5",),
    "operator emits barrier n after all inputs delivered n": ("ALIGN-8",),
    "at-least-once skips alignment, snapshot when all barriers seen": ("ALIGN-8",),
    "single-input at-least-once still exactly-once": ("RCV-6",),
    "non-savepoints stored in CompletedCheckpointStore": ("CCR-10",),
}

_SECTION = re.compile(r"^## (\d{3}) ")
_ROW = re.compile(r"^\| (.+?) \| (.+) \|$")


def claims(text: str) -> list[tuple[str, str, str]]:
    """(seed, claim, covered-by) for every row of every seed's table."""
    out, seed = [], ""
    for line in text.splitlines():
        if m := _SECTION.match(line):
            seed = m.group(1)
        elif (m := _ROW.match(line)) and seed and m.group(1) not in ("claim", "---"):
            out.append((seed, m.group(1), m.group(2)))
    return out


def problems(rows: list[tuple[str, str, str]], known_rules: set[str]) -> list[str]:
    none = {claim for _, claim, covered in rows if covered.startswith("NONE")}
    every = {claim for _, claim, _ in rows}
    found = [f"NONE claim without a decision: {c!r}" for c in sorted(none - DECISIONS.keys())]
    found += [f"decision for a claim that is not NONE: {c!r}" for c in sorted(DECISIONS.keys() - none)]
    found += [f"strengthened claim not in the list: {c!r}" for c in sorted(STRENGTHENED.keys() - every)]
    rules = {r for _, ids, _ in DECISIONS.values() for r in ids} | {r for ids in STRENGTHENED.values() for r in ids}
    found += [f"unknown rule {r}" for r in sorted(rules - known_rules)]
    return found


def render(rows: list[tuple[str, str, str]], source: str) -> str:
    none = [(seed, claim) for seed, claim, covered in rows if covered.startswith("NONE")]
    counts = {d: sum(DECISIONS[c][0] == d for _, c in none) for d in (COVERED, NEW, NOT_YET, NOT_CHECKABLE)}
    lines = [
        "# Audit of the seed claims no rule covered",
        "",
        f"Generated by `python docs/seed_claims_audit.py {source}` from the steering repo's SEED_CLAIMS.md (issue 18). "
        f"Each of its {len(none)} NONE claims: {counts[COVERED]} covered by an existing rule, {counts[NEW]} by a new "
        f"rule, {counts[NOT_YET]} not yet covered (Flink's classes show it, but no area models it yet) and "
        f"{counts[NOT_CHECKABLE]} not checkable (no observation of Flink's classes can tell it).",
        "",
        "| seed | claim | decision | rule, or why not checkable |",
        "|---|---|---|---|",
    ]
    for seed, claim in none:
        decision, ids, why = DECISIONS[claim]
        lines.append(f"| {seed} | {claim} | {decision} | {', '.join(ids) + ': ' if ids else ''}{why} |")
    lines += ["", "## Claims that a documented rule of issue 18 now checks more exactly", "",
              "| seed | claim | SEED_CLAIMS.md | documented rule now |", "|---|---|---|---|"]
    lines += [f"| {seed} | {claim} | {covered} | {', '.join(STRENGTHENED[claim])} |"
              for seed, claim, covered in rows if claim in STRENGTHENED]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    from properties.areas import all_rules

    rows = claims(Path(argv[0]).read_text())
    found = problems(rows, set(all_rules()))
    if found:
        print("\n".join(found), file=sys.stderr)
        return 1
    sys.stdout.write(render(rows, argv[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
