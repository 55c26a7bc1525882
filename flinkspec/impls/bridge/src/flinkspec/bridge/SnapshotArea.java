package flinkspec.bridge;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.RunnableFuture;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.PlaceholderStreamStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.memory.MemCheckpointStreamFactory;
import org.apache.flink.util.InstantiationUtil;

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
 *
 * <p>With {@code "backend": "rocksdb"} the backend is Flink's {@code RocksDBKeyedStateBackend}, made by
 * {@code RocksDBKeyedStateBackendBuilder} (its constructor filled by parameter type) with incremental checkpoints and
 * RocksDB's automatic compactions off, so that each snapshot after writes adds one SST file. A run's answer also
 * counts the shared SST files of its {@code IncrementalRemoteKeyedStateHandle}: those it uploads and those it refers
 * to as {@code PlaceholderStreamStateHandle}s. Its handle, as the JobManager receives it (a serialized copy), is
 * registered with Flink's {@code SharedStateRegistry}, which replaces the placeholders by the handles registered
 * before; that copy is what is read and restored.
 */
public final class SnapshotArea implements Area {
    static final String STATE = "value";
    static final int MAX_STATE_SIZE = 16 * 1024 * 1024;

    @Override
    public Object answer(String area, Map<String, Object> input) throws Exception {
        if (!"checkpoint.snapshot".equals(area)) {
            throw new BadRequest("SnapshotArea does not answer " + area);
        }
        boolean rocks = false;
        if (input.containsKey("backend")) {
            String backend = Json.string(input, "backend", "input");
            if (!backend.equals("hashmap") && !backend.equals("rocksdb")) {
                throw new BadRequest("input.backend: the oracle does not model the backend '" + backend
                        + "' (only hashmap and rocksdb)");
            }
            rocks = backend.equals("rocksdb");
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
        File dir = rocks ? rocksRoot() : null;
        Run run = new Run(dir);
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
            if (dir != null) {
                delete(dir);
            }
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
        final File rocksDir;  // null: the heap backend
        final Object registry;  // the JobManager's SharedStateRegistry (rocksdb)
        AbstractKeyedStateBackend<String> backend;
        ValueState<String> state;  // registered on first use
        final Map<Long, RunnableFuture<SnapshotResult<KeyedStateHandle>>> futures = new HashMap<>();
        final Map<Long, KeyedStateHandle> received = new HashMap<>();  // the handles as the JobManager has them
        final Map<Long, List<Object>> held = new HashMap<>();  // what each run snapshot holds, read from its handle

        Run(File rocksDir) throws Exception {
            this.rocksDir = rocksDir;
            this.registry = rocksDir == null ? null : registry();
            this.backend = backend(null);
        }

        AbstractKeyedStateBackend<String> backend(KeyedStateHandle restored) throws Exception {
            List<KeyedStateHandle> handles = restored == null
                    ? Collections.emptyList() : Collections.singletonList(restored);
            return rocksDir == null ? heap(handles) : rocks(handles, rocksDir);
        }

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
                    long id = (Long) ev.get("checkpoint");
                    RunnableFuture<SnapshotResult<KeyedStateHandle>> f = futures.get(id);
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
                        break;
                    }
                    if (!received.containsKey(id)) {  // the first run: what a run again answers is the same
                        KeyedStateHandle jm = rocksDir == null ? handle : register(handle, id);
                        received.put(id, jm);
                        AbstractKeyedStateBackend<String> read = backend(jm);
                        try {
                            held.put(id, contents(read));
                        } finally {
                            read.dispose();
                        }
                    }
                    out.put("state", held.get(id));
                    if (rocksDir != null) {
                        int[] counts = sharedFiles(handle);
                        out.put("uploaded", counts[0]);
                        out.put("placeholders", counts[1]);
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
                    long id = (Long) ev.get("checkpoint");
                    KeyedStateHandle handle = futures.get(id).get().getJobManagerOwnedSnapshot();
                    backend.dispose();
                    backend = backend(handle == null ? null : received.get(id));
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

        /**
         * What the JobManager does with a task's handle: a serialized copy (the task's own stays as it is), its
         * shared state registered with the registry ({@code registerSharedStates}), placeholders replaced.
         */
        KeyedStateHandle register(KeyedStateHandle handle, long id) throws Exception {
            KeyedStateHandle copy = InstantiationUtil.clone(handle, SnapshotArea.class.getClassLoader());
            for (Method m : copy.getClass().getMethods()) {
                if (m.getName().equals("registerSharedStates")) {
                    if (m.getParameterCount() == 1) {
                        Reflect.call(m, copy, registry);
                    } else {
                        Reflect.call(m, copy, registry, id);
                    }
                    return copy;
                }
            }
            throw new IllegalStateException("no registerSharedStates on " + copy.getClass());
        }
    }

    /** The JobManager's registry of shared state: {@code SharedStateRegistryImpl} (1.15+) or {@code SharedStateRegistry}. */
    static Object registry() throws Exception {
        Class<?> c;
        try {
            c = Class.forName("org.apache.flink.runtime.state.SharedStateRegistryImpl");
        } catch (ClassNotFoundException e) {
            c = Class.forName("org.apache.flink.runtime.state.SharedStateRegistry");
        }
        return c.getConstructor().newInstance();
    }

    /** [uploaded, placeholders]: the shared SST files of an incremental handle, by kind. */
    static int[] sharedFiles(KeyedStateHandle handle) throws Exception {
        Object shared = handle.getClass().getMethod("getSharedState").invoke(handle);
        Collection<?> handles;
        if (shared instanceof Map) {  // 1.13 ... 1.15: StateHandleID -> StreamStateHandle
            handles = ((Map<?, ?>) shared).values();
        } else {  // 1.16+: HandleAndLocalPath
            List<Object> list = new ArrayList<>();
            for (Object o : (Collection<?>) shared) {
                list.add(o.getClass().getMethod("getHandle").invoke(o));
            }
            handles = list;
        }
        int[] counts = new int[2];
        for (Object h : handles) {
            counts[h instanceof PlaceholderStreamStateHandle ? 1 : 0]++;
        }
        return counts;
    }

    static ValueState<String> valueState(AbstractKeyedStateBackend<String> backend) throws Exception {
        return backend.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE,
                new ValueStateDescriptor<>(STATE, StringSerializer.INSTANCE));
    }

