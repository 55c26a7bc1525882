package flinkspec.bridge;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.functions.async.AsyncFunction;
import org.apache.flink.streaming.api.functions.async.ResultFuture;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.AbstractUdfStreamOperator;
import org.apache.flink.streaming.api.operators.Output;
import org.apache.flink.streaming.api.operators.TimestampedCollector;
import org.apache.flink.streaming.api.operators.async.AsyncWaitOperator;
import org.apache.flink.streaming.api.operators.async.queue.OrderedStreamElementQueue;
import org.apache.flink.streaming.api.operators.async.queue.StreamElementQueue;
import org.apache.flink.streaming.api.operators.async.queue.UnorderedStreamElementQueue;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.function.ThrowingRunnable;

/**
 * {@code watermark.async}: Flink's own {@code AsyncWaitOperator} in ORDERED and UNORDERED output mode with a capacity
 * and a timeout (docs/protocol/watermark-async.md).
 *
 * <p>The operator is made without its constructor (whose signature differs between releases: 1.16 adds the retry
 * strategy, 2.x the operator parameters and a {@code setup} needing a stream config) and wired as its
 * {@code setup} wires it: its stream element queue ({@code OrderedStreamElementQueue} /
 * {@code UnorderedStreamElementQueue}, the constructor's {@code IllegalArgumentException} for a capacity of 0 or
 * less being the answer's rejection), a {@code TimestampedCollector} over an {@code Output} recording what it emits,
 * its capacity, output mode and timeout, the async function, a processing-time service ({@link ManualTime}), a
 * mailbox executor and a containing task whose environment records {@code failExternally}. Then Flink's own
 * {@code processElement} (which puts the record, registers the {@code ResultHandler}'s timeout timer when the
 * timeout is above 0 and calls {@code asyncInvoke}) and {@code processWatermark} run. The function keeps each
 * request's {@code ResultHandler}, which the request's completions complete ({@code complete}, or
 * {@code completeExceptionally} with an {@code IOException} of the event's message); its {@code timeout} is
 * {@code AsyncFunction}'s default or completes with the request's {@code timeout_results}.
 *
 * <p>The mailbox: {@code execute} queues a mail, which runs before the next input (all of them, in order);
 * {@code yield}, which {@code addToWorkQueue} calls while the queue is full, stops the input there: it is held
 * (nothing of it has happened but the failed {@code tryPut}) and processed again after a later event, once the
 * mails have run. {@code endInput} waits until the queue is empty ({@code waitInFlightInputsFinished}), which is
 * what a held {@code end} is. An advance moves processing time and fires the timers due, in time order, each
 * calling the handler's {@code timerTriggered}; then the mails run.
 */
public final class AsyncArea implements Area {
    private static final long MAX_CLOCK_MS = 1L << 62;
    private static final String DEFAULT_FAIL_MESSAGE = "async request failed";

