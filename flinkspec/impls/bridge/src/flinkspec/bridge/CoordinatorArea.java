package flinkspec.bridge;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Delayed;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@code checkpoint.coordinator}, answered by Flink's own {@code CheckpointCoordinator} (with its
 * {@code CheckpointRequestDecider}, {@code PendingCheckpoint}, {@code CheckpointFailureManager},
 * {@code StandaloneCompletedCheckpointStore}, {@code StandaloneCheckpointIDCounter},
 * {@code CheckpointsCleaner} and the {@code JobManagerCheckpointStorage}), driven over logical
 * time. Semantics: docs/protocol/checkpoint-coordinator.md.
 *
 * <p>What stands in for the cluster, and why it does not change the coordinator's decisions:
 * <ul>
 *   <li>the timer ({@code ScheduledExecutor}) is a manually driven queue, as Flink's own
 *       {@code ManuallyTriggeredScheduledExecutor}: {@code execute} runs FIFO once the current call
 *       returns, {@code schedule} fires when logical time reaches the due time (ties in scheduling
 *       order); the I/O executor is direct, as in Flink's {@code CheckpointCoordinatorBuilder};
 *   <li>the clock is a {@code ManualClock} at {@code OFFSET_MS + at} (a production relative clock
 *       is far from 0, so the initial {@code lastCheckpointCompletionRelativeTime = 0} never holds a
 *       first periodic checkpoint back);
 *   <li>the {@code CheckpointPlanCalculator} does what {@code DefaultCheckpointPlanCalculator} does
 *       for a job without finished tasks: every task is waited for; the tasks that must be RUNNING
 *       are the plan's tasks to wait for (1.14+) or its tasks to trigger, the sources (1.13); the
 *       plan triggers no task (trigger RPCs succeed) and commits to every task: {@code Execution}s,
 *       their {@code ExecutionVertex} and {@code ExecutionJobVertex} are allocated without
 *       constructors and given exactly the fields the coordinator reads, and each execution a slot
 *       whose {@code TaskManagerGateway} records the commit and abort notifications it is sent
 *       (the protocol's {@code notified});
 *   <li>the ID counter is Flink's {@code StandaloneCheckpointIDCounter} behind a proxy that throws
 *       from {@code getAndIncrement} once an {@code id_counter} event was handled;
 *   <li>the periodic scheduler is started with an interval beyond the modelled horizon; its first
 *       firing (random delay) is never due. Triggers it reschedules itself (after a
 *       MINIMUM_TIME_BETWEEN_CHECKPOINTS rejection) fire at their time;
 *   <li>savepoints are written to the same in-memory location kind as checkpoints.
 * </ul>
 * What happened in a step is observed, not predicted: every trigger request's completion future
 * (hooked where the decider queues it), the pending-checkpoint map, the store, the fail-job
 * callback. Only the ack result is read from the pending checkpoint just before the ack.
 */
public final class CoordinatorArea implements Area {
    static final String CP = "org.apache.flink.runtime.checkpoint.";
    static final String EG = "org.apache.flink.runtime.executiongraph.";
    /** Logical time 0 is this relative time (ms) of the coordinator's clock. */
    static final long OFFSET_MS = 1L << 40;
    /** The largest logical time accepted. */
    static final long MAX_AT = 1L << 40;
    /** The periodic interval: never reached within MAX_AT. */
    static final long INTERVAL = 1L << 62;
    static final String[] TRIGGERS = {"periodic", "checkpoint", "savepoint", "sync_savepoint"};
    static final String[] KINDS = {
        "trigger", "ack", "decline", "fail", "restart", "tick", "shutdown", "stop_scheduler", "id_counter"
    };
    static final String[] CONFIG_KEYS = {
        "max_concurrent", "min_pause_ms", "timeout_ms", "retained", "tolerable_failures", "unaligned"
    };

    @Override
    public Object answer(String area, Map<String, Object> input) throws Exception {
        if (!"checkpoint.coordinator".equals(area)) {
            throw new BadRequest("CoordinatorArea does not answer " + area);
        }
        Request req = Request.parse(input);
        for (int attempt = 0; attempt < COLLISION_ATTEMPTS; attempt++) {
            Run run = new Run(req);
            Object out = run.execute();
            if (!run.collided) {
                return out;
            }
        }
        throw new IllegalStateException("every one of " + COLLISION_ATTEMPTS + " runs had two queued trigger "
                + "requests with equal timestamp and equal System.identityHashCode (see Run.collided)");
    }

    /**
     * {@code CheckpointRequestDecider} (1.13-2.3) queues requests in a {@code TreeSet} ordered by kind,
     * wall-clock timestamp, then {@code System.identityHashCode}: two requests of one kind created in
     * the same millisecond whose identity hashes collide compare equal, and the second one is silently
     * dropped (never queued, never completed). That is a property of the JVM's object hashes, not of
     * the request, so it is not part of Flink's rules: a run where it happened is run again with new
     * objects (a collision among ~1,000 requests in one millisecond is about 1 in 4,000).
     */
    static final int COLLISION_ATTEMPTS = 8;

    // ------------------------------------------------------------------------------------------
    // request
    // ------------------------------------------------------------------------------------------

    static final class Event {
        long at;
        String kind;
        String task;
        String trigger;
        long checkpoint;
        String reason;
    }

    static final class Request {
        int maxConcurrent = 1;
        long minPause = 0;
        long timeout = 600000;
        int retained = 1;
        int tolerable = 0;
        boolean unaligned = false;
        List<String> tasks = new ArrayList<>();
        Set<String> sources = new HashSet<>();
        List<Event> events = new ArrayList<>();

        @SuppressWarnings("unchecked")
        static Request parse(Map<String, Object> input) throws BadRequest {
            Request r = new Request();
            for (String k : input.keySet()) {
                if (!Arrays.asList("config", "tasks", "sources", "events").contains(k)) {
                    throw new BadRequest("input." + k + " is not a known field");
                }
            }
            Object cfg = input.get("config");
            if (cfg != null) {
                if (!(cfg instanceof Map)) {
                    throw new BadRequest("input.config must be an object");
                }
                Map<String, Object> c = (Map<String, Object>) cfg;
                for (String k : c.keySet()) {
                    if (!Arrays.asList(CONFIG_KEYS).contains(k)) {
                        throw new BadRequest("input.config." + k + " is not a known setting");
                    }
                }
                r.maxConcurrent = intField(c, "max_concurrent", r.maxConcurrent);
                r.minPause = longField(c, "min_pause_ms", r.minPause, "input.config");
                r.timeout = longField(c, "timeout_ms", r.timeout, "input.config");
                r.retained = intField(c, "retained", r.retained);
                r.tolerable = intField(c, "tolerable_failures", r.tolerable);
                Object u = c.get("unaligned");
                if (u != null) {
                    if (!(u instanceof Boolean)) {
                        throw new BadRequest("input.config.unaligned must be a boolean");
                    }
                    r.unaligned = (Boolean) u;
                }
            }
            r.tasks = names(input.get("tasks"), "input.tasks", null);
            Object src = input.get("sources");
            r.sources = new HashSet<>(src == null ? r.tasks : names(src, "input.sources", r.tasks));
            long last = 0;
            List<Map<String, Object>> raw = Reflect.eventObjects(input);
            for (int i = 0; i < raw.size(); i++) {
                Map<String, Object> e = raw.get(i);
                String where = "input.events[" + i + "]";
                Event ev = new Event();
                Object at = e.get("at");
                if (!(at instanceof Long)) {
                    throw new BadRequest(where + ".at must be an integer");
                }
                ev.at = (Long) at;
                if (ev.at < 0 || ev.at > MAX_AT) {
                    throw new BadRequest(where + ".at must be between 0 and " + MAX_AT);
                }
                if (ev.at < last) {
                    throw new BadRequest(where + ".at goes back in time");
                }
                last = ev.at;
                List<String> present = new ArrayList<>();
                for (String k : KINDS) {
                    if (e.containsKey(k)) {
                        present.add(k);
                    }
                }
                if (present.size() != 1) {
                    throw new BadRequest(where + " must have exactly one of " + String.join(", ", KINDS));
                }
                ev.kind = present.get(0);
                List<String> allowed = new ArrayList<>(Arrays.asList("at", ev.kind));
                switch (ev.kind) {
                    case "trigger":
                        Object t = e.get("trigger");
                        if (!(t instanceof String) || !Arrays.asList(TRIGGERS).contains(t)) {
                            throw new BadRequest(where + ".trigger must be one of " + String.join(", ", TRIGGERS));
                        }
                        ev.trigger = (String) t;
                        break;
                    case "ack":
                    case "decline":
                        ev.task = taskName(e.get(ev.kind), where + "." + ev.kind, r.tasks);
                        ev.checkpoint = longField(e, "checkpoint", null, where);
                        allowed.add("checkpoint");
                        if (ev.kind.equals("decline")) {
                            Object reason = e.get("reason");
                            if (!(reason instanceof String)) {
                                throw new BadRequest(where + ".reason must be a string");
                            }
                            ev.reason = (String) reason;
                            if (!reasonExists(ev.reason)) {
                                throw new BadRequest(where + ".reason = " + reason
                                        + " is not a CheckpointFailureReason of this Flink version");
                            }
                            allowed.add("reason");
                        }
                        break;
                    case "fail":
                    case "restart":
                        ev.task = taskName(e.get(ev.kind), where + "." + ev.kind, r.tasks);
                        break;
                    case "id_counter":
                        if (!"fail".equals(e.get("id_counter"))) {
                            throw new BadRequest(where + ".id_counter must be \"fail\"");
                        }
                        break;
                    default: // tick, shutdown, stop_scheduler
                        if (!Boolean.TRUE.equals(e.get(ev.kind))) {
                            throw new BadRequest(where + "." + ev.kind + " must be true");
                        }
                }
                for (String k : e.keySet()) {
                    if (!allowed.contains(k)) {
                        throw new BadRequest(where + "." + k + " is not a field of a " + ev.kind + " event");
                    }
                }
                r.events.add(ev);
            }
            return r;
        }

        private static int intField(Map<String, Object> c, String name, int dflt) throws BadRequest {
            long v = longField(c, name, (long) dflt, "input.config");
            if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
                throw new BadRequest("input.config." + name + " does not fit a Java int");
            }
            return (int) v;
        }

        private static long longField(Map<String, Object> c, String name, Long dflt, String where) throws BadRequest {
            Object v = c.get(name);
            if (v == null) {
                if (dflt == null) {
                    throw new BadRequest(where + "." + name + " is missing");
                }
                return dflt;
            }
            if (!(v instanceof Long)) {
                throw new BadRequest(where + "." + name + " must be an integer that fits a signed 64-bit long");
            }
            return (Long) v;
        }

        private static List<String> names(Object raw, String where, List<String> within) throws BadRequest {
            if (!(raw instanceof List) || ((List<?>) raw).isEmpty()) {
                throw new BadRequest(where + " must be a non-empty array of task names");
            }
            List<String> out = new ArrayList<>();
            for (Object o : (List<?>) raw) {
                if (!(o instanceof String) || ((String) o).isEmpty()) {
                    throw new BadRequest(where + " must hold non-empty strings");
                }
                if (out.contains(o)) {
                    throw new BadRequest(where + " names " + o + " twice");
                }
                if (within != null && !within.contains(o)) {
                    throw new BadRequest(where + " names " + o + ", which is not a task");
                }
                out.add((String) o);
            }
            return out;
        }

        private static String taskName(Object raw, String where, List<String> tasks) throws BadRequest {
            if (!(raw instanceof String) || !tasks.contains(raw)) {
                throw new BadRequest(where + " must name a task of input.tasks");
            }
            return (String) raw;
        }
    }

    // ------------------------------------------------------------------------------------------
    // the manual timer
    // ------------------------------------------------------------------------------------------

    static final class Timed implements ScheduledFuture<Object> {
        final long seq;
        long due;
        final long period;
        final Runnable task;
        boolean cancelled;
        boolean done;

        Timed(long seq, long due, long period, Runnable task) {
            this.seq = seq;
            this.due = due;
            this.period = period;
            this.task = task;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(due, TimeUnit.MILLISECONDS);
        }

        @Override
        public int compareTo(Delayed o) {
            return Long.compare(getDelay(TimeUnit.MILLISECONDS), o.getDelay(TimeUnit.MILLISECONDS));
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean was = !cancelled && !done;
            cancelled = true;
            return was;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean isDone() {
            return done || cancelled;
        }

        @Override
        public Object get() {
            return null;
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            return null;
        }
    }

    // ------------------------------------------------------------------------------------------
    // one run
    // ------------------------------------------------------------------------------------------

    static final class Run {
        final Request req;
        final ArrayDeque<Runnable> immediate = new ArrayDeque<>();
        final PriorityQueue<Timed> timed = new PriorityQueue<>(
                Comparator.comparingLong((Timed t) -> t.due).thenComparingLong(t -> t.seq));
        long seq;
        long now; // logical time
        boolean horizon; // schedules made now are the regular periodic schedule: never due
        Object clock;
        Method advanceTime;
        Object jobId;
        Object coordinator;
        Object store;
        Class<?> reasonCls;
        final Map<String, Object> executions = new HashMap<>();
        final Map<String, Object> vertices = new HashMap<>();
        // observations of the current step
        final List<Object> triggered = new ArrayList<>();
        final List<Object> rejected = new ArrayList<>();
        final List<Object> completed = new ArrayList<>();
        final Map<String, Object> aborted = new LinkedHashMap<>();
        String jobFailed;
        /** The notifications the tasks' gateway received in this step, in order. */
        final List<Object> notified = new ArrayList<>();
        /** The task of each execution attempt (the gateway is told attempts). */
        final Map<Object, String> attemptTasks = new HashMap<>();
        /** Once an id_counter event is handled, every getAndIncrement of the ID counter throws. */
        boolean counterFails;
        Object gateway;
        final Map<CompletableFuture<?>, Long> pendingIds = new IdentityHashMap<>();
        Field reqPromise;
        Field reqPeriodic;
        int maxQueued;
        boolean collided;

        Run(Request req) {
            this.req = req;
        }

        Object execute() throws Exception {
            setUp();
            List<Object> steps = new ArrayList<>();
            for (Event ev : req.events) {
                List<Object> before = retainedIds();
                advanceTo(ev.at);
                Map<String, Object> step = new LinkedHashMap<>();
                handle(ev, step);
                drain();
                finishStep(step, before);
                steps.add(step);
            }
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("steps", steps);
            return out;
        }

        // --- time -----------------------------------------------------------------------------

        void drain() {
            Runnable r;
            while ((r = immediate.poll()) != null) {
                runGuarded(r);
            }
        }

        void advanceTo(long at) throws Exception {
            while (!timed.isEmpty() && timed.peek().due <= at) {
                Timed t = timed.poll();
                if (t.cancelled) {
                    continue;
                }
                setNow(t.due);
                if (t.period > 0) {
                    t.due = sat(t.due, t.period);
                    timed.add(t);
                } else {
                    t.done = true;
                }
                runGuarded(t.task);
                drain();
            }
            setNow(at);
        }

        void setNow(long at) throws Exception {
            if (at > now) {
                advanceTime.invoke(clock, at - now, TimeUnit.MILLISECONDS);
                now = at;
            }
        }

        static long sat(long a, long b) {
            long s = a + b;
            return (s < a) ? Long.MAX_VALUE : s;
        }

        static void runGuarded(Runnable r) {
            try {
                r.run();
            } catch (RuntimeException e) {
                // a ScheduledExecutorService keeps a task's exception in its future
                System.err.println("coordinator task threw: " + e);
            }
        }

        Object timerProxy(Class<?> iface) {
            return Reflect.proxy(iface, (proxy, m, args) -> {
                switch (m.getName()) {
                    case "execute":
                        immediate.add((Runnable) args[0]);
                        return null;
                    case "schedule": {
                        Runnable task = args[0] instanceof Runnable ? (Runnable) args[0] : callable(args[0]);
                        long delay = ((TimeUnit) args[2]).toMillis((Long) args[1]);
                        if (task.getClass().getSimpleName().equals("CheckpointCanceller")) {
                            pendingCreated(task);
                        }
                        return add(task, Math.max(0, delay), 0);
                    }
                    case "scheduleAtFixedRate":
                    case "scheduleWithFixedDelay": {
                        TimeUnit u = (TimeUnit) args[3];
                        return add((Runnable) args[0], u.toMillis((Long) args[1]), Math.max(1, u.toMillis((Long) args[2])));
                    }
                    default:
                        return Reflect.objectMethod(proxy, m, args, "ManualTimer");
                }
            });
        }

        static Runnable callable(Object c) {
            return () -> {
                try {
                    ((Callable<?>) c).call();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            };
        }

        Timed add(Runnable task, long delay, long period) {
            Timed t = new Timed(seq++, horizon ? Long.MAX_VALUE : sat(now, Math.max(0, delay)), period, task);
            timed.add(t);
            return t;
        }

        // --- set-up ---------------------------------------------------------------------------

        void setUp() throws Exception {
            reasonCls = Class.forName(CP + "CheckpointFailureReason");
            jobId = Class.forName("org.apache.flink.api.common.JobID").getConstructor().newInstance();
            Class<?> clockCls = Class.forName("org.apache.flink.util.clock.ManualClock");
            clock = clockCls.getConstructor(long.class).newInstance(OFFSET_MS * 1_000_000L);
            advanceTime = clockCls.getMethod("advanceTime", long.class, TimeUnit.class);
            Object config = configuration();
            try {
                store = Class.forName(CP + "StandaloneCompletedCheckpointStore").getConstructor(int.class)
                        .newInstance(req.retained);
            } catch (InvocationTargetException e) {
                throw new Rejected(e.getCause());
            }
            for (String t : req.tasks) {
                newExecution(t);
            }
            coordinator = construct(config);
            for (Method m : coordinator.getClass().getMethods()) {
                if (m.getName().equals("setCheckpointStatsTracker")) { // 1.13-1.14: set by the ExecutionGraph
                    m.invoke(coordinator, statsTracker(m.getParameterTypes()[0], config));
                }
            }
            hookQueue();
            horizon = true;
            Reflect.call(coordinator.getClass().getMethod("startCheckpointScheduler"), coordinator);
            horizon = false;
            drain();
        }

        Object configuration() throws Exception {
            Class<?> cfg = Class.forName("org.apache.flink.runtime.jobgraph.tasks.CheckpointCoordinatorConfiguration");
            Object b = cfg.getMethod("builder").invoke(null);
            Class<?> bc = b.getClass();
            bc.getMethod("setCheckpointInterval", long.class).invoke(b, INTERVAL);
            bc.getMethod("setCheckpointTimeout", long.class).invoke(b, req.timeout);
            bc.getMethod("setMinPauseBetweenCheckpoints", long.class).invoke(b, req.minPause);
            bc.getMethod("setMaxConcurrentCheckpoints", int.class).invoke(b, req.maxConcurrent);
            bc.getMethod("setTolerableCheckpointFailureNumber", int.class).invoke(b, req.tolerable);
            bc.getMethod("setUnalignedCheckpointsEnabled", boolean.class).invoke(b, req.unaligned);
            bc.getMethod("setExactlyOnce", boolean.class).invoke(b, true);
            try {
                return bc.getMethod("build").invoke(b);
            } catch (InvocationTargetException e) {
                throw new Rejected(e.getCause().getClass().getSimpleName(),
                        e.getCause().getMessage() == null ? "" : e.getCause().getMessage());
            }
        }

        Object construct(Object config) throws Exception {
            Class<?> ccCls = Class.forName(CP + "CheckpointCoordinator");
            Constructor<?> best = null;
            for (Constructor<?> c : ccCls.getConstructors()) {
                if (Arrays.asList(c.getParameterTypes()).stream().anyMatch(p -> p.getSimpleName().equals("Clock"))) {
                    best = c;
                }
            }
            if (best == null) {
                throw new IllegalStateException("no CheckpointCoordinator constructor taking a Clock");
            }
            Class<?>[] ps = best.getParameterTypes();
            Object[] args = new Object[ps.length];
            for (int i = 0; i < ps.length; i++) {
                args[i] = argument(ps[i], config);
            }
            return best.newInstance(args);
        }

        Object argument(Class<?> p, Object config) throws Exception {
            switch (p.getSimpleName()) {
                case "JobID":
                    return jobId;
                case "CheckpointCoordinatorConfiguration":
                    return config;
                case "Collection":
                    return Collections.emptyList();
                case "CheckpointIDCounter":
                    return idCounter(p);
                case "CompletedCheckpointStore":
                    return store;
                case "CheckpointStorage":
                    return storage(p);
                case "Executor":
                    return (Executor) Runnable::run;
                case "CheckpointsCleaner":
                    return Class.forName(CP + "CheckpointsCleaner").getConstructor().newInstance();
                case "ScheduledExecutor":
                    return timerProxy(p);
                case "SharedStateRegistryFactory":
                    return Class.forName("org.apache.flink.runtime.state.SharedStateRegistry")
                            .getField("DEFAULT_FACTORY").get(null);
                case "CheckpointFailureManager":
                    return failureManager(p);
                case "CheckpointPlanCalculator":
                    return Reflect.proxy(p, (proxy, m, args) -> m.getName().equals("calculateCheckpointPlan")
                            ? CompletableFuture.supplyAsync(this::plan, immediate::add)
                            : Reflect.objectMethod(proxy, m, args, "PlanCalculator"));
                case "ExecutionAttemptMappingProvider":
                    return p.getConstructor(Iterable.class).newInstance(Collections.emptyList());
                case "Clock":
                    return clock;
                case "CheckpointStatsTracker":
                    return statsTracker(p, config);
                case "BiFunction":
                    return (java.util.function.BiFunction<Object, Object, Object>) (a, b) -> {
                        throw new UnsupportedOperationException("restore is not modelled");
                    };
                default:
                    throw new IllegalStateException("no argument for " + p);
            }
        }

        Object storage(Class<?> storageIface) throws Exception {
            Object real = Class.forName("org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage")
                    .getConstructor().newInstance();
            Object access = real.getClass().getMethod("createCheckpointStorage", jobId.getClass()).invoke(real, jobId);
            Class<?> accessIface = Class.forName("org.apache.flink.runtime.state.CheckpointStorageAccess");
            Method forCheckpoint = accessIface.getMethod("initializeLocationForCheckpoint", long.class);
            Object accessProxy = Reflect.proxy(accessIface, (proxy, m, args) -> {
                switch (m.getName()) {
                    case "initializeLocationForSavepoint": // the savepoint's bytes stay in memory too
                        return forCheckpoint.invoke(access, args[0]);
                    case "hasDefaultSavepointLocation":
                        return true;
                    case "hashCode":
                    case "equals":
                    case "toString":
                        return Reflect.objectMethod(proxy, m, args, "Storage");
                    default:
                        try {
                            return m.invoke(access, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                }
            });
            return Reflect.proxy(storageIface, (proxy, m, args) -> {
                switch (m.getName()) {
                    case "createCheckpointStorage":
                        return accessProxy;
                    case "hashCode":
                    case "equals":
                    case "toString":
                        return Reflect.objectMethod(proxy, m, args, "CheckpointStorage");
                    default:
                        try {
                            return m.invoke(real, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                }
            });
        }

        /** Flink's StandaloneCheckpointIDCounter, whose getAndIncrement throws once the counter fails. */
        Object idCounter(Class<?> iface) throws Exception {
            Object real = Class.forName(CP + "StandaloneCheckpointIDCounter").getConstructor().newInstance();
            return Reflect.proxy(iface, (proxy, m, args) -> {
                switch (m.getName()) {
                    case "hashCode":
                    case "equals":
                    case "toString":
                        return Reflect.objectMethod(proxy, m, args, "CheckpointIDCounter");
                    default:
                        if (counterFails && m.getName().equals("getAndIncrement")) {
                            throw new Exception("flinkspec: the checkpoint ID counter failed");
                        }
                        try {
                            return m.invoke(real, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                }
            });
        }

        /**
         * The TaskManager gateway every execution's slot leads to: it records the checkpoint
         * notifications ({@code notifyCheckpointComplete} 1.13-1.14, {@code notifyCheckpointOnComplete}
         * with the last subsumed id 1.15+, {@code notifyCheckpointAborted}) by task.
         */
        Object gateway() throws Exception {
            if (gateway == null) {
                Class<?> gw = Class.forName("org.apache.flink.runtime.jobmanager.slots.TaskManagerGateway");
                gateway = Reflect.proxy(gw, (proxy, m, args) -> {
                    String n = m.getName();
                    if (n.startsWith("notifyCheckpoint") && args != null && args.length >= 4) {
                        Map<String, Object> note = new LinkedHashMap<>();
                        note.put("task", attemptTasks.get(args[0]));
                        if (n.equals("notifyCheckpointAborted")) {
                            note.put("aborted", args[2]);
                        } else if (n.equals("notifyCheckpointComplete") || n.equals("notifyCheckpointOnComplete")) {
                            note.put("complete", args[2]);
                            if (args.length == 5) {
                                note.put("last_subsumed", args[4]);
                            }
                        } else {
                            note.put("other", n);
                        }
                        notified.add(note);
                        return null;
                    }
                    return Reflect.objectMethod(proxy, m, args, "TaskManagerGateway");
                });
            }
            return gateway;
        }

        Object slot() throws Exception {
            Class<?> ls = Class.forName("org.apache.flink.runtime.jobmaster.LogicalSlot");
            Object gw = gateway();
            return Reflect.proxy(ls, (proxy, m, args) -> m.getName().equals("getTaskManagerGateway")
                    ? gw : Reflect.objectMethod(proxy, m, args, "LogicalSlot"));
        }

        Object failureManager(Class<?> fm) throws Exception {
            Class<?> cb = Class.forName(CP + "CheckpointFailureManager$FailJobCallback");
            Object callback = Reflect.proxy(cb, (proxy, m, args) -> {
                if (m.getName().startsWith("failJob")) {
                    if (jobFailed == null) {
                        jobFailed = String.valueOf(((Throwable) args[0]).getMessage());
                    }
                    return null;
                }
                return Reflect.objectMethod(proxy, m, args, "FailJobCallback");
            });
            try {
                return fm.getConstructor(int.class, cb).newInstance(req.tolerable, callback);
            } catch (InvocationTargetException e) {
                throw new Rejected(e.getCause());
            }
        }

        Object statsTracker(Class<?> p, Object config) throws Exception {
            if (p.isInterface()) {
                Class<?> noop = Class.forName(CP + "NoOpCheckpointStatsTracker");
                return noop.getField("INSTANCE").get(null);
            }
            Object group = Class.forName("org.apache.flink.metrics.groups.UnregisteredMetricsGroup")
                    .getConstructor().newInstance();
            for (Constructor<?> c : p.getConstructors()) {
                Class<?>[] ps = c.getParameterTypes();
                Object[] args = new Object[ps.length];
                for (int i = 0; i < ps.length; i++) {
                    String n = ps[i].getSimpleName();
                    args[i] = ps[i] == int.class ? 10 : n.equals("MetricGroup") ? group
                            : n.equals("JobID") ? jobId : n.equals("CheckpointCoordinatorConfiguration") ? config : null;
                }
                if (!Arrays.asList(args).contains(null)) {
                    return c.newInstance(args);
                }
            }
            throw new IllegalStateException("no usable CheckpointStatsTracker constructor");
        }

        // --- executions -----------------------------------------------------------------------

        void newExecution(String task) throws Exception {
            Object vertex = vertices.get(task);
            if (vertex == null) {
                Class<?> jvCls = Class.forName("org.apache.flink.runtime.jobgraph.JobVertex");
                Object jv = jvCls.getConstructor(String.class).newInstance(task);
                Object ejv = Reflect.allocate(Class.forName(EG + "ExecutionJobVertex"));
                setField(ejv, "jobVertex", jv);
                Class<?> acc = Class.forName(EG + "InternalExecutionGraphAccessor");
                setField(ejv, "graph", Reflect.proxy(acc, (proxy, m, args) -> m.getName().equals("getJobID")
                        ? jobId : Reflect.objectMethod(proxy, m, args, "ExecutionGraph")));
                Class<?> vpi = Class.forName("org.apache.flink.runtime.scheduler.VertexParallelismInformation");
                setField(ejv, "parallelismInfo", Reflect.proxy(vpi, (proxy, m, args) -> {
                    switch (m.getName()) {
                        case "getParallelism":
                        case "getMinParallelism":
                            return 1;
                        case "getMaxParallelism":
                            return 128;
                        default:
                            return Reflect.objectMethod(proxy, m, args, "Parallelism");
                    }
                }));
                vertex = Reflect.allocate(Class.forName(EG + "ExecutionVertex"));
                setField(vertex, "jobVertex", ejv);
                setField(vertex, "subTaskIndex", 0);
                setField(vertex, "taskNameWithSubtask", task + " (1/1)");
                vertices.put(task, vertex);
            }
            Object ex = Reflect.allocate(Class.forName(EG + "Execution"));
            setField(ex, "vertex", vertex);
            Object attempt = attemptId();
            setField(ex, "attemptId", attempt);
            attemptTasks.put(attempt, task);
            setField(ex, "assignedResource", slot());
            setState(ex, "RUNNING");
            setField(vertex, "currentExecution", ex);
            executions.put(task, ex);
        }

        Object attemptId() throws Exception {
            Class<?> c = Class.forName(EG + "ExecutionAttemptID");
            try {
                return c.getMethod("randomId").invoke(null);
            } catch (NoSuchMethodException e) {
                return c.getConstructor().newInstance();
            }
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        void setState(Object ex, String state) throws Exception {
            Class<? extends Enum> es = (Class<? extends Enum>) Class.forName("org.apache.flink.runtime.execution.ExecutionState");
            setField(ex, "state", Enum.valueOf(es, state));
        }

        String state(Object ex) throws Exception {
            return String.valueOf(getField(ex, "state"));
        }

        Object plan() {
            try {
                // DefaultCheckpointPlanCalculator: 1.13 checks the tasks to trigger, 1.14+ the tasks to wait for
                boolean checkSourcesOnly = Reflect.classOrNull(CP + "DefaultCheckpointPlan") == null;
                for (String t : req.tasks) {
                    if (checkSourcesOnly && !req.sources.contains(t)) {
                        continue;
                    }
                    if (!"RUNNING".equals(state(executions.get(t)))) {
                        throw new CompletionException(checkpointException(String.format(
                                "Checkpoint triggering task %s of job %s is not being executed at the moment. "
                                        + "Aborting checkpoint.", t + " (1/1)", jobId),
                                "NOT_ALL_REQUIRED_TASKS_RUNNING"));
                    }
                }
                List<Object> waitFor = new ArrayList<>();
                for (String t : req.tasks) {
                    waitFor.add(executions.get(t));
                }
                List<Object> none = Collections.emptyList();
                List<Object> commitTo = new ArrayList<>();
                for (String t : req.tasks) {
                    commitTo.add(vertices.get(t));
                }
                Class<?> defaultPlan = Reflect.classOrNull(CP + "DefaultCheckpointPlan");
                Class<?> planCls = defaultPlan != null ? defaultPlan : Class.forName(CP + "CheckpointPlan");
                Constructor<?> c = planCls.getDeclaredConstructors()[0];
                c.setAccessible(true);
                Object[] args = c.getParameterCount() == 6
                        ? new Object[] {none, waitFor, commitTo, none, none, false}
                        : new Object[] {none, waitFor, commitTo, none, none};
                return c.newInstance(args);
            } catch (CompletionException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        Object reason(String name) {
            return Enum.valueOf((Class<? extends Enum>) reasonCls, name);
        }

        Exception checkpointException(String message, String reason) throws Exception {
            Class<?> ce = Class.forName(CP + "CheckpointException");
            if (message == null) {
                return (Exception) ce.getConstructor(reasonCls).newInstance(reason(reason));
            }
            return (Exception) ce.getConstructor(String.class, reasonCls).newInstance(message, reason(reason));
        }

        // --- observation hooks ----------------------------------------------------------------

        @SuppressWarnings({"unchecked", "rawtypes"})
        void hookQueue() throws Exception {
            Object decider = getField(coordinator, "requestDecider");
            TreeSet<Object> orig = (TreeSet<Object>) getField(decider, "queuedRequests");
            maxQueued = (Integer) getField(decider, "maxQueuedRequests");
            Class<?> reqCls = Class.forName(CP + "CheckpointCoordinator$CheckpointTriggerRequest");
            reqPromise = reqCls.getDeclaredField("onCompletionPromise");
            reqPromise.setAccessible(true);
            reqPeriodic = reqCls.getDeclaredField("isPeriodic");
            reqPeriodic.setAccessible(true);
            TreeSet<Object> hooked = new TreeSet<Object>((Comparator) orig.comparator()) {
                @Override
                public boolean add(Object request) {
                    watch(request);
                    boolean added = super.add(request);
                    if (!added && stream().noneMatch(queued -> queued == request)) {
                        collided = true; // an equal-comparing, different request: see COLLISION_ATTEMPTS
                    }
                    return added;
                }

                @Override
                public Object last() {
                    Object last = super.last();
                    // CheckpointRequestDecider reads last() only to refuse a new request at a full queue
                    try {
                        if (size() >= maxQueued && !(Boolean) reqPeriodic.get(last)) {
                            rejected.add("TOO_MANY_CHECKPOINT_REQUESTS");
                        }
                    } catch (IllegalAccessException e) {
                        throw new IllegalStateException(e);
                    }
                    return last;
                }
            };
            setField(decider, "queuedRequests", hooked);
        }

        void watch(Object request) {
            try {
                CompletableFuture<?> f = (CompletableFuture<?>) reqPromise.get(request);
                f.whenComplete((done, error) -> observe(f, done, error));
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }

        void observe(CompletableFuture<?> f, Object done, Throwable error) {
            Long id = pendingIds.get(f);
            try {
                if (error == null) {
                    completed.add(done.getClass().getMethod("getCheckpointID").invoke(done));
                } else if (id != null) {
                    aborted.put(String.valueOf(id), reasonOf(error));
                } else {
                    rejected.add(reasonOf(error));
                }
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }

        String reasonOf(Throwable t) {
            for (Throwable c = t; c != null; c = c.getCause()) {
                if (c.getClass().getSimpleName().equals("CheckpointException")) {
                    try {
                        return String.valueOf(c.getClass().getMethod("getCheckpointFailureReason").invoke(c));
                    } catch (ReflectiveOperationException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
            return "exception:" + t.getClass().getSimpleName();
        }

        /**
         * {@code createPendingCheckpoint} puts the checkpoint into the pending map and at once
         * schedules its {@code CheckpointCanceller}: that schedule call is where a trigger is seen
         * (the map itself cannot be replaced: the decider holds a method reference to its size).
         */
        void pendingCreated(Runnable canceller) {
            try {
                Object pending = getField(canceller, "pendingCheckpoint");
                Long id = (Long) pending.getClass().getMethod("getCheckpointID").invoke(pending);
                triggered.add(id);
                pendingIds.put((CompletableFuture<?>) getField(pending, "onCompletionPromise"), id);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        // --- events ---------------------------------------------------------------------------

        void handle(Event ev, Map<String, Object> step) throws Exception {
            Class<?> cc = coordinator.getClass();
            switch (ev.kind) {
                case "trigger":
                    trigger(cc, ev.trigger);
                    break;
                case "ack":
                    ack(cc, ev, step);
                    break;
                case "decline":
                    decline(cc, ev);
                    break;
                case "fail":
                    setState(executions.get(ev.task), "FAILED");
                    break;
                case "shutdown":
                    Reflect.call(cc.getMethod("shutdown"), coordinator);
                    break;
                case "stop_scheduler":
                    Reflect.call(cc.getMethod("stopCheckpointScheduler"), coordinator);
                    break;
                case "id_counter":
                    counterFails = true;
                    break;
                case "restart":
                    // SchedulerBase.restartTasks: new attempts, then restoreState aborts every pending checkpoint
                    newExecution(ev.task);
                    Reflect.call(cc.getMethod("abortPendingCheckpoints", Class.forName(CP + "CheckpointException")),
                            coordinator, checkpointException(null, "JOB_FAILOVER_REGION"));
                    break;
                default:
                    break;
            }
        }

        void trigger(Class<?> cc, String kind) throws Exception {
            if (kind.equals("savepoint") || kind.equals("sync_savepoint")) {
                // the decider orders equal-priority requests by wall-clock creation time: make it distinct
                long t0 = System.currentTimeMillis();
                while (System.currentTimeMillis() == t0) {
                    Thread.onSpinWait();
                }
            }
            String target = "file:///flinkspec/savepoints";
            switch (kind) {
                case "periodic":
                case "checkpoint":
                    Reflect.call(cc.getMethod("triggerCheckpoint", boolean.class), coordinator, kind.equals("periodic"));
                    return;
                case "savepoint":
                    for (Method m : cc.getMethods()) {
                        if (m.getName().equals("triggerSavepoint")) {
                            Reflect.call(m, coordinator, m.getParameterCount() == 1
                                    ? new Object[] {target} : new Object[] {target, canonical()});
                            return;
                        }
                    }
                    throw new IllegalStateException("no triggerSavepoint");
                default:
                    for (Method m : cc.getMethods()) {
                        if (m.getName().equals("triggerSynchronousSavepoint")) {
                            Reflect.call(m, coordinator, m.getParameterCount() == 2
                                    ? new Object[] {false, target} : new Object[] {false, target, canonical()});
                            return;
                        }
                    }
                    throw new IllegalStateException("no triggerSynchronousSavepoint");
            }
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        Object canonical() throws Exception {
            Class<? extends Enum> c = (Class<? extends Enum>) Class.forName("org.apache.flink.core.execution.SavepointFormatType");
            return Enum.valueOf(c, "CANONICAL");
        }

        @SuppressWarnings("unchecked")
        void ack(Class<?> cc, Event ev, Map<String, Object> step) throws Exception {
            Object attempt = getField(executions.get(ev.task), "attemptId");
            Map<Long, Object> pending = (Map<Long, Object>) getField(coordinator, "pendingCheckpoints");
            Object pc = pending.get(ev.checkpoint);
            String result = null;
            if (pc != null) {
                // PendingCheckpoint.acknowledgeTask's decision, read just before it is taken
                if ((Boolean) getField(pc, "disposed")) {
                    result = "DISCARDED";
                } else if (((Map<Object, Object>) getField(pc, "notYetAcknowledgedTasks")).containsKey(attempt)) {
                    result = "SUCCESS";
                } else if (((Set<Object>) getField(pc, "acknowledgedTasks")).contains(attempt)) {
                    result = "DUPLICATE";
                } else {
                    result = "UNKNOWN";
                }
            }
            Class<?> ackCls = Class.forName("org.apache.flink.runtime.messages.checkpoint.AcknowledgeCheckpoint");
            Object msg = ackCls.getConstructor(jobId.getClass(), attempt.getClass(), long.class)
                    .newInstance(jobId, attempt, ev.checkpoint);
            Method m = cc.getMethod("receiveAcknowledgeMessage", ackCls, String.class);
            Object wasPending;
            try {
                wasPending = m.invoke(coordinator, msg, "flinkspec");
            } catch (InvocationTargetException e) {
                throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
            }
            if (result != null) {
                step.put("ack", result);
            } else if (Boolean.TRUE.equals(wasPending)) {
                step.put("was_pending", true);
            }
        }

        void decline(Class<?> cc, Event ev) throws Exception {
            Object reason;
            try {
                reason = reason(ev.reason);
            } catch (IllegalArgumentException e) {
                throw new BadRequest("decline reason " + ev.reason + " is not a CheckpointFailureReason of this version");
            }
            Object attempt = getField(executions.get(ev.task), "attemptId");
            Class<?> ce = Class.forName(CP + "CheckpointException");
            Object exc = ce.getConstructor(reasonCls).newInstance(reason);
            Class<?> dc = Class.forName("org.apache.flink.runtime.messages.checkpoint.DeclineCheckpoint");
            Object msg = dc.getConstructor(jobId.getClass(), attempt.getClass(), long.class, ce)
                    .newInstance(jobId, attempt, ev.checkpoint, exc);
            try {
                cc.getMethod("receiveDeclineMessage", dc, String.class).invoke(coordinator, msg, "flinkspec");
            } catch (InvocationTargetException e) {
                // PendingCheckpoint.abort: "Bug: savepoints must never be subsumed" (an RPC handler logs it)
                if (!(e.getCause() instanceof IllegalStateException)) {
                    throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
                }
                System.err.println("receiveDeclineMessage threw: " + e.getCause());
            }
        }

        // --- step output ----------------------------------------------------------------------

        @SuppressWarnings("unchecked")
        List<Object> retainedIds() throws Exception {
            List<Object> ids = new ArrayList<>();
            for (Object c : (List<Object>) store.getClass().getMethod("getAllCheckpoints").invoke(store)) {
                ids.add(c.getClass().getMethod("getCheckpointID").invoke(c));
            }
            return ids;
        }

        void finishStep(Map<String, Object> step, List<Object> before) throws Exception {
            Map<String, Object> out = new LinkedHashMap<>();
            if (!triggered.isEmpty()) {
                out.put("triggered", new ArrayList<>(triggered));
            }
            Method q = coordinator.getClass().getDeclaredMethod("getNumQueuedRequests");
            q.setAccessible(true);
            int queued = (Integer) q.invoke(coordinator);
            if (queued > 0) {
                out.put("queued", (long) queued);
            }
            if (!rejected.isEmpty()) {
                out.put("rejected", new ArrayList<>(rejected));
            }
            if (step.containsKey("ack")) {
                out.put("ack", step.get("ack"));
            }
            if (!completed.isEmpty()) {
                out.put("completed", new ArrayList<>(completed));
            }
            if (!aborted.isEmpty()) {
                out.put("aborted", new LinkedHashMap<>(aborted));
            }
            List<Object> after = retainedIds();
            if (!after.equals(before)) {
                out.put("retained", after);
            }
            if (jobFailed != null) {
                out.put("job_failed", jobFailed);
            }
            if (step.containsKey("was_pending")) {
                out.put("was_pending", true);
            }
            if (!notified.isEmpty()) {
                out.put("notified", new ArrayList<>(notified));
            }
            step.clear();
            step.putAll(out);
            triggered.clear();
            rejected.clear();
            completed.clear();
            aborted.clear();
            notified.clear();
            jobFailed = null;
        }
    }

    // ------------------------------------------------------------------------------------------
    // reflection
    // ------------------------------------------------------------------------------------------

    static boolean reasonExists(String name) {
        try {
            for (Object c : Class.forName(CP + "CheckpointFailureReason").getEnumConstants()) {
                if (((Enum<?>) c).name().equals(name)) {
                    return true;
                }
            }
            return false;
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }

    static Object getField(Object target, String name) throws Exception {
        return Reflect.get(target.getClass(), target, name);
    }

    static void setField(Object target, String name, Object value) throws Exception {
        Field f = Reflect.fieldOf(target.getClass(), name);
        if (Modifier.isFinal(f.getModifiers())) {
            unsafeSet(f, target, value);
        } else {
            f.set(target, value);
        }
    }

    private static Object unsafe;

    static Object unsafe() throws Exception {
        if (unsafe == null) {
            Field f = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
            f.setAccessible(true);
            unsafe = f.get(null);
        }
        return unsafe;
    }

    static void unsafeSet(Field f, Object target, Object value) throws Exception {
        Object u = unsafe();
        long offset = (Long) u.getClass().getMethod("objectFieldOffset", Field.class).invoke(u, f);
        if (f.getType() == int.class) {
            u.getClass().getMethod("putInt", Object.class, long.class, int.class).invoke(u, target, offset, value);
        } else if (f.getType() == boolean.class) {
            u.getClass().getMethod("putBoolean", Object.class, long.class, boolean.class).invoke(u, target, offset, value);
        } else if (f.getType() == long.class) {
            u.getClass().getMethod("putLong", Object.class, long.class, long.class).invoke(u, target, offset, value);
        } else {
            u.getClass().getMethod("putObjectVolatile", Object.class, long.class, Object.class)
                    .invoke(u, target, offset, value);
        }
    }

}
