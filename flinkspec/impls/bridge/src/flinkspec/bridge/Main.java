package flinkspec.bridge;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The real-Flink side of flinkspec: answers protocol requests (docs/protocol/v1.md), one JSON
 * object per line, by driving Flink's own classes. Nothing but answers goes to stdout; Flink's
 * own logging is sent to stderr.
 *
 * <p>Which class answers which area comes from the suite's registry of areas (each area's
 * declaration names its bridge class), as the system property {@code flinkspec.areas}:
 * {@code area=Class,area=Class,...}. Area classes are loaded by name; one that failed to compile
 * for this Flink version (its javac output is in {@code unsupported/<Class>.txt} beside the
 * classes) makes its areas answer a BadRequest naming the reason.
 */
public final class Main {
    static final Map<String, String> AREAS = areas(System.getProperty("flinkspec.areas", ""));

    /** {@code area=Class,area=Class,...} as a map from area to class name. */
    static Map<String, String> areas(String spec) {
        Map<String, String> out = new HashMap<>();
        for (String entry : spec.split(",")) {
            int eq = entry.indexOf('=');
            if (eq > 0) {
                out.put(entry.substring(0, eq).trim(), entry.substring(eq + 1).trim());
            }
        }
        return out;
    }

    private static final Map<String, Area> LOADED = new HashMap<>();

    public static void main(String[] args) throws Exception {
        String version = args.length > 0 ? args[0] : "?";
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, "UTF-8");
        System.setOut(System.err); // Flink code printing to stdout must not corrupt the protocol
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintWriter w = new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.trim().isEmpty()) {
                continue;
            }
            w.println(Json.write(handle(line, version)));
            if (!in.ready()) {
                w.flush();
            }
        }
        w.flush();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> handle(String line, String version) {
        Map<String, Object> resp = new LinkedHashMap<>();
        Object id = null;
        try {
            Object req;
            try {
                req = Json.parse(line);
            } catch (IllegalArgumentException e) {
                resp.put("id", null);
                return error(resp, "BadRequest", null, e.getMessage());
            }
            if (!(req instanceof Map)) {
                resp.put("id", null);
                return error(resp, "BadRequest", null, "a request must be a JSON object");
            }
            Map<String, Object> r = (Map<String, Object>) req;
            id = r.get("id");
            resp.put("id", id);
            Object flink = r.get("flink");
            if (flink != null && !version.equals(flink) && !version.startsWith(flink + ".")) {
                return error(resp, "BadRequest", null,
                        "this bridge runs Flink " + version + ", the request asks for " + flink);
            }
            Object area = r.get("area");
            String cls = AREAS.get(area);
            if (cls == null) {
                return error(resp, "BadRequest", null, "unknown area " + area);
            }
            Area handler = load(cls);
            if (handler == null) {
                return error(resp, "BadRequest", null,
                        "area " + area + " is not supported by the bridge for Flink " + version + ": "
                                + unsupportedReason(cls));
            }
            Object input = r.get("input");
            if (!(input instanceof Map)) {
                return error(resp, "BadRequest", null, "input must be a JSON object");
            }
            resp.put("output", handler.answer((String) area, (Map<String, Object>) input));
            return resp;
        } catch (Area.Rejected e) {
            return error(resp, "InvalidConfiguration", e.exception, e.getMessage());
        } catch (Area.BadRequest e) {
            return error(resp, "BadRequest", null, e.getMessage());
        } catch (Throwable t) {
            StringWriter sw = new StringWriter();
            t.printStackTrace(new PrintWriter(sw));
            System.err.println("bridge failure on request " + id + ": " + sw);
            return error(resp, "BridgeError", t.getClass().getSimpleName(), String.valueOf(t.getMessage()));
        }
    }

    private static Map<String, Object> error(Map<String, Object> resp, String type, String exception, String message) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("type", type);
        if (exception != null) {
            e.put("exception", exception);
        }
        e.put("message", message);
        resp.remove("output");
        resp.put("error", e);
        return resp;
    }

    private static synchronized Area load(String cls) {
        if (LOADED.containsKey(cls)) {
            return LOADED.get(cls);
        }
        Area a = null;
        try {
            a = (Area) Class.forName("flinkspec.bridge." + cls).getDeclaredConstructor().newInstance();
        } catch (ClassNotFoundException | NoClassDefFoundError e) {
            a = null;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot instantiate " + cls, e);
        }
        LOADED.put(cls, a);
        return a;
    }

    private static String unsupportedReason(String cls) {
        String dir = System.getProperty("flinkspec.unsupported");
        if (dir != null) {
            java.io.File f = new java.io.File(dir, cls + ".txt");
            if (f.exists()) {
                try {
                    String text = new String(java.nio.file.Files.readAllBytes(f.toPath()), StandardCharsets.UTF_8);
                    String first = text.split("\n", 2)[0];
                    return "it does not compile against this version (" + first + ")";
                } catch (java.io.IOException e) {
                    return "it does not compile against this version";
                }
            }
        }
        return "no handler class " + cls + " in this build";
    }
}
