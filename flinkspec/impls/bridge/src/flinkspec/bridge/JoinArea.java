package flinkspec.bridge;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.streaming.api.functions.co.ProcessJoinFunction;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.TimestampedCollector;
import org.apache.flink.streaming.api.operators.co.IntervalJoinOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * {@code watermark.join}: Flink's own {@code IntervalJoinOperator}, built by its public constructor (what
 * {@code KeyedStream.IntervalJoined.process} calls: the bounds, the exclusive flags and, from 1.17.0, the late-data
 * side-output tags of each side) (docs/protocol/watermark-join.md).
 *
 * <p>The harness is the bridge's own (flink-dist has no {@code KeyedTwoInputStreamOperatorTestHarness}), as in
 * {@link WindowsArea}: the operator's buffers come from a real {@code HeapKeyedStateBackend}
 * ({@link WindowsArea#heapBackend}) through Flink's {@code DefaultKeyedStateStore}, by the operator's own
 * {@code initializeState} (its {@code StateInitializationContext} a proxy offering that store and
 * {@code isRestored() == false}); its cleanup timers live in an {@code InternalTimerServiceImpl} over heap queues
 * ({@link WindowsArea#timerService}) with the operator as its {@code Triggerable}. {@code open()} is not called
 * (from 2.x {@code AbstractStreamOperator.open} reads its containing task; before, its
 * {@code getInternalTimerService} needs the operator's state handler): the fields {@code IntervalJoinOperator.open}
 * sets are set here the same way (the {@code TimestampedCollector} over the output, the {@code ContextImpl} of the
 * user function, the timer service named "CLEANUP_TIMER"), and what {@code setup} sets for watermarks (the output;
 * from 1.14 the {@code IndexedCombinedWatermarkStatus} of two inputs). A record is {@code processElement1} (left)
 * or {@code processElement2} (right) with the backend's current key set to the record's key (what the task does
 * before it); a watermark is {@code processWatermark1} / {@code processWatermark2}, so Flink's
 * {@code AbstractStreamOperator} combines the inputs' watermarks, and its {@code processWatermark} advances the
 * time service manager (a proxy advancing the timer service) and emits the combined watermark. The join function
 * emits the key, both values and the context's two timestamps; the output records what reaches it: pairs with
 * their timestamp, late records on the side outputs, watermarks.
 */
public final class JoinArea implements Area {
    private static final String LATE_SINCE = " is not defined before Flink 1.17.0: the late-data side outputs of "
            + "an interval join come with FLINK-24907";

    @Override
    public Object answer(String area, Map<String, Object> input) throws Exception {
        if (!"watermark.join".equals(area)) {
            throw new BadRequest("JoinArea does not answer " + area);
        }
        long lower = Json.longOf(input, "lower_bound_ms", "input");
        long upper = Json.longOf(input, "upper_bound_ms", "input");
        boolean lowerExclusive = flag(input, "lower_exclusive");
        boolean upperExclusive = flag(input, "upper_exclusive");
        boolean lateTags = IntervalJoinOperator.class.getConstructors()[0].getParameterCount() == 9;
        boolean[] late = new boolean[2];
        String[] lateFields = {"left_late_output", "right_late_output"};
        for (int s = 0; s < 2; s++) {
            if (input.containsKey(lateFields[s]) && !lateTags) {
                throw new BadRequest("input." + lateFields[s] + LATE_SINCE);
            }
            late[s] = flag(input, lateFields[s]);
        }
        List<Map<String, Object>> events = Reflect.eventObjects(input);
        long[] last = {Long.MIN_VALUE, Long.MIN_VALUE};
        for (int i = 0; i < events.size(); i++) {
            String where = "input.events[" + i + "]";
            Map<String, Object> e = events.get(i);
            String side = Json.string(e, "side", where);
            if (!side.equals("left") && !side.equals("right")) {
                throw new BadRequest(where + ".side must be left or right, got '" + side + "'");
            }
            int s = side.equals("left") ? 0 : 1;
            if (e.containsKey("watermark")) {
                long wm = Json.longOf(e, "watermark", where);
                if (wm < last[s]) {
                    throw new BadRequest(where + ".watermark goes back on the " + side + " input (" + wm + " after "
                            + last[s] + ")");
                }
                last[s] = wm;
            } else {
                Json.string(e, "key", where);
                Json.longOf(e, "timestamp", where);
                Json.longOf(e, "value", where);
            }
        }
        List<Object> emitted = new ArrayList<>();
        OutputTag<Tuple2<String, Long>> leftTag = late[0] ? tag("left-late") : null;
        OutputTag<Tuple2<String, Long>> rightTag = late[1] ? tag("right-late") : null;
        IntervalJoinOperator<String, Tuple2<String, Long>, Tuple2<String, Long>, Map<String, Object>> op =
                operator(lower, upper, lowerExclusive, upperExclusive, leftTag, rightTag, lateTags);
        KeyedStateBackend<String> backend = WindowsArea.heapBackend();
        init(op, backend, emitted, leftTag);
        List<Object> outputs = new ArrayList<>(events.size());
        for (Map<String, Object> e : events) {
            emitted.clear();
            boolean left = "left".equals(e.get("side"));
            if (e.containsKey("watermark")) {
                Watermark mark = new Watermark((Long) e.get("watermark"));
                if (left) {
                    op.processWatermark1(mark);
                } else {
                    op.processWatermark2(mark);
                }
            } else {
                String key = (String) e.get("key");
                backend.setCurrentKey(key);
                StreamRecord<Tuple2<String, Long>> r = new StreamRecord<>(Tuple2.of(key, (Long) e.get("value")),
                        (Long) e.get("timestamp"));
                try {
                    if (left) {
                        op.processElement1(r);
                    } else {
                        op.processElement2(r);
                    }
                } catch (org.apache.flink.util.FlinkException ex) { // a record without a timestamp
                    throw new Rejected(ex);
                }
            }
            outputs.add(new ArrayList<>(emitted));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("outputs", outputs);
        return out;
    }

    private static boolean flag(Map<String, Object> input, String name) throws BadRequest {
        if (!input.containsKey(name)) {
            return false;
        }
        if (!(input.get(name) instanceof Boolean)) {
            throw new BadRequest("input." + name + " must be a boolean");
        }
        return (Boolean) input.get(name);
    }

    private static OutputTag<Tuple2<String, Long>> tag(String id) {
        return new OutputTag<>(id, Types.TUPLE(Types.STRING, Types.LONG));
    }

    /** The operator by its public constructor (9 parameters from 1.17.0, 7 before); Flink's rejection as Rejected. */
    @SuppressWarnings("unchecked")
    private static IntervalJoinOperator<String, Tuple2<String, Long>, Tuple2<String, Long>, Map<String, Object>>
            operator(long lower, long upper, boolean lowerExclusive, boolean upperExclusive,
                    OutputTag<Tuple2<String, Long>> leftTag, OutputTag<Tuple2<String, Long>> rightTag,
                    boolean lateTags) throws Exception {
        TypeSerializer<Tuple2<String, Long>> ser = WindowsArea.Op.elementSerializer();
        Constructor<?> c = IntervalJoinOperator.class.getConstructors()[0];
        Object[] args = lateTags
                ? new Object[] {lower, upper, !lowerExclusive, !upperExclusive, leftTag, rightTag, ser, ser,
                    new Emit()}
                : new Object[] {lower, upper, !lowerExclusive, !upperExclusive, ser, ser, new Emit()};
        try {
            return (IntervalJoinOperator<String, Tuple2<String, Long>, Tuple2<String, Long>, Map<String, Object>>)
                    c.newInstance(args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof IllegalArgumentException) {
                throw new Rejected(e.getCause());
            }
            throw e;
        }
    }

    /** Emits the key, both values and the context's left and right timestamps. */
    private static final class Emit
            extends ProcessJoinFunction<Tuple2<String, Long>, Tuple2<String, Long>, Map<String, Object>> {
        private static final long serialVersionUID = 1L;

        @Override
        public void processElement(Tuple2<String, Long> left, Tuple2<String, Long> right, Context ctx,
                Collector<Map<String, Object>> out) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("key", left.f0);
            m.put("left", left.f1);
            m.put("right", right.f1);
            m.put("left_timestamp", ctx.getLeftTimestamp());
            m.put("right_timestamp", ctx.getRightTimestamp());
            out.collect(m);
        }
    }

    /** What IntervalJoinOperator.open, initializeState and AbstractStreamOperator.setup set up. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void init(IntervalJoinOperator<?, ?, ?, ?> op, KeyedStateBackend<String> backend,
            List<Object> emitted, OutputTag<?> leftTag) throws Exception {
        Class<?> outputType = Class.forName("org.apache.flink.streaming.api.operators.Output");
        Object output = Reflect.proxy(outputType, (p, m, a) -> {
            if (m.getName().equals("collect") && a != null && a.length == 1) {
                StreamRecord<Map<String, Object>> r = (StreamRecord<Map<String, Object>>) a[0];
                Map<String, Object> joined = new LinkedHashMap<>(r.getValue());
                joined.put("timestamp", r.getTimestamp());
                emitted.add(Collections.singletonMap("joined", joined));
                return null;
            }
            if (m.getName().equals("collect") && a != null && a.length == 2) {
                StreamRecord<Tuple2<String, Long>> r = (StreamRecord<Tuple2<String, Long>>) a[1];
                Map<String, Object> late = new LinkedHashMap<>();
                late.put("side", a[0].equals(leftTag) ? "left" : "right");
                late.put("key", r.getValue().f0);
                late.put("timestamp", r.getTimestamp());
                late.put("value", r.getValue().f1);
                emitted.add(Collections.singletonMap("late", late));
                return null;
            }
            if (m.getName().equals("emitWatermark") && a != null && a[0] instanceof Watermark) {
                emitted.add(Collections.singletonMap("watermark", ((Watermark) a[0]).getTimestamp()));
                return null;
            }
            if (m.getDeclaringClass() == Object.class) {
                return Reflect.objectMethod(p, m, a, "flinkspec-output");
            }
            throw new IllegalStateException("unexpected output call " + m);
        });
        Reflect.set(AbstractStreamOperator.class, op, "output", output);
        Field combined = AbstractStreamOperator.class.getDeclaredField("combinedWatermark");
        if (combined.getType() != long.class) { // 1.14+: what setup builds for the operator's inputs
            Class<?> status = Class.forName("org.apache.flink.api.common.eventtime.IndexedCombinedWatermarkStatus");
            Reflect.set(AbstractStreamOperator.class, op, "combinedWatermark",
                    status.getMethod("forInputsCount", int.class).invoke(null, 2));
        }
        Object timers = WindowsArea.timerService(backend, op, StringSerializer.INSTANCE);
        Class<?> manager = Class.forName("org.apache.flink.streaming.api.operators.InternalTimeServiceManager");
        Reflect.set(AbstractStreamOperator.class, op, "timeServiceManager", Reflect.proxy(manager, (p, m, a) -> {
            switch (m.getName()) {
                case "advanceWatermark":
                    WindowsArea.advance(timers, ((Watermark) a[0]).getTimestamp());
                    return null;
                case "tryAdvanceWatermark":
                    WindowsArea.advance(timers, ((Watermark) a[0]).getTimestamp());
                    return true;
                default:
                    if (m.getDeclaringClass() == Object.class) {
                        return Reflect.objectMethod(p, m, a, "flinkspec-time-service-manager");
                    }
                    throw new IllegalStateException("unexpected time service manager call " + m);
            }
        }));
        // initializeState: the buffers, by the operator's own code, from Flink's keyed state store over the backend
        Object store = keyedStateStore(backend);
        Class<?> contextType = Class.forName("org.apache.flink.runtime.state.StateInitializationContext");
        Object stateContext = Reflect.proxy(contextType, (p, m, a) -> {
            switch (m.getName()) {
                case "getKeyedStateStore":
                    return store;
                case "isRestored":
                    return false;
                default:
                    if (m.getDeclaringClass() == Object.class) {
                        return Reflect.objectMethod(p, m, a, "flinkspec-state-context");
                    }
                    throw new IllegalStateException("unexpected state context call " + m);
            }
        });
        op.getClass().getMethod("initializeState", contextType).invoke(op, stateContext);
        // open: the collector, the user function's context, the cleanup timer service
        Reflect.set(IntervalJoinOperator.class, op, "collector", new TimestampedCollector<>((
                org.apache.flink.streaming.api.operators.Output) output));
        Class<?> contextImpl = Class.forName(IntervalJoinOperator.class.getName() + "$ContextImpl");
        Constructor<?> cc = null;
        for (Constructor<?> cand : contextImpl.getDeclaredConstructors()) {
            if (cand.getParameterCount() >= 2 && (cc == null || cand.getParameterCount() < cc.getParameterCount())) {
                cc = cand;
            }
        }
        cc.setAccessible(true);
        Object[] args = new Object[cc.getParameterCount()];
        args[0] = op;
        args[1] = op.getUserFunction();
        Reflect.set(IntervalJoinOperator.class, op, "context", cc.newInstance(args));
        Reflect.set(IntervalJoinOperator.class, op, "internalTimerService", timers);
    }

    /** Flink's DefaultKeyedStateStore over {@code backend} (its second parameter an ExecutionConfig, or from 1.20 a
     * SerializerFactory, unused: every descriptor here has its serializers). */
    private static Object keyedStateStore(KeyedStateBackend<String> backend) throws Exception {
        Class<?> cls = Class.forName("org.apache.flink.runtime.state.DefaultKeyedStateStore");
        for (Constructor<?> c : cls.getConstructors()) {
            Class<?>[] types = c.getParameterTypes();
            if (types.length != 2 || types[0] != KeyedStateBackend.class) {
                continue;
            }
            Object second = types[1] == ExecutionConfig.class ? new ExecutionConfig()
                    : Reflect.proxy(types[1], (p, m, a) -> {
                        if (m.getDeclaringClass() == Object.class) {
                            return Reflect.objectMethod(p, m, a, "flinkspec-serializer-factory");
                        }
                        throw new IllegalStateException("unexpected serializer factory call " + m);
                    });
            return c.newInstance(backend, second);
        }
        throw new IllegalStateException("no DefaultKeyedStateStore(KeyedStateBackend, ...) constructor");
    }
}
