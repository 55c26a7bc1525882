package flinkspec.bridge;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.fs.local.LocalFileSystem;

/**
 * {@code checkpoint.storage}: the state backend, the checkpoint storage and the snapshot directories a
 * JobManager gets for a job from one configuration (docs/protocol/checkpoint-storage.md).
 *
 * <p>{@code StateBackendLoader.fromApplicationOrConfigOrDefault(null, ...)} then
 * {@code CheckpointStorageLoader.load(null, ..., backend, ...)}, reached by reflection (their signatures
 * change in 1.16 and 1.19), the configuration given as both the job's and the cluster's; then
 * {@code createCheckpointStorage(jobId)}, {@code initializeLocationForCheckpoint(id)} and, if a savepoint
 * directory is set, {@code initializeLocationForSavepoint(id, null)} eight times (its directory name ends
 * in random characters: the answer is their common prefix and how many follow).
 *
 * <p>No file system is touched: before the storage access is created, {@code FileSystem}'s cache gets, for
 * the scheme and authority of each configured directory, a local file system whose {@code mkdirs} does
 * nothing, so {@code FileSystem.get} answers for any scheme without a plugin and creates no directory.
 * Its checks before the cache (a {@code file:} URI with an authority) still run.
 */
public final class StorageArea implements Area {
    private static final Pattern JOB_ID = Pattern.compile("[0-9a-f]{32}");
    private static final String[] CHANGELOG_KEYS = {"state.backend.changelog.enabled", "state.changelog.enabled"};
    private static final int SAVEPOINT_DRAWS = 8;

    /** A local file system that creates no directory. */
    public static final class NoMkdirs extends LocalFileSystem {
        @Override
        public boolean mkdirs(Path f) {
            return true;
        }
    }

