import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;

/**
 * Runs flinkspec's conformance test vectors (docs/vectors.md) against any implementation of the
 * protocol (docs/protocol/v1.md): a program reading JSON-line requests on stdin and writing one
 * JSON-line answer per request on stdout.
 *
 * <pre>
 * javac -d build runners/java/VectorsRunner.java
 * java -cp build VectorsRunner [--protocol N [--features A,..]] [--area A,..] [--flink V,..] [--timeout S]
 *     BUNDLE COMMAND [ARG...]
 * </pre>
 *
 * Without --protocol the implementation is first asked what it speaks: the capabilities request of
 * docs/protocol/v2.md, {"id": 0, "area": "capabilities", "input": {}}; one that answers it with an
 * error (or not at all) speaks protocol 1 and no extra feature. A vector that needs a feature it does
 * not speak, an area, release or rule it declares unsupported or a config key it does not model is
 * not checked (counted, never failed). Every other vector's request is sent (with an "id") and the
 * answer compared as docs/vectors.md says: an output by exact JSON equality (numbers by value; in
 * watermark.timers, timers with equal timestamps in any order, in watermark.windows windows, in watermark.join the
 * pairs one record joins), an error by its "type" only. Prints
 * one line per failing vector, why vectors were not checked, then "N passed, N failed, N not
 * checked"; exits 0 only when nothing failed and something passed. No dependency beyond the JDK.
 */
public final class VectorsRunner {

    private VectorsRunner() {}

    // ---------------------------------------------------------------------------------------------
    // JSON: objects keep their order (LinkedHashMap), numbers keep their text (Num)

    /** A JSON number: its literal (sent as written) and its value (compared). */
    static final class Num {
        final String literal;

        Num(String literal) {
            this.literal = literal;
        }

        /** The value in one spelling: an integer plainly, anything else as a stripped decimal. */
        String normal() {
            BigDecimal value = new BigDecimal(literal);
            try {
                return value.toBigIntegerExact().toString();
            } catch (ArithmeticException notInteger) {
                return value.stripTrailingZeros().toString();
            }
        }
    }

    static final Object NULL = new Object();

    static final class Parser {
        private final String s;
        private int i;

        Parser(String s) {
            this.s = s;
        }

        static Object parse(String text) {
            Parser p = new Parser(text);
            p.space();
            Object v = p.value();
            p.space();
            if (p.i != p.s.length()) {
                throw p.error("text after the value");
            }
            return v;
        }

        private IllegalArgumentException error(String what) {
            return new IllegalArgumentException("bad JSON at " + i + ": " + what);
        }

        private void space() {
            while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
        }

        private Object value() {
            if (i >= s.length()) {
                throw error("end of text");
            }
            char c = s.charAt(i);
            switch (c) {
                case '{':
                    return object();
                case '[':
                    return array();
                case '"':
                    return string();
                case 't':
                    return word("true", Boolean.TRUE);
                case 'f':
                    return word("false", Boolean.FALSE);
                case 'n':
                    return word("null", NULL);
                default:
                    return number();
            }
        }

        private Object word(String w, Object v) {
            if (!s.startsWith(w, i)) {
                throw error("expected " + w);
            }
            i += w.length();
            return v;
        }

        private Map<String, Object> object() {
            Map<String, Object> out = new LinkedHashMap<>();
            i++;
            space();
            if (i < s.length() && s.charAt(i) == '}') {
                i++;
                return out;
            }
            while (true) {
                space();
                String key = string();
                space();
                expect(':');
                space();
                out.put(key, value());
                space();
                if (i < s.length() && s.charAt(i) == ',') {
                    i++;
                    continue;
                }
                expect('}');
                return out;
            }
        }

        private List<Object> array() {
            List<Object> out = new ArrayList<>();
            i++;
            space();
            if (i < s.length() && s.charAt(i) == ']') {
                i++;
                return out;
            }
            while (true) {
                space();
                out.add(value());
                space();
                if (i < s.length() && s.charAt(i) == ',') {
                    i++;
                    continue;
                }
                expect(']');
                return out;
            }
        }

