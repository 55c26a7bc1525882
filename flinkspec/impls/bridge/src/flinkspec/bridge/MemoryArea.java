package flinkspec.bridge;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessSpec;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessUtils;
import org.apache.flink.runtime.jobmanager.JobManagerProcessSpec;
import org.apache.flink.runtime.jobmanager.JobManagerProcessUtils;
import org.apache.flink.runtime.util.config.memory.ProcessMemoryUtils;
import org.apache.flink.runtime.util.config.memory.taskmanager.TaskExecutorFlinkMemory;

/**
 * {@code memory.taskmanager} and {@code memory.jobmanager}, answered by Flink's own classes along
 * the path Flink's {@code bin/} scripts take through {@code BashJavaUtils}.
 *
 * <p>The configuration is {@code Configuration.fromMap(input.config)}. TaskManager: in 1.13-1.20
 * the legacy heap keys are first mapped to {@code taskmanager.memory.flink.size}
 * ({@code TaskExecutorProcessUtils.getConfigurationMapLegacyTaskManagerHeapSizeToConfigOption}),
 * then {@code TaskExecutorProcessUtils.processSpecFromConfig}. JobManager: in 1.13-1.20
 * {@code JobManagerProcessUtils.processSpecFromConfigWithNewOptionToInterpretLegacyHeap(config,
 * JobManagerOptions.JVM_HEAP_MEMORY)}, in 2.x {@code JobManagerProcessUtils.processSpecFromConfig}.
 * The JVM arguments are parsed back from {@code generateJvmParametersStr}; the dynamic-config
 * string is generated too, as the scripts do, so that anything it throws is seen.
 *
 * <p>Methods that exist only in some versions are reached by reflection, so that one source
 * compiles against every flink-dist jar from 1.13 to 2.3. Environment variables
 * ({@code FLINK_TM_HEAP}, {@code FLINK_JM_HEAP}) are whatever the bridge process inherited; the
 * suite starts it without them.
 */
public final class MemoryArea implements Area {

    @Override
    public Object answer(String area, Map<String, Object> input) throws Exception {
        // a JSON null config is read as none here (the area's behaviour since issue 2)
        Configuration config = Configuration.fromMap(input.get("config") == null
                ? new LinkedHashMap<>() : Area.config(input));
        try {
            switch (area) {
                case "memory.taskmanager":
                    return taskManager(config);
                case "memory.jobmanager":
                    return jobManager(config);
                default:
                    throw new BadRequest("MemoryArea does not answer " + area);
            }
        } catch (RuntimeException e) {
            // everything Flink throws on the way (IllegalConfigurationException,
            // IllegalArgumentException from option parsing, ArithmeticException, ...)
            throw new Rejected(e);
        }
    }

    private static Map<String, Object> taskManager(Configuration config) throws Exception {
        Configuration mapped = config;
        Method legacy = findStatic(TaskExecutorProcessUtils.class,
                "getConfigurationMapLegacyTaskManagerHeapSizeToConfigOption", Configuration.class, ConfigOption.class);
        if (legacy != null) { // 1.13-1.20
            mapped = (Configuration) invoke(legacy, config, TaskManagerOptions.TOTAL_FLINK_MEMORY);
        }
        TaskExecutorProcessSpec spec = TaskExecutorProcessUtils.processSpecFromConfig(mapped);
        String jvm = ProcessMemoryUtils.generateJvmParametersStr(spec);
        TaskExecutorProcessUtils.generateDynamicConfigsStr(spec);
        TaskExecutorFlinkMemory fm = spec.getFlinkMemory();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("framework_heap", fm.getFrameworkHeap().getBytes());
        out.put("task_heap", fm.getTaskHeap().getBytes());
        out.put("framework_off_heap", fm.getFrameworkOffHeap().getBytes());
        out.put("task_off_heap", fm.getTaskOffHeap().getBytes());
        out.put("network", fm.getNetwork().getBytes());
        out.put("managed", fm.getManaged().getBytes());
        out.put("jvm_metaspace", spec.getJvmMetaspaceSize().getBytes());
        out.put("jvm_overhead", spec.getJvmOverheadSize().getBytes());
        out.put("total_flink", spec.getTotalFlinkMemorySize().getBytes());
        out.put("total_process", spec.getTotalProcessMemorySize().getBytes());
        out.put("jvm_args", jvmArgs(jvm));
        return out;
    }

    private static Map<String, Object> jobManager(Configuration config) throws Exception {
        JobManagerProcessSpec spec;
        Method legacy = findStatic(JobManagerProcessUtils.class,
                "processSpecFromConfigWithNewOptionToInterpretLegacyHeap", Configuration.class, ConfigOption.class);
        if (legacy != null) { // 1.13-1.20
            spec = (JobManagerProcessSpec) invoke(legacy, config, JobManagerOptions.JVM_HEAP_MEMORY);
        } else { // 2.x: public there, package-private before
            spec = (JobManagerProcessSpec) invoke(
                    findStatic(JobManagerProcessUtils.class, "processSpecFromConfig", Configuration.class), config);
        }
        String jvm = JobManagerProcessUtils.generateJvmParametersStr(spec, config);
        JobManagerProcessUtils.generateDynamicConfigsStr(spec);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("heap", spec.getJvmHeapMemorySize().getBytes());
        out.put("off_heap", spec.getJvmDirectMemorySize().getBytes());
        out.put("jvm_metaspace", spec.getJvmMetaspaceSize().getBytes());
        out.put("jvm_overhead", spec.getJvmOverheadSize().getBytes());
        out.put("total_flink", spec.getTotalFlinkMemorySize().getBytes());
        out.put("total_process", spec.getTotalProcessMemorySize().getBytes());
        out.put("jvm_args", jvmArgs(jvm));
        return out;
    }

    /** "-Xmx1 -Xms1 [-XX:MaxDirectMemorySize=2] -XX:MaxMetaspaceSize=3" as {Xmx, Xms, MaxMetaspaceSize, ...}. */
    static Map<String, Object> jvmArgs(String jvm) {
        Map<String, Object> args = new LinkedHashMap<>();
        for (String part : jvm.trim().split(" +")) {
            if (part.startsWith("-Xmx")) {
                args.put("Xmx", Long.parseLong(part.substring(4)));
            } else if (part.startsWith("-Xms")) {
                args.put("Xms", Long.parseLong(part.substring(4)));
            } else if (part.startsWith("-XX:") && part.contains("=")) {
                int eq = part.indexOf('=');
                args.put(part.substring(4, eq), Long.parseLong(part.substring(eq + 1)));
            } else {
                throw new IllegalStateException("unexpected JVM argument '" + part + "' in '" + jvm + "'");
            }
        }
        return args;
    }

    private static Method findStatic(Class<?> cls, String name, Class<?>... params) {
        try {
            return cls.getMethod(name, params);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /** Calls a static method, rethrowing what it threw (Flink's own exception) unwrapped. */
    private static Object invoke(Method m, Object... args) throws Exception {
        try {
            return m.invoke(null, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception) {
                throw (Exception) cause;
            }
            throw e;
        }
    }
}
