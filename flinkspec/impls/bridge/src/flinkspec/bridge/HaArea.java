package flinkspec.bridge;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.checkpoint.CheckpointIDCounter;
import org.apache.flink.runtime.checkpoint.CheckpointProperties;
import org.apache.flink.runtime.checkpoint.CheckpointRecoveryFactory;
import org.apache.flink.runtime.checkpoint.CheckpointRetentionPolicy;
import org.apache.flink.runtime.checkpoint.CheckpointsCleaner;
import org.apache.flink.runtime.checkpoint.CompletedCheckpoint;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStore;
import org.apache.flink.runtime.checkpoint.MasterState;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.apache.flink.runtime.state.filesystem.FsCompletedCheckpointStorageLocation;
import org.apache.flink.runtime.util.ZooKeeperUtils;
import org.apache.flink.util.InstantiationUtil;

import org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.KeeperException;
import org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.Op;
import org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.Watcher;
import org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.ZooKeeper;
import org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.server.ZooKeeperServer;

/**
 * {@code checkpoint.ha}: the completed checkpoint store and the checkpoint ID counter of ZooKeeper high
 * availability (docs/protocol/checkpoint-ha.md). Compiles against every release: ZooKeeper and Curator come from
 * flink-dist (1.17 on) or from the distribution's lib/flink-shaded-zookeeper jar the bridge runs with (1.13-1.16),
 * whose Curator is shaded as {@code curator4} (1.13, 1.14) or {@code curator5}; so Curator is only called by
 * reflection ({@link Reflect#invoke}), and the bridge's own client is ZooKeeper's, the same package in each.
 *
 * <p>One in-process ZooKeeper server per bridge process (Flink's shaded classes, an ephemeral port, a
 * temporary data directory), emptied before each request. Per request the JobManager's path is taken:
 * {@code ZooKeeperUtils.startCuratorFramework} (namespace root/cluster-id), a
 * {@code ZooKeeperCheckpointRecoveryFactory} on that client, whose store (a {@code DefaultCompletedCheckpointStore}
 * over a {@code ZooKeeperStateHandleStore} whose {@code FileSystemStateStorageHelper} writes under
 * {@code high-availability.storageDir}; recovered by {@code recover()} where the store has it, 1.13) and counter
 * the scheduler asks for; the retained count by
 * {@code DefaultCompletedCheckpointStoreUtils.getMaximumNumberOfRetainedCheckpoints} (1.15 on) or the scheduler's
 * {@code SchedulerUtils.createCompletedCheckpointStore} (1.13, 1.14: the count it asks the factory for). A
 * completed checkpoint is Flink's test shape: no operator state, a real {@code chk-N/_metadata} file as its storage location.
 * Cleaning runs on a direct executor, so the answer sees what each step deleted.
 */
public final class HaArea implements Area {
    static final JobID JOB = JobID.fromHexString("0123456789abcdef0123456789abcdef");
    private static final String STORAGE = "<storageDir>";
    private static final String CHECKPOINTS = "<checkpoints>";
    static final String[] STORAGE_KEYS = {"high-availability.storageDir", "high-availability.zookeeper.storageDir",
        "recovery.zookeeper.storageDir"};
    static final String BAD_STORAGE = "input.config: high-availability.storageDir must be <storageDir>[/dir] "
            + "(a directory the implementation chooses)";
    private static ZooKeeperServer server;
    // a thread per closing client: ZooKeeper's close joins its send thread, which may sleep up to a second first
    private static final java.util.concurrent.ExecutorService CLOSER =
            java.util.concurrent.Executors.newCachedThreadPool(r -> {
                Thread t = new Thread(r, "flinkspec-zk-closer");
                t.setDaemon(true);
                return t;
            });
    // 1.13: getLatestCheckpoint(isPreferCheckpointForRecovery); 1.13, 1.14: addCheckpoint, not
    // addCheckpointAndSubsumeOldestOne
    private static final boolean NO_ARG_LATEST =
            Reflect.hasMethodTaking(CompletedCheckpointStore.class, "getLatestCheckpoint");
    private static final String ADD = Reflect.hasMethod(CompletedCheckpointStore.class, "addCheckpoint")
            ? "addCheckpoint" : "addCheckpointAndSubsumeOldestOne";
    private static final String STORE_UTILS =
            "org.apache.flink.runtime.checkpoint.DefaultCompletedCheckpointStoreUtils";
    private static String quorum;
    private static ZooKeeper admin;
    // the znodes the last request's walk saw, children first (null: not known, as after a rejected request)
    private static List<String> leftover;