    @Override
    public Object answer(String area, Map<String, Object> input) throws Exception {
        if (!"watermark.async".equals(area)) {
            throw new BadRequest("AsyncArea does not answer " + area);
        }
        String mode = Json.string(input, "mode", "input");
        if (!mode.equals("ordered") && !mode.equals("unordered")) {
            throw new BadRequest("input.mode must be one of ordered, unordered, got '" + mode + "'");
        }
        long capacity = Json.longOf(input, "capacity", "input");
        if (capacity > 1000) {
            throw new BadRequest("input.capacity must be at most 1000 (the queues allocate it up front)");
        }
        if (capacity < Integer.MIN_VALUE) {
            throw new BadRequest("input.capacity must fit a signed 32-bit int");
        }
        long timeout = 0;
        if (input.containsKey("timeout")) {
            timeout = Json.longOf(input, "timeout", "input");
            if (timeout > MAX_CLOCK_MS) {
                throw new BadRequest("input.timeout must be at most " + MAX_CLOCK_MS + " (a timer's time must fit a "
                        + "long)");
            }
        }
        List<Long> timeoutResults = input.containsKey("timeout_results")
                ? longs(input.get("timeout_results"), "input.timeout_results") : null;
        Object rawEvents = input.get("events");
        if (!(rawEvents instanceof List)) {
            throw new BadRequest("input.events " + (input.containsKey("events") ? "must be an array" : "is missing"));
        }
        List<Map<String, Object>> events = new ArrayList<>();
        Map<String, String> names = new HashMap<>();
        boolean ended = false;
        long clock = 0;
        int i = 0;
        for (Object e : (List<?>) rawEvents) {
            String where = "input.events[" + i + "]";
            if (!(e instanceof Map)) {
                throw new BadRequest(where + " must be an object");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> ev = (Map<String, Object>) e;
            String k = Json.string(ev, "kind", where);
            if (k.equals("record")) {
                String name = Json.string(ev, "name", where);
                if (names.containsKey(name)) {
                    throw new BadRequest(where + ".name '" + name + "' names an earlier record");
                }
                names.put(name, "pending");
                if (ev.get("timestamp") != null) {
                    Json.longOf(ev, "timestamp", where);
                }
            } else if (k.equals("complete") || k.equals("fail")) {
                String name = Json.string(ev, "name", where);
                if (!"pending".equals(names.get(name))) {
                    throw new BadRequest(where + ".name '" + name + "' names no earlier record whose request is "
                            + "pending");
                }
                names.put(name, "completed");
                if (k.equals("fail")) {
                    if (ev.containsKey("message") && !(ev.get("message") instanceof String)) {
                        throw new BadRequest(where + ".message must be a string");
                    }
                } else {
                    Object results = ev.get("results");
                    if (!(results instanceof List)) {
                        throw new BadRequest(where + ".results " + (ev.containsKey("results") ? "must be an array"
                                : "is missing"));
                    }
                    longs(results, where + ".results");
                }
            } else if (k.equals("watermark")) {
                Json.longOf(ev, "timestamp", where);
            } else if (k.equals("advance")) {
                long ms = Json.longOf(ev, "ms", where);
                if (ms < 0) {
                    throw new BadRequest(where + ".ms must not be negative (processing time does not go back)");
                }
                clock += ms;
                if (clock > MAX_CLOCK_MS) {
                    throw new BadRequest(where + ": processing time must stay at most " + MAX_CLOCK_MS + " ms");
                }
            } else if (!k.equals("end")) {
                throw new BadRequest(where + ".kind must be one of record, complete, fail, watermark, advance, end, "
                        + "got '" + k + "'");
            }
            if (ended && !(k.equals("complete") || k.equals("fail") || k.equals("advance"))) {
                throw new BadRequest(where + ": after end only completions, failures and advances may follow");
            }
            ended = ended || k.equals("end");
            events.add(ev);
            i++;
        }

        StreamElementQueue<Long> queue;
        try {
            queue = mode.equals("ordered") ? new OrderedStreamElementQueue<>((int) capacity)
                    : new UnorderedStreamElementQueue<>((int) capacity);
        } catch (IllegalArgumentException e) {
            throw new Rejected(e);
        }
        Run run = new Run(mode, (int) capacity, timeout, timeoutResults, queue);
        List<Object> steps = new ArrayList<>();
        i = 0;
        for (Map<String, Object> ev : events) {
            steps.add(run.step(i, ev));
            i++;
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("steps", steps);
        return answer;
    }

    private static List<Long> longs(Object raw, String where) throws BadRequest {
        if (!(raw instanceof List)) {
            throw new BadRequest(where + " must be an array of integers that fit a signed 64-bit long");
        }
        List<Long> out = new ArrayList<>();
        for (Object r : (List<?>) raw) {
            if (!(r instanceof Long)) {
                throw new BadRequest(where + " must be an array of integers that fit a signed 64-bit long");
            }
            out.add((Long) r);
        }
        return out;
    }

    /** The mailbox's {@code yield} while {@code addToWorkQueue} finds the queue full: the input is held. */
    private static final class Blocked extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Blocked() {
            super("the operator yields to its mailbox: the queue is full", null, false, false);
        }
    }

    /**
     * The request's async function: each request's {@code ResultFuture} (the operator's {@code ResultHandler})
     * kept by the record's name (the record's value), and {@code timeout} either {@code AsyncFunction}'s own
     * default or an override completing with the request's {@code timeout_results}.
     */
    private static final class Function implements AsyncFunction<String, Long> {
        private static final long serialVersionUID = 1L;
        final transient Map<String, ResultFuture<Long>> futures = new HashMap<>();
        final transient List<Long> timeoutResults;

        Function(List<Long> timeoutResults) {
            this.timeoutResults = timeoutResults;
        }

        @Override
        public void asyncInvoke(String input, ResultFuture<Long> resultFuture) {
            futures.put(input, resultFuture);
        }

        @Override
        public void timeout(String input, ResultFuture<Long> resultFuture) throws Exception {
            if (timeoutResults == null) {
                AsyncFunction.super.timeout(input, resultFuture);
            } else {
                resultFuture.complete(new ArrayList<>(timeoutResults));
            }
        }
    }

    /** Flink's own AsyncWaitOperator, wired as its setup wires it, with the bridge's mailbox and clock. */
    private static final class Run {
        final StreamElementQueue<Long> queue;
        final List<Object> emitted = new ArrayList<>();
        final List<Object> failures = new ArrayList<>();
        final ArrayDeque<Object[]> held = new ArrayDeque<>(); // {index, event}
        final ArrayDeque<Object> mails = new ArrayDeque<>();
        final Function function;
        final ManualTime time = new ManualTime();
        final AsyncWaitOperator<String, Long> operator;

        @SuppressWarnings("unchecked")
        Run(String mode, int capacity, long timeout, List<Long> timeoutResults, StreamElementQueue<Long> queue)
                throws Exception {
            this.queue = queue;
            this.function = new Function(timeoutResults);
            operator = (AsyncWaitOperator<String, Long>) Reflect.allocate(AsyncWaitOperator.class);
            Output<StreamRecord<Long>> output = recording(emitted);
            set(AsyncWaitOperator.class, "capacity", capacity);
            set(AsyncWaitOperator.class, "outputMode", mode.equals("ordered") ? AsyncDataStream.OutputMode.ORDERED
                    : AsyncDataStream.OutputMode.UNORDERED);
            set(AsyncWaitOperator.class, "timeout", timeout);
            set(AsyncWaitOperator.class, "queue", queue);
            set(AsyncWaitOperator.class, "timestampedCollector", new TimestampedCollector<>(output));
            Field mailbox = AsyncWaitOperator.class.getDeclaredField("mailboxExecutor");
            set(AsyncWaitOperator.class, "mailboxExecutor", Reflect.proxy(mailbox.getType(), this::mailbox));
            set(AbstractUdfStreamOperator.class, "userFunction", function);
            set(AbstractStreamOperator.class, "output", output);
            set(AbstractStreamOperator.class, "processingTimeService", Reflect.proxy(
                    AbstractStreamOperator.class.getDeclaredField("processingTimeService").getType(), time));
            set(AbstractStreamOperator.class, "container", task());
        }

        private void set(Class<?> cls, String name, Object value) throws Exception {
            Field f = cls.getDeclaredField(name);
            f.setAccessible(true);
            f.set(operator, value);
        }

        /** The operator's MailboxExecutor: execute queues a mail, yield blocks (the input is held). */
        private Object mailbox(Object proxy, Method m, Object[] args) {
            switch (m.getName()) {
                case "execute":
                    for (Object a : args) {
                        if (a instanceof ThrowingRunnable) {
                            mails.addLast(a);
                            return null;
                        }
                    }
                    throw new IllegalStateException("a mail without a runnable: " + m);
                case "yield":
                    throw new Blocked();
                case "tryYield":
                case "shouldInterrupt":
                    return false;
                default:
                    return Reflect.objectMethod(proxy, m, args, "flinkspec-mailbox");
            }
        }

        /** A StreamTask made without its constructor whose environment records failExternally. */
        private Object task() throws Exception {
            Object env = Reflect.proxy(Class.forName("org.apache.flink.runtime.execution.Environment"), (p, m, a) -> {
                if (m.getName().equals("failExternally")) {
                    failures.add(failure((Throwable) a[0]));
                    return null;
                }
                return Reflect.objectMethod(p, m, a, "flinkspec-environment");
            });
            Object task = Reflect.allocate(Class.forName("org.apache.flink.streaming.runtime.tasks.OneInputStreamTask"));
            for (Class<?> c = task.getClass(); c != null; c = c.getSuperclass()) { // StreamTask's, 1.13 AbstractInvokable's
                try {
                    Field f = c.getDeclaredField("environment");
                    f.setAccessible(true);
                    f.set(task, env);
                    return task;
                } catch (NoSuchFieldException e) {
                    // a superclass has it
                }
            }
            throw new IllegalStateException("no environment field in the task's classes");
        }

        private static Map<String, Object> failure(Throwable t) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("exception", t.getClass().getName());
            m.put("message", t.getMessage());
            if (t.getCause() != null) {
                Map<String, Object> c = new LinkedHashMap<>();
                c.put("exception", t.getCause().getClass().getName());
                c.put("message", t.getCause().getMessage());
                m.put("cause", c);
            }
            return m;
        }

        /** The mailbox runs its mails, in order, until none is left (before the next input). */
        void runMails() throws Exception {
            while (!mails.isEmpty()) {
                @SuppressWarnings("unchecked")
                ThrowingRunnable<Exception> mail = (ThrowingRunnable<Exception>) mails.pollFirst();
                mail.run();
            }
        }

        /** One input if it can be processed now (addToWorkQueue's tryPut; endInput's wait). */
        boolean process(Map<String, Object> ev) throws Exception {
            String kind = (String) ev.get("kind");
            if (kind.equals("end")) {
                return queue.isEmpty();
            }
            try {
                if (kind.equals("record")) {
                    Object ts = ev.get("timestamp");
                    String name = (String) ev.get("name");
                    operator.processElement(ts == null ? new StreamRecord<>(name)
                            : new StreamRecord<>(name, (Long) ts));
                } else {
                    operator.processWatermark(new Watermark((Long) ev.get("timestamp")));
                }
            } catch (Blocked e) {
                return false;
            }
            runMails();
            return true;
        }

        Map<String, Object> step(int i, Map<String, Object> ev) throws Exception {
            emitted.clear();
            failures.clear();
            Map<String, Object> step = new LinkedHashMap<>();
            String kind = (String) ev.get("kind");
            if (kind.equals("complete") || kind.equals("fail") || kind.equals("advance")) {
                if (kind.equals("advance")) {
                    time.advance((Long) ev.get("ms"));
                } else {
                    ResultFuture<Long> future = function.futures.get((String) ev.get("name"));
                    if (future == null) {
                        throw new BadRequest("input.events[" + i + "].name '" + ev.get("name") + "': that record is "
                                + "still waiting for a slot in the queue (its request is not made yet)");
                    }
                    if (kind.equals("complete")) {
                        future.complete(longs(ev.get("results"), "results"));
                    } else {
                        Object message = ev.get("message");
                        future.completeExceptionally(new IOException(message == null ? DEFAULT_FAIL_MESSAGE
                                : (String) message));
                    }
                }
                runMails();
                List<Object> admitted = new ArrayList<>();
                while (!held.isEmpty()) {
                    Object[] h = held.peekFirst();
                    @SuppressWarnings("unchecked")
                    Map<String, Object> hev = (Map<String, Object>) h[1];
                    if (!process(hev)) {
                        break;
                    }
                    held.pollFirst();
                    admitted.add((long) (Integer) h[0]);
                }
                step.put("emitted", new ArrayList<>(emitted));
                if (!admitted.isEmpty()) {
                    step.put("admitted", admitted);
                }
                if (!failures.isEmpty()) {
                    step.put("failures", new ArrayList<>(failures));
                }
                return step;
            }
            if (!held.isEmpty() || !process(ev)) {
                held.addLast(new Object[] {i, ev});
                step.put("emitted", new ArrayList<>());
                step.put("held", true);
                return step;
            }
            step.put("emitted", new ArrayList<>(emitted));
            return step;
        }
    }

