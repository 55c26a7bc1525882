package flinkspec.bridge;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.runtime.io.network.api.writer.RecordWriter;
import org.apache.flink.runtime.io.network.api.writer.RecordWriterBuilder;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.io.RecordWriterOutput;
import org.apache.flink.streaming.runtime.streamrecord.LatencyMarker;
import org.apache.flink.streaming.runtime.streamrecord.StreamElement;
import org.apache.flink.streaming.runtime.streamrecord.StreamElementSerializer;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * {@code watermark.output}: Flink's own {@code RecordWriterOutput}, the task's network output, over Flink's own
 * {@code RecordWriter} (built by {@code RecordWriterBuilder}: a round-robin {@code ChannelSelectorRecordWriter})
 * whose {@code ResultPartitionWriter} is the bridge's (a proxy of one subpartition collecting the serialized
 * records it is given); what it collects is decoded with Flink's {@code StreamElementSerializer}
 * (docs/protocol/watermark-output.md).
 *
 * <p>Records ({@code collect}), watermarks ({@code emitWatermark}), latency markers ({@code emitLatencyMarker}) are
 * given to the output. A status goes where a task's chain sends it: from 1.14 {@code emitWatermarkStatus} of the
 * output; in 1.13 {@code toggleStreamStatus} of the task's {@code OperatorChain} (made without its constructor, its
 * status ACTIVE and its one output this one), which is the output's {@code StreamStatusProvider}. The end runs
 * Flink's own {@code advanceToEndOfEventTime} of a source task made without its constructor: a
 * {@code SourceOperatorStreamTask} whose {@code output} is an {@code AsyncDataOutputToOutput} to this output (source
 * {@code operator}), or a {@code SourceStreamTask} (source {@code legacy}): from 1.14 its operator chain's main
 * operator output is this output; in 1.13 its main operator is a {@code StreamSource} whose context is a
 * {@code ManualWatermarkContext} (the event-time context) built by its constructor over this output and the chain.
 *
 * <p>With {@code chain: assigner} the task is a one-input task whose chain is one
 * {@code TimestampsAndWatermarksOperator}: {@link AssignerArea}'s operator, opened as that area opens it, whose output
 * is this {@code RecordWriterOutput} (the tail operator's output, as {@code OperatorChain.createOutputCollector}
 * returns a single network output itself), and the events are that area's, given to the operator as its task gives
 * them. In 1.13 the emitter's {@code StreamStatusMaintainer} is the chain above, and an upstream status, which no
 * operator method takes there, toggles it as the task's {@code StreamTaskNetworkOutput.emitStreamStatus} does.
 */
public final class OutputArea implements Area {
    private static final String TASKS = "org.apache.flink.streaming.runtime.tasks.";