        private void expect(char c) {
            if (i >= s.length() || s.charAt(i) != c) {
                throw error("expected '" + c + "'");
            }
            i++;
        }

        private String string() {
            expect('"');
            StringBuilder b = new StringBuilder();
            while (true) {
                if (i >= s.length()) {
                    throw error("unterminated string");
                }
                char c = s.charAt(i++);
                if (c == '"') {
                    return b.toString();
                }
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                char e = s.charAt(i++);
                switch (e) {
                    case 'b': b.append('\b'); break;
                    case 'f': b.append('\f'); break;
                    case 'n': b.append('\n'); break;
                    case 'r': b.append('\r'); break;
                    case 't': b.append('\t'); break;
                    case 'u':
                        b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                        break;
                    default: b.append(e);
                }
            }
        }

        private Num number() {
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            if (start == i) {
                throw error("unexpected character '" + s.charAt(i) + "'");
            }
            String literal = s.substring(start, i);
            try {
                new BigDecimal(literal);
            } catch (NumberFormatException e) {
                throw error("bad number " + literal);
            }
            return new Num(literal);
        }
    }

    /** JSON text of a value: as parsed (for sending) or canonical (keys sorted, numbers normal). */
    static String write(Object v, boolean canonical) {
        StringBuilder b = new StringBuilder();
        write(v, canonical, b);
        return b.toString();
    }