    /**
     * A manual ProcessingTimeService (a proxy of the release's interface): getCurrentProcessingTime and
     * registerTimer, whose ScheduledFuture's cancel takes the timer out; {@link #advance} moves the clock, then
     * fires the timers due in time order (then registration order), as Flink's TestProcessingTimeService does.
     */
    static final class ManualTime implements java.lang.reflect.InvocationHandler {
        long now;
        private long registered;
        private final PriorityQueue<Timer> timers = new PriorityQueue<>((x, y) -> {
            int c = Long.compare(x.at, y.at);
            return c != 0 ? c : Long.compare(x.seq, y.seq);
        });

        void advance(long ms) throws Exception {
            now += ms;
            while (!timers.isEmpty() && timers.peek().at <= now) {
                Timer t = timers.poll();
                Reflect.call(t.fire, t.callback, t.at);
            }
        }

        @Override
        public Object invoke(Object proxy, Method m, Object[] a) throws Exception {
            switch (m.getName()) {
                case "getCurrentProcessingTime":
                    return now;
                case "registerTimer":
                    Method fire = m.getParameterTypes()[1].getMethod("onProcessingTime", long.class);
                    Timer t = new Timer((Long) a[0], registered++, a[1], fire, timers);
                    timers.add(t);
                    return t;
                default:
                    return Reflect.objectMethod(proxy, m, a, "flinkspec-processing-time");
            }
        }
    }

