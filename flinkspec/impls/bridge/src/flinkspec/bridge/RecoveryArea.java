package flinkspec.bridge;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code checkpoint.recovery}: the job of {@code oracle/recovery.py} (sources with offsets, a keyed
 * counter, a sink), failed after {@code fail_after} arrivals and recovered from its latest
 * complete checkpoint. What the operator had processed when it snapshotted each checkpoint comes
 * from Flink's own barrier handler, driven by {@link AlignmentArea} over the arrivals before the
 * failure; restoring that snapshot, rewinding the sources to their offsets and replaying (RC-1 ...
 * RC-5) is bookkeeping over that trace, the same as the oracle's.
 */
public final class RecoveryArea implements Area {
    private final AlignmentArea alignment = new AlignmentArea();

    @Override
    @SuppressWarnings("unchecked")
    public Object answer(String area, Map<String, Object> input) throws Exception {
        if (!"checkpoint.recovery".equals(area)) {
            throw new BadRequest("RecoveryArea does not answer " + area);
        }
        Object rawEvents = input.get("events");
        if (!(rawEvents instanceof List)) {
            throw new BadRequest("input.events must be an array");
        }
        List<Object> events = (List<Object>) rawEvents;
        Object rawFail = input.containsKey("fail_after") ? input.get("fail_after") : Long.valueOf(events.size());
        if (!(rawFail instanceof Long) || (Long) rawFail < 0 || (Long) rawFail > events.size()) {
            throw new BadRequest("input.fail_after = " + Json.write(rawFail) + " must be an integer in [0, "
                    + events.size() + "]");
        }
        int failAfter = ((Long) rawFail).intValue();
        Map<String, Object> aligned = new LinkedHashMap<>(input);
        aligned.remove("fail_after");
        alignment.answer("checkpoint.alignment", aligned); // validates the whole request
        List<Object> before = new ArrayList<>(events.subList(0, failAfter));
        aligned.put("events", before);
        Map<String, Object> out = (Map<String, Object>) alignment.answer("checkpoint.alignment", aligned);
        List<Object> trace = (List<Object>) out.get("trace");
        int channels = ((Long) input.get("channels")).intValue();

        Map<Long, Map<String, Long>> snapshots = new HashMap<>();
        Map<String, Long> processed = new HashMap<>();
        for (Object s : trace) {
            Map<String, Object> step = (Map<String, Object>) s;
            if (step.containsKey("process")) {
                String key = (String) ((List<Object>) step.get("process")).get(1);
                processed.merge(key, 1L, Long::sum);
            } else if (step.containsKey("snapshot")) {
                snapshots.putIfAbsent((Long) step.get("snapshot"), new HashMap<>(processed));
            }
        }
        Long restored = null;
        long[] offsets = new long[channels];
        Map<String, Long> counts = new TreeMap<>();
        List<Long> ids = new ArrayList<>(snapshots.keySet());
        ids.sort((a, b) -> Long.compare(b, a));
        for (Long id : ids) {
            long[] found = offsets(before, channels, id);
            if (found != null) {
                restored = id;
                offsets = found;
                counts.putAll(snapshots.get(id));
                break;
            }
        }
        List<Object> output = new ArrayList<>();
        long[] position = new long[channels];
        for (Object e : events) {
            Map<String, Object> event = (Map<String, Object>) e;
            if (!event.containsKey("record")) {
                continue;
            }
            int ch = ((Long) event.get("channel")).intValue();
            position[ch]++;
            if (position[ch] > offsets[ch]) {
                String key = (String) event.get("record");
                long n = counts.merge(key, 1L, Long::sum);
                List<Object> emitted = new ArrayList<>();
                emitted.add(key);
                emitted.add(n);
                output.add(emitted);
            }
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("restored_from", restored);
        List<Object> offsetList = new ArrayList<>();
        for (long o : offsets) {
            offsetList.add(o);
        }
        result.put("offsets", offsetList);
        result.put("counts", new LinkedHashMap<>(counts));
        result.put("output", output);
        return result;
    }

    @SuppressWarnings("unchecked")
    private static long[] offsets(List<Object> before, int channels, long id) {
        long[] emitted = new long[channels];
        long[] offsets = new long[channels];
        boolean[] closed = new boolean[channels];
        for (Object e : before) {
            Map<String, Object> event = (Map<String, Object>) e;
            int ch = ((Long) event.get("channel")).intValue();
            if (closed[ch]) {
                continue;
            }
            if (event.containsKey("record")) {
                emitted[ch]++;
            } else if (Long.valueOf(id).equals(event.get("barrier")) || event.containsKey("end")) {
                offsets[ch] = emitted[ch];
                closed[ch] = true;
            }
        }
        for (boolean c : closed) {
            if (!c) {
                return null;
            }
        }
        return offsets;
    }
}
