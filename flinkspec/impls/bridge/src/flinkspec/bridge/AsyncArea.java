package flinkspec.bridge;

import java.lang.reflect.Proxy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.flink.streaming.api.functions.async.ResultFuture;
import org.apache.flink.streaming.api.operators.Output;
import org.apache.flink.streaming.api.operators.TimestampedCollector;
import org.apache.flink.streaming.api.operators.async.queue.OrderedStreamElementQueue;
import org.apache.flink.streaming.api.operators.async.queue.StreamElementQueue;
import org.apache.flink.streaming.api.operators.async.queue.UnorderedStreamElementQueue;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamElement;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * {@code watermark.async}: what an {@code AsyncWaitOperator} emits in ORDERED and UNORDERED output mode with a
 * capacity (docs/protocol/watermark-async.md).
 *
 * <p>The queue is Flink's own {@code OrderedStreamElementQueue} / {@code UnorderedStreamElementQueue} (the same
 * public constructor and {@code StreamElementQueue} methods in every release 1.13 ... 2.3), emitting through
 * Flink's {@code TimestampedCollector} into an {@code Output} (a proxy: its methods differ between releases)
 * that records the records with their timestamps and the watermarks. Each record's request is completed through
 * the {@code ResultFuture} that {@code tryPut} returned, when the request says so. Around the queue, this class
 * runs the operator's loop as {@code AsyncWaitOperator} does on its mailbox, the request's completions being its
 * mails: {@code addToWorkQueue} yields while {@code tryPut} finds the queue full (no later input is read),
 * {@code outputCompletedElement} runs after a watermark is put and after a completion, and its follow-up mails
 * run before the next input; {@code endInput} waits until the queue is empty. The operator itself needs a
 * {@code StreamTask} (its mailbox, processing-time service and environment), which flink-dist gives only through
 * the test harnesses it does not ship.
 */
public final class AsyncArea implements Area {

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
        Object rawEvents = input.get("events");
        if (!(rawEvents instanceof List)) {
            throw new BadRequest("input.events " + (input.containsKey("events") ? "must be an array" : "is missing"));
        }
        List<Map<String, Object>> events = new ArrayList<>();
        Map<String, String> names = new HashMap<>();
        boolean ended = false;
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
            } else if (k.equals("complete")) {
                String name = Json.string(ev, "name", where);
                if (!"pending".equals(names.get(name))) {
                    throw new BadRequest(where + ".name '" + name + "' names no earlier record whose request is "
                            + "pending");
                }
                names.put(name, "completed");
                Object results = ev.get("results");
                if (!(results instanceof List)) {
                    throw new BadRequest(where + ".results " + (ev.containsKey("results") ? "must be an array"
                            : "is missing"));
                }
                for (Object r : (List<?>) results) {
                    if (!(r instanceof Long)) {
                        throw new BadRequest(where + ".results must be an array of integers that fit a signed "
                                + "64-bit long");
                    }
                }
            } else if (k.equals("watermark")) {
                Json.longOf(ev, "timestamp", where);
            } else if (!k.equals("end")) {
                throw new BadRequest(where + ".kind must be one of record, complete, watermark, end, got '" + k
                        + "'");
            }
            if (ended && !k.equals("complete")) {
                throw new BadRequest(where + ": after end only completions may follow");
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
        Run run = new Run(queue);
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

    /** The operator's loop around one queue. */
    private static final class Run {
        final StreamElementQueue<Long> queue;
        final List<Object> emitted = new ArrayList<>();
        final TimestampedCollector<Long> collector;
        final ArrayDeque<Object[]> held = new ArrayDeque<>(); // {index, event}
        final Map<String, ResultFuture<Long>> futures = new HashMap<>();

        Run(StreamElementQueue<Long> queue) {
            this.queue = queue;
            this.collector = new TimestampedCollector<>(recording(emitted));
        }

        /** outputCompletedElement, then the mails it schedules while completed elements are left. */
        void drain() {
            while (queue.hasCompletedElements()) {
                queue.emitCompletedElement(collector);
            }
        }

        /** One input if it can be processed now (addToWorkQueue's tryPut; endInput's wait). */
        boolean process(Map<String, Object> ev) {
            String kind = (String) ev.get("kind");
            if (kind.equals("end")) {
                return queue.isEmpty();
            }
            StreamElement element;
            if (kind.equals("record")) {
                Object ts = ev.get("timestamp");
                element = ts == null ? new StreamRecord<>(0L) : new StreamRecord<>(0L, (Long) ts);
            } else {
                element = new Watermark((Long) ev.get("timestamp"));
            }
            Optional<ResultFuture<Long>> entry = queue.tryPut(element);
            if (!entry.isPresent()) {
                return false;
            }
            if (kind.equals("record")) {
                futures.put((String) ev.get("name"), entry.get());
            } else {
                drain();
            }
            return true;
        }

        Map<String, Object> step(int i, Map<String, Object> ev) throws BadRequest {
            emitted.clear();
            Map<String, Object> step = new LinkedHashMap<>();
            String kind = (String) ev.get("kind");
            if (kind.equals("complete")) {
                ResultFuture<Long> future = futures.remove((String) ev.get("name"));
                if (future == null) {
                    throw new BadRequest("input.events[" + i + "].name '" + ev.get("name") + "': that record is "
                            + "still waiting for a slot in the queue (its request is not made yet)");
                }
                List<Long> results = new ArrayList<>();
                for (Object r : (List<?>) ev.get("results")) {
                    results.add((Long) r);
                }
                future.complete(results);
                drain();
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
