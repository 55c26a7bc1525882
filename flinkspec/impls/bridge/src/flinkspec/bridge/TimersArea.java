package flinkspec.bridge;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueSetFactory;
import org.apache.flink.streaming.api.operators.InternalTimer;

/**
 * {@code watermark.timers}, answered by Flink's own {@code InternalTimerServiceImpl} over the
 * timer queues the heap keyed state backend really uses: one {@code HeapPriorityQueueSet} per
 * timer kind, made by {@code HeapPriorityQueueSetFactory} (as {@code HeapPriorityQueuesManager}
 * does) for the whole key-group range of a single subtask, with the default maximum parallelism
 * 128 ({@code KeyGroupRangeAssignment.computeDefaultMaxParallelism} for parallelism 1) and the
 * backend's minimum capacity 128.
 *
 * <p>The key context, the processing-time service (never used: only event-time timers are
 * registered), the cancellation context (never cancelled) and the {@code Triggerable} that
 * records fired timers are proxies. The constructor (package-private, its parameters changed in
 * 1.18 and 1.20) is found by reflection and filled by parameter type.
 */
public final class TimersArea implements Area {
    /** Default max parallelism of a job with parallelism <= 128: key groups 0..127. */
    static final int KEY_GROUPS = 128;
    /** HeapPriorityQueueSetFactory's minimum capacity as the heap backends create it. */
    static final int MIN_CAPACITY = 128;

    @Override
    public Object answer(String area, Map<String, Object> input) throws Exception {
        if (!area.equals("watermark.timers")) {
            throw new BadRequest("TimersArea does not answer " + area);
        }
        List<Event> events = events(input);
        KeyState keys = new KeyState();
        List<Object> fired = new ArrayList<>();
        Object service = timerService(keys, firedTarget(fired), StringSerializer.INSTANCE,
                VoidNamespaceSerializer.INSTANCE);
        Class<?> cls = service.getClass();
        Method register = cls.getMethod("registerEventTimeTimer", Object.class, long.class);
        Method delete = cls.getMethod("deleteEventTimeTimer", Object.class, long.class);
        Method advance = cls.getMethod("advanceWatermark", long.class);
        register.setAccessible(true);
        delete.setAccessible(true);
        advance.setAccessible(true);
        List<Object> out = new ArrayList<>(events.size());
        for (Event e : events) {
            List<Object> now = new ArrayList<>();
            fired.clear();
            if (e.kind.equals("watermark")) {
                call(advance, service, e.timestamp);
                now.addAll(fired);
            } else {
                keys.current = e.key;
                call(e.kind.equals("register") ? register : delete, service, e.namespace, e.timestamp);
            }
            out.add(now);
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("fired", out);
        return result;
    }

    /**
     * A started InternalTimerServiceImpl over fresh heap queues, with {@code keys} as its key context and
     * {@code target} (a {@code Triggerable}) called for each fired timer. WindowsArea's operator uses it too.
     */
    static Object timerService(InvocationHandler keys, Object target, Object keySerializer,
            Object namespaceSerializer) throws Exception {
        KeyGroupRange range = new KeyGroupRange(0, KEY_GROUPS - 1);
        HeapPriorityQueueSetFactory factory = new HeapPriorityQueueSetFactory(range, KEY_GROUPS, MIN_CAPACITY);
        Method create = HeapPriorityQueueSetFactory.class.getMethod(
                "create", String.class, Class.forName("org.apache.flink.api.common.typeutils.TypeSerializer"));
        // processing-time queue first, event-time queue second: the constructor's parameter order
        Object[] queues = {create.invoke(factory, "_timer_state/processing_t", null),
                create.invoke(factory, "_timer_state/event_t", null)};
        Class<?> impl = Class.forName("org.apache.flink.streaming.api.operators.InternalTimerServiceImpl");
        Constructor<?> c = null;
        for (Constructor<?> cand : impl.getDeclaredConstructors()) {
            if (!cand.isSynthetic()) {
                c = cand;
            }
        }
        c.setAccessible(true);
        Class<?>[] types = c.getParameterTypes();
        Object[] args = new Object[types.length];
        int queue = 0;
        for (int i = 0; i < types.length; i++) {
            String name = types[i].getSimpleName();
            if (types[i] == KeyGroupRange.class) {
                args[i] = range;
            } else if (name.equals("KeyGroupedInternalPriorityQueue")) {
                args[i] = queues[queue++];
            } else if (name.equals("KeyContext")) {
                args[i] = proxy(types[i], keys);
            } else if (name.equals("TaskIOMetricGroup")) {
                args[i] = taskIoMetricGroup();
            } else if (name.equals("StreamTaskCancellationContext")) {
                args[i] = proxy(types[i], (p, m, a) -> m.getName().equals("isCancelled") ? false : object(p, m, a));
            } else if (name.equals("ProcessingTimeService")) {
                args[i] = proxy(types[i], (p, m, a) -> {
                    if (m.getName().equals("getCurrentProcessingTime")) {
                        return 0L;
                    }
                    if (m.getDeclaringClass() == Object.class) {
                        return object(p, m, a);
                    }
                    throw new IllegalStateException("processing time is not used: " + m);
                });
            } else {
                throw new IllegalStateException("no value for parameter " + types[i].getName() + " of " + c);
            }
        }
        Object service = c.newInstance(args);
        Class<?> triggerable = Class.forName("org.apache.flink.streaming.api.operators.Triggerable");
        Class<?> ser = Class.forName("org.apache.flink.api.common.typeutils.TypeSerializer");
        impl.getMethod("startTimerService", ser, ser, triggerable)
                .invoke(service, keySerializer, namespaceSerializer, target);
        return service;
    }

    /** A Triggerable recording each fired event-time timer in {@code fired}. */
    private static Object firedTarget(List<Object> fired) throws Exception {
        Class<?> triggerable = Class.forName("org.apache.flink.streaming.api.operators.Triggerable");
        return proxy(triggerable, (p, m, a) -> {
            if (m.getName().equals("onEventTime")) {
                fired.add(timer((InternalTimer<?, ?>) a[0]));
                return null;
            }
            if (m.getDeclaringClass() == Object.class) {
                return object(p, m, a);
            }
            throw new IllegalStateException("unexpected call " + m);
        });
    }

    private static Object taskIoMetricGroup() throws Exception {
        Class<?> groups = Class.forName("org.apache.flink.runtime.metrics.groups.UnregisteredMetricGroups");
        Object task = groups.getMethod("createUnregisteredTaskMetricGroup").invoke(null);
        return task.getClass().getMethod("getIOMetricGroup").invoke(task);
    }

    private static Map<String, Object> timer(InternalTimer<?, ?> t) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("timestamp", t.getTimestamp());
        m.put("key", t.getKey());
        if (t.getNamespace() instanceof String) {
            m.put("namespace", t.getNamespace());
        }
        return m;
    }