    /** A registered timer, the ScheduledFuture registerTimer returns. */
    private static final class Timer implements ScheduledFuture<Object> {
        final long at;
        final long seq;
        final Object callback;
        final Method fire;
        final PriorityQueue<Timer> timers;
        boolean cancelled;

        Timer(long at, long seq, Object callback, Method fire, PriorityQueue<Timer> timers) {
            this.at = at;
            this.seq = seq;
            this.callback = callback;
            this.fire = fire;
            this.timers = timers;
        }

        @Override
        public boolean cancel(boolean mayInterrupt) {
            cancelled = timers.remove(this);
            return cancelled;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean isDone() {
            return !timers.contains(this);
        }

        @Override
        public Object get() {
            return null;
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            return null;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return 0;
        }

        @Override
        public int compareTo(Delayed o) {
            return 0;
        }
    }

    /** An Output (a proxy: its methods differ between releases) recording records and watermarks. */
    @SuppressWarnings("unchecked")
    private static Output<StreamRecord<Long>> recording(List<Object> emitted) {
        return (Output<StreamRecord<Long>>) Proxy.newProxyInstance(AsyncArea.class.getClassLoader(),
                new Class<?>[] {Output.class}, (proxy, method, args) -> {
                    String name = method.getName();
                    if (name.equals("collect") && args.length == 1 && args[0] instanceof StreamRecord) {
                        StreamRecord<?> r = (StreamRecord<?>) args[0];
                        Map<String, Object> m = new LinkedHashMap<>();
                        m.put("record", r.getValue());
                        if (r.hasTimestamp()) {
                            m.put("timestamp", r.getTimestamp());
                        }
                        emitted.add(m);
                        return null;
                    }
                    if (name.equals("emitWatermark") && args.length == 1 && args[0] instanceof Watermark) {
                        Map<String, Object> m = new LinkedHashMap<>();
                        m.put("watermark", ((Watermark) args[0]).getTimestamp());
                        emitted.add(m);
                        return null;
                    }
                    switch (name) {
                        case "hashCode":
                            return System.identityHashCode(proxy);
                        case "equals":
                            return proxy == args[0];
                        case "toString":
                            return "recording output";
                        default:
                            throw new UnsupportedOperationException("the async queue called Output." + name);
                    }
                });
    }
}
