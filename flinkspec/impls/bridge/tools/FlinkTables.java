import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

/**
 * Tables the oracle copies from Flink, printed from the jar of one version (flinkspec.tools.flinktables):
 * {@code reason<TAB>NAME<TAB>isPreFlight<TAB>message} for every CheckpointFailureReason, and
 * {@code option<TAB>Class.FIELD<TAB>key<TAB>toString} for every public static ConfigOption of the
 * option classes the memory rules read. Run with the flink-dist jar on the class path.
 */
public final class FlinkTables {
    private static final String[] OPTION_CLASSES = {
        "org.apache.flink.configuration.TaskManagerOptions",
        "org.apache.flink.configuration.JobManagerOptions",
        "org.apache.flink.configuration.NettyShuffleEnvironmentOptions",
    };

    private static String clean(Object o) {
        return String.valueOf(o).replace('\t', ' ').replace('\n', ' ');
    }

    public static void main(String[] args) throws Exception {
        Class<?> reasons = Class.forName("org.apache.flink.runtime.checkpoint.CheckpointFailureReason");
        for (Object r : reasons.getEnumConstants()) {
            Object pre = reasons.getMethod("isPreFlight").invoke(r);
            Object msg = reasons.getMethod("message").invoke(r);
            System.out.println("reason\t" + ((Enum<?>) r).name() + "\t" + pre + "\t" + clean(msg));
        }
        Class<?> option = Class.forName("org.apache.flink.configuration.ConfigOption");
        for (String name : OPTION_CLASSES) {
            Class<?> c = Class.forName(name);
            for (Field f : c.getFields()) {
                if (Modifier.isStatic(f.getModifiers()) && option.isAssignableFrom(f.getType())) {
                    Object o = f.get(null);
                    Object key = option.getMethod("key").invoke(o);
                    System.out.println("option\t" + c.getSimpleName() + "." + f.getName() + "\t" + key + "\t"
                            + clean(o));
                }
            }
        }
    }
}