    @Override
    public Object answer(String area, Map<String, Object> input) throws Exception {
        if (!"checkpoint.storage".equals(area)) {
            throw new BadRequest("StorageArea does not answer " + area);
        }
        Map<String, String> configMap = Area.config(input);
        Object jobIdRaw = input.get("job_id");
        if (!(jobIdRaw instanceof String)) {
            throw new BadRequest("input.job_id " + (input.containsKey("job_id") ? "must be a string" : "is missing"));
        }
        if (!JOB_ID.matcher((String) jobIdRaw).matches()) {
            throw new BadRequest("input.job_id must be 32 lower-case hex digits (a JobID)");
        }
        Object idRaw = input.get("checkpoint_id");
        if (!(idRaw instanceof Long || idRaw instanceof Integer)) {
            throw new BadRequest("input.checkpoint_id " + (input.containsKey("checkpoint_id") ? "must be an integer"
                    : "is missing"));
        }
        long checkpointId = ((Number) idRaw).longValue();
        if (checkpointId < 0) {
            throw new BadRequest("input.checkpoint_id must not be negative");
        }
        for (String k : CHANGELOG_KEYS) {
            if (configMap.containsKey(k)) {
                throw new BadRequest("input.config: the changelog state backend is not part of this area");
            }
        }
        JobID jobId = JobID.fromHexString((String) jobIdRaw);
        ClassLoader cl = StorageArea.class.getClassLoader();
        Configuration config = Configuration.fromMap(configMap);

        Object backend;
        Object storage;
        try {
            backend = loadBackend(config, cl);
            storage = loadStorage(backend, config, cl);
        } catch (InvocationTargetException e) {
            throw new Rejected(e.getCause());
        }

        Map<String, Object> out = new LinkedHashMap<>();
        out.put("state_backend", backend.getClass().getSimpleName());
        out.put("storage", storage.getClass().getSimpleName());
        Path checkpoints = (Path) call(storage, "getCheckpointPath");
        Path savepoints = (Path) call(storage, "getSavepointPath");
        out.put("checkpoint_path", checkpoints == null ? null : checkpoints.toString());
        out.put("savepoint_path", savepoints == null ? null : savepoints.toString());
        out.put("max_state_size", has(storage, "getMaxStateSize") ? call(storage, "getMaxStateSize") : null);
        out.put("file_state_threshold", has(storage, "getMinFileSizeThreshold")
                ? call(storage, "getMinFileSizeThreshold") : null);
        out.put("write_buffer_size", has(storage, "getWriteBufferSize") ? call(storage, "getWriteBufferSize") : null);

        // the no-mkdirs file systems stand in for this request only: the cache is the JVM's, which other areas'
        // requests (checkpoint.ha's files under its storage directory) share
        Map<Object, FileSystem> cache = fsCache();
        Map<Object, FileSystem> before = new HashMap<>(cache);
        try {
            for (Path p : new Path[] {checkpoints, savepoints}) {
                if (p != null) {
                    noMkdirsFor(p.toUri());
                }
            }
            Object access;
            try {
                access = storage.getClass().getMethod("createCheckpointStorage", JobID.class).invoke(storage, jobId);
            } catch (InvocationTargetException e) {
                String text = error(e.getCause());
                out.put("checkpoint", text);
                out.put("savepoint", text);
                return out;
            }
            out.put("checkpoint", checkpoint(access, checkpointId));
            out.put("savepoint", savepoints == null ? null : savepoint(access, checkpointId));
            return out;
        } finally {
            synchronized (cache) {
                cache.clear();
                cache.putAll(before);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<Object, FileSystem> fsCache() throws Exception {
        return (Map<Object, FileSystem>) Reflect.get(FileSystem.class, null, "CACHE");
    }

    private static Object loadBackend(Configuration config, ClassLoader cl) throws Exception {
        Class<?> loader = Class.forName("org.apache.flink.runtime.state.StateBackendLoader");
        for (Method m : loader.getMethods()) {
            if (!m.getName().equals("fromApplicationOrConfigOrDefault")) {
                continue;
            }
            Class<?>[] p = m.getParameterTypes();
            if (p.length == 4) { // 1.13-1.15: (backend, config, classLoader, logger)
                return m.invoke(null, null, config, cl, null);
            }
            if (p.length == 5 && p[1] == Configuration.class) { // 1.19+: (backend, jobConfig, clusterConfig, ...)
                return m.invoke(null, null, config, config, cl, null);
            }
            if (p.length == 5) { // 1.16-1.18: (backend, TernaryBoolean changelog from the application, config, ...)
                Object undefined = p[1].getField("UNDEFINED").get(null);
                return m.invoke(null, null, undefined, config, cl, null);
            }
        }
        throw new IllegalStateException("no StateBackendLoader.fromApplicationOrConfigOrDefault of a known shape");
    }

    private static Object loadStorage(Object backend, Configuration config, ClassLoader cl) throws Exception {
        Class<?> loader = Class.forName("org.apache.flink.runtime.state.CheckpointStorageLoader");
        for (Method m : loader.getMethods()) {
            if (!m.getName().equals("load")) {
                continue;
            }
            Class<?>[] p = m.getParameterTypes();
            if (p[1] == Path.class) { // <= 1.18: (fromApplication, defaultSavepointDirectory, backend, config, ...)
                return m.invoke(null, null, null, backend, config, cl, null);
            }
            return m.invoke(null, null, backend, config, config, cl, null); // 1.19+: job and cluster config
        }
        throw new IllegalStateException("no CheckpointStorageLoader.load");
    }

    private static Object checkpoint(Object access, long checkpointId) throws Exception {
        Object location;
        try {
            // as the CheckpointCoordinator does first: initializeBaseLocations (1.13-1.14),
            // initializeBaseLocationsForCheckpoint (1.15 on)
            String base = has(access, "initializeBaseLocations") ? "initializeBaseLocations"
                    : "initializeBaseLocationsForCheckpoint";
            access.getClass().getMethod(base).invoke(access);
            location = access.getClass().getMethod("initializeLocationForCheckpoint", long.class)
                    .invoke(access, checkpointId);
        } catch (InvocationTargetException e) {
            return error(e.getCause());
        }
        Path dir = (Path) Reflect.getIfPresent(location, "checkpointDirectory");
        if (dir == null) {
            return null; // the metadata stays in the JobManager's memory
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("directory", dir.toString());
        out.put("metadata", Reflect.getIfPresent(location, "metadataFilePath").toString());
        Object shared = Reflect.getIfPresent(location, "sharedStateDirectory");
        Object owned = Reflect.getIfPresent(location, "taskOwnedStateDirectory");
        out.put("shared", shared == null ? null : shared.toString());
        out.put("taskowned", owned == null ? null : owned.toString());
        return out;
    }

    private static Object savepoint(Object access, long checkpointId) throws Exception {
        Method init = access.getClass().getMethod("initializeLocationForSavepoint", long.class, String.class);
        List<String> dirs = new ArrayList<>();
        String metadata = null;
        for (int i = 0; i < SAVEPOINT_DRAWS; i++) {
            Object location;
            try {
                location = init.invoke(access, checkpointId, null);
            } catch (InvocationTargetException e) {
                return error(e.getCause());
            }
            String dir = Reflect.getIfPresent(location, "checkpointDirectory").toString();
            String meta = Reflect.getIfPresent(location, "metadataFilePath").toString();
            if (!meta.startsWith(dir + "/")) {
                throw new IllegalStateException("savepoint metadata " + meta + " is not in " + dir);
            }
            String name = meta.substring(dir.length() + 1);
            if (metadata != null && !metadata.equals(name)) {
                throw new IllegalStateException("savepoint metadata files differ: " + metadata + ", " + name);
            }
            metadata = name;
            dirs.add(dir);
        }
        String prefix = dirs.get(0);
        for (String d : dirs) {
            int n = 0;
            while (n < prefix.length() && n < d.length() && prefix.charAt(n) == d.charAt(n)) {
                n++;
            }
            prefix = prefix.substring(0, n);
        }
        int random = dirs.get(0).length() - prefix.length();
        for (String d : dirs) {
            if (d.length() - prefix.length() != random) {
                throw new IllegalStateException("savepoint directory names of different lengths: " + dirs);
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("directory_prefix", prefix);
        out.put("random_chars", random);
        out.put("metadata", metadata);
        return out;
    }

    /** Puts a no-mkdirs local file system into FileSystem's cache for the URI's scheme and authority. */
    @SuppressWarnings("unchecked")
    private static void noMkdirsFor(URI uri) throws Exception {
        Class<?> keyClass = Class.forName("org.apache.flink.core.fs.FileSystem$FSKey");
        Constructor<?> ctor = keyClass.getDeclaredConstructor(String.class, String.class);
        ctor.setAccessible(true);
        fsCache().put(ctor.newInstance(uri.getScheme(), uri.getAuthority()), new NoMkdirs());
    }

    private static boolean has(Object target, String method) {
        try {
            target.getClass().getMethod(method);
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    private static Object call(Object target, String method) throws Exception {
        return target.getClass().getMethod(method).invoke(target);
    }

    private static String error(Throwable t) {
        return "error:" + t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }
}