    @SuppressWarnings("unchecked")
    private static void write(Object v, boolean canonical, StringBuilder b) {
        if (v == NULL) {
            b.append("null");
        } else if (v instanceof Boolean) {
            b.append(v.toString());
        } else if (v instanceof Num) {
            b.append(canonical ? ((Num) v).normal() : ((Num) v).literal);
        } else if (v instanceof String) {
            quote((String) v, b);
        } else if (v instanceof List) {
            b.append('[');
            boolean first = true;
            for (Object x : (List<Object>) v) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                write(x, canonical, b);
            }
            b.append(']');
        } else {
            Map<String, Object> m = (Map<String, Object>) v;
            b.append('{');
            boolean first = true;
            for (Map.Entry<String, Object> e : (canonical ? new TreeMap<>(m) : m).entrySet()) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                quote(e.getKey(), b);
                b.append(':');
                write(e.getValue(), canonical, b);
            }
            b.append('}');
        }
    }

    private static void quote(String s, StringBuilder b) {
        b.append('"');
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        b.append('"');
    }

    // ---------------------------------------------------------------------------------------------
    // comparing an answer with a vector's

    @SuppressWarnings("unchecked")
    static Map<String, Object> obj(Object v) {
        return v instanceof Map ? (Map<String, Object>) v : null;
    }

    /**
     * The tie rule of watermark.timers (key "fired"), watermark.windows and watermark.join (key "outputs"): each step's
     * timestamps in order (a fired window's; a late record's is null), its items as a sorted multiset.
     */
    @SuppressWarnings("unchecked")
    static Object tieNormal(Object output, String key) {
        Map<String, Object> out = obj(output);
        if (out == null || !(out.get(key) instanceof List)) {
            return output;
        }
        List<Object> steps = new ArrayList<>();
        for (Object step : (List<Object>) out.get(key)) {
            if (!(step instanceof List)) {
                return output;
            }
            List<Object> stamps = new ArrayList<>();
            List<String> timers = new ArrayList<>();
            for (Object t : (List<Object>) step) {
                if (obj(t) == null) {
                    return output;
                }
                Map<String, Object> fired = obj(obj(t).get("fired"));
                stamps.add(fired != null ? fired.getOrDefault("timestamp", NULL) : obj(t).getOrDefault("timestamp", NULL));
                timers.add(write(t, true));
            }
            timers.sort(null);
            Map<String, Object> normal = new LinkedHashMap<>();
            normal.put("timestamps", stamps);
            normal.put("timers", new ArrayList<Object>(timers));
            steps.add(normal);
        }
        Map<String, Object> copy = new LinkedHashMap<>(out);
        copy.put(key, steps);
        return copy;
    }

    /** Why the actual answer is not the expected one, or null when it passes. */
    static String disagreement(String area, Map<String, Object> expected, Map<String, Object> actual) {
        Map<String, Object> wantError = obj(expected.get("error"));
        if (wantError != null) {
            Map<String, Object> error = obj(actual.get("error"));
            Object type = wantError.get("type");
            if (error == null) {
                return "expected error " + type + ", got an output";
            }
            return write(type, true).equals(write(error.get("type"), true)) ? null
                    : "expected error " + type + ", got error " + error.get("type");
        }
        if (!actual.containsKey("output")) {
            return "expected an output, got " + write(actual.get("error"), true);
        }
        Object want = expected.get("output");
        Object got = actual.get("output");
        String tieKey = area.equals("watermark.timers") ? "fired"
                : area.equals("watermark.windows") || area.equals("watermark.join") ? "outputs" : null;
        if (tieKey != null) {
            want = tieNormal(want, tieKey);
            got = tieNormal(got, tieKey);
        }
        return write(want, true).equals(write(got, true)) ? null : "the output differs: expected "
                + shorten(write(expected.get("output"), true)) + ", got " + shorten(write(actual.get("output"), true));
    }

    static String shorten(String s) {
        return s.length() <= 300 ? s : s.substring(0, 297) + "...";
    }

    // ---------------------------------------------------------------------------------------------
    // the bundle

    static final class Vector {
        final String id;
        final String area;
        final Map<String, Object> request;
        final Map<String, Object> answer;
        final String why;

        Vector(Map<String, Object> v) {
            id = (String) v.get("id");
            request = obj(v.get("request"));
            area = (String) request.get("area");
            answer = obj(v.get("answer"));
            StringBuilder kinds = new StringBuilder();
            for (Object w : (List<?>) v.get("why")) {
                if (kinds.length() > 0) {
                    kinds.append(',');
                }
                Map<String, Object> m = obj(w);
                kinds.append(m.get("kind"));
                if (m.containsKey("mutant")) {
                    kinds.append(':').append(m.get("mutant"));
                }
            }
            why = kinds.toString();
        }
    }

    static String sha256(byte[] data) throws NoSuchAlgorithmException {
        StringBuilder b = new StringBuilder();
        for (byte x : MessageDigest.getInstance("SHA-256").digest(data)) {
            b.append(String.format("%02x", x));
        }
        return b.toString();
    }

    // ---------------------------------------------------------------------------------------------
    // what the implementation speaks (docs/protocol/v2.md, "Optional extension: capabilities")

    static final String CAPABILITIES_REQUEST = "{\"id\":0,\"area\":\"capabilities\",\"input\":{}}";

    /** What an implementation speaks and supports, and where that was read. */
    static final class Capabilities {
        int protocol = 1;
        List<String> features = new ArrayList<>();
        List<String> unmodelledKeys = new ArrayList<>();
        List<Map<String, Object>> unsupported = new ArrayList<>();
        String source;
        String warning;

        Capabilities(String source, String warning) {
            this.source = source;
            this.warning = warning;
        }

        String line() {
            return "the implementation speaks protocol " + protocol + ", extra features: " + (features.isEmpty() ? "none" : String.join(", ", features))
                    + " (" + source + ")";
        }
    }

    @SuppressWarnings("unchecked")
    static List<String> strings(Object v) {
        if (!(v instanceof List)) {
            return null;
        }
        for (Object x : (List<Object>) v) {
            if (!(x instanceof String)) {
                return null;
            }
        }
        return new ArrayList<>((List<String>) (List<?>) v);
    }

    /**
     * What the answer line to the capabilities request says (null: no answer), read as
     * flinkspec.impls.capabilities reads it: an error declares protocol 1 and nothing else; so does
     * an answer of the wrong shape, or none, with a warning.
     */
    @SuppressWarnings("unchecked")
    static Capabilities capabilitiesFrom(String line) {
        String plain = "; taken as protocol 1";
        if (line == null) {
            return new Capabilities("no answer to the capabilities request",
                    "the implementation gave no answer to the capabilities request" + plain);
        }
        Map<String, Object> answer;
        try {
            answer = obj(Parser.parse(line));
        } catch (IllegalArgumentException e) {
            return new Capabilities("its capabilities answer is not JSON",
                    "its answer to the capabilities request is not JSON (" + e.getMessage() + ")" + plain);
        }
        Map<String, Object> out = answer == null ? null : obj(answer.get("output"));
        if (answer == null || out == null) {
            return answer == null
                    ? new Capabilities("its capabilities answer is not an object",
                            "its answer to the capabilities request is not an object" + plain)
                    : new Capabilities("it answers the capabilities request with an error", null);
        }
        Capabilities caps = new Capabilities("its answer to the capabilities request", null);
        Object protocol = out.getOrDefault("protocol", new Num("1"));
        List<String> features = strings(out.getOrDefault("features", new ArrayList<>()));
        List<String> keys = strings(out.getOrDefault("unmodelled_keys", new ArrayList<>()));
        Object unsupported = out.getOrDefault("unsupported", new ArrayList<>());
        boolean ok = protocol instanceof Num && features != null && keys != null && unsupported instanceof List;
        if (ok) {
            try {
                caps.protocol = Integer.parseInt(((Num) protocol).normal());
                ok = caps.protocol >= 1;
            } catch (NumberFormatException e) {
                ok = false;
            }
        }
        if (ok) {
            for (Object u : (List<Object>) unsupported) {
                ok &= obj(u) != null;
                if (ok) {
                    caps.unsupported.add(obj(u));
                }
            }
        }
        if (!ok) {
            return new Capabilities("its capabilities answer is of the wrong shape",
                    "its answer to the capabilities request is not of the shape of docs/protocol/v2.md ("
                            + shorten(line) + ")" + plain);
        }
        caps.features = features;
        caps.unmodelledKeys = keys;
        return caps;
    }

    /** Starts the implementation, sends it the capabilities request, closes its stdin, reads one line. */
    static Capabilities negotiate(List<String> command, long timeoutSeconds) throws IOException, InterruptedException {
        Process proc = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        Thread watchdog = new Thread(() -> {
            try {
                if (!proc.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    proc.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        watchdog.setDaemon(true);
        watchdog.start();
        try (Writer w = new OutputStreamWriter(proc.getOutputStream(), StandardCharsets.UTF_8)) {
            w.write(CAPABILITIES_REQUEST + "\n");
        } catch (IOException e) {
            // it went away: no answer
        }
        String line;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(proc.getInputStream(), StandardCharsets.UTF_8))) {
            line = r.readLine();
        } catch (IOException e) {
            line = null;
        }
        proc.destroy();
        if (!proc.waitFor(5, TimeUnit.SECONDS)) {
            proc.destroyForcibly();
        }
        return capabilitiesFrom(line);
    }

    @SuppressWarnings("unchecked")
    static List<String> selector(Object v) {
        if (v == null) {
            return null;
        }
        return v instanceof String ? List.of((String) v) : strings(v);
    }

    /** Whether a declared "flink" selector names the release: "1.15" names 1.15 and its patches. */
    static boolean selects(List<String> declared, String release) {
        for (String d : declared) {
            if (d.equals(release) || release.startsWith(d + ".")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Why the implementation is not held to vector v, or null: a feature it does not speak (one is
     * spoken when declared, or when the implementation's protocol is at least the vector's), an area,
     * release or rule it declares unsupported, a config key it does not model.
     */
    @SuppressWarnings("unchecked")
    static String notChecked(Map<String, Object> v, Capabilities caps) {
        Map<String, Object> request = obj(v.get("request"));
        String area = (String) request.get("area");
        String release = (String) request.get("flink");
        int protocol = Integer.parseInt(((Num) v.get("protocol")).normal());
        if (protocol > caps.protocol) {
            for (Object f : (List<Object>) v.getOrDefault("features", new ArrayList<>())) {
                if (!caps.features.contains(f)) {
                    return "needs protocol " + protocol + " feature " + f;
                }
            }
        }
        List<Object> rules = (List<Object>) v.getOrDefault("rules", new ArrayList<>());
        for (Map<String, Object> u : caps.unsupported) {
            List<String> a = selector(u.get("area"));
            List<String> f = selector(u.get("flink"));
            List<String> r = selector(u.get("rule"));
            if ((a != null && !a.contains(area)) || (f != null && !selects(f, release))) {
                continue;
            }
            String why = u.get("why") instanceof String && !((String) u.get("why")).isEmpty()
                    ? (String) u.get("why") : "declared by the implementation";
            if (r == null) {
                return "not supported: " + why;
            }
            for (Object rule : rules) {
                if (r.contains(rule)) {
                    return "rule " + rule + " not supported: " + why;
                }
            }
        }
        Map<String, Object> input = obj(request.get("input"));
        Map<String, Object> config = input == null ? null : obj(input.get("config"));
        if (config != null) {
            for (String key : config.keySet()) {
                if (caps.unmodelledKeys.contains(key)) {
                    return "needs config key " + key;
                }
            }
        }
        return null;
    }

    /** The vectors of the chosen areas and releases the implementation is held to; the others by why. */
    static List<Vector> load(Path bundle, Set<String> areas, Set<String> releases, Capabilities caps,
            Map<String, Integer> skipped) throws IOException, NoSuchAlgorithmException {
        Map<String, Object> manifest = obj(Parser.parse(Files.readString(bundle.resolve("manifest.json"))));
        List<Vector> out = new ArrayList<>();
        for (Map.Entry<String, Object> area : new TreeMap<>(obj(manifest.get("areas"))).entrySet()) {
            if (!areas.isEmpty() && !areas.contains(area.getKey())) {
                continue;
            }
            for (Map.Entry<String, Object> rel : obj(area.getValue()).entrySet()) {
                if (!releases.isEmpty() && !releases.contains(rel.getKey())) {
                    continue;
                }
                Map<String, Object> entry = obj(rel.getValue());
                byte[] data = Files.readAllBytes(bundle.resolve((String) entry.get("file")));
                if (!sha256(data).equals(entry.get("sha256"))) {
                    throw new IOException(entry.get("file") + ": sha256 does not match manifest.json");
                }
                String text;
                try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(data))) {
                    text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
                for (String line : text.split("\n")) {
                    if (line.isEmpty()) {
                        continue;
                    }
                    Map<String, Object> v = obj(Parser.parse(line));
                    String why = notChecked(v, caps);
                    if (why != null) {
                        skipped.merge(why, 1, Integer::sum);
                        continue;
                    }
                    out.add(new Vector(v));
                }
            }
        }
        return out;
    }

    // ---------------------------------------------------------------------------------------------
    // running

    static Set<String> names(String csv) {
        return csv == null ? new HashSet<>() : new HashSet<>(Arrays.asList(csv.split(",")));
    }

    static final String USAGE = "usage: VectorsRunner [--protocol N [--features A,..]] [--area A,..] [--flink V,..] "
            + "[--timeout S] BUNDLE COMMAND [ARG...]";

    static void usage(String problem) {
        System.err.println(problem);
        System.err.println(USAGE);
        System.exit(2);
    }

    public static void main(String[] args) throws Exception {
        Integer protocol = null;
        List<String> features = new ArrayList<>();
        String area = null;
        String flink = null;
        long timeoutSeconds = 600;
        int k = 0;
        for (; k < args.length && args[k].startsWith("--"); k += 2) {
            String value = k + 1 < args.length ? args[k + 1] : null;
            if (value == null) {
                usage(args[k] + " needs a value");
            }
            try {
                switch (args[k]) {
                    case "--protocol": protocol = Integer.parseInt(value); break;
                    case "--features": features = new ArrayList<>(names(value)); break;
                    case "--area": area = value; break;
                    case "--flink": flink = value; break;
                    case "--timeout": timeoutSeconds = Long.parseLong(value); break;
                    default: usage("unknown option " + args[k]);
                }
            } catch (NumberFormatException e) {
                usage("bad number for " + args[k] + ": " + value);
            }
            if ((protocol != null && protocol < 1) || timeoutSeconds < 1) {
                usage("bad value for " + args[k] + ": " + value);
            }
        }
        if (args.length - k < 2) {
            usage("a bundle and a command are needed");
        }
        Path bundle = Paths.get(args[k]);
        List<String> command = Arrays.asList(args).subList(k + 1, args.length);
        Capabilities caps;
        if (protocol == null) {
            try {
                caps = negotiate(command, Math.min(60, timeoutSeconds));
            } catch (IOException e) {
                System.err.println("cannot start " + String.join(" ", command) + ": " + e.getMessage());
                System.exit(2);
                return;
            }
        } else {
            caps = new Capabilities("--protocol " + protocol, null);
            caps.protocol = protocol;
            caps.features = features;
        }
        if (caps.warning != null) {
            System.err.println("warning: " + caps.warning);
        }
        System.out.println(caps.line());
        Map<String, Integer> skipped = new TreeMap<>();
        List<Vector> vectors = load(bundle, names(area), names(flink), caps, skipped);
        int failed = run(vectors, command, timeoutSeconds);
        List<Map.Entry<String, Integer>> reasons = new ArrayList<>(skipped.entrySet());
        reasons.sort((a, b) -> b.getValue() - a.getValue());
        int left = 0;
        for (Map.Entry<String, Integer> e : reasons) {
            System.out.println(e.getValue() + " not checked: " + e.getKey());
            left += e.getValue();
        }
        System.out.println((vectors.size() - failed) + " passed, " + failed + " failed, " + left + " not checked");
        System.exit(failed == 0 && !vectors.isEmpty() ? 0 : 1);
    }

    /** Sends every request (a writer thread) while reading the answers in order; the failures. */
    static int run(List<Vector> vectors, List<String> command, long timeoutSeconds) throws Exception {
        Process proc = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        Thread watchdog = new Thread(() -> {
            try {
                if (!proc.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    System.err.println("the implementation took longer than " + timeoutSeconds + " s: stopped");
                    proc.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        watchdog.setDaemon(true);
        watchdog.start();
        Thread writer = new Thread(() -> {
            try (Writer w = new BufferedWriter(new OutputStreamWriter(proc.getOutputStream(), StandardCharsets.UTF_8))) {
                for (int n = 0; n < vectors.size(); n++) {
                    Map<String, Object> req = new LinkedHashMap<>();
                    req.put("id", new Num(Integer.toString(n + 1)));
                    req.putAll(vectors.get(n).request);
                    w.write(write(req, false));
                    w.write('\n');
                }
            } catch (IOException e) {
                // the implementation went away: the reader reports the vectors left unanswered
            }
        });
        writer.setDaemon(true);
        writer.start();
        int failed = 0;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(proc.getInputStream(), StandardCharsets.UTF_8))) {
            for (int n = 0; n < vectors.size(); n++) {
                Vector v = vectors.get(n);
                String line = r.readLine();
                String why;
                if (line == null) {
                    why = "no answer (the implementation ended)";
                } else {
                    why = judge(v, line, n + 1);
                }
                if (why != null) {
                    failed++;
                    System.out.println("FAIL " + v.id + " [" + v.why + "]: " + why);
                }
            }
        }
        proc.destroy();
        return failed;
    }

    static String judge(Vector v, String line, int id) {
        Map<String, Object> actual;
        try {
            actual = obj(Parser.parse(line));
        } catch (IllegalArgumentException e) {
            return "the answer is not JSON: " + e.getMessage();
        }
        if (actual == null) {
            return "the answer is not a JSON object";
        }
        Object got = actual.get("id");
        if (!(got instanceof Num) || !((Num) got).normal().equals(Integer.toString(id))) {
            return "the answer has id " + write(got == null ? NULL : got, true) + ", not " + id;
        }
        return disagreement(v.area, v.answer, actual);
    }
}