    private static synchronized void ensureServer() throws Exception {
        if (server != null) {
            return;
        }
        // the server's transaction log in memory (/dev/shm where the machine has it) and not synced per write: a
        // request makes tens of writes, and a sync each made them most of its time; nothing an answer shows changes
        System.setProperty("zookeeper.forceSync", "no");
        // no SASL (the server has none; Flink's own switch, zookeeper.sasl.disable, sets the same property): ZooKeeper
        // 3.4's client (1.13, 1.14) would otherwise look for the server's principal from the address's toString,
        // whose form JDK 14 changed (ZOOKEEPER-3779; its host provider is the bridge's patch, see flinkjars.PATCHES)
        System.setProperty("zookeeper.sasl.client", "false");
        File data = SnapshotArea.memoryTempDir("flinkspec-zk");
        data.deleteOnExit();
        ZooKeeperServer zks = new ZooKeeperServer(data, data, 2000);
        ServerCnxnFactory factory = ServerCnxnFactory.createFactory(new InetSocketAddress("127.0.0.1", 0), 100);
        factory.startup(zks);
        quorum = "127.0.0.1:" + factory.getLocalPort();
        CountDownLatch connected = new CountDownLatch(1);
        admin = new ZooKeeper(quorum, 30000, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        if (!connected.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the bridge's ZooKeeper server accepted no client in 30 s");
        }
        server = zks;
        // ZooKeeper's threads are not daemons: when the bridge's main thread ends (its input closed), stop
        // the server and end the process as the bridge would have without it
        Thread main = Thread.currentThread();
        Thread stopper = new Thread(() -> {
            try {
                main.join();
            } catch (InterruptedException e) {
                return;
            }
            try {
                admin.close();
            } catch (InterruptedException e) {
                // ending anyway
            }
            factory.shutdown();
            zks.shutdown();
            System.exit(0);
        }, "flinkspec-zk-stopper");
        stopper.setDaemon(true);
        stopper.start();
    }

    @Override
    @SuppressWarnings("unchecked")
    public Object answer(String area, Map<String, Object> input) throws Exception {
        if (!"checkpoint.ha".equals(area)) {
            throw new BadRequest("HaArea does not answer " + area);
        }
        Map<String, String> configMap = Area.config(input);
        for (String key : STORAGE_KEYS) {
            String dir = configMap.get(key);
            if (dir != null && !dir.trim().isEmpty() && !dir.startsWith(STORAGE)) {
                // never a directory of the caller's: Flink would write there (a relative one under the cwd)
                throw new BadRequest(BAD_STORAGE);
            }
        }
        Object rawEvents = input.get("events");
        if (!(rawEvents instanceof List)) {
            throw new BadRequest("input.events must be an array");
        }
        List<Map<String, Object>> events = new ArrayList<>();
        for (Object e : (List<Object>) rawEvents) {
            events.add(validate(e, events.size()));
        }
        ensureServer();
        clear();
        java.nio.file.Path tmp = Files.createTempDirectory("flinkspec-ha");
        try {
            return run(configMap, events, tmp);
        } finally {
            try (Stream<java.nio.file.Path> walk = Files.walk(tmp)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static Map<String, Object> validate(Object raw, int i) throws BadRequest {
        if (!(raw instanceof Map)) {
            throw new BadRequest("input.events[" + i + "] must be an object");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> e = (Map<String, Object>) raw;
        String where = "input.events[" + i + "]";
        if (e.size() == 1 && e.get("add") instanceof Long) {
            return e;
        }
        if (e.size() == 2 && e.get("add") instanceof Long && e.get("retention") instanceof String) {
            try {
                CheckpointRetentionPolicy.valueOf((String) e.get("retention"));
            } catch (IllegalArgumentException x) {
                throw new BadRequest(where + ".retention must be one of NEVER_RETAIN_AFTER_TERMINATION, "
                        + "RETAIN_ON_FAILURE, RETAIN_ON_CANCELLATION");
            }
            return e;
        }
        if (e.size() == 1 && ("latest".equals(e.get("get")) || "all".equals(e.get("get")))) {
            return e;
        }
        if (e.size() == 1 && "next".equals(e.get("counter"))) {
            return e;
        }
        if (e.size() == 1 && e.get("set_count") instanceof Long) {
            return e;
        }
        if (e.size() == 1 && e.get("shutdown") instanceof String) {
            String s = (String) e.get("shutdown");
            if (s.equals("FINISHED") || s.equals("CANCELED") || s.equals("FAILED") || s.equals("SUSPENDED")) {
                return e;
            }
            throw new BadRequest(where + ".shutdown must be one of FINISHED, CANCELED, FAILED, SUSPENDED");
        }
        if (e.size() == 1 && Boolean.TRUE.equals(e.get("recover"))) {
            return e;
        }
        throw new BadRequest(where + " must be one of {add[, retention]}, {get: latest|all}, {counter: next}, "
                + "{set_count}, {shutdown}, {recover: true}");
    }

    /** One JobManager's store and counter on the shared ZooKeeper. */
    private static final class Session {
        Object client; // a CuratorFramework of the release's shading
        CompletedCheckpointStore store;
        CheckpointIDCounter counter;
        boolean storeDown;

        /**
         * Closes the client: done when the server has closed its session (its ephemeral znodes gone with it). The
         * client's own threads end on a thread of their own: ZooKeeper's send thread may first sleep up to its
         * reconnect delay, most of a request's time when waited for.
         */
        void close() throws Exception {
            if (client == null) {
                return;
            }
            Object closing = client;
            client = null;
            long id;
            try {
                id = ((ZooKeeper) Reflect.invoke(Reflect.invoke(closing, "getZookeeperClient"), "getZooKeeper"))
                        .getSessionId();
            } catch (Exception e) {
                Reflect.invoke(closing, "close");
                return;
            }
            CLOSER.execute(() -> {
                try {
                    Reflect.invoke(closing, "close");
                } catch (Exception e) {
                    // the session is closed; its threads end with the process
                }
            });
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (server.getZKDatabase().getSessionWithTimeOuts().containsKey(id)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("ZooKeeper did not close session " + id + " in 30 s");
                }
                Thread.sleep(0, 200_000);
            }
        }
    }

    /**
     * Empties the tree the last request left: in one multi-operation deleting the znodes its walk saw (children
     * first), or, where that walk is not known or the tree holds another znode (the multi-operation then deletes
     * nothing), znode by znode from the root. A request's own znodes are a few, each a round trip to delete.
     */
    private static void clear() throws Exception {
        List<String> seen = leftover;
        leftover = null;
        if (seen != null) {
            List<Op> deletes = new ArrayList<>();
            for (String p : seen) {
                deletes.add(Op.delete(p, -1));
            }
            try {
                if (!deletes.isEmpty()) {
                    admin.multi(deletes);
                }
                if (admin.getChildren("/", false).equals(List.of("zookeeper"))) {
                    return;
                }
            } catch (KeeperException e) {
                // the tree is not what the walk saw: znode by znode below
            }
        }
        for (String child : admin.getChildren("/", false)) {
            if (!child.equals("zookeeper")) {
                delete("/" + child);
            }
        }
    }

    private static void delete(String path) throws Exception {
        for (String child : admin.getChildren(path, false)) {
            delete(path + "/" + child);
        }
        admin.delete(path, -1);
    }

    private static Map<String, Object> run(Map<String, String> configMap, List<Map<String, Object>> events,
                                           java.nio.file.Path tmp) throws Exception {
        String storageRoot = new Path(tmp.resolve("ha").toUri()).toString();
        String checkpointsRoot = new Path(tmp.resolve("cp").toUri()).toString();
        Configuration config = new Configuration();
        for (Map.Entry<String, String> e : configMap.entrySet()) {
            String v = e.getValue();
            if (java.util.Arrays.asList(STORAGE_KEYS).contains(e.getKey()) && v.startsWith(STORAGE)) {
                v = storageRoot + v.substring(STORAGE.length());
            }
            config.setString(e.getKey(), v);
        }
        config.setString("high-availability.zookeeper.quorum", quorum);
        config.setString("high-availability", "zookeeper");

        Map<String, Object> out = new LinkedHashMap<>();
        int retain = retained(config);
        out.put("retained_max", (long) retain);
        Session session = new Session();
        List<Object> steps = new ArrayList<>();
        try {
            try {
                open(session, config, retain);
            } catch (Rejected e) {
                session.close();
                throw e;
            }
            CheckpointsCleaner cleaner = new CheckpointsCleaner();
            for (Map<String, Object> event : events) {
                Map<String, Object> step = new LinkedHashMap<>();
                try {
                    step(session, config, retain, event, step, cleaner, checkpointsRoot);
                } catch (Exception e) {
                    Throwable t = e instanceof InvocationTargetException ? e.getCause() : e;
                    step.clear();
                    step.put("error", error(t));
                }
                steps.add(step);
            }
        } finally {
            session.close();
        }
        out.put("steps", steps);
        Map<String, Object> handles = new TreeMap<>();
        List<String> znodes = new ArrayList<>();
        List<String> raw = new ArrayList<>();
        walk("/", znodes, raw, handles, storageRoot);
        Collections.sort(raw, Comparator.reverseOrder()); // a znode after every one below it
        leftover = raw;
        out.put("znodes", znodes);
        out.put("handles", new LinkedHashMap<>(handles));
        List<String> files = new ArrayList<>();
        for (String[] root : new String[][] {{"ha", STORAGE}, {"cp", CHECKPOINTS}}) {
            java.nio.file.Path base = tmp.resolve(root[0]);
            if (!Files.exists(base)) {
                continue;
            }
            try (Stream<java.nio.file.Path> walk = Files.walk(base)) {
                walk.filter(Files::isRegularFile).forEach(p ->
                        files.add(normal(root[1] + "/" + base.relativize(p).toString().replace(File.separatorChar, '/'))));
            }
        }
        Collections.sort(files);
        out.put("files", files);
        return out;
    }

    /** The number of checkpoints the scheduler has the store retain, as the release computes it. */
    private static int retained(Configuration config) throws Exception {
        org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(HaArea.class);
        try {
            Class<?> utils = Reflect.classOrNull(STORE_UTILS);
            if (utils != null && Reflect.hasMethod(utils, "getMaximumNumberOfRetainedCheckpoints")) {
                return (Integer) Reflect.invokeOn(utils, null, "getMaximumNumberOfRetainedCheckpoints", config, log);
            }
            // 1.13, 1.14: the scheduler computes it and asks its recovery factory for a store that retains it
            int[] asked = {-1};
            CheckpointRecoveryFactory asking = (CheckpointRecoveryFactory) Reflect.proxy(CheckpointRecoveryFactory.class,
                    (proxy, m, args) -> {
                        if (m.getDeclaringClass() == Object.class) {
                            return Reflect.objectMethod(proxy, m, args, "retained");
                        }
                        asked[0] = (Integer) args[1];
                        return null;
                    });
            Reflect.invokeOn(Class.forName("org.apache.flink.runtime.scheduler.SchedulerUtils"), null,
                    "createCompletedCheckpointStore", config, HaArea.class.getClassLoader(), asking, log, JOB);
            return asked[0];
        } catch (RuntimeException e) {
            throw new Rejected(e);
        }
    }

    private static void open(Session session, Configuration config, int retain) throws Exception {
        // (config, a fatal error handler) from 1.14, (config) in 1.13; from 1.14.3 the client comes wrapped with the
        // listener of its unhandled errors
        org.apache.flink.runtime.rpc.FatalErrorHandler ignore = t -> { };
        Object started;
        try {
            started = Reflect.hasMethodTaking(ZooKeeperUtils.class, "startCuratorFramework", config, ignore)
                    ? Reflect.invokeOn(ZooKeeperUtils.class, null, "startCuratorFramework", config, ignore)
                    : Reflect.invokeOn(ZooKeeperUtils.class, null, "startCuratorFramework", config);
        } catch (ReflectiveOperationException e) {
            throw e; // the bridge's, not Flink's
        } catch (Exception e) {
            throw new Rejected(e);
        }
        session.client = Reflect.hasMethod(started.getClass(), "asCuratorFramework")
                ? Reflect.invoke(started, "asCuratorFramework") : started;
        Executor direct = Runnable::run;
        Class<?> factoryClass = Class.forName("org.apache.flink.runtime.checkpoint.ZooKeeperCheckpointRecoveryFactory");
        CheckpointRecoveryFactory factory = (CheckpointRecoveryFactory) factoryClass.getConstructors()[0]
                .newInstance(session.client, config, direct);
        Method create = null;
        for (Method m : factoryClass.getMethods()) {
            if (m.getName().startsWith("create") && m.getReturnType() == CompletedCheckpointStore.class) {
                create = m;
            }
        }
        if (create == null) {
            throw new IllegalStateException("ZooKeeperCheckpointRecoveryFactory creates no CompletedCheckpointStore");
        }
        List<Object> args = new ArrayList<>();
        for (Class<?> type : create.getParameterTypes()) {
            if (type == JobID.class) {
                args.add(JOB);
            } else if (type == int.class) {
                args.add(retain);
            } else if (type == ClassLoader.class) {
                args.add(HaArea.class.getClassLoader());
            } else if (type == Executor.class) {
                args.add(direct);
            } else if (type.isEnum()) {
                args.add(type.getField("DEFAULT").get(null)); // RestoreMode / RecoveryClaimMode
            } else { // SharedStateRegistryFactory
                args.add(Class.forName("org.apache.flink.runtime.state.SharedStateRegistry")
                        .getField("DEFAULT_FACTORY").get(null));
            }
        }
        try {
            session.store = (CompletedCheckpointStore) create.invoke(factory, args.toArray());
            if (Reflect.hasMethod(CompletedCheckpointStore.class, "recover")) {
                Reflect.invoke(session.store, "recover"); // 1.13: as the coordinator does before restoring
            }
        } catch (InvocationTargetException e) {
            throw new Rejected(e.getCause());
        }
        session.counter = factory.createCheckpointIDCounter(JOB);
        session.counter.start();
        session.storeDown = false;
    }

    private static void step(Session session, Configuration config, int retain, Map<String, Object> event,
                             Map<String, Object> step, CheckpointsCleaner cleaner, String checkpointsRoot)
            throws Exception {
        if (event.containsKey("add")) {
            long id = (Long) event.get("add");
            String retention = (String) event.getOrDefault("retention", "NEVER_RETAIN_AFTER_TERMINATION");
            List<Long> before = ids(session.store.getAllCheckpoints());
            Runnable postCleanup = () -> { };
            Reflect.invoke(session.store, ADD, checkpoint(id, retention, checkpointsRoot), cleaner, postCleanup);
            List<Long> after = ids(session.store.getAllCheckpoints());
            List<Long> subsumed = new ArrayList<>(before);
            subsumed.removeAll(after);
            step.put("subsumed", subsumed);
            step.put("retained", after);
        } else if ("latest".equals(event.get("get"))) {
            // 1.13: the scheduler's isPreferCheckpointForRecovery, default false
            CompletedCheckpoint latest = (CompletedCheckpoint) (NO_ARG_LATEST
                    ? Reflect.invoke(session.store, "getLatestCheckpoint")
                    : Reflect.invoke(session.store, "getLatestCheckpoint", false));
            step.put("latest", latest == null ? null : latest.getCheckpointID());
        } else if ("all".equals(event.get("get"))) {
            step.put("all", ids(session.store.getAllCheckpoints()));
        } else if (event.containsKey("counter")) {
            step.put("counter", session.counter.getAndIncrement());
        } else if (event.containsKey("set_count")) {
            session.counter.setCount((Long) event.get("set_count"));
            step.put("counter", session.counter.get());
        } else if (event.containsKey("shutdown")) {
            JobStatus status = JobStatus.valueOf((String) event.get("shutdown"));
            session.store.shutdown(status, cleaner);
            Object done = Reflect.invoke(session.counter, "shutdown", status); // a future from 1.15, void before
            if (done instanceof CompletableFuture) {
                ((CompletableFuture<?>) done).get();
            }
            step.put("shutdown", status.name());
        } else if (event.containsKey("recover")) {
            session.close();
            open(session, config, retain);
            step.put("recovered", ids(session.store.getAllCheckpoints()));
            step.put("counter", session.counter.get());
        }
    }

    private static CompletedCheckpoint checkpoint(long id, String retention, String checkpointsRoot) throws Exception {
        Path dir = new Path(checkpointsRoot, "chk-" + id);
        Path metadata = new Path(dir, "_metadata");
        FileSystem fs = dir.getFileSystem();
        fs.mkdirs(dir);
        try (org.apache.flink.core.fs.FSDataOutputStream os = fs.create(metadata, FileSystem.WriteMode.OVERWRITE)) {
            os.write(new byte[] {1});
        }
        FsCompletedCheckpointStorageLocation location = new FsCompletedCheckpointStorageLocation(fs, dir,
                new FileStateHandle(metadata, 1), dir.toString());
        CheckpointProperties props = CheckpointProperties.forCheckpoint(CheckpointRetentionPolicy.valueOf(retention));
        Map<OperatorID, OperatorState> states = new HashMap<>();
        List<MasterState> masters = new ArrayList<>();
        // (job, id, timestamp, completion, states, masters, props, location[, stats: null from 1.15]); a longer
        // one (1.16 on) adds the restore properties
        java.lang.reflect.Constructor<?> shortest = null;
        for (java.lang.reflect.Constructor<?> c : CompletedCheckpoint.class.getConstructors()) {
            if (shortest == null || c.getParameterCount() < shortest.getParameterCount()) {
                shortest = c;
            }
        }
        Object[] args = new Object[shortest.getParameterCount()];
        Object[] known = {JOB, id, id, id, states, masters, props, location};
        System.arraycopy(known, 0, args, 0, known.length);
        try {
            return (CompletedCheckpoint) shortest.newInstance(args);
        } catch (InvocationTargetException e) { // as the constructor threw it: a negative id's check
            throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
        }
    }


    private static List<Long> ids(List<CompletedCheckpoint> checkpoints) {
        List<Long> ids = new ArrayList<>();
        for (CompletedCheckpoint c : checkpoints) {
            ids.add(c.getCheckpointID());
        }
        return ids;
    }

    private static void walk(String path, List<String> znodes, List<String> raw, Map<String, Object> handles,
                             String storageRoot) throws Exception {
        List<String> children = new ArrayList<>(admin.getChildren(path, false));
        Collections.sort(children);
        for (String child : children) {
            String p = path.equals("/") ? "/" + child : path + "/" + child;
            if (p.equals("/zookeeper")) {
                continue;
            }
            String shown = lockName(p);
            znodes.add(shown);
            raw.add(p);
            // a checkpoint's znode: 19 digits (under <path.checkpoints>/<job id> in 1.13, /<job id>/checkpoints after)
            byte[] data = p.matches(".*/[0-9]{19}") ? admin.getData(p, false, null) : null;
            if (data != null && data.length > 0) {
                Map<String, Object> h = new LinkedHashMap<>();
                Object handle = InstantiationUtil.deserializeObject(data, HaArea.class.getClassLoader());
                h.put("class", handle.getClass().getSimpleName());
                Object wrapped = field(handle, "wrappedStreamStateHandle");
                String file = wrapped instanceof FileStateHandle ? ((FileStateHandle) wrapped).getFilePath().toString() : null;
                h.put("file", file == null ? null : normal(file.startsWith(storageRoot)
                        ? STORAGE + file.substring(storageRoot.length()) : file));
                handles.put(shown, h);
            }
            walk(p, znodes, raw, handles, storageRoot);
        }
        // lock nodes are named by a random UUID each: sorted after normalising
        Collections.sort(znodes);
    }

    /** A lock znode's random name: {@code <lock>} (under /locks from 1.15, the checkpoint's own child before). */
    private static String lockName(String p) {
        int at = p.indexOf("/locks/");
        return at >= 0 ? p.substring(0, at) + "/locks/<lock>"
                : p.replaceAll("/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", "/<lock>");
    }

    /** A file name's random part: {@code completedCheckpoint} and hex digits. */
    static String normal(String name) {
        return name.replaceAll("completedCheckpoint[0-9a-f]+$", "completedCheckpoint<hex>");
    }

    private static Object field(Object o, String name) throws Exception {
        for (Class<?> c = o.getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(o);
            } catch (NoSuchFieldException e) {
                // the superclass's
            }
        }
        return null;
    }

    private static Map<String, Object> error(Throwable t) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("exception", t.getClass().getSimpleName());
        e.put("message", t.getMessage());
        return e;
    }
}
