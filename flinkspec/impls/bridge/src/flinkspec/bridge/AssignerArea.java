package flinkspec.bridge;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.operators.TimestampsAndWatermarksOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.clock.ManualClock;

/**
 * {@code watermark.assigner}: Flink's own {@code TimestampsAndWatermarksOperator} (what
 * {@code DataStream.assignTimestampsAndWatermarks} runs) and its {@code WatermarkEmitter}, with a
 * {@code WatermarkStrategy} built as {@link GenerationArea#strategy} builds it (docs/protocol/watermark-assigner.md).
 *
 * <p>The harness is the bridge's own (flink-dist has no operator test harness), and everything the operator does is
 * its own code, {@code open()} included. The operator is built by its constructor ({@code (strategy,
 * emitProgressive)} in 1.x, {@code (null parameters, strategy, emitProgressive)} in 2.x, which sets nothing up),
 * then given what a task's operator chain gives it: its output (recording what reaches it), its processing-time
 * service ({@link ManualTime}) and its containing task, a {@code OneInputStreamTask} made without its constructor
 * whose environment answers the execution config (with the request's interval), the job configuration and an
 * unregistered task metric group ({@link #task}). Then Flink's {@code open()} runs: it creates the timestamp
 * assigner and the generator from the strategy (with the operator's own context, which from 1.19.2 / 1.20.1 hands
 * the generator a {@code PausableRelativeClock} over the service's clock), the {@code WatermarkEmitter}, and
 * registers the first timer at now + interval. In 1.13 the emitter's {@code StreamStatusMaintainer} is the task's
 * operator chain, which this task has not: it is set after {@code open()} to one recording the statuses toggled.
 * Then {@code processElement}, {@code processWatermark}, {@code processWatermarkStatus}, {@code onProcessingTime}
 * (fired by the service), {@code finish()} (1.14+) / {@code close()} (1.13) at end of input.
 *
 * <p>{@link ManualTime}: processing time starts at 0 ms; an advance sets the clock to the new time, then fires
 * the timers whose time is at most the new time, in time order, each reading the new time (what Flink's
 * {@code TestProcessingTimeService.setCurrentTime} does): a timer registered while firing is at the new time +
 * the interval, so one advance fires the periodic timer at most once, however far it goes.
 */
public final class AssignerArea implements Area {
    private static final String OP = "org.apache.flink.streaming.runtime.operators.TimestampsAndWatermarksOperator";
    private static final long MAX_CLOCK_MS = Long.MAX_VALUE / 1_000_000;

