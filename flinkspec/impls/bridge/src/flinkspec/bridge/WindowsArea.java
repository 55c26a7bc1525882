package flinkspec.bridge;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.State;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.typeutils.runtime.TupleSerializer;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueSetFactory;
import org.apache.flink.streaming.api.functions.windowing.WindowFunction;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.TimestampedCollector;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.api.windowing.assigners.MergingWindowAssigner;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.triggers.EventTimeTrigger;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.streaming.runtime.operators.windowing.WindowOperator;
import org.apache.flink.streaming.runtime.operators.windowing.functions.InternalIterableWindowFunction;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * {@code watermark.windows}: Flink's own {@code WindowOperator} with an event-time assigner
 * ({@code TumblingEventTimeWindows}, {@code SlidingEventTimeWindows}, {@code EventTimeSessionWindows}, built by
 * their protected constructors, what {@code of} / {@code withGap} call with the milliseconds), Flink's
 * {@code EventTimeTrigger}, an allowed lateness and optionally a late-data side output
 * (docs/protocol/watermark-windows.md).
 *
 * <p>The harness is the bridge's own (flink-dist has no {@code OneInputStreamOperatorTestHarness}): the operator
 * is a subclass of {@code WindowOperator} whose keyed state backend is a real {@code HeapKeyedStateBackend}
 * (built by {@code HeapKeyedStateBackendBuilder}, its constructor filled by parameter type: it changed in 1.20
 * and 2.x) and whose timer service is {@code InternalTimerServiceImpl} over heap queues (as in
 * {@link TimersArea}), with the operator as its {@code Triggerable}. {@code open()} is not called: from 2.x
 * {@code AbstractStreamOperator.open} reads its containing task; the fields {@code WindowOperator.open} sets are
 * set here the same way (the timer service named "window-timers", the window state and, for a merging assigner,
 * the merging-window-set list state from the backend, the trigger, window and assigner contexts, a counter for
 * {@code numLateRecordsDropped}). A record is {@code processElement} with the backend's current key set to the
 * record's key (what the task does before it); a watermark advances the timer service (what
 * {@code processWatermark} does through the time service manager). The window function emits the key, the
 * window and its elements' values; the output records what reaches it, windows and the late side output.
 */
public final class WindowsArea implements Area {
    static final int KEY_GROUPS = 128;
    static final int MIN_CAPACITY = 128;
    private static final String ASSIGNERS = "org.apache.flink.streaming.api.windowing.assigners.";
    /** The protocol's bound on size / slide for a request with records (the windows of one record). */
    static final long MAX_SLIDING_RATIO = 1000;

