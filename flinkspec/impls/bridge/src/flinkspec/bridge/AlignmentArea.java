package flinkspec.bridge;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.checkpoint.CheckpointMetaData;
import org.apache.flink.runtime.checkpoint.CheckpointMetricsBuilder;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.channel.InputChannelInfo;
import org.apache.flink.runtime.io.network.api.CancelCheckpointMarker;
import org.apache.flink.runtime.io.network.api.CheckpointBarrier;
import org.apache.flink.runtime.io.network.partition.consumer.CheckpointableInput;
import org.apache.flink.runtime.jobgraph.tasks.AbstractInvokable;
import org.apache.flink.streaming.runtime.io.checkpointing.CheckpointBarrierTracker;
import org.apache.flink.streaming.runtime.io.checkpointing.SingleCheckpointBarrierHandler;
import org.apache.flink.util.clock.ManualClock;

/**
 * {@code checkpoint.alignment}, decided by Flink's own barrier handlers.
 *
 * <p>exactly_once: {@code SingleCheckpointBarrierHandler.aligned(...)} (unaligned checkpoints off),
 * as {@code InputProcessorUtil} builds it; at_least_once: {@code new CheckpointBarrierTracker(...)}.
 * Both are built reflectively because their signatures differ (1.13: no checkpoints-after-finish
 * flag, an {@code AbstractInvokable} to notify, {@code processBarrier(b, ch)},
 * {@code processCancellationBarrier(m)}, {@code processEndOfPartition()}; 1.14-1.15: the alignment
 * timer is a {@code BiFunction}, 1.16+: a {@code BarrierAlignmentUtil.DelayableTimer}; 1.14+:
 * {@code processBarrier(b, ch, isRpcTriggered)} and the channel on cancel and end of partition).
 *
 * <p>The handler notifies a {@link Task} (an {@code AbstractInvokable}, which implements
 * {@code CheckpointableTask} from 1.14) that records {@code triggerCheckpointOnBarrier} and
 * {@code abortCheckpointOnBarrier}; it blocks and resumes channels on a {@code CheckpointableInput}
 * proxy. Around them sits the harness's input model (docs/protocol/checkpoint-alignment.md, the
 * same as {@code oracle/alignment.py}): events queue per channel as they arrive, and after each
 * arrival the task consumes the earliest-arrived queued event of any unblocked channel until none
 * is left. When the request does not set {@code checkpoints_after_finish}, the default of Flink's
 * own option {@code ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH} is used.
 *
 * <p>Every barrier is {@code new CheckpointBarrier(id, 0, CheckpointOptions.forCheckpointWithDefaultLocation())}
 * on {@code InputChannelInfo(0, channel)} (the tracker never reads the options; the aligned handler
 * only checks they are not unaligned); the clock is a {@code ManualClock} at 0, which only feeds
 * the alignment metrics. An exception out of the handler fails the task: it is recorded as
 * {@code {"fail": "<simple name>"}} and ends the trace (Flink's tracker can throw
 * {@code IllegalStateException} from {@code markAlignmentEnd}, rule ALO-11).
 */
public final class AlignmentArea implements Area {
    static final int MAX_CHANNELS = 64;
    static final int MAX_EVENTS = 100_000;
    private static final String PKG = "org.apache.flink.streaming.runtime.io.checkpointing.";

    @Override
    public Object answer(String area, Map<String, Object> input) throws Exception {
        if (!"checkpoint.alignment".equals(area)) {
            throw new BadRequest("AlignmentArea does not answer " + area);
        }
        for (String key : input.keySet()) {
            if (!Arrays.asList("mode", "channels", "events", "checkpoints_after_finish").contains(key)) {
                throw new BadRequest("input." + key + " is not a field of checkpoint.alignment");
            }
        }
        for (String key : Arrays.asList("mode", "channels", "events")) {
            if (!input.containsKey(key)) {
                throw new BadRequest("input." + key + " is missing");
            }
        }
        Object mode = input.get("mode");
        if (!"exactly_once".equals(mode) && !"at_least_once".equals(mode)) {
            throw new BadRequest("input.mode must be \"exactly_once\" or \"at_least_once\"");
        }
        Object n = input.get("channels");
        if (!(n instanceof Long) || (Long) n < 1 || (Long) n > MAX_CHANNELS) {
            throw new BadRequest("input.channels must be an integer between 1 and " + MAX_CHANNELS);
        }
        int channels = ((Long) n).intValue();
        boolean legacy = !hasAfterFinishFlag();
        boolean afterFinish = afterFinish(input, legacy);
        List<Event> events = events(input, channels);

        Gate gate = new Gate(channels);
        Task task = (Task) Reflect.allocate(Task.class);
        task.trace = gate.trace;
        Driver driver = "exactly_once".equals(mode)
                ? Driver.aligned(task, gate, channels, afterFinish)
                : Driver.tracker(task, channels, afterFinish);
        gate.run(events, driver);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("trace", gate.trace);
        return out;
    }