    @Override
    public Object answer(String area, Map<String, Object> input) throws Exception {
        if (!"watermark.assigner".equals(area)) {
            throw new BadRequest("AssignerArea does not answer " + area);
        }
        List<Object> calls = new ArrayList<>();
        Harness harness = open(input, output(calls), null, calls, false);
        List<Object> outputs = new ArrayList<>(harness.events.size());
        for (Map<String, Object> ev : harness.events) {
            calls.clear();
            harness.step(ev);
            outputs.add(new ArrayList<>(calls));
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("outputs", outputs);
        return answer;
    }

    /** The operator after {@code open()}, its processing-time service, and the request's events. */
    static final class Harness {
        final AbstractStreamOperator<Object> operator;
        final Class<?> op;
        final Class<?> statusClass;
        final ManualTime time;
        final List<Map<String, Object>> events;

        private Harness(AbstractStreamOperator<Object> operator, Class<?> op, Class<?> statusClass, ManualTime time,
                List<Map<String, Object>> events) {
            this.operator = operator;
            this.op = op;
            this.statusClass = statusClass;
            this.time = time;
            this.events = events;
        }

        /** One event given to the operator as its task gives it (a status only where the operator has the method). */
        void step(Map<String, Object> ev) throws Exception {
            switch ((String) ev.get("kind")) {
                case "record":
                    Object value = Boolean.TRUE.equals(ev.get("marker")) ? GenerationArea.MARKED
                            : GenerationArea.UNMARKED;
                    Object ts = ev.get("timestamp");
                    call(operator, "processElement", ts == null ? new StreamRecord<>(value)
                            : new StreamRecord<>(value, ((Number) ts).longValue()));
                    break;
                case "watermark":
                    call(operator, "processWatermark", new Watermark(((Number) ev.get("timestamp")).longValue()));
                    break;
                case "status":
                    call(operator, "processWatermarkStatus",
                            statusClass.getField(ev.get("status").equals("idle") ? "IDLE" : "ACTIVE").get(null));
                    break;
                case "advance":
                    time.advance(((Number) ev.get("ms")).longValue());
                    break;
                default:
                    call(operator, Reflect.declaresMethod(op, "finish") ? "finish" : "close");
            }
        }
    }

    /**
     * The request's operator, checked (BadRequest naming the field), built and opened over {@code output} (Rejected as
     * Flink refuses it). In 1.13 the emitter toggles its status on {@code maintainer}, the task's operator chain, or
     * where that is null on one recording into {@code calls}. With {@code taskStatus} a status event is taken at 1.13
     * too: the caller gives it to the task (1.13's operators have no status method).
     */
    static Harness open(Map<String, Object> input, Object output, Object maintainer, List<Object> calls,
            boolean taskStatus) throws Exception {
        GenerationArea.Spec spec = GenerationArea.Spec.read(input);
        if (input.containsKey("built_by")) {
            throw new BadRequest("input.built_by: the operator's generator is always built by its WatermarkStrategy");
        }
        long interval = Json.longOf(input, "auto_watermark_interval_ms", "input");
        if (interval > MAX_CLOCK_MS) {
            throw new BadRequest("input.auto_watermark_interval_ms must be at most " + MAX_CLOCK_MS
                    + " (the clock's milliseconds plus the interval must fit a long)");
        }
        boolean progressive = true;
        if (input.containsKey("emit_progressive")) {
            if (!(input.get("emit_progressive") instanceof Boolean)) {
                throw new BadRequest("input.emit_progressive must be a boolean");
            }
            progressive = (Boolean) input.get("emit_progressive");
        }
        Class<?> op = Class.forName(OP);
        boolean activityClock = Reflect.declaresField(op, "inputActivityClock");
        if (!activityClock) {
            spec.checkSystemClockTimeout();
        }
        Class<?> statusClass = statusClass();
        List<Map<String, Object>> events = Reflect.eventObjects(input);
        checkEvents(events, spec, statusClass != null || taskStatus);

        AbstractStreamOperator<Object> operator;
        ManualTime time = new ManualTime();
        try {
            ExecutionConfig config = new ExecutionConfig();
            config.setAutoWatermarkInterval(interval);
            WatermarkStrategy<Object> strategy = GenerationArea.strategy(spec.kind, spec.ooo, spec.timeout);
            operator = newOperator(op, strategy, progressive);
            open(operator, op, config, time, output, maintainer, calls);
        } catch (IllegalArgumentException e) {
            throw new Rejected(e);
        } catch (InvocationTargetException e) {
            throw new Rejected(e.getCause());
        }
        return new Harness(operator, op, statusClass, time, events);
    }

    /** Each event's fields (BadRequest naming the first wrong one); {@code statuses}: whether a status is taken. */
    private static void checkEvents(List<Map<String, Object>> events, GenerationArea.Spec spec, boolean statuses)
            throws BadRequest {
        long clockMillis = 0;
        for (int i = 0; i < events.size(); i++) {
            String where = "input.events[" + i + "]";
            Map<String, Object> ev = events.get(i);
            String k = Json.string(ev, "kind", where);
            switch (k) {
                case "record":
                    Json.recordTimestamp(ev, where);
                    if (ev.containsKey("marker") && !(ev.get("marker") instanceof Boolean)) {
                        throw new BadRequest(where + ".marker must be a boolean");
                    }
                    break;
                case "watermark":
                    Json.longOf(ev, "timestamp", where);
                    break;
                case "status":
                    Json.status(ev, where);
                    if (!statuses) {
                        throw new BadRequest(where + ": an upstream watermark status reaches no method of the "
                                + "operator before Flink 1.14 (the task handles StreamStatus)");
                    }
                    break;
                case "advance":
                    long ms = Json.longOf(ev, "ms", where);
                    if (ms < 0) {
                        throw new BadRequest(where + ".ms must not be negative (processing time does not go back)");
                    }
                    if (ms > MAX_CLOCK_MS - clockMillis) {
                        throw new BadRequest("input.events: the clock's nanoseconds (the sum of the advances times "
                                + "1,000,000) must fit a long");
                    }
                    clockMillis += ms;
                    break;
                case "end_of_input":
                    break;
                default:
                    throw new BadRequest(where + ".kind must be one of record, watermark, status, advance, "
                            + "end_of_input, got '" + k + "'");
            }
        }
        for (int i = 0; i < events.size(); i++) {
            Map<String, Object> ev = events.get(i);
            if (Boolean.TRUE.equals(ev.get("marker")) && !spec.kind.equals("punctuated")) {
                throw new BadRequest("input.events: a marker is only for the punctuated generator");
            }
            if (ev.get("kind").equals("end_of_input") && i < events.size() - 1) {
                throw new BadRequest("input.events: end_of_input must be the last event (nothing reaches a "
                        + "finished operator)");
            }
        }
    }

    /** The operator by its constructor: (strategy, progressive) in 1.x, (parameters, strategy, progressive) in 2.x. */
    @SuppressWarnings("unchecked")
    private static AbstractStreamOperator<Object> newOperator(Class<?> op, WatermarkStrategy<Object> strategy,
            boolean progressive) throws Exception {
        for (Constructor<?> c : op.getConstructors()) {
            if (c.getParameterCount() == 2) {
                return (AbstractStreamOperator<Object>) c.newInstance(strategy, progressive);
            }
            if (c.getParameterCount() == 3) { // 2.x: null StreamOperatorParameters set up nothing
                return (AbstractStreamOperator<Object>) c.newInstance(null, strategy, progressive);
            }
        }
        throw new IllegalStateException("no TimestampsAndWatermarksOperator constructor");
    }

    /**
     * Flink's own {@code TimestampsAndWatermarksOperator.open()}, the operator set up as a task's chain sets it up:
     * its output, its processing-time service and its containing task (see the class javadoc).
     */
    private static void open(AbstractStreamOperator<Object> operator, Class<?> op, ExecutionConfig config,
            ManualTime time, Object output, Object maintainer, List<Object> calls) throws Exception {
        Reflect.set(AbstractStreamOperator.class, operator, "output", output);
        Class<?> ptsType = Class.forName("org.apache.flink.streaming.runtime.tasks.ProcessingTimeService");
        Reflect.set(AbstractStreamOperator.class, operator, "processingTimeService", Reflect.proxy(ptsType, time));
        Reflect.set(AbstractStreamOperator.class, operator, "container", task(config));
        operator.open();
        Object emitter = Reflect.get(op, operator, "wmOutput");
        if (Reflect.declaresField(emitter.getClass(), "statusMaintainer")) { // 1.13: the task's operator chain
            Object statuses = maintainer != null ? maintainer : Reflect.proxy(
                    emitter.getClass().getDeclaredField("statusMaintainer").getType(), (p, m, a) -> {
                        if (m.getName().equals("toggleStreamStatus")) {
                            calls.add(status(a[0]));
                            return null;
                        }
                        return Reflect.objectMethod(p, m, a, "flinkspec-status-maintainer");
                    });
            Reflect.set(emitter.getClass(), emitter, "statusMaintainer", statuses);
        }
    }

    /**
     * A {@code OneInputStreamTask} made without its constructor, whose environment answers what the operator asks
     * of its task: the execution config (with the request's interval), the job configuration (2.x's
     * {@code AbstractStreamOperator.open} reads it) and an unregistered task metric group (1.19.2+ / 1.20.1+
     * register the input-activity clock there as a backpressure listener).
     */
    private static Object task(ExecutionConfig config) throws Exception {
        Object metrics = Class.forName("org.apache.flink.runtime.metrics.groups.UnregisteredMetricGroups")
                .getMethod("createUnregisteredTaskMetricGroup").invoke(null);
        Configuration jobConfig = new Configuration();
        Object env = Reflect.proxy(Class.forName("org.apache.flink.runtime.execution.Environment"), (p, m, a) -> {
            switch (m.getName()) {
                case "getExecutionConfig":
                    return config;
                case "getJobConfiguration":
                    return jobConfig;
                case "getMetricGroup":
                    return metrics;
                default:
                    return Reflect.objectMethod(p, m, a, "flinkspec-environment");
            }
        });
        Object task = Reflect.allocate(Class.forName("org.apache.flink.streaming.runtime.tasks.OneInputStreamTask"));
        Reflect.set(task.getClass(), task, "environment", env); // StreamTask's, 1.13 AbstractInvokable's
        return task;
    }

    /** An Output recording records, watermarks and statuses. */
    private static Object output(List<Object> calls) throws Exception {
        Class<?> outputType = Class.forName("org.apache.flink.streaming.api.operators.Output");
        return Reflect.proxy(outputType, (p, m, a) -> {
            switch (m.getName()) {
                case "collect":
                    if (a.length == 1) {
                        StreamRecord<?> r = (StreamRecord<?>) a[0];
                        Map<String, Object> rec = new LinkedHashMap<>();
                        rec.put("record", r.hasTimestamp() ? r.getTimestamp() : null);
                        calls.add(rec);
                        return null;
                    }
                    break;
                case "emitWatermark":
                    if (a[0] instanceof Watermark) {
                        Map<String, Object> wm = new LinkedHashMap<>();
                        wm.put("watermark", ((Watermark) a[0]).getTimestamp());
                        calls.add(wm);
                        return null;
                    }
                    break;
                case "emitWatermarkStatus":
                case "emitStreamStatus":
                    calls.add(status(a[0]));
                    return null;
                default:
                    break;
            }
            return Reflect.objectMethod(p, m, a, "flinkspec-output");
        });
    }

    private static Map<String, Object> status(Object status) throws Exception {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", (Boolean) status.getClass().getMethod("isIdle").invoke(status) ? "idle" : "active");
        return m;
    }

    /** WatermarkStatus (1.14+), or null: 1.13's operators get no status. */
    private static Class<?> statusClass() {
        return Reflect.classOrNull("org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus");
    }

    /** {@code operator.name(args)} by name (its parameter types differ across releases). */
    private static void call(Object operator, String name, Object... args) throws Exception {
        for (Method m : operator.getClass().getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == args.length
                    && (args.length == 0 || m.getParameterTypes()[0] == long.class
                        || m.getParameterTypes()[0].isInstance(args[0]))) {
                Reflect.call(m, operator, args);
                return;
            }
        }
        throw new IllegalStateException("no method " + name + " on " + operator.getClass());
    }

