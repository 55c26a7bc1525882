"""Delta debugging leaves a 1-minimal request that still fails."""

from flinkspec.reduce import reduce


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


def test_reduce_drops_config_keys() -> None:
    """Configuration keys that do not matter are removed."""
    req = {"area": "memory.taskmanager", "input": {"config": {"a": "1", "b": "2", "c": "3"}}}
    assert reduce(req, lambda r: "b" in r["input"]["config"])["input"]["config"] == {"b": "2"}