    // ------------------------------------------------------------------------------------------
    // the input model
    // ------------------------------------------------------------------------------------------

    /** One arrival: kind is record / barrier / cancel / end. */
    private static final class Event {
        final int channel;
        final String kind;
        final String record;
        final long id;

        Event(int channel, String kind, String record, long id) {
            this.channel = channel;
            this.kind = kind;
            this.record = record;
            this.id = id;
        }
    }

    /** Per-channel queues, the blocked flags the handler sets, and the task's trace. */
    static final class Gate {
        final List<ArrayDeque<Integer>> queues = new ArrayList<>(); // arrival indices, per channel
        final boolean[] blocked;
        final List<Object> trace = new ArrayList<>();
        boolean failed;

        Gate(int channels) {
            blocked = new boolean[channels];
            for (int c = 0; c < channels; c++) {
                queues.add(new ArrayDeque<>());
            }
        }

        void run(List<Event> events, Driver driver) throws Exception {
            for (int i = 0; i < events.size() && !failed; i++) {
                queues.get(events.get(i).channel).add(i);
                while (!failed) {
                    int best = -1;
                    int bestSeq = Integer.MAX_VALUE;
                    for (int c = 0; c < blocked.length; c++) {
                        ArrayDeque<Integer> q = queues.get(c);
                        if (!blocked[c] && !q.isEmpty() && q.peekFirst() < bestSeq) {
                            best = c;
                            bestSeq = q.peekFirst();
                        }
                    }
                    if (best < 0) {
                        break;
                    }
                    consume(events.get(queues.get(best).pollFirst()), driver);
                }
            }
        }

        private void consume(Event e, Driver driver) throws Exception {
            try {
                switch (e.kind) {
                    case "record":
                        trace.add(entry("process", Arrays.asList((long) e.channel, e.record)));
                        break;
                    case "barrier":
                        driver.barrier(e.channel, e.id);
                        break;
                    case "cancel":
                        driver.cancel(e.channel, e.id);
                        break;
                    default:
                        driver.end(e.channel);
                }
            } catch (Exception ex) {
                for (Throwable t = ex; t != null; t = t.getCause()) {
                    if (t instanceof BridgeBug) {
                        throw (BridgeBug) t;
                    }
                }
                // Flink's handler threw: the task fails (StreamTask would fail over)
                trace.add(entry("fail", ex.getClass().getSimpleName()));
                failed = true;
            }
        }
    }

    /** A call the model never expects from Flink: reported as a bridge failure, not a task failure. */
    static final class BridgeBug extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BridgeBug(String message) {
            super(message);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Flink's handlers
    // ------------------------------------------------------------------------------------------

    /** A real handler and the reflective calls that feed it. */
    static final class Driver {
        private final Object handler;
        private final InputChannelInfo[] infos;
        private final Method barrier;
        private final Method cancel;
        private final Method end;

        private Driver(Object handler, int channels) {
            this.handler = handler;
            this.infos = new InputChannelInfo[channels];
            for (int c = 0; c < channels; c++) {
                infos[c] = new InputChannelInfo(0, c);
            }
            this.barrier = method(handler.getClass(), "processBarrier");
            this.cancel = method(handler.getClass(), "processCancellationBarrier");
            this.end = method(handler.getClass(), "processEndOfPartition");
        }

