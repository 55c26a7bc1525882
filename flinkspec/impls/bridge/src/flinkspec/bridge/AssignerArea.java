package flinkspec.bridge;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.eventtime.NoWatermarksGenerator;
import org.apache.flink.api.common.eventtime.TimestampAssignerSupplier;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
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
 * <p>The harness is the bridge's own (flink-dist has no operator test harness). The operator is built by its
 * constructor ({@code (strategy, emitProgressive)} in 1.x, {@code (null parameters, strategy, emitProgressive)} in
 * 2.x). Its {@code open()} is not run: it reads the execution config through the containing task (1.x and 2.x),
 * and from 1.19.2 / 1.20.1 registers a backpressure listener with the task's metric group, and a
 * {@code StreamTask} cannot be had without a task environment. The fields {@code open()} sets are set here as it
 * sets them, with Flink's own values: the output (recording what reaches it) and processing-time service
 * ({@link ManualTime}) in {@code AbstractStreamOperator}; the input-activity clock (where the field exists) a
 * {@code PausableRelativeClock} over the service's clock; the timestamp assigner from
 * {@code strategy.createTimestampAssigner}; the generator from {@code strategy.createWatermarkGenerator} with
 * Flink's own context (the operator's anonymous {@code TimestampsAndWatermarksOperator$1} where it exists, which
 * answers {@code getInputActivityClock}; before, a context answering {@code getMetricGroup} only, as the
 * operator's lambda) or {@code NoWatermarksGenerator} without progressive watermarks; the emitter
 * {@code new WatermarkEmitter(output)} (1.13: {@code (output, statusMaintainer)}, the maintainer recording the
 * statuses toggled); the interval from {@code ExecutionConfig.setAutoWatermarkInterval} /
 * {@code getAutoWatermarkInterval}; then the first timer at now + interval, as {@code open()} registers it.
 * Everything else is the operator's own code: {@code processElement}, {@code processWatermark},
 * {@code processWatermarkStatus}, {@code onProcessingTime} (fired by the service), {@code finish()} (1.14+) /
 * {@code close()} (1.13) at end of input.
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
        boolean activityClock = hasField(op, "inputActivityClock");
        if (!activityClock) {
            spec.checkSystemClockTimeout();
        }
        Class<?> statusClass = statusClass();
        List<Map<String, Object>> events = Reflect.eventObjects(input);
        long clockMillis = 0;
        for (int i = 0; i < events.size(); i++) {
            String where = "input.events[" + i + "]";
            Map<String, Object> ev = events.get(i);
            String k = Json.string(ev, "kind", where);
            switch (k) {
                case "record":
                    if (!ev.containsKey("timestamp")) {
                        throw new BadRequest(where + ".timestamp is missing (null: a record without a timestamp)");
                    }
                    if (ev.get("timestamp") != null) {
                        Json.longOf(ev, "timestamp", where);
                    }
                    if (ev.containsKey("marker") && !(ev.get("marker") instanceof Boolean)) {
                        throw new BadRequest(where + ".marker must be a boolean");
                    }
                    break;
                case "watermark":
                    Json.longOf(ev, "timestamp", where);
                    break;
                case "status":
                    String s = Json.string(ev, "status", where);
                    if (!s.equals("idle") && !s.equals("active")) {
                        throw new BadRequest(where + ".status must be one of idle, active, got '" + s + "'");
                    }
                    if (statusClass == null) {
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

        List<Object> calls = new ArrayList<>();
        AbstractStreamOperator<Object> operator;
        ManualTime time = new ManualTime();
        try {
            ExecutionConfig config = new ExecutionConfig();
            config.setAutoWatermarkInterval(interval);
            WatermarkStrategy<Object> strategy = GenerationArea.strategy(spec.kind, spec.ooo, spec.timeout);
            operator = newOperator(op, strategy, progressive);
            open(operator, op, strategy, progressive, config.getAutoWatermarkInterval(), time, calls);
        } catch (IllegalArgumentException e) {
            throw new Rejected(e);
        } catch (InvocationTargetException e) {
            throw new Rejected(e.getCause());
        }

        List<Object> outputs = new ArrayList<>(events.size());
        for (Map<String, Object> ev : events) {
            calls.clear();
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
                    call(operator, hasMethod(op, "finish") ? "finish" : "close");
            }
            outputs.add(new ArrayList<>(calls));
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("outputs", outputs);
        return answer;
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

    /** What TimestampsAndWatermarksOperator.open() sets, set the same way (see the class javadoc). */
    private static void open(AbstractStreamOperator<Object> operator, Class<?> op, WatermarkStrategy<Object> strategy,
            boolean progressive, long interval, ManualTime time, List<Object> calls) throws Exception {
        set(AbstractStreamOperator.class, operator, "output", output(calls));
        Class<?> ptsType = Class.forName("org.apache.flink.streaming.runtime.tasks.ProcessingTimeService");
        Object pts = Reflect.proxy(ptsType, time);
        set(AbstractStreamOperator.class, operator, "processingTimeService", pts);
        if (hasField(op, "inputActivityClock")) {
            Class<?> pausable = Class.forName("org.apache.flink.streaming.api.operators.util.PausableRelativeClock");
            Class<?> clockType = Class.forName("org.apache.flink.util.clock.Clock");
            set(op, operator, "inputActivityClock", pausable.getConstructor(clockType).newInstance(time.clock));
        }
        TimestampAssignerSupplier.Context assignerContext = (TimestampAssignerSupplier.Context) Reflect.proxy(
                TimestampAssignerSupplier.Context.class, (p, m, a) -> m.getDeclaringClass() == Object.class
                        ? Reflect.objectMethod(p, m, a, "timestamp assigner context") : null);
        set(op, operator, "timestampAssigner", strategy.createTimestampAssigner(assignerContext));
        Object generator;
        if (progressive) {
            generator = strategy.createWatermarkGenerator(generatorContext(op, operator));
        } else {
            generator = new NoWatermarksGenerator<>();
        }
        set(op, operator, "watermarkGenerator", generator);
        set(op, operator, "wmOutput", emitter(operator, calls));
        set(op, operator, "watermarkInterval", interval);
        if (interval > 0 && progressive) {
            time.register(time.now() + interval, operator);
        }
    }

    /** The operator's own context ($1, 1.19.2+ / 1.20.1+), else one answering getMetricGroup (null) only. */
    private static WatermarkGeneratorSupplier.Context generatorContext(Class<?> op, Object operator) throws Exception {
        try {
            Class<?> anon = Class.forName(OP + "$1");
            if (WatermarkGeneratorSupplier.Context.class.isAssignableFrom(anon)) {
                Constructor<?> c = anon.getDeclaredConstructor(op);
                c.setAccessible(true);
                return (WatermarkGeneratorSupplier.Context) c.newInstance(operator);
            }
        } catch (ClassNotFoundException e) {
            // before FLINK-35886 the operator's context is a lambda
        }
        return (WatermarkGeneratorSupplier.Context) Reflect.proxy(WatermarkGeneratorSupplier.Context.class,
                (p, m, a) -> m.getDeclaringClass() == Object.class
                        ? Reflect.objectMethod(p, m, a, "watermark generator context") : null);
    }

    /** new WatermarkEmitter(output), in 1.13 (output, a StreamStatusMaintainer recording the toggles). */
    private static Object emitter(AbstractStreamOperator<Object> operator, List<Object> calls) throws Exception {
        Class<?> cls = Class.forName(OP + "$WatermarkEmitter");
        Constructor<?> c = cls.getConstructors()[0];
        Object output = get(AbstractStreamOperator.class, operator, "output");
        if (c.getParameterCount() == 1) {
            return c.newInstance(output);
        }
        Object maintainer = Reflect.proxy(c.getParameterTypes()[1], (p, m, a) -> {
            if (m.getName().equals("toggleStreamStatus")) {
                calls.add(status(a[0]));
                return null;
            }
            return Reflect.objectMethod(p, m, a, "flinkspec-status-maintainer");
        });
        return c.newInstance(output, maintainer);
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
        try {
            return Class.forName("org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus");
        } catch (ClassNotFoundException e) {
            return null;
        }
    }

    private static boolean hasField(Class<?> cls, String name) {
        try {
            cls.getDeclaredField(name);
            return true;
        } catch (NoSuchFieldException e) {
            return false;
        }
    }

    private static boolean hasMethod(Class<?> cls, String name) {
        for (Method m : cls.getDeclaredMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == 0) {
                return true;
            }
        }
        return false;
    }

    private static void set(Class<?> cls, Object target, String name, Object value) throws Exception {
        Field f = cls.getDeclaredField(name);
        f.setAccessible(true);
        f.set(target, value);
    }

    private static Object get(Class<?> cls, Object target, String name) throws Exception {
        Field f = cls.getDeclaredField(name);
        f.setAccessible(true);
        return f.get(target);
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