    /** The backend's whole state, [key, value] sorted by key; the state is read only if it is registered. */
    static List<Object> contents(AbstractKeyedStateBackend<String> backend) throws Exception {
        List<String> keys;
        try (Stream<String> all = backend.getKeys(STATE, VoidNamespace.INSTANCE)) {
            keys = all.sorted().collect(Collectors.toList());
        }
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
    static AbstractKeyedStateBackend<String> heap(List<KeyedStateHandle> restored) {
        try {
            return (AbstractKeyedStateBackend<String>) WindowsArea.heapBackend(restored, true);
        } catch (Exception e) {
            throw new IllegalStateException("cannot build a HeapKeyedStateBackend", e);
        }
    }

    /**
     * A {@code RocksDBKeyedStateBackend} (package {@code org.apache.flink.contrib.streaming.state} in 1.x,
     * {@code org.apache.flink.state.rocksdb} in 2.x) restored from {@code restored}, in a new folder under
     * {@code dir}: its builder's constructor filled by parameter type, incremental checkpoints on, RocksDB's
     * automatic compactions off, priority queues on the heap.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static AbstractKeyedStateBackend<String> rocks(List<KeyedStateHandle> restored, File dir) throws Exception {
        String pkg;
        try {
            Class.forName("org.apache.flink.state.rocksdb.RocksDBKeyedStateBackendBuilder");
            pkg = "org.apache.flink.state.rocksdb";
        } catch (ClassNotFoundException e) {
            pkg = "org.apache.flink.contrib.streaming.state";
        }
        Class<?> builder = Class.forName(pkg + ".RocksDBKeyedStateBackendBuilder");
        Constructor<?> c = builder.getConstructors()[0];
        Class<?>[] types = c.getParameterTypes();
        Object[] args = new Object[types.length];
        File base = Files.createTempDirectory(dir.toPath(), "backend").toFile();
        Class<?> queueType = Class.forName(pkg + ".EmbeddedRocksDBStateBackend$PriorityQueueStateType");
        for (int i = 0; i < types.length; i++) {
            args[i] = WindowsArea.builderArg(types[i], restored);
            if (args[i] != WindowsArea.NO_ARG) {
                continue;
            }
            switch (types[i].getSimpleName()) {
                case "String":
                    args[i] = "flinkspec";
                    break;
                case "File":
                    args[i] = base;
                    break;
                case "RocksDBResourceContainer":
                    args[i] = types[i].getConstructor().newInstance();
                    break;
                case "Function":
                    args[i] = (Function<String, org.rocksdb.ColumnFamilyOptions>)
                            name -> new org.rocksdb.ColumnFamilyOptions().setDisableAutoCompactions(true);
                    break;
                case "PriorityQueueStateType":
                    args[i] = Enum.valueOf((Class) types[i], "HEAP");
                    break;
                case "RocksDBPriorityQueueConfig":
                    args[i] = types[i].getMethod("buildWithPriorityQueueType", queueType)
                            .invoke(null, Enum.valueOf((Class) queueType, "HEAP"));
                    break;
                case "MetricGroup":
                    args[i] = new UnregisteredMetricsGroup();
                    break;
                case "CustomInitializationMetrics":
                    args[i] = Proxy.newProxyInstance(SnapshotArea.class.getClassLoader(), new Class<?>[] {types[i]},
                            (p, m, a) -> m.getDeclaringClass() == Object.class
                                    ? Reflect.objectMethod(p, m, a, "flinkspec-metrics") : null);
                    break;
                default:
                    throw new IllegalStateException("no value for parameter " + types[i].getName() + " of " + c);
            }
        }
        Object b = c.newInstance(args);
        Method incremental = builder.getDeclaredMethod("setEnableIncrementalCheckpointing", boolean.class);
        incremental.setAccessible(true);
        incremental.invoke(b, true);
        return (AbstractKeyedStateBackend<String>) builder.getMethod("build").invoke(b);
    }

    /**
     * A new folder for one request's RocksDB databases: in memory ({@code /dev/shm}) where the machine has it, as
     * RocksDB syncs every file it writes (a flush, a checkpoint) and a disk makes that most of a request's time;
     * where the files are changes nothing the answers show.
     */
    static File rocksRoot() throws IOException {
        return memoryTempDir("flinkspec-rocksdb");
    }

    /** A new temporary folder in memory ({@code /dev/shm}) where the machine has it, else in the default one. */
    static File memoryTempDir(String prefix) throws IOException {
        File shm = new File("/dev/shm");
        return (shm.isDirectory() && shm.canWrite()
                ? Files.createTempDirectory(shm.toPath(), prefix) : Files.createTempDirectory(prefix)).toFile();
    }

    static void delete(File f) throws IOException {
        File[] children = f.listFiles();
        if (children != null) {
            for (File child : children) {
                delete(child);
            }
        }
        Files.deleteIfExists(f.toPath());
    }
}