    @Override
    public Object answer(String area, Map<String, Object> input) throws Exception {
        if (!"watermark.windows".equals(area)) {
            throw new BadRequest("WindowsArea does not answer " + area);
        }
        String kind = string(input, "assigner");
        long lateness = input.containsKey("allowed_lateness_ms") ? longOf(input, "allowed_lateness_ms") : 0;
        if (lateness < 0) {
            throw new BadRequest("input.allowed_lateness_ms must not be negative (WindowedStream.allowedLateness "
                    + "refuses it before any operator is built)");
        }
        boolean lateOutput = false;
        if (input.containsKey("late_output")) {
            if (!(input.get("late_output") instanceof Boolean)) {
                throw new BadRequest("input.late_output must be a boolean");
            }
            lateOutput = (Boolean) input.get("late_output");
        }
        List<Map<String, Object>> events = Reflect.eventObjects(input);
        long last = Long.MIN_VALUE;
        for (int i = 0; i < events.size(); i++) {
            String where = "input.events[" + i + "]";
            Map<String, Object> e = events.get(i);
            if (e.containsKey("watermark")) {
                long wm = Json.longOf(e, "watermark", where);
                if (wm < last) {
                    throw new BadRequest(where + ".watermark goes back (" + wm + " after " + last + ")");
                }
                last = wm;
            } else {
                Json.string(e, "key", where);
                if (Json.longOf(e, "timestamp", where) == Long.MIN_VALUE) {
                    throw new BadRequest(where + ".timestamp must be greater than Long.MIN_VALUE (Flink's "
                            + "no-timestamp marker)");
                }
                Json.longOf(e, "value", where);
            }
        }
        boolean records = events.stream().anyMatch(e -> !e.containsKey("watermark"));
        WindowAssigner<Object, TimeWindow> assigner = assigner(kind, input, records);
        boolean merging = assigner instanceof MergingWindowAssigner;
        List<Object> emitted = new ArrayList<>();
        Op op = new Op(assigner, lateness, lateOutput, merging);
        op.init(emitted);
        List<Object> outputs = new ArrayList<>(events.size());
        List<Object> dropped = new ArrayList<>(events.size());
        for (Map<String, Object> e : events) {
            emitted.clear();
            if (e.containsKey("watermark")) {
                op.advance((Long) e.get("watermark"));
            } else {
                String key = (String) e.get("key");
                op.backend.setCurrentKey(key);
                try {
                    op.processElement(new StreamRecord<>(Tuple2.of(key, (Long) e.get("value")),
                            (Long) e.get("timestamp")));
                } catch (UnsupportedOperationException ex) { // a merge that would end before the watermark
                    throw new Rejected(ex);
                }
            }
            outputs.add(new ArrayList<>(emitted));
            dropped.add(op.dropped());
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("outputs", outputs);
        out.put("dropped", dropped);
        return out;
    }

    /** The assigner by its protected constructor (what the public factories call); Flink's rejection as Rejected. */
    @SuppressWarnings("unchecked")
    private static WindowAssigner<Object, TimeWindow> assigner(String kind, Map<String, Object> input,
            boolean records) throws Exception {
        Class<?> cls;
        Object[] args;
        switch (kind) {
            case "tumbling":
                cls = Class.forName(ASSIGNERS + "TumblingEventTimeWindows");
                Class<?> stagger = Class.forName(ASSIGNERS + "WindowStagger");
                args = new Object[] {longOf(input, "size_ms"), offset(input), stagger.getField("ALIGNED").get(null)};
                break;
            case "sliding":
                cls = Class.forName(ASSIGNERS + "SlidingEventTimeWindows");
                long size = longOf(input, "size_ms");
                long slide = longOf(input, "slide_ms");
                args = new Object[] {size, slide, offset(input)};
                if (records && slide > 0 && size / slide > MAX_SLIDING_RATIO) {
                    throw new BadRequest("input: a sliding assigner with records must have size / slide <= "
                            + MAX_SLIDING_RATIO + " (the windows of one record)");
                }
                break;
            case "session":
                cls = Class.forName(ASSIGNERS + "EventTimeSessionWindows");
                args = new Object[] {longOf(input, "gap_ms")};
                break;
            default:
                throw new BadRequest("input.assigner must be one of tumbling, sliding, session, got '" + kind + "'");
        }
        Constructor<?> c = null;
        for (Constructor<?> cand : cls.getDeclaredConstructors()) {
            if (cand.getParameterCount() == args.length) {
                c = cand;
            }
        }
        c.setAccessible(true);
        try {
            return (WindowAssigner<Object, TimeWindow>) c.newInstance(args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof IllegalArgumentException) {
                throw new Rejected(e.getCause());
            }
            throw e;
        }
    }

    private static long offset(Map<String, Object> input) throws BadRequest {
        long offset = input.containsKey("offset_ms") ? longOf(input, "offset_ms") : 0;
        if (offset == Long.MIN_VALUE) {
            throw new BadRequest("input.offset_ms must be greater than Long.MIN_VALUE (Math.abs of it is negative)");
        }
        return offset;
    }

    /** Emits the key, the window and the values of its elements (sorted for a merging assigner). */
    private static final class Emit
            implements WindowFunction<Tuple2<String, Long>, Map<String, Object>, String, TimeWindow> {
        private static final long serialVersionUID = 1L;
        private final boolean sorted;

        Emit(boolean sorted) {
            this.sorted = sorted;
        }

        @Override
        public void apply(String key, TimeWindow window, Iterable<Tuple2<String, Long>> input,
                Collector<Map<String, Object>> out) {
            List<Long> values = new ArrayList<>();
            for (Tuple2<String, Long> t : input) {
                values.add(t.f1);
            }
            if (sorted) {
                Collections.sort(values);
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("key", key);
            m.put("start", window.getStart());
            m.put("end", window.getEnd());
            m.put("values", values);
            out.collect(m);
        }
    }

    /** WindowOperator with the bridge's keyed backend and timer service. */
    static final class Op extends WindowOperator<String, Tuple2<String, Long>, Iterable<Tuple2<String, Long>>,
            Map<String, Object>, TimeWindow> {
        private static final long serialVersionUID = 1L;
        transient KeyedStateBackend<String> backend;
        transient InternalTimerService<TimeWindow> timers;
        private final transient ExecutionConfig config = new ExecutionConfig(); // WindowContext reads it
        private final boolean merging;

        @SuppressWarnings({"unchecked", "rawtypes"})
        Op(WindowAssigner<Object, TimeWindow> assigner, long lateness, boolean lateOutput, boolean merging) {
            super(assigner, new TimeWindow.Serializer(), (KeySelector<Tuple2<String, Long>, String>) t -> t.f0,
                    StringSerializer.INSTANCE,
                    new ListStateDescriptor<>("window-contents", elementSerializer()),
                    new InternalIterableWindowFunction<>(new Emit(merging)), EventTimeTrigger.create(), lateness,
                    lateOutput ? new OutputTag<Tuple2<String, Long>>("late", Types.TUPLE(Types.STRING, Types.LONG))
                            : null);
            this.merging = merging;
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        static TypeSerializer<Tuple2<String, Long>> elementSerializer() {
            return new TupleSerializer<>((Class) Tuple2.class,
                    new TypeSerializer<?>[] {StringSerializer.INSTANCE, LongSerializer.INSTANCE});
        }

        /** What WindowOperator.open sets up, with {@code emitted} receiving the output. */
        @SuppressWarnings({"unchecked", "rawtypes"})
        void init(List<Object> emitted) throws Exception {
            backend = heapBackend();
            Class<?> outputType = Class.forName("org.apache.flink.streaming.api.operators.Output");
            output = (org.apache.flink.streaming.api.operators.Output) Reflect.proxy(outputType, (p, m, a) -> {
                if (m.getName().equals("collect") && a != null && a.length == 1) {
                    StreamRecord<Map<String, Object>> r = (StreamRecord<Map<String, Object>>) a[0];
                    Map<String, Object> fired = new LinkedHashMap<>(r.getValue());
                    fired.put("timestamp", r.getTimestamp());
                    emitted.add(Collections.singletonMap("fired", fired));
                    return null;
                }
                if (m.getName().equals("collect") && a != null && a.length == 2) {
                    StreamRecord<Tuple2<String, Long>> r = (StreamRecord<Tuple2<String, Long>>) a[1];
                    Map<String, Object> late = new LinkedHashMap<>();
                    late.put("key", r.getValue().f0);
                    late.put("timestamp", r.getTimestamp());
                    late.put("value", r.getValue().f1);
                    emitted.add(Collections.singletonMap("late", late));
                    return null;
                }
                if (m.getDeclaringClass() == Object.class) {
                    return Reflect.objectMethod(p, m, a, "flinkspec-output");
                }
                throw new IllegalStateException("unexpected output call " + m);
            });
            numLateRecordsDropped = new SimpleCounter();
            timestampedCollector = new TimestampedCollector<>(output);
            internalTimerService = getInternalTimerService("window-timers", windowSerializer, this);
            triggerContext = new Context(null, null);
            processContext = new WindowContext(null);
            windowAssignerContext = new WindowAssigner.WindowAssignerContext() {
                @Override
                public long getCurrentProcessingTime() {
                    return 0L;
                }
            };
            StateDescriptor<?, ?> descriptor = (StateDescriptor<?, ?>) field("windowStateDescriptor").get(this);
            Object state = getOrCreateKeyedState(windowSerializer, (StateDescriptor) descriptor);
            field("windowState").set(this, state);
            if (merging) {
                field("windowMergingState").set(this, state);
                TypeSerializer<?> tuple = new TupleSerializer<>((Class) Tuple2.class,
                        new TypeSerializer<?>[] {windowSerializer, windowSerializer});
                ListStateDescriptor<?> sets = new ListStateDescriptor<>("merging-window-set", tuple);
                Class<?> voidNs = Class.forName("org.apache.flink.runtime.state.VoidNamespaceSerializer");
                Object setsState = getOrCreateKeyedState((TypeSerializer) voidNs.getField("INSTANCE").get(null),
                        (StateDescriptor) sets);
                Class<?> voidNamespace = Class.forName("org.apache.flink.runtime.state.VoidNamespace");
                setsState.getClass().getMethod("setCurrentNamespace", Object.class)
                        .invoke(setsState, voidNamespace.getField("INSTANCE").get(null));
                field("mergingSetsState").set(this, setsState);
            }
        }

        private static Field field(String name) throws NoSuchFieldException {
            return Reflect.fieldOf(WindowOperator.class, name);
        }

        long dropped() {
            return numLateRecordsDropped.getCount();
        }

        void advance(long watermark) throws Exception {
            WindowsArea.advance(timers, watermark);
        }

        @Override
        @SuppressWarnings("unchecked")
        public <K> KeyedStateBackend<K> getKeyedStateBackend() {
            return (KeyedStateBackend<K>) backend;
        }

        @Override
        protected <N, S extends State, T> S getOrCreateKeyedState(TypeSerializer<N> namespaceSerializer,
                StateDescriptor<S, T> stateDescriptor) throws Exception {
            return backend.getOrCreateKeyedState(namespaceSerializer, stateDescriptor);
        }

        @Override
        @SuppressWarnings("unchecked")
        public <K, N> InternalTimerService<N> getInternalTimerService(String name,
                TypeSerializer<N> namespaceSerializer, Triggerable<K, N> triggerable) {
            timers = (InternalTimerService<TimeWindow>) timerService(backend, triggerable, namespaceSerializer);
            return (InternalTimerService<N>) timers;
        }

        @Override
        public ExecutionConfig getExecutionConfig() {
            return config;
        }

        @Override
        public void setCurrentKey(Object key) {
            backend.setCurrentKey((String) key);
        }

        @Override
        public Object getCurrentKey() {
            return backend.getCurrentKey();
        }
    }

    /**
     * An {@code InternalTimerServiceImpl} over heap queues (as {@link TimersArea} builds it) for String keys, its
     * key context {@code backend} (the timer service sets the backend's current key before it fires a timer), and
     * {@code triggerable} called for each fired timer.
     */
    static InternalTimerService<?> timerService(KeyedStateBackend<String> backend, Object triggerable,
            TypeSerializer<?> namespaceSerializer) {
        InvocationHandler keys = (p, m, a) -> {
            switch (m.getName()) {
                case "setCurrentKey":
                    backend.setCurrentKey((String) a[0]);
                    return null;
                case "getCurrentKey":
                    return backend.getCurrentKey();
                default:
                    return Reflect.objectMethod(p, m, a, "flinkspec-key-context");
            }
        };
        try {
            return (InternalTimerService<?>) TimersArea.timerService(keys, triggerable, StringSerializer.INSTANCE,
                    namespaceSerializer);
        } catch (Exception e) {
            throw new IllegalStateException("cannot build the timer service", e);
        }
    }

    /** Advances {@code timers} (an {@code InternalTimerServiceImpl}) to {@code watermark}, firing its timers. */
    static void advance(Object timers, long watermark) throws Exception {
        Method m = timers.getClass().getMethod("advanceWatermark", long.class);
        m.setAccessible(true);
        Reflect.call(m, timers, watermark);
    }

    /** A HeapKeyedStateBackend for String keys over key groups 0..127, its builder's constructor filled by type. */
    static KeyedStateBackend<String> heapBackend() throws Exception {
        return heapBackend(Collections.emptyList(), false);
    }

    /**
     * The same, restored from {@code restored} (the builder's {@code Collection<KeyedStateHandle>}), its snapshots
     * asynchronous or not (the builder's one {@code boolean}, {@code asynchronousSnapshots} in 1.13 ... 2.3).
     */
    @SuppressWarnings("unchecked")
    static KeyedStateBackend<String> heapBackend(Collection<KeyedStateHandle> restored, boolean asyncSnapshots)
            throws Exception {
        KeyGroupRange range = new KeyGroupRange(0, KEY_GROUPS - 1);
        Class<?> builder = Class.forName("org.apache.flink.runtime.state.heap.HeapKeyedStateBackendBuilder");
        Constructor<?> c = null;
        for (Constructor<?> cand : builder.getConstructors()) {
            if (c == null || cand.getParameterCount() > c.getParameterCount()) {
                c = cand;
            }
        }
        Class<?>[] types = c.getParameterTypes();
        Object[] args = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            args[i] = builderArg(types[i], restored);
            if (args[i] != NO_ARG) {
                continue;
            }
            switch (types[i].getSimpleName()) {
                case "HeapPriorityQueueSetFactory":
                    args[i] = new HeapPriorityQueueSetFactory(range, KEY_GROUPS, MIN_CAPACITY);
                    break;
                case "boolean":
                    args[i] = asyncSnapshots;
                    break;
                default:
                    throw new IllegalStateException("no value for parameter " + types[i].getName() + " of " + c);
            }
        }
        Object b = c.newInstance(args);
        return (KeyedStateBackend<String>) builder.getMethod("build").invoke(b);
    }

    /** What {@link #builderArg} answers for a parameter type it does not know. */
    static final Object NO_ARG = new Object();

    /**
     * The value a keyed state backend builder's constructor parameter of {@code type} gets, for the types the heap
     * and the RocksDB builders share (String keys over key groups 0 ... 127, restored from {@code restored}, no
     * local recovery, no latency or size tracking); {@link #NO_ARG} for another type.
     */
    static Object builderArg(Class<?> type, Collection<KeyedStateHandle> restored) throws Exception {
        switch (type.getSimpleName()) {
            case "TaskKvStateRegistry":
                return null;
            case "TypeSerializer":
                return StringSerializer.INSTANCE;
            case "ClassLoader":
                return WindowsArea.class.getClassLoader();
            case "int":
                return KEY_GROUPS;
            case "KeyGroupRange":
                return new KeyGroupRange(0, KEY_GROUPS - 1);
            case "ExecutionConfig":
                return new ExecutionConfig();
            case "TtlTimeProvider":
                return type.getField("DEFAULT").get(null);
            case "LatencyTrackingStateConfig":
            case "SizeTrackingStateConfig":
                return type.getMethod("disabled").invoke(null);
            case "Collection":
                return restored;
            case "StreamCompressionDecorator":
                return Class.forName("org.apache.flink.runtime.state.UncompressedStreamCompressionDecorator")
                        .getField("INSTANCE").get(null);
            case "LocalRecoveryConfig":
                return localRecoveryDisabled(type);
            case "CloseableRegistry":
                return type.getConstructor().newInstance();
            default:
                return NO_ARG;
        }
    }

    static Object localRecoveryDisabled(Class<?> cls) throws Exception {
        try {
            return cls.getField("BACKUP_AND_RECOVERY_DISABLED").get(null);
        } catch (NoSuchFieldException e) {
            Constructor<?> c = cls.getConstructors()[0];
            Class<?>[] types = c.getParameterTypes();
            Object[] args = new Object[types.length];
            for (int i = 0; i < types.length; i++) {
                args[i] = types[i] == boolean.class ? Boolean.FALSE : null;
            }
            return c.newInstance(args);
        }
    }

    private static String string(Map<String, Object> obj, String name) throws BadRequest {
        return Json.string(obj, name, "input");
    }

    private static long longOf(Map<String, Object> obj, String name) throws BadRequest {
        return Json.longOf(obj, name, "input");
    }
}
