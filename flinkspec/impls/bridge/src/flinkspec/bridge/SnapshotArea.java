package flinkspec.bridge;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.RunnableFuture;
import java.util.stream.Collectors;

import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.heap.HeapKeyedStateBackend;
import org.apache.flink.runtime.state.memory.MemCheckpointStreamFactory;

/**
 * {@code checkpoint.snapshot}: what the snapshots of a keyed state backend hold (docs/protocol/checkpoint-snapshot.md).
 *
 * <p>The backend is Flink's own {@code HeapKeyedStateBackend} (what the {@code hashmap} state backend builds), made by
 * {@code HeapKeyedStateBackendBuilder} as {@link WindowsArea#heapBackend} makes it, with asynchronous snapshots (as
 * {@code HashMapStateBackend} builds it), String keys and one {@code ValueState<String>} named {@code value} in the
 * void namespace, registered on the first put, remove or get. {@code snapshot} is
 * {@code backend.snapshot(id, 0, streamFactory, forCheckpointWithDefaultLocation())}, the synchronous part, its
 * {@code RunnableFuture} kept; {@code run} runs it (the asynchronous part) and reads what it wrote by restoring a
 * second backend from its handle; {@code cancel} is {@code Future.cancel(true)}; {@code complete} is
 * {@code notifyCheckpointComplete}; {@code restore} disposes the backend (which cancels its snapshots not yet run)
 * and replaces it by one restored from that snapshot's handle.
 * The streams are {@code MemCheckpointStreamFactory}'s (the snapshot is bytes in memory).
 */
public final class SnapshotArea implements Area {
    static final String STATE = "value";
    static final int MAX_STATE_SIZE = 16 * 1024 * 1024;

    @Override
    public Object answer(String area, Map<String, Object> input) throws Exception {
        if (!"checkpoint.snapshot".equals(area)) {
            throw new BadRequest("SnapshotArea does not answer " + area);
        }
        if (input.containsKey("backend")) {
            String backend = Json.string(input, "backend", "input");
            if (!backend.equals("hashmap")) {
                throw new BadRequest("input.backend: the oracle does not model the backend '" + backend
                        + "' (only hashmap)");
            }
        }
        Object rawEvents = input.get("events");
        if (!(rawEvents instanceof List)) {
            throw new BadRequest("input.events " + (input.containsKey("events") ? "must be an array" : "is missing"));
        }
        List<Map<String, Object>> events = Reflect.eventObjects(input);
        Map<Long, String> seen = new HashMap<>();  // checkpoint id -> pending | run | cancelled
        for (int i = 0; i < events.size(); i++) {
            check(events.get(i), "input.events[" + i + "]", seen);
        }
        Run run = new Run();
        try {
            List<Object> steps = new ArrayList<>();
            for (Map<String, Object> ev : events) {
                steps.add(run.step(ev));
            }
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("steps", steps);
            return out;
        } finally {
            run.backend.dispose();
        }
    }

    /** The event's shape, and that its checkpoint id names what it must (the oracle's messages). */
    private static void check(Map<String, Object> ev, String where, Map<Long, String> seen) throws BadRequest {
        String kind = Json.string(ev, "kind", where);
        switch (kind) {
            case "put":
                Json.string(ev, "key", where);
                Json.string(ev, "value", where);
                return;
            case "remove":
            case "get":
                Json.string(ev, "key", where);
                return;
            case "complete":
                Json.longOf(ev, "checkpoint", where);
                return;
            case "snapshot": {
                long id = Json.longOf(ev, "checkpoint", where);
                if (seen.containsKey(id)) {
                    throw new BadRequest(where + ".checkpoint " + id + " names an earlier snapshot");
                }
                seen.put(id, "pending");
                return;
            }
            case "run":
            case "cancel": {
                long id = Json.longOf(ev, "checkpoint", where);
                String was = seen.get(id);
                if (was == null) {
                    throw new BadRequest(where + ".checkpoint " + id + " names no earlier snapshot");
                }
                if (was.equals("pending")) {
                    seen.put(id, kind.equals("run") ? "run" : "cancelled");
                }
                return;
            }
            case "restore": {
                long id = Json.longOf(ev, "checkpoint", where);
                if (!"run".equals(seen.get(id))) {
                    throw new BadRequest(where + ".checkpoint " + id
                            + " names no snapshot whose asynchronous part has run (uncancelled)");
                }
                // disposing the old backend cancels its snapshots not yet run (its cancelStreamRegistry)
                seen.replaceAll((k, was) -> was.equals("pending") ? "cancelled" : was);
                return;
            }
            default:
                throw new BadRequest(where + ".kind must be one of put, remove, get, snapshot, run, cancel, "
                        + "complete, restore, got '" + kind + "'");
        }
    }

