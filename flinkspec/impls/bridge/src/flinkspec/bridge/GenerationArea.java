package flinkspec.bridge;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.util.clock.ManualClock;

/**
 * {@code watermark.generation}: what flink-core's watermark generators emit to their {@code WatermarkOutput}
 * (docs/protocol/watermark-generation.md).
 *
 * <p>The generator is Flink's own {@code BoundedOutOfOrdernessWatermarks} (public constructor taking a
 * {@code Duration}), {@code AscendingTimestampsWatermarks}, or this bridge's punctuated generator; with an idle
 * timeout it is wrapped in Flink's {@code WatermarksWithIdleness} through its constructor taking a clock
 * (package-private with a {@code Clock} until 1.19.1 and in 1.20.0, public with a {@code RelativeClock} from
 * 1.19.2 / 1.20.1; reached by reflection), given a {@code ManualClock} that the request's advances move. Built
 * by a strategy ({@code built_by}), it is {@code WatermarkStrategy.forBoundedOutOfOrderness} /
 * {@code forMonotonousTimestamps} / {@code forGenerator}, then {@code withIdleness}, whose
 * {@code createWatermarkGenerator} gets a context (a proxy) whose {@code getInputActivityClock} (1.19.2+,
 * 1.20.1+) is the manual clock. The output records the calls.
 */
public final class GenerationArea implements Area {
    private static final String PKG = "org.apache.flink.api.common.eventtime.";