    /**
     * A manual ProcessingTimeService (a proxy of the release's interface): getCurrentProcessingTime, getClock
     * (a ManualClock in nanoseconds), registerTimer; {@link #advance} moves the clock and fires the timers due.
     */
    static final class ManualTime implements java.lang.reflect.InvocationHandler {
        final ManualClock clock = new ManualClock();
        private final PriorityQueue<Object[]> timers = new PriorityQueue<>((x, y) -> {
            int c = Long.compare((Long) x[0], (Long) y[0]);
            return c != 0 ? c : Long.compare((Long) x[2], (Long) y[2]);
        });
        private long registered;

        long now() {
            return clock.absoluteTimeMillis();
        }

        void register(long at, Object callback) {
            timers.add(new Object[] {at, callback, registered++});
        }

        void advance(long ms) throws Exception {
            clock.advanceTime(ms * 1_000_000L, TimeUnit.NANOSECONDS);
            while (!timers.isEmpty() && (Long) timers.peek()[0] <= now()) {
                Object[] t = timers.poll();
                call(t[1], "onProcessingTime", t[0]);
            }
        }

        @Override
        public Object invoke(Object proxy, Method m, Object[] a) {
            switch (m.getName()) {
                case "getCurrentProcessingTime":
                    return now();
                case "getClock":
                    return clock;
                case "registerTimer":
                    register((Long) a[0], a[1]);
                    return null;
                default:
                    return Reflect.objectMethod(proxy, m, a, "flinkspec-processing-time");
            }
        }
    }
}
