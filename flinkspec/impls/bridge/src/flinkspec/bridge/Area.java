package flinkspec.bridge;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One protocol area answered by Flink's own classes. Implementations are compiled separately
 * against each Flink version's flink-dist jar; one that does not compile for a version is
 * reported as unsupported there instead of breaking the other areas.
 */
public interface Area {
    /**
     * Answers the request's {@code input} object. Returns the protocol {@code output} value built
     * from Map (use LinkedHashMap), List, Long/Integer, String, Boolean and null. Throws
     * {@link Rejected} when Flink rejects the input, {@link BadRequest} when the input has the
     * wrong shape; anything else is reported as a bridge failure.
     */
    Object answer(String area, Map<String, Object> input) throws Exception;

    /**
     * The request's flat {@code config} object as Flink configuration strings: absent is empty; a
     * value that is not an object (JSON null included) or an entry that is not a string is a
     * {@link BadRequest} naming it.
     */
    static Map<String, String> config(Map<String, Object> input) throws BadRequest {
        Map<String, String> config = new LinkedHashMap<>();
        if (!input.containsKey("config")) {
            return config;
        }
        Object raw = input.get("config");
        if (!(raw instanceof Map)) {
            throw new BadRequest("input.config must be an object");
        }
        for (Map.Entry<?, ?> e : ((Map<?, ?>) raw).entrySet()) {
            if (!(e.getValue() instanceof String)) {
                throw new BadRequest("input.config['" + e.getKey() + "'] must be a string");
            }
            config.put((String) e.getKey(), (String) e.getValue());
        }
        return config;
    }

    /** Flink rejected the input: carries the simple name and message of Flink's exception. */
    final class Rejected extends Exception {
        public final String exception;

        public Rejected(Throwable flinkException) {
            super(flinkException.getMessage(), flinkException);
            this.exception = flinkException.getClass().getSimpleName();
        }

        public Rejected(String exception, String message) {
            super(message);
            this.exception = exception;
        }
    }

    /** The request's input has the wrong shape. */
    final class BadRequest extends Exception {
        public BadRequest(String message) {
            super(message);
        }
    }
}