    @Override
    public Object answer(String area, Map<String, Object> input) throws Exception {
        if (!"watermark.output".equals(area)) {
            throw new BadRequest("OutputArea does not answer " + area);
        }
        String chained = null;
        if (input.containsKey("chain")) {
            chained = Json.string(input, "chain", "input");
            if (!chained.equals("assigner")) {
                throw new BadRequest("input.chain must be one of assigner, got '" + chained + "'");
            }
            if (input.containsKey("source")) {
                throw new BadRequest("input.source: a task whose chain is given is a one-input task fed by its "
                        + "network input, not a source task");
            }
        }
        String source = "operator";
        if (input.containsKey("source")) {
            source = Json.string(input, "source", "input");
            if (!source.equals("operator") && !source.equals("legacy")) {
                throw new BadRequest("input.source must be one of operator, legacy, got '" + source + "'");
            }
        }
        List<Map<String, Object>> events = Reflect.eventObjects(input);
        if (chained == null) {
            checkEvents(events);
        }

        List<byte[]> sent = new ArrayList<>();
        Object writer = Reflect.proxy(
                Class.forName("org.apache.flink.runtime.io.network.api.writer.ResultPartitionWriter"),
                (p, m, a) -> {
                    switch (m.getName()) {
                        case "emitRecord":
                        case "broadcastRecord":
                            ByteBuffer b = ((ByteBuffer) a[0]).duplicate();
                            byte[] bytes = new byte[b.remaining()];
                            b.get(bytes);
                            sent.add(bytes);
                            return null;
                        case "getNumberOfSubpartitions":
                            return 1;
                        case "hashCode":
                        case "equals":
                        case "toString":
                            return Reflect.objectMethod(p, m, a, "flinkspec-result-partition");
                        default:
                            Class<?> r = m.getReturnType();
                            if (r == boolean.class) {
                                return false;
                            }
                            if (r == int.class) {
                                return 0;
                            }
                            if (r == long.class) {
                                return 0L;
                            }
                            return null;
                    }
                });
        RecordWriter<?> recordWriter = build(writer);
        Class<?> chainStatus = Reflect.classOrNull("org.apache.flink.streaming.runtime.streamstatus.StreamStatus");
        Object chain = null;
        RecordWriterOutput<Long> output;
        if (chainStatus != null) { // 1.13: the chain keeps the status, the output asks it
            chain = Reflect.allocate(Class.forName(TASKS + "OperatorChain"));
            set(chain.getClass(), chain, "streamStatus", chainStatus.getField("ACTIVE").get(null));
            output = newOutput(recordWriter, chain);
            set(chain.getClass(), chain, "streamOutputs", new RecordWriterOutput<?>[] {output});
        } else {
            output = newOutput(recordWriter, null);
        }

        AssignerArea.Harness operator = null;
        if (chained != null) { // the operator's output is the task's RecordWriterOutput; in 1.13 its emitter's
            // status maintainer is the task's operator chain
            Map<String, Object> operatorInput = new LinkedHashMap<>(input);
            operatorInput.remove("chain");
            operator = AssignerArea.open(operatorInput, output, chain, new ArrayList<>(), true);
        }
        StreamElementSerializer<Long> serializer = new StreamElementSerializer<>(LongSerializer.INSTANCE);
        List<Object> outputs = new ArrayList<>(events.size());
        for (Map<String, Object> ev : events) {
            sent.clear();
            try {
                if (operator != null && (chain == null || !ev.get("kind").equals("status"))) {
                    operator.step(ev);
                } else { // the event reaches the output itself (in 1.13 a status toggles the task's chain:
                    // StreamTaskNetworkOutput.emitStreamStatus)
                    give(ev, source, output, chain, chainStatus);
                }
            } catch (InvocationTargetException e) {
                throw new IllegalStateException("Flink threw " + e.getCause(), e.getCause());
            }
            List<Object> elements = new ArrayList<>();
            for (byte[] bytes : sent) {
                // RecordWriter.serializeRecord: the length (an int), then the element
                DataInputDeserializer in = new DataInputDeserializer(bytes, 4, bytes.length - 4);
                elements.add(element(serializer.deserialize(in)));
            }
            outputs.add(elements);
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("outputs", outputs);
        return answer;
    }

    /** An event given to the output as a task's chain gives it (see the class javadoc). */
    private static void give(Map<String, Object> ev, String source, RecordWriterOutput<Long> output, Object chain,
            Class<?> chainStatus) throws Exception {
        switch ((String) ev.get("kind")) {
            case "record":
                Object ts = ev.get("timestamp");
                output.collect(ts == null ? new StreamRecord<>(0L)
                        : new StreamRecord<>(0L, ((Number) ts).longValue()));
                break;
            case "watermark":
                output.emitWatermark(new Watermark(((Number) ev.get("timestamp")).longValue()));
                break;
            case "status":
                String name = ev.get("status").equals("idle") ? "IDLE" : "ACTIVE";
                if (chain != null) {
                    call(chain, "toggleStreamStatus", chainStatus.getField(name).get(null));
                } else {
                    Class<?> ws = Class.forName(
                            "org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus");
                    call(output, "emitWatermarkStatus", ws.getField(name).get(null));
                }
                break;
            case "latency":
                output.emitLatencyMarker(new LatencyMarker(((Number) ev.get("marked_time")).longValue(),
                        new OperatorID(), 0));
                break;
            default:
                end(source, output, chain);
        }
    }

    /** Each event's fields (BadRequest naming the first wrong one), end only last. */
    private static void checkEvents(List<Map<String, Object>> events) throws BadRequest {
        for (int i = 0; i < events.size(); i++) {
            String where = "input.events[" + i + "]";
            Map<String, Object> ev = events.get(i);
            String k = Json.string(ev, "kind", where);
            switch (k) {
                case "record":
                    Json.recordTimestamp(ev, where);
                    break;
                case "watermark":
                    Json.longOf(ev, "timestamp", where);
                    break;
                case "status":
                    Json.status(ev, where);
                    break;
                case "latency":
                    Json.longOf(ev, "marked_time", where);
                    break;
                case "end":
                    break;
                default:
                    throw new BadRequest(where + ".kind must be one of record, watermark, status, latency, end, got '"
                            + k + "'");
            }
        }
        for (int i = 0; i < events.size() - 1; i++) {
            if (events.get(i).get("kind").equals("end")) {
                throw new BadRequest("input.events: end must be the last event (a finished task sends nothing more)");
            }
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static RecordWriter<?> build(Object writer) throws Exception {
        Method build = RecordWriterBuilder.class.getMethod("build",
                Class.forName("org.apache.flink.runtime.io.network.api.writer.ResultPartitionWriter"));
        return (RecordWriter<?>) build.invoke(new RecordWriterBuilder(), writer);
    }

    /** (writer, serializer, tag, provider, unaligned) in 1.13, (writer, serializer, tag, unaligned) from 1.14. */
    @SuppressWarnings("unchecked")
    private static RecordWriterOutput<Long> newOutput(RecordWriter<?> writer, Object provider) throws Exception {
        for (Constructor<?> c : RecordWriterOutput.class.getConstructors()) {
            if (c.getParameterCount() == 5 && provider != null) {
                return (RecordWriterOutput<Long>) c.newInstance(writer, LongSerializer.INSTANCE, null, provider,
                        false);
            }
            if (c.getParameterCount() == 4 && provider == null) {
                return (RecordWriterOutput<Long>) c.newInstance(writer, LongSerializer.INSTANCE, null, false);
            }
        }
        throw new IllegalStateException("no RecordWriterOutput constructor");
    }

    /** The source task's own advanceToEndOfEventTime (see the class javadoc). */
    private static void end(String source, RecordWriterOutput<Long> output, Object chain) throws Exception {
        if (source.equals("operator")) {
            Class<?> taskClass = Class.forName(TASKS + "SourceOperatorStreamTask");
            Object task = Reflect.allocate(taskClass);
            Object out = Reflect.allocate(Class.forName(TASKS + "SourceOperatorStreamTask$AsyncDataOutputToOutput"));
            set(out.getClass(), out, "output", output);
            if (hasField(out.getClass(), "metricGroup")) { // 1.14+: watermarkEmitted(MAX) returns at once
                set(out.getClass(), out, "metricGroup", Reflect.allocate(Class.forName(
                        "org.apache.flink.runtime.metrics.groups.InternalSourceReaderMetricGroup")));
            }
            set(taskClass, task, "output", out);
            invoke(taskClass, task, "advanceToEndOfEventTime");
            return;
        }
        Class<?> taskClass = Class.forName(TASKS + "SourceStreamTask");
        Object task = Reflect.allocate(taskClass);
        Class<?> streamTask = Class.forName(TASKS + "StreamTask");
        if (chain == null) { // 1.14+: the chain's main operator output
            Object regular = Reflect.allocate(Class.forName(TASKS + "RegularOperatorChain"));
            set(Class.forName(TASKS + "OperatorChain"), regular, "mainOperatorOutput", output);
            set(streamTask, task, "operatorChain", regular);
        } else { // 1.13: a StreamSource whose event-time context is over this output and the chain
            Class<?> ctxClass = Class.forName(
                    "org.apache.flink.streaming.api.operators.StreamSourceContexts$ManualWatermarkContext");
            Constructor<?> ctor = null;
            for (Constructor<?> c : ctxClass.getDeclaredConstructors()) {
                if (c.getParameterCount() == 5) {
                    ctor = c;
                }
            }
            ctor.setAccessible(true);
            Object time = Reflect.proxy(Class.forName(TASKS + "ProcessingTimeService"),
                    (p, m, a) -> Reflect.objectMethod(p, m, a, "flinkspec-no-processing-time"));
            Object ctx = ctor.newInstance(output, time, new Object(), chain, -1L);
            Class<?> sourceClass = Class.forName("org.apache.flink.streaming.api.operators.StreamSource");
            Object streamSource = Reflect.allocate(sourceClass);
            set(sourceClass, streamSource, "ctx", ctx);
            set(streamTask, task, "mainOperator", streamSource);
        }
        invoke(taskClass, task, "advanceToEndOfEventTime");
    }

    private static Map<String, Object> element(StreamElement e) throws Exception {
        Map<String, Object> m = new LinkedHashMap<>();
        if (e.isRecord()) {
            StreamRecord<?> r = e.asRecord();
            m.put("record", r.hasTimestamp() ? r.getTimestamp() : null);
        } else if (e.isWatermark()) {
            m.put("watermark", e.asWatermark().getTimestamp());
        } else if (e.isLatencyMarker()) {
            m.put("latency", e.asLatencyMarker().getMarkedTime());
        } else {
            // StreamStatus (1.13) or WatermarkStatus (1.14+): both have isIdle()
            m.put("status", (Boolean) e.getClass().getMethod("isIdle").invoke(e) ? "idle" : "active");
        }
        return m;
    }

    private static boolean hasField(Class<?> cls, String name) {
        try {
            cls.getDeclaredField(name);
            return true;
        } catch (NoSuchFieldException e) {
            return false;
        }
    }

    private static void set(Class<?> cls, Object target, String name, Object value) throws Exception {
        Field f = cls.getDeclaredField(name);
        f.setAccessible(true);
        f.set(target, value);
    }

    private static void invoke(Class<?> cls, Object target, String name) throws Exception {
        Method m = cls.getDeclaredMethod(name);
        m.setAccessible(true);
        m.invoke(target);
    }

    /** {@code target.name(arg)} by name (its parameter type differs across releases). */
    private static void call(Object target, String name, Object arg) throws Exception {
        for (Method m : target.getClass().getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == 1 && m.getParameterTypes()[0].isInstance(arg)) {
                m.invoke(target, arg);
                return;
            }
        }
        throw new IllegalStateException("no method " + name + " on " + target.getClass());
    }
}
