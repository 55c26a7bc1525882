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
import java.util.concurrent.Executor;
import java.util.stream.Stream;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.checkpoint.CheckpointIDCounter;
import org.apache.flink.runtime.checkpoint.CheckpointProperties;
import org.apache.flink.runtime.checkpoint.CheckpointRetentionPolicy;
import org.apache.flink.runtime.checkpoint.CheckpointsCleaner;
import org.apache.flink.runtime.checkpoint.CompletedCheckpoint;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStore;
import org.apache.flink.runtime.checkpoint.DefaultCompletedCheckpointStoreUtils;
import org.apache.flink.runtime.checkpoint.MasterState;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.SharedStateRegistry;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.apache.flink.runtime.state.filesystem.FsCompletedCheckpointStorageLocation;
import org.apache.flink.runtime.util.ZooKeeperUtils;
import org.apache.flink.util.InstantiationUtil;
import org.apache.flink.util.concurrent.Executors;

import org.apache.flink.shaded.curator5.org.apache.curator.framework.CuratorFramework;
import org.apache.flink.shaded.curator5.org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.flink.shaded.curator5.org.apache.curator.retry.RetryOneTime;
import org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.KeeperException;
import org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.Op;
import org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.server.ZooKeeperServer;

/**
 * {@code checkpoint.ha}: the completed checkpoint store and the checkpoint ID counter of ZooKeeper high
 * availability (docs/protocol/checkpoint-ha.md). Compiles against the releases whose flink-dist bundles
 * ZooKeeper and Curator (1.17 on).
 *
 * <p>One in-process ZooKeeper server per bridge process (Flink's shaded classes, an ephemeral port, a
 * temporary data directory), emptied before each request. Per request the JobManager's path is taken:
 * {@code ZooKeeperUtils.startCuratorFramework} (namespace root/cluster-id), the job's namespace
 * ({@code useNamespaceAndEnsurePath(client, getPathForJob(job))}), {@code createCompletedCheckpoints}
 * (a {@code DefaultCompletedCheckpointStore} over a {@code ZooKeeperStateHandleStore} whose
 * {@code FileSystemStateStorageHelper} writes under {@code high-availability.storageDir}) and
 * {@code createCheckpointIDCounter}; the retained count by
 * {@code DefaultCompletedCheckpointStoreUtils.getMaximumNumberOfRetainedCheckpoints}. A completed checkpoint
 * is Flink's test shape: no operator state, a real {@code chk-N/_metadata} file as its storage location.
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
    private static String quorum;
    private static CuratorFramework admin;
    // the znodes the last request's walk saw, children first (null: not known, as after a rejected request)
    private static List<String> leftover;

    private static synchronized void ensureServer() throws Exception {
        if (server != null) {
            return;
        }
        // the server's transaction log in memory (/dev/shm where the machine has it) and not synced per write: a
        // request makes tens of writes, and a sync each made them most of its time; nothing an answer shows changes
        System.setProperty("zookeeper.forceSync", "no");
        File data = SnapshotArea.memoryTempDir("flinkspec-zk");
        data.deleteOnExit();
        ZooKeeperServer zks = new ZooKeeperServer(data, data, 2000);
        ServerCnxnFactory factory = ServerCnxnFactory.createFactory(new InetSocketAddress("127.0.0.1", 0), 100);
        factory.startup(zks);
        quorum = "127.0.0.1:" + factory.getLocalPort();
        admin = CuratorFrameworkFactory.newClient(quorum, 30000, 10000, new RetryOneTime(100));
        admin.start();
        admin.blockUntilConnected();
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
            admin.close();
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
        CuratorFramework client;
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
            CuratorFramework closing = client;
            client = null;
            long id;
            try {
                id = closing.getZookeeperClient().getZooKeeper().getSessionId();
            } catch (Exception e) {
                closing.close();
                return;
            }
            CLOSER.execute(closing::close);
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
                    admin.getZookeeperClient().getZooKeeper().multi(deletes);
                }
                if (admin.getChildren().forPath("/").equals(List.of("zookeeper"))) {
                    return;
                }
            } catch (KeeperException e) {
                // the tree is not what the walk saw: znode by znode below
            }
        }
        for (String child : admin.getChildren().forPath("/")) {
            if (!child.equals("zookeeper")) {
                admin.delete().deletingChildrenIfNeeded().forPath("/" + child);
            }
        }
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
        int retain;
        try {
            retain = DefaultCompletedCheckpointStoreUtils.getMaximumNumberOfRetainedCheckpoints(config,
                    org.slf4j.LoggerFactory.getLogger(HaArea.class));
        } catch (RuntimeException e) {
            throw new Rejected(e);
        }
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

    private static void open(Session session, Configuration config, int retain) throws Exception {
        Object withListener;
        try {
            withListener = ZooKeeperUtils.class.getMethod("startCuratorFramework", Configuration.class,
                    org.apache.flink.runtime.rpc.FatalErrorHandler.class).invoke(null, config,
                    (org.apache.flink.runtime.rpc.FatalErrorHandler) t -> { });
        } catch (InvocationTargetException e) {
            throw new Rejected(e.getCause());
        }
        session.client = (CuratorFramework) withListener.getClass().getMethod("asCuratorFramework").invoke(withListener);
        CuratorFramework job = ZooKeeperUtils.useNamespaceAndEnsurePath(session.client, ZooKeeperUtils.getPathForJob(JOB));
        Method create = null;
        for (Method m : ZooKeeperUtils.class.getMethods()) {
            if (m.getName().equals("createCompletedCheckpoints")) {
                create = m;
            }
        }
        if (create == null) {
            throw new IllegalStateException("no ZooKeeperUtils.createCompletedCheckpoints");
        }
        Class<?>[] p = create.getParameterTypes();
        Object mode = p[p.length - 1].getField("DEFAULT").get(null);
        Executor direct = Executors.directExecutor();
        try {
            session.store = (CompletedCheckpointStore) create.invoke(null, job, config, retain,
                    SharedStateRegistry.DEFAULT_FACTORY, direct, direct, mode);
        } catch (InvocationTargetException e) {
            throw new Rejected(e.getCause());
        }
        session.counter = ZooKeeperUtils.createCheckpointIDCounter(job);
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
            session.store.addCheckpointAndSubsumeOldestOne(checkpoint(id, retention, checkpointsRoot), cleaner, () -> { });
            List<Long> after = ids(session.store.getAllCheckpoints());
            List<Long> subsumed = new ArrayList<>(before);
            subsumed.removeAll(after);
            step.put("subsumed", subsumed);
            step.put("retained", after);
        } else if ("latest".equals(event.get("get"))) {
            CompletedCheckpoint latest = session.store.getLatestCheckpoint();
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
            session.counter.shutdown(status).get();
            step.put("shutdown", status.name());
        } else if (event.containsKey("recover")) {
            session.close();
            open(session, config, retain);
            step.put("recovered", ids(session.store.getAllCheckpoints()));
            step.put("counter", session.counter.get());
        }
    }

    private static CompletedCheckpoint checkpoint(long id, String retention, String checkpointsRoot) throws IOException {
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
        return new CompletedCheckpoint(JOB, id, id, id, states, masters, props, location, null);
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
        List<String> children = new ArrayList<>(admin.getChildren().forPath(path));
        Collections.sort(children);
        for (String child : children) {
            String p = path.equals("/") ? "/" + child : path + "/" + child;
            if (p.equals("/zookeeper")) {
                continue;
            }
            String shown = lockName(p);
            znodes.add(shown);
            raw.add(p);
            byte[] data = p.matches(".*/checkpoints/[0-9]{19}") ? admin.getData().forPath(p) : null;
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

    private static String lockName(String p) {
        int at = p.indexOf("/locks/");
        return at < 0 ? p : p.substring(0, at) + "/locks/<lock>";
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