        /** {@code SingleCheckpointBarrierHandler.aligned(...)}, its arguments filled by type. */
        static Driver aligned(Task task, Gate gate, int channels, boolean afterFinish) throws Exception {
            Method factory = null;
            for (Method m : SingleCheckpointBarrierHandler.class.getMethods()) {
                if (m.getName().equals("aligned")) {
                    factory = m;
                }
            }
            if (factory == null) {
                throw new IllegalStateException("no SingleCheckpointBarrierHandler.aligned in this version");
            }
            Object input = Reflect.proxy(CheckpointableInput.class, new Input(gate, channels));
            Class<?>[] types = factory.getParameterTypes();
            Object[] args = new Object[types.length];
            for (int i = 0; i < types.length; i++) {
                Class<?> t = types[i];
                if (t == String.class) {
                    args[i] = "flinkspec";
                } else if (t.isInstance(task)) {
                    args[i] = task;
                } else if (t == int.class) {
                    args[i] = channels;
                } else if (t == boolean.class) {
                    args[i] = afterFinish;
                } else if (t.isArray()) {
                    Object arr = java.lang.reflect.Array.newInstance(t.getComponentType(), 1);
                    java.lang.reflect.Array.set(arr, 0, input);
                    args[i] = arr;
                } else if (t.isAssignableFrom(ManualClock.class)) {
                    args[i] = new ManualClock();
                } else if (t.isInterface()) {
                    // the aligned-checkpoint timer (BiFunction / DelayableTimer): never used when
                    // not alternating, so a call would be a bridge bug
                    args[i] = Reflect.proxy(t, (p, m, a) -> {
                        if (m.getDeclaringClass() == Object.class) {
                            return Reflect.objectMethod(p, m, a, "flinkspec-timer");
                        }
                        throw new BridgeBug("aligned handler registered a timer: " + m);
                    });
                } else {
                    throw new IllegalStateException("no value for parameter " + t + " of " + factory);
                }
            }
            return new Driver(factory.invoke(null, args), channels);
        }

        /** {@code new CheckpointBarrierTracker(channels, task, clock[, afterFinish])}. */
        static Driver tracker(Task task, int channels, boolean afterFinish) throws Exception {
            for (Constructor<?> c : CheckpointBarrierTracker.class.getConstructors()) {
                Class<?>[] types = c.getParameterTypes();
                Object[] args = new Object[types.length];
                args[0] = channels;
                args[1] = task;
                args[2] = new ManualClock();
                if (types.length == 4) {
                    args[3] = afterFinish;
                }
                return new Driver(c.newInstance(args), channels);
            }
            throw new IllegalStateException("no public CheckpointBarrierTracker constructor");
        }

        void barrier(int channel, long id) throws Exception {
            CheckpointBarrier b = new CheckpointBarrier(id, 0L, CheckpointOptions.forCheckpointWithDefaultLocation());
            if (barrier.getParameterCount() == 3) {
                Reflect.call(barrier, handler, b, infos[channel], false);
            } else {
                Reflect.call(barrier, handler, b, infos[channel]);
            }
        }

        void cancel(int channel, long id) throws Exception {
            CancelCheckpointMarker marker = new CancelCheckpointMarker(id);
            if (cancel.getParameterCount() == 2) {
                Reflect.call(cancel, handler, marker, infos[channel]);
            } else {
                Reflect.call(cancel, handler, marker);
            }
        }

        void end(int channel) throws Exception {
            if (end.getParameterCount() == 1) {
                Reflect.call(end, handler, infos[channel]);
            } else {
                Reflect.call(end, handler);
            }
        }

        private static Method method(Class<?> cls, String name) {
            for (Method m : cls.getMethods()) {
                if (m.getName().equals(name)) {
                    return m;
                }
            }
            throw new IllegalStateException("no " + name + " in " + cls);
        }
    }

    /** The input gate as the handler sees it: blocking and resuming set the gate's flags. */
    private static final class Input implements InvocationHandler {
        private final Gate gate;
        private final List<InputChannelInfo> infos = new ArrayList<>();

        Input(Gate gate, int channels) {
            this.gate = gate;
            for (int c = 0; c < channels; c++) {
                infos.add(new InputChannelInfo(0, c));
            }
        }

        @Override
        public Object invoke(Object proxy, Method m, Object[] args) {
            switch (m.getName()) {
                case "blockConsumption":
                    gate.blocked[((InputChannelInfo) args[0]).getInputChannelIdx()] = true;
                    return null;
                case "resumeConsumption":
                    gate.blocked[((InputChannelInfo) args[0]).getInputChannelIdx()] = false;
                    return null;
                case "getChannelInfos":
                    return infos;
                case "getNumberOfInputChannels":
                    return infos.size();
                case "getInputGateIndex":
                    return 0;
                default:
                    if (m.getDeclaringClass() == Object.class) {
                        return Reflect.objectMethod(proxy, m, args, "flinkspec-input");
                    }
                    throw new BridgeBug("aligned handler called " + m);
            }
        }
    }

    /**
     * The task the handler notifies. Allocated without a constructor (it needs a running
     * environment); {@code invoke} is abstract in {@code AbstractInvokable} (1.13-2.2) or in
     * {@code TaskInvokable} (2.3).
     */
    static final class Task extends AbstractInvokable {
        List<Object> trace;

        Task() {
            super(null);
        }

        public void invoke() {}

