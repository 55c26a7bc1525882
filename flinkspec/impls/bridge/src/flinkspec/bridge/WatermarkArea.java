package flinkspec.bridge;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.streaming.api.operators.AbstractInput;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.AbstractStreamOperatorV2;
import org.apache.flink.streaming.api.operators.Input;
import org.apache.flink.streaming.api.operators.MultipleInputStreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * {@code watermark.valve} and {@code watermark.combined}, answered by Flink's own classes.
 *
 * <p>valve: one {@code StatusWatermarkValve} (package {@code streamstatus} in 1.13,
 * {@code watermarkstatus} from 1.14) fed through its public {@code inputWatermark} /
 * {@code inputStreamStatus} ({@code inputWatermarkStatus} from 1.14) methods; the
 * {@code PushingAsyncDataInput.DataOutput} it emits to is a proxy that records the calls. From
 * 1.19 the optional {@code subpartitions} build it from one {@code ResultSubpartitionIndexSet} per
 * channel, and a watermark naming its {@code subpartition} is fed as an {@code InternalWatermark}.
 *
 * <p>combined: the per-input {@code DataOutput} a multi-input task hands to its inputs
 * ({@code StreamTwoInputProcessorFactory.StreamTaskNetworkOutput} for two inputs,
 * {@code StreamMultipleInputProcessorFactory.StreamTaskNetworkOutput} otherwise), wired to a
 * real {@code AbstractStreamOperator} (two inputs) or {@code AbstractStreamOperatorV2} with
 * {@code AbstractInput}s; the operator's {@code Output} records what it emits. In 1.13 the
 * operator sees no stream status: the task's {@code StreamStatusTracker} toggles the
 * {@code StreamStatusMaintainer} (the {@code OperatorChain}), whose toggles are recorded too.
 *
 * <p>Everything version-dependent is reached by reflection so that one source compiles against
 * every flink-dist jar from 1.13 to 2.3.
 */
public final class WatermarkArea implements Area {
    /** Channels/inputs above this are refused: Flink's maximum parallelism is 32768. */
    static final int MAX_CHANNELS = 32768;

    private static final String PKG_113 = "org.apache.flink.streaming.runtime.streamstatus.";
    private static final String PKG_114 = "org.apache.flink.streaming.runtime.watermarkstatus.";
    private static final String IO = "org.apache.flink.streaming.runtime.io.";

    @Override
    public Object answer(String area, Map<String, Object> input) throws Exception {
        switch (area) {
            case "watermark.valve":
                return valve(input);
            case "watermark.combined":
                return combined(input);
            default:
                throw new BadRequest("WatermarkArea does not answer " + area);
        }
    }

    // ------------------------------------------------------------------------------------------
    // watermark.valve
    // ------------------------------------------------------------------------------------------

