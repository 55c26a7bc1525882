"""Delta debugging leaves a 1-minimal request that still fails."""

from flinkspec.judge.reduce import reduce


def test_reduce_removes_events_channels_and_keys() -> None:
    """Only the events that make the failure are kept, unused channels go, indices are renumbered."""
    events = [{"channel": c, "watermark": t} for t in range(5) for c in range(4)]
    events.append({"channel": 3, "status": "IDLE"})
    req = {"area": "watermark.valve", "input": {"channels": 4, "events": events}}

    def fails(r: dict) -> bool:  # "fails" when some channel goes idle after a watermark 3 on it
        seen = set()
        for e in r["input"]["events"]:
            if e.get("watermark") == 3:
                seen.add(e["channel"])
            if e.get("status") == "IDLE" and e["channel"] in seen:
                return True
        return False

    small = reduce(req, fails)
    assert small["input"] == {"channels": 1, "events": [{"channel": 0, "watermark": 3},
                                                        {"channel": 0, "status": "IDLE"}]}


def test_reduce_drops_the_optional_keys_the_failure_does_not_need() -> None:
    """An input key the failure does without goes (watermark.output's chain: an idle timeout, a flag); one it needs
    (or the oracle needs: a required key's removal is refused as malformed, so it does not fail) stays."""
    events = [{"kind": "status", "status": "idle"}]
    inp = {"chain": "assigner", "generator": "bounded", "out_of_orderness_ms": 0, "idle_timeout_ms": 1,
           "auto_watermark_interval_ms": 1, "emit_progressive": False, "events": events}
    needed = ("chain", "generator", "out_of_orderness_ms", "auto_watermark_interval_ms")
    small = reduce({"area": "watermark.output", "input": inp},
                   lambda r: all(k in r["input"] for k in needed) and r["input"]["events"] == events)
    assert small["input"] == {k: inp[k] for k in (*needed, "events")}


def test_reduce_drops_config_keys() -> None:
    """Configuration keys that do not matter are removed."""
    req = {"area": "memory.taskmanager", "input": {"config": {"a": "1", "b": "2", "c": "3"}}}
    assert reduce(req, lambda r: "b" in r["input"]["config"])["input"]["config"] == {"b": "2"}


def test_reduce_drops_coordinator_tasks_with_their_events() -> None:
    """A task the failure does not need goes, with its acks, and from ``sources``."""
    events = [{"at": 0, "trigger": "periodic"}, *({"at": 0, "ack": t, "checkpoint": 1} for t in ("t0", "t1", "t2")),
              {"at": 5, "fail": "t1"}]
    req = {"area": "checkpoint.coordinator",
           "input": {"config": {}, "tasks": ["t0", "t1", "t2"], "sources": ["t1"], "events": events}}

    def fails(r: dict) -> bool:  # "fails" while t2 acks checkpoint 1 after a trigger
        evs = r["input"]["events"]
        return {"at": 0, "trigger": "periodic"} in evs and {"at": 0, "ack": "t2", "checkpoint": 1} in evs

    small = reduce(req, fails)
    assert small["input"] == {"config": {}, "tasks": ["t2"], "events": [{"at": 0, "trigger": "periodic"},
                                                                         {"at": 0, "ack": "t2", "checkpoint": 1}]}


def test_reduce_drops_sources_the_failure_does_not_need() -> None:
    """``sources`` naming the only task says what its absence says: it goes."""
    events = [{"at": 0, "trigger": "savepoint"}, {"at": 0, "decline": "t0", "checkpoint": 1}]
    req = {"area": "checkpoint.coordinator",
           "input": {"config": {}, "tasks": ["t0"], "sources": ["t0"], "events": events}}
    small = reduce(req, lambda r: len(r["input"]["events"]) == 2)
    assert small["input"] == {"config": {}, "tasks": ["t0"], "events": events}