        @Override
        public void triggerCheckpointOnBarrier(CheckpointMetaData meta, CheckpointOptions options,
                CheckpointMetricsBuilder metrics) {
            trace.add(entry("snapshot", meta.getCheckpointId()));
            trace.add(entry("emit_barrier", meta.getCheckpointId()));
        }

        @Override
        public void abortCheckpointOnBarrier(long checkpointId, CheckpointException cause) {
            trace.add(entry("abort", Arrays.asList(checkpointId, cause.getCheckpointFailureReason().name())));
        }
    }

    // ------------------------------------------------------------------------------------------
    // input parsing
    // ------------------------------------------------------------------------------------------

    /** Whether this version's handlers take the checkpoints-after-finish flag (1.14+). */
    private static boolean hasAfterFinishFlag() {
        for (Constructor<?> c : CheckpointBarrierTracker.class.getConstructors()) {
            if (c.getParameterCount() == 4) {
                return true;
            }
        }
        return false;
    }

    private static boolean afterFinish(Map<String, Object> input, boolean legacy) throws Exception {
        Object v = input.get("checkpoints_after_finish");
        if (v == null && !input.containsKey("checkpoints_after_finish")) {
            return !legacy && optionDefault();
        }
        if (!(v instanceof Boolean)) {
            throw new BadRequest("input.checkpoints_after_finish must be a boolean");
        }
        if (legacy && (Boolean) v) {
            throw new BadRequest("input.checkpoints_after_finish: this Flink has no checkpoints after tasks finish");
        }
        return (Boolean) v;
    }

    /** The default of ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH, where InputProcessorUtil reads it. */
    private static boolean optionDefault() throws Exception {
        for (String cls : Arrays.asList("org.apache.flink.configuration.CheckpointingOptions",
                "org.apache.flink.streaming.api.environment.ExecutionCheckpointingOptions")) {
            try {
                Field f = Class.forName(cls).getField("ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH");
                Object option = f.get(null);
                return (Boolean) option.getClass().getMethod("defaultValue").invoke(option);
            } catch (ClassNotFoundException | NoSuchFieldException e) {
                // try the next place
            }
        }
        throw new IllegalStateException("no ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH option in this version");
    }

    private static List<Event> events(Map<String, Object> input, int channels) throws BadRequest {
        Object raw = input.get("events");
        if (!(raw instanceof List)) {
            throw new BadRequest("input.events must be an array");
        }
        if (((List<?>) raw).size() > MAX_EVENTS) {
            throw new BadRequest("input.events has more than " + MAX_EVENTS + " events");
        }
        List<Map<String, Object>> list = Reflect.eventObjects(input);
        Set<Integer> ended = new HashSet<>();
        List<Event> out = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            String where = "input.events[" + i + "]";
            Map<String, Object> e = list.get(i);
            Object ch = e.get("channel");
            if (!(ch instanceof Long) || (Long) ch < 0 || (Long) ch >= channels) {
                throw new BadRequest(where + ".channel must be an integer in [0, " + channels + ")");
            }
            int channel = ((Long) ch).intValue();
            String kind = null;
            for (String k : Arrays.asList("record", "barrier", "cancel", "end")) {
                if (e.containsKey(k)) {
                    if (kind != null) {
                        kind = "";
                    } else {
                        kind = k;
                    }
                }
            }
            if (kind == null || kind.isEmpty()) {
                throw new BadRequest(where + " must have exactly one of record, barrier, cancel, end");
            }
            for (String key : e.keySet()) {
                if (!key.equals("channel") && !key.equals(kind)) {
                    throw new BadRequest(where + "." + key + " is not a field of a " + kind + " event");
                }
            }
            if (ended.contains(channel)) {
                throw new BadRequest(where + " arrives on channel " + channel + " after its end of partition");
            }
            Object value = e.get(kind);
            switch (kind) {
                case "record":
                    if (!(value instanceof String)) {
                        throw new BadRequest(where + ".record must be a string");
                    }
                    out.add(new Event(channel, kind, (String) value, 0L));
                    break;
                case "end":
                    if (!Boolean.TRUE.equals(value)) {
                        throw new BadRequest(where + ".end must be true");
                    }
                    ended.add(channel);
                    out.add(new Event(channel, kind, null, 0L));
                    break;
                default:
                    if (!(value instanceof Long) || (Long) value < 1) {
                        throw new BadRequest(where + "." + kind + " must be a checkpoint id: an integer in [1, 2^63-1]");
                    }
                    out.add(new Event(channel, kind, null, (Long) value));
            }
        }
        return out;
    }

    private static Map<String, Object> entry(String key, Object value) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(key, value);
        return m;
    }
}