    @Override
    public Object answer(String area, Map<String, Object> input) throws Exception {
        if (!"watermark.generation".equals(area)) {
            throw new BadRequest("GenerationArea does not answer " + area);
        }
        Spec spec = Spec.read(input);
        String kind = spec.kind;
        long ooo = spec.ooo;
        Long timeout = spec.timeout;
        String builtBy = input.containsKey("built_by") ? string(input, "built_by") : "constructor";
        if (!builtBy.equals("constructor") && !builtBy.equals("strategy")) {
            throw new BadRequest("input.built_by must be one of constructor, strategy, got '" + builtBy + "'");
        }
        if (builtBy.equals("strategy")) {
            spec.checkSystemClockTimeout();
        }
        Object rawEvents = input.get("events");
        if (!(rawEvents instanceof List)) {
            throw new BadRequest("input.events " + (input.containsKey("events") ? "must be an array" : "is missing"));
        }
        List<Map<String, Object>> events = new ArrayList<>();
        long clockMillis = 0;
        int i = 0;
        for (Object e : (List<?>) rawEvents) {
            String where = "input.events[" + i++ + "]";
            if (!(e instanceof Map)) {
                throw new BadRequest(where + " must be an object");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> ev = (Map<String, Object>) e;
            String k = Json.string(ev, "kind", where);
            if (k.equals("record")) {
                Json.longOf(ev, "timestamp", where);
                if (ev.containsKey("marker") && !(ev.get("marker") instanceof Boolean)) {
                    throw new BadRequest(where + ".marker must be a boolean");
                }
                if (Boolean.TRUE.equals(ev.get("marker")) && !kind.equals("punctuated")) {
                    throw new BadRequest("input.events: a marker is only for the punctuated generator");
                }
            } else if (k.equals("advance")) {
                long ms = Json.longOf(ev, "ms", where);
                if (ms < 0) {
                    throw new BadRequest(where + ".ms must not be negative (processing time does not go back)");
                }
                if (ms > Long.MAX_VALUE / 1_000_000 - clockMillis) {
                    throw new BadRequest("input.events: the clock's nanoseconds (the sum of the advances times "
                            + "1,000,000) must fit a long");
                }
                clockMillis += ms;
            } else if (!k.equals("periodic")) {
                throw new BadRequest(where + ".kind must be one of record, periodic, advance, got '" + k + "'");
            }
            events.add(ev);
        }

        ManualClock clock = new ManualClock();
        WatermarkGenerator<Object> gen;
        try {
            gen = builtBy.equals("strategy") ? viaStrategy(kind, ooo, timeout, clock)
                    : build(kind, ooo, timeout, clock);
        } catch (InvocationTargetException e) {
            throw new Rejected(e.getCause());
        } catch (IllegalArgumentException e) {
            throw new Rejected(e);
        }
        Recording out = new Recording();
        List<Object> outputs = new ArrayList<>();
        for (Map<String, Object> ev : events) {
            out.calls = new ArrayList<>();
            switch ((String) ev.get("kind")) {
                case "record":
                    gen.onEvent(Boolean.TRUE.equals(ev.get("marker")) ? MARKED : UNMARKED,
                            ((Number) ev.get("timestamp")).longValue(), out);
                    break;
                case "periodic":
                    gen.onPeriodicEmit(out);
                    break;
                default:
                    clock.advanceTime(((Number) ev.get("ms")).longValue() * 1_000_000L, TimeUnit.NANOSECONDS);
            }
            outputs.add(out.calls);
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("outputs", outputs);
        return answer;
    }

    /** The request's generator: its kind, bound (bounded only) and idle timeout (null: none). */
    static final class Spec {
        final String kind;
        final long ooo;
        final Long timeout;

        private Spec(String kind, long ooo, Long timeout) {
            this.kind = kind;
            this.ooo = ooo;
            this.timeout = timeout;
        }

        /** {@code input.generator}, {@code out_of_orderness_ms}, {@code idle_timeout_ms}, or a BadRequest. */
        static Spec read(Map<String, Object> input) throws BadRequest {
            String kind = string(input, "generator");
            if (!kind.equals("bounded") && !kind.equals("monotonous") && !kind.equals("punctuated")) {
                throw new BadRequest("input.generator must be one of bounded, monotonous, punctuated, got '"
                        + kind + "'");
            }
            long ooo = 0;
            if (kind.equals("bounded")) {
                ooo = Json.longOf(input, "out_of_orderness_ms", "input");
            } else if (input.containsKey("out_of_orderness_ms")) {
                throw new BadRequest("input.out_of_orderness_ms is only for the bounded generator");
            }
            Long timeout = input.get("idle_timeout_ms") == null ? null
                    : Json.longOf(input, "idle_timeout_ms", "input");
            return new Spec(kind, ooo, timeout);
        }

        /** Read through the system clock, a positive timeout must exceed by far what a request takes. */
        void checkSystemClockTimeout() throws BadRequest {
            if (timeout != null && timeout > 0 && timeout < 60_000) {
                throw new BadRequest("input.idle_timeout_ms: built by a strategy, a positive timeout must be at "
                        + "least 60000 ms (the timer may read the system clock, whose own progress must decide "
                        + "nothing)");
            }
        }
    }

    /**
     * The record values the punctuated generator tells apart (by identity; also {@link AssignerArea}'s records), longs
     * so that a {@code RecordWriterOutput} of longs serializes them ({@link OutputArea}'s chain).
     */
    static final Object MARKED = Long.valueOf(1L);
    static final Object UNMARKED = Long.valueOf(0L);

    @SuppressWarnings("unchecked")
    private static WatermarkGenerator<Object> build(String kind, long ooo, Long timeout, ManualClock clock)
            throws Exception {
        WatermarkGenerator<Object> inner;
        if (kind.equals("punctuated")) {
            inner = new Punctuated();
        } else if (kind.equals("monotonous")) {
            inner = (WatermarkGenerator<Object>) Class.forName(PKG + "AscendingTimestampsWatermarks")
                    .getConstructor().newInstance();
        } else {
            inner = (WatermarkGenerator<Object>) Class.forName(PKG + "BoundedOutOfOrdernessWatermarks")
                    .getConstructor(Duration.class).newInstance(Duration.ofMillis(ooo));
        }
        if (timeout == null) {
            return inner;
        }
        Class<?> cls = Class.forName(PKG + "WatermarksWithIdleness");
        for (Constructor<?> c : cls.getDeclaredConstructors()) {
            Class<?>[] p = c.getParameterTypes();
            if (p.length == 3 && p[2].isAssignableFrom(ManualClock.class)) {
                c.setAccessible(true);
                return (WatermarkGenerator<Object>) c.newInstance(inner, Duration.ofMillis(timeout), clock);
            }
        }
        throw new IllegalStateException("no WatermarksWithIdleness constructor taking a clock");
    }

    private static WatermarkGenerator<Object> viaStrategy(String kind, long ooo, Long timeout, ManualClock clock) {
        WatermarkStrategy<Object> strategy = strategy(kind, ooo, timeout);
        // getInputActivityClock (a RelativeClock) exists only from 1.19.2 / 1.20.1: a proxy answers it by name
        WatermarkGeneratorSupplier.Context context = (WatermarkGeneratorSupplier.Context) Proxy.newProxyInstance(
                GenerationArea.class.getClassLoader(), new Class<?>[] {WatermarkGeneratorSupplier.Context.class},
                (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "getInputActivityClock":
                            return clock;
                        case "hashCode":
                            return System.identityHashCode(proxy);
                        case "equals":
                            return proxy == args[0];
                        case "toString":
                            return "watermark generator context";
                        default:
                            return null; // getMetricGroup: no built-in generator reads it
                    }
                });
        return strategy.createWatermarkGenerator(context);
    }

    /**
     * {@code WatermarkStrategy.forBoundedOutOfOrderness(bound)} / {@code forMonotonousTimestamps()} /
     * {@code forGenerator(the punctuated one)}, then {@code withIdleness(timeout)} (which checks its timeout now:
     * IllegalArgumentException); also what {@link AssignerArea}'s operator gets.
     */
    static WatermarkStrategy<Object> strategy(String kind, long ooo, Long timeout) {
        WatermarkStrategy<Object> strategy;
        if (kind.equals("punctuated")) {
            strategy = WatermarkStrategy.forGenerator(ctx -> new Punctuated());
        } else if (kind.equals("monotonous")) {
            strategy = WatermarkStrategy.forMonotonousTimestamps();
        } else {
            strategy = WatermarkStrategy.forBoundedOutOfOrderness(Duration.ofMillis(ooo));
        }
        return timeout == null ? strategy : strategy.withIdleness(Duration.ofMillis(timeout));
    }

    /** The WatermarkGenerator javadoc's punctuated pattern: a marked record's timestamp is a watermark. */
    private static final class Punctuated implements WatermarkGenerator<Object> {
        @Override
        public void onEvent(Object event, long eventTimestamp, WatermarkOutput output) {
            if (event == MARKED) {
                output.emitWatermark(new Watermark(eventTimestamp));
            }
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {
        }
    }

    /** A WatermarkOutput recording the calls made on it. */
    private static final class Recording implements WatermarkOutput {
        List<Object> calls = new ArrayList<>();

        @Override
        public void emitWatermark(Watermark watermark) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("watermark", watermark.getTimestamp());
            calls.add(m);
        }

        @Override
        public void markIdle() {
            calls.add(status("idle"));
        }

        // WatermarkOutput.markActive exists from 1.14 (no @Override, so this compiles against 1.13 too)
        public void markActive() {
            calls.add(status("active"));
        }

        private static Map<String, Object> status(String s) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("status", s);
            return m;
        }
    }

    private static String string(Map<String, Object> input, String name) throws BadRequest {
        return Json.string(input, name, "input");
    }
}