    private static Object valve(Map<String, Object> input) throws Exception {
        int channels = count(input, "channels");
        Status st = Status.load();
        Class<?> valveCls = st.modern
                ? Class.forName(PKG_114 + "StatusWatermarkValve")
                : Class.forName(PKG_113 + "StatusWatermarkValve");
        Class<?> indexSetCls = subpartitionIndexSetClass(valveCls);
        long[][] ranges = subpartitionRanges(input, channels, indexSetCls != null);
        List<Event> events = events(input, "channel", channels);
        Object[] marks = watermarks(input, events, ranges, indexSetCls != null);
        Class<?> dataOutputCls = Class.forName(IO + "PushingAsyncDataInput$DataOutput");
        Object valve = ranges == null
                ? valveCls.getConstructor(int.class).newInstance(channels)
                : valveCls.getConstructor(arrayOf(indexSetCls)).newInstance((Object) indexSets(indexSetCls, ranges));
        Method inWm = valveCls.getMethod("inputWatermark", Watermark.class, int.class, dataOutputCls);
        Method inSt = valveCls.getMethod(st.modern ? "inputWatermarkStatus" : "inputStreamStatus",
                st.cls, int.class, dataOutputCls);
        Recorder rec = new Recorder(st);
        Object out = proxy(dataOutputCls, rec);
        List<Object> emitted = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            Event e = events.get(i);
            rec.start();
            try {
                if (e.status == null) {
                    call(inWm, valve, marks[i], e.index, out);
                } else {
                    call(inSt, valve, st.of(e.status), e.index, out);
                }
            } catch (RuntimeException ex) {
                // Thrown by the valve itself: 1.19+ checkState(!isInputChannelShared) on a status,
                // 1.17.0's ArrayIndexOutOfBoundsException from HeapPriorityQueue (FLINK-31628).
                if (!thrownByFlink(ex)) {
                    throw ex;
                }
                throw new Rejected(ex.getClass().getSimpleName(), ex.getMessage() == null ? "" : ex.getMessage());
            }
            emitted.add(rec.current);
        }
        return output("emitted", emitted);
    }

    /** Whether {@code ex} was thrown by Flink's own code (its innermost frame is a Flink class). */
    private static boolean thrownByFlink(Throwable ex) {
        StackTraceElement[] trace = ex.getStackTrace();
        return trace.length > 0 && trace[0].getClassName().startsWith("org.apache.flink.");
    }

    /** {@code ResultSubpartitionIndexSet} if this valve takes one per channel (1.19+), else null. */
    private static Class<?> subpartitionIndexSetClass(Class<?> valveCls) {
        try {
            Class<?> c = Class.forName("org.apache.flink.runtime.io.network.partition.ResultSubpartitionIndexSet");
            valveCls.getConstructor(arrayOf(c));
            return c;
        } catch (ClassNotFoundException | NoSuchMethodException e) {
            return null;
        }
    }

    private static Class<?> arrayOf(Class<?> c) {
        return java.lang.reflect.Array.newInstance(c, 0).getClass();
    }

    private static Object indexSets(Class<?> cls, long[][] ranges) throws Exception {
        Object arr = java.lang.reflect.Array.newInstance(cls, ranges.length);
        Constructor<?> c = cls.getConstructor(int.class, int.class);
        for (int i = 0; i < ranges.length; i++) {
            java.lang.reflect.Array.set(arr, i, c.newInstance((int) ranges[i][0], (int) ranges[i][1]));
        }
        return arr;
    }

    /** The optional {@code subpartitions}: one [first, last] per channel, or null. */
    @SuppressWarnings("unchecked")
    private static long[][] subpartitionRanges(Map<String, Object> input, int channels, boolean supported)
            throws BadRequest {
        if (!input.containsKey("subpartitions")) {
            return null;
        }
        if (!supported) {
            throw new BadRequest("input.subpartitions is not defined before Flink 1.19");
        }
        Object raw = input.get("subpartitions");
        if (!(raw instanceof List) || ((List<Object>) raw).size() != channels) {
            throw new BadRequest("input.subpartitions must hold one [first, last] pair per channel");
        }
        long[][] ranges = new long[channels][];
        long total = 0;
        for (int c = 0; c < channels; c++) {
            Object r = ((List<Object>) raw).get(c);
            if (!(r instanceof List) || ((List<Object>) r).size() != 2
                    || !(((List<Object>) r).get(0) instanceof Long) || !(((List<Object>) r).get(1) instanceof Long)) {
                throw new BadRequest("input.subpartitions[" + c + "] must be [first, last]");
            }
            long first = (Long) ((List<Object>) r).get(0);
            long last = (Long) ((List<Object>) r).get(1);
            if (first < 0 || first > last || last >= MAX_CHANNELS) {
                throw new BadRequest("input.subpartitions[" + c + "] must have 0 <= first <= last < " + MAX_CHANNELS);
            }
            ranges[c] = new long[] {first, last};
            total += last - first + 1;
        }
        if (total > MAX_CHANNELS) {
            throw new BadRequest("input.subpartitions: more than " + MAX_CHANNELS + " subpartitions in all");
        }
        return ranges;
    }

    /** Each watermark event as a Watermark, or an InternalWatermark when it names a subpartition. */
    @SuppressWarnings("unchecked")
    private static Object[] watermarks(Map<String, Object> input, List<Event> events, long[][] ranges,
            boolean supported) throws Exception {
        List<Object> raw = (List<Object>) input.get("events");
        Object[] marks = new Object[events.size()];
        for (int i = 0; i < events.size(); i++) {
            Map<String, Object> e = (Map<String, Object>) raw.get(i);
            Event ev = events.get(i);
            String where = "input.events[" + i + "]";
            long first = ranges == null ? 0 : ranges[ev.index][0];
            long last = ranges == null ? 0 : ranges[ev.index][1];
            if (e.containsKey("subpartition")) {
                Object sub = e.get("subpartition");
                if (!supported) {
                    throw new BadRequest(where + ".subpartition is not defined before Flink 1.19");
                }
                if (ev.status != null) {
                    throw new BadRequest(where + ".subpartition is only defined on a watermark event");
                }
                if (!(sub instanceof Long) || (Long) sub < first || (Long) sub > last) {
                    throw new BadRequest(where + ".subpartition must be consumed by its channel");
                }
                marks[i] = Class.forName("org.apache.flink.streaming.api.watermark.InternalWatermark")
                        .getConstructor(long.class, int.class)
                        .newInstance(ev.watermark, ((Long) sub).intValue());
            } else if (ev.status == null) {
                if (last > first) {
                    throw new BadRequest(where + " is a watermark on a channel that consumes several "
                            + "subpartitions: it must name its subpartition");
                }
                marks[i] = new Watermark(ev.watermark);
            }
        }
        return marks;
    }

    // ------------------------------------------------------------------------------------------
    // watermark.combined
    // ------------------------------------------------------------------------------------------

    private static Object combined(Map<String, Object> input) throws Exception {
        int inputs = count(input, "inputs");
        List<Event> events = events(input, "input", inputs);
        Status st = Status.load();
        Recorder rec = new Recorder(st);
        Object[] outputs = inputs == 2 ? twoInputOutputs(st, rec) : multiInputOutputs(inputs, st, rec);
        Class<?> dataOutputCls = Class.forName(IO + "PushingAsyncDataInput$DataOutput");
        Method emitWm = dataOutputCls.getMethod("emitWatermark", Watermark.class);
        Method emitSt = dataOutputCls.getMethod(st.modern ? "emitWatermarkStatus" : "emitStreamStatus", st.cls);
        List<Object> emitted = new ArrayList<>(events.size());
        for (Event e : events) {
            rec.start();
            if (e.status == null) {
                call(emitWm, outputs[e.index], new Watermark(e.watermark));
            } else {
                call(emitSt, outputs[e.index], st.of(e.status));
            }
            emitted.add(rec.current);
        }
        return output("emitted", emitted);
    }

    /** A real two-input operator behind {@code StreamTwoInputProcessorFactory}'s per-input outputs. */
    private static Object[] twoInputOutputs(Status st, Recorder rec) throws Exception {
        TwoOp op = new TwoOp();
        setField(AbstractStreamOperator.class, op, "output", proxy(outputClass(), rec));
        Field combined = AbstractStreamOperator.class.getDeclaredField("combinedWatermark");
        combined.setAccessible(true);
        if (combined.getType() != long.class && combined.get(op) == null) {
            // 1.14+ (2.x: in setup(), which needs a running task): forInputsCount(2), as setup() does
            combined.set(op, combined.getType().getMethod("forInputsCount", int.class).invoke(null, 2));
        }
        Class<?> netOut = Class.forName(IO + "StreamTwoInputProcessorFactory$StreamTaskNetworkOutput");
        Map<Class<?>, Object> env = environment(st, rec);
        env.put(TwoInputStreamOperator.class, op);
        Object tracker = trackerFor(netOut, 2);
        Object[] outs = new Object[2];
        for (int i = 0; i < 2; i++) {
            outs[i] = construct(netOut, env, tracker, i);
        }
        return outs;
    }

    /** A real {@code AbstractStreamOperatorV2} with {@code AbstractInput}s (MultipleInputStreamTask). */
    private static Object[] multiInputOutputs(int n, Status st, Recorder rec) throws Exception {
        MultiOp op = (MultiOp) Reflect.allocate(MultiOp.class);
        Object output = proxy(outputClass(), rec);
        setField(AbstractStreamOperatorV2.class, op, "output", output);
        Field combined = AbstractStreamOperatorV2.class.getDeclaredField("combinedWatermark");
        if (combined.getType() == long.class) { // 1.13: long[] inputWatermarks + long combinedWatermark
            long[] wms = new long[n];
            Arrays.fill(wms, Long.MIN_VALUE);
            setField(AbstractStreamOperatorV2.class, op, "inputWatermarks", wms);
            setField(AbstractStreamOperatorV2.class, op, "combinedWatermark", Long.MIN_VALUE);
        } else {
            Method forCount = combined.getType().getMethod("forInputsCount", int.class);
            setField(AbstractStreamOperatorV2.class, op, "combinedWatermark", forCount.invoke(null, n));
        }
        Class<?> netOut = Class.forName(IO + "StreamMultipleInputProcessorFactory$StreamTaskNetworkOutput");
        Map<Class<?>, Object> env = environment(st, rec);
        Object tracker = trackerFor(netOut, n);
        Object[] outs = new Object[n];
        for (int i = 0; i < n; i++) {
            OneInput in = (OneInput) Reflect.allocate(OneInput.class);
            setField(AbstractInput.class, in, "owner", op);
            setField(AbstractInput.class, in, "inputId", i + 1);
            setField(AbstractInput.class, in, "output", output);
            env.put(Input.class, in);
            outs[i] = construct(netOut, env, tracker, i);
        }
        return outs;
    }

    /** Values for the parameters of a {@code StreamTaskNetworkOutput} constructor, by type. */
    private static Map<Class<?>, Object> environment(Status st, Recorder rec) throws Exception {
        Map<Class<?>, Object> env = new HashMap<>();
        env.put(Class.forName("org.apache.flink.streaming.runtime.metrics.WatermarkGauge"),
                Class.forName("org.apache.flink.streaming.runtime.metrics.WatermarkGauge")
                        .getConstructor().newInstance());
        env.put(Class.forName("org.apache.flink.metrics.Counter"),
                Class.forName("org.apache.flink.metrics.SimpleCounter").getConstructor().newInstance());
        env.put(Class.forName("org.apache.flink.util.function.ThrowingConsumer"),
                proxy(Class.forName("org.apache.flink.util.function.ThrowingConsumer"), (p, m, a) -> null));
        if (!st.modern) {
            env.put(Class.forName(PKG_113 + "StreamStatusMaintainer"),
                    proxy(Class.forName(PKG_113 + "StreamStatusMaintainer"), new Maintainer(st, rec)));
        }
        return env;
    }

    /** The 1.13 {@code StreamStatusTracker} / {@code MultiStreamStreamStatusTracker}, or null. */
    private static Object trackerFor(Class<?> netOut, int n) throws Exception {
        for (Class<?> p : realConstructor(netOut).getParameterTypes()) {
            if (p.getSimpleName().endsWith("StatusTracker")) {
                Constructor<?> tc = realConstructor(p);
                return tc.getParameterCount() == 0 ? tc.newInstance() : tc.newInstance(n);
            }
        }
        return null;
    }

    /** Calls the only constructor of {@code cls}, filling each parameter from {@code env} by type. */
    private static Object construct(Class<?> cls, Map<Class<?>, Object> env, Object tracker, int index)
            throws Exception {
        Constructor<?> c = realConstructor(cls);
        Class<?>[] types = c.getParameterTypes();
        Object[] args = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            Class<?> t = types[i];
            if (t == int.class) {
                args[i] = index;
            } else if (t.getSimpleName().endsWith("StatusTracker")) {
                args[i] = tracker;
            } else if (t.getSimpleName().equals("FinishedOnRestoreWatermarkBypass")) {
                args[i] = null;
            } else if (env.containsKey(t)) {
                args[i] = env.get(t);
            } else {
                throw new IllegalStateException("no value for parameter " + t.getName() + " of " + c);
            }
        }
        return c.newInstance(args);
    }

    /** The declared constructor of {@code cls}, skipping javac's synthetic private-access bridges. */
    private static Constructor<?> realConstructor(Class<?> cls) {
        for (Constructor<?> c : cls.getDeclaredConstructors()) {
            if (!c.isSynthetic()) {
                c.setAccessible(true);
                return c;
            }
        }
        throw new IllegalStateException("no constructor in " + cls);
    }

    private static Class<?> outputClass() throws ClassNotFoundException {
        return Class.forName("org.apache.flink.streaming.api.operators.Output");
    }

    /** A two-input operator with nothing but Flink's own watermark and status handling. */
    static final class TwoOp extends AbstractStreamOperator<Object>
            implements TwoInputStreamOperator<Object, Object, Object> {
        private static final long serialVersionUID = 1L;

        @Override
        public void processElement1(StreamRecord<Object> element) {}

        @Override
        public void processElement2(StreamRecord<Object> element) {}
    }

    /** A multi-input operator; allocated without its constructor (which needs a running task). */
    static final class MultiOp extends AbstractStreamOperatorV2<Object>
            implements MultipleInputStreamOperator<Object> {
        MultiOp(StreamOperatorParameters<Object> parameters, int inputs) {
            super(parameters, inputs);
        }

        @Override
        @SuppressWarnings("rawtypes")
        public List<Input> getInputs() {
            return new ArrayList<>();
        }
    }

    /** An input of {@link MultiOp}; allocated without its constructor (which reads the config). */
    static final class OneInput extends AbstractInput<Object, Object> {
        OneInput(AbstractStreamOperatorV2<Object> owner, int inputId) {
            super(owner, inputId);
        }

        @Override
        public void processElement(StreamRecord<Object> element) {}
    }

    /**
     * 1.13's {@code StreamStatusMaintainer}: the task's {@code OperatorChain.toggleStreamStatus},
     * which emits a status to every output only when it differs from the current one.
     */
    private static final class Maintainer implements InvocationHandler {
        private final Status st;
        private final Recorder rec;
        private Object current;

        Maintainer(Status st, Recorder rec) {
            this.st = st;
            this.rec = rec;
            this.current = st.active;
        }

        @Override
        public Object invoke(Object proxy, Method m, Object[] args) {
            switch (m.getName()) {
                case "getStreamStatus":
                    return current;
                case "toggleStreamStatus":
                    if (!args[0].equals(current)) {
                        current = args[0];
                        rec.status(args[0]);
                    }
                    return null;
                default:
                    return objectMethod(proxy, m, args);
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // shared: statuses, recording output, input parsing, reflection
    // ------------------------------------------------------------------------------------------

    /** StreamStatus (1.13) or WatermarkStatus (1.14+): the class and its two constants. */
    private static final class Status {
        final boolean modern;
        final Class<?> cls;
        final Object idle;
        final Object active;

        private Status(boolean modern, Class<?> cls) throws Exception {
            this.modern = modern;
            this.cls = cls;
            this.idle = cls.getField("IDLE").get(null);
            this.active = cls.getField("ACTIVE").get(null);
        }

        static Status load() throws Exception {
            try {
                return new Status(true, Class.forName(PKG_114 + "WatermarkStatus"));
            } catch (ClassNotFoundException e) {
                return new Status(false, Class.forName(PKG_113 + "StreamStatus"));
            }
        }

        Object of(String name) {
            return name.equals("IDLE") ? idle : active;
        }

        String name(Object status) {
            return status.equals(idle) ? "IDLE" : "ACTIVE";
        }
    }

    /** Records emitted watermarks and statuses, per input event, in emission order. */
    private static final class Recorder implements InvocationHandler {
        private final Status st;
        List<Object> current = new ArrayList<>();

        Recorder(Status st) {
            this.st = st;
        }

        void start() {
            current = new ArrayList<>(2);
        }

        void status(Object status) {
            current.add(output("status", st.name(status)));
        }

        @Override
        public Object invoke(Object proxy, Method m, Object[] args) {
            String name = m.getName();
            if (name.equals("emitWatermark") && args[0] instanceof Watermark) {
                current.add(output("watermark", ((Watermark) args[0]).getTimestamp()));
                return null;
            }
            if ((name.equals("emitWatermarkStatus") || name.equals("emitStreamStatus"))
                    && st.cls.isInstance(args[0])) {
                status(args[0]);
                return null;
            }
            if (m.getDeclaringClass() == Object.class) {
                return objectMethod(proxy, m, args);
            }
            throw new IllegalStateException("unexpected call " + m + " on the recording output");
        }
    }

    private static Object objectMethod(Object proxy, Method m, Object[] args) {
        return Reflect.objectMethod(proxy, m, args, "flinkspec-recorder");
    }

    /** One input event: a watermark (status == null) or a status on channel/input {@code index}. */
    private static final class Event {
        final int index;
        final long watermark;
        final String status;

        Event(int index, long watermark, String status) {
            this.index = index;
            this.watermark = watermark;
            this.status = status;
        }
    }

    private static int count(Map<String, Object> input, String name) throws BadRequest {
        Object v = input.get(name);
        if (!(v instanceof Long)) {
            throw new BadRequest("input." + name + " must be an integer");
        }
        long n = (Long) v;
        if (n < 1 || n > MAX_CHANNELS) {
            throw new BadRequest("input." + name + " = " + n + " must be between 1 and " + MAX_CHANNELS);
        }
        return (int) n;
    }

    @SuppressWarnings("unchecked")
    private static List<Event> events(Map<String, Object> input, String indexName, int n) throws BadRequest {
        List<Map<String, Object>> list = Reflect.eventObjects(input);
        List<Event> out = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            String where = "input.events[" + i + "]";
            Map<String, Object> e = list.get(i);
            Object idx = e.get(indexName);
            if (!(idx instanceof Long) || (Long) idx < 0 || (Long) idx >= n) {
                throw new BadRequest(where + "." + indexName + " must be an integer in [0, " + n + ")");
            }
            boolean hasWm = e.containsKey("watermark");
            boolean hasSt = e.containsKey("status");
            if (hasWm == hasSt) {
                throw new BadRequest(where + " must have exactly one of watermark, status");
            }
            if (hasWm) {
                Object wm = e.get("watermark");
                if (!(wm instanceof Long)) {
                    throw new BadRequest(where + ".watermark must be an integer that fits a signed 64-bit long");
                }
                out.add(new Event(((Long) idx).intValue(), (Long) wm, null));
            } else {
                Object s = e.get("status");
                if (!"IDLE".equals(s) && !"ACTIVE".equals(s)) {
                    throw new BadRequest(where + ".status must be \"IDLE\" or \"ACTIVE\"");
                }
                out.add(new Event(((Long) idx).intValue(), 0L, (String) s));
            }
        }
        return out;
    }

    private static Map<String, Object> output(String key, Object value) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(key, value);
        return m;
    }

    private static Object proxy(Class<?> iface, InvocationHandler h) {
        return Reflect.proxy(iface, h);
    }

    private static void call(Method m, Object target, Object... args) throws Exception {
        Reflect.call(m, target, args);
    }

    private static void setField(Class<?> owner, Object target, String name, Object value) throws Exception {
        Field f = owner.getDeclaredField(name);
        f.setAccessible(true);
        f.set(target, value);
    }
}