    /** The operator's current key, as {@code KeyContext} (set before each register/delete). */
    private static final class KeyState implements InvocationHandler {
        Object current;

        @Override
        public Object invoke(Object proxy, Method m, Object[] args) {
            switch (m.getName()) {
                case "setCurrentKey":
                    current = args[0];
                    return null;
                case "getCurrentKey":
                    return current;
                default:
                    return object(proxy, m, args);
            }
        }
    }

    /** register / delete (with key and namespace) or watermark. */
    private static final class Event {
        final String kind;
        final long timestamp;
        final String key;
        final Object namespace;

        Event(String kind, long timestamp, String key, Object namespace) {
            this.kind = kind;
            this.timestamp = timestamp;
            this.key = key;
            this.namespace = namespace;
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Event> events(Map<String, Object> input) throws BadRequest {
        List<Map<String, Object>> list = Reflect.eventObjects(input);
        List<Event> out = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            String where = "input.events[" + i + "]";
            Map<String, Object> e = list.get(i);
            String kind = null;
            for (String k : new String[] {"register", "delete", "watermark"}) {
                if (e.containsKey(k)) {
                    if (kind != null) {
                        throw new BadRequest(where + " must have exactly one of register, delete, watermark");
                    }
                    kind = k;
                }
            }
            if (kind == null) {
                throw new BadRequest(where + " must have exactly one of register, delete, watermark");
            }
            if (!(e.get(kind) instanceof Long)) {
                throw new BadRequest(where + "." + kind + " must be an integer that fits a signed 64-bit long");
            }
            long ts = (Long) e.get(kind);
            if (kind.equals("watermark")) {
                out.add(new Event(kind, ts, null, null));
                continue;
            }
            if (!(e.get("key") instanceof String)) {
                throw new BadRequest(where + ".key must be a string");
            }
            Object ns = VoidNamespace.INSTANCE;
            if (e.containsKey("namespace")) {
                if (!(e.get("namespace") instanceof String)) {
                    throw new BadRequest(where + ".namespace must be a string");
                }
                ns = e.get("namespace");
            }
            out.add(new Event(kind, ts, (String) e.get("key"), ns));
        }
        return out;
    }

    private static Object proxy(Class<?> iface, InvocationHandler h) {
        return Reflect.proxy(iface, h);
    }

    private static Object object(Object proxy, Method m, Object[] args) {
        return Reflect.objectMethod(proxy, m, args, "flinkspec-proxy");
    }

    private static void call(Method m, Object target, Object... args) throws Exception {
        Reflect.call(m, target, args);
    }
}