    /** One backend, replaced on restore, and the snapshots taken so far. */
    private static final class Run {
        HeapKeyedStateBackend<String> backend = backend(Collections.emptyList());
        ValueState<String> state;  // registered on first use
        final Map<Long, RunnableFuture<SnapshotResult<KeyedStateHandle>>> futures = new HashMap<>();

        Object step(Map<String, Object> ev) throws Exception {
            Map<String, Object> out = new LinkedHashMap<>();
            String kind = (String) ev.get("kind");
            switch (kind) {
                case "put":
                    backend.setCurrentKey((String) ev.get("key"));
                    state().update((String) ev.get("value"));
                    break;
                case "remove":
                    backend.setCurrentKey((String) ev.get("key"));
                    state().clear();
                    break;
                case "get":
                    backend.setCurrentKey((String) ev.get("key"));
                    out.put("value", state().value());
                    break;
                case "snapshot": {
                    long id = (Long) ev.get("checkpoint");
                    RunnableFuture<SnapshotResult<KeyedStateHandle>> f = backend.snapshot(id, 0L,
                            new MemCheckpointStreamFactory(MAX_STATE_SIZE),
                            CheckpointOptions.forCheckpointWithDefaultLocation());
                    futures.put(id, f);
                    out.put("done", f.isDone());
                    break;
                }
                case "run": {
                    RunnableFuture<SnapshotResult<KeyedStateHandle>> f = futures.get((Long) ev.get("checkpoint"));
                    f.run();
                    KeyedStateHandle handle;
                    try {
                        handle = f.get().getJobManagerOwnedSnapshot();
                    } catch (CancellationException e) {
                        out.put("cancelled", true);
                        break;
                    }
                    if (handle == null) {
                        out.put("state", null);
                    } else {
                        HeapKeyedStateBackend<String> read = backend(Collections.singletonList(handle));
                        try {
                            out.put("state", contents(read));
                        } finally {
                            read.dispose();
                        }
                    }
                    break;
                }
                case "cancel":
                    out.put("cancelled", futures.get((Long) ev.get("checkpoint")).cancel(true));
                    break;
                case "complete":
                    backend.notifyCheckpointComplete((Long) ev.get("checkpoint"));
                    break;
                case "restore": {
                    KeyedStateHandle handle = futures.get((Long) ev.get("checkpoint")).get()
                            .getJobManagerOwnedSnapshot();
                    backend.dispose();
                    backend = backend(handle == null
                            ? Collections.emptyList() : Collections.singletonList(handle));
                    state = null;
                    out.put("state", contents(backend));
                    break;
                }
                default:
                    throw new IllegalStateException(kind);
            }
            return out;
        }

        ValueState<String> state() throws Exception {
            if (state == null) {
                state = valueState(backend);
            }
            return state;
        }
    }

    static ValueState<String> valueState(HeapKeyedStateBackend<String> backend) throws Exception {
        return backend.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE,
                new ValueStateDescriptor<>(STATE, StringSerializer.INSTANCE));
    }

    /** The backend's whole state, [key, value] sorted by key; the state is read only if it is registered. */
    static List<Object> contents(HeapKeyedStateBackend<String> backend) throws Exception {
        List<String> keys = backend.getKeys(STATE, VoidNamespace.INSTANCE).sorted().collect(Collectors.toList());
        List<Object> out = new ArrayList<>();
        if (keys.isEmpty()) {
            return out;
        }
        ValueState<String> state = valueState(backend);
        for (String key : keys) {
            backend.setCurrentKey(key);
            List<Object> pair = new ArrayList<>();
            pair.add(key);
            pair.add(state.value());
            out.add(pair);
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    static HeapKeyedStateBackend<String> backend(List<KeyedStateHandle> restored) {
        try {
            return (HeapKeyedStateBackend<String>) WindowsArea.heapBackend(restored, true);
        } catch (Exception e) {
            throw new IllegalStateException("cannot build a HeapKeyedStateBackend", e);
        }
    }
}
