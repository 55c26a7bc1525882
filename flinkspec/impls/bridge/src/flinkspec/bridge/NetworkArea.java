package flinkspec.bridge;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessSpec;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessUtils;
import org.apache.flink.runtime.io.network.buffer.BufferPool;
import org.apache.flink.runtime.io.network.buffer.NetworkBufferPool;
import org.apache.flink.runtime.io.network.partition.ResultPartitionFactory;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.io.network.partition.consumer.SingleInputGateFactory;
import org.apache.flink.runtime.taskmanager.NettyShuffleEnvironmentConfiguration;
import org.apache.flink.util.function.SupplierWithException;

/**
 * {@code memory.network}: a TaskManager's network buffers and the buffer pools of a task's result
 * partitions (docs/protocol/memory-network.md).
 *
 * <p>The TaskManager's memory is derived as {@code memory.taskmanager} does
 * ({@code TaskExecutorProcessUtils.processSpecFromConfig} after the legacy heap mapping of 1.13-1.20); its
 * network memory goes to {@code NettyShuffleEnvironmentConfiguration.fromConfiguration}, whose
 * {@code numNetworkBuffers} sizes a {@code NetworkBufferPool}. The pool is Flink's own, built with no segment
 * allocated and its segment count set afterwards (its checks read only the count; a TaskManager of 1 GB of
 * network memory would otherwise allocate 1 GB). Each result partition's pool is made, in order, by Flink's
 * {@code ResultPartitionFactory.createBufferPoolFactory(numberOfSubpartitions, type)} on a factory whose
 * fields carry the configuration's values (made without its constructor, which differs in every release):
 * the pool's required and maximum segments, or the exception of the first pool that cannot be made.
 *
 * <p>Then the input gates. From 1.17 each gate is first sized by Flink's
 * {@code InputGateSpecUtils.createGateBuffersSpec} (as {@code SingleInputGateFactory.create} calls it when the task
 * is built, before any pool: remote and local channels together, the consumed partition's type, the
 * configuration's {@code maxRequiredBuffersPerGate}, no tiered storage), read through {@code GateBuffersSpec}'s
 * getters. After all partitions, as {@code Task.setupPartitionsAndGates} sets them up, each gate's floating pool
 * from Flink's {@code SingleInputGateFactory.createBufferPoolFactory} (1.13: (pool, buffersPerChannel, floating,
 * channels, type); 1.14-1.16: (pool, floating); 1.17+: (pool, spec's required, spec's total floating)). Then, gate by
 * gate, what each remote channel asks of the {@code NetworkBufferPool} when the gate's recovered channels become
 * real ones ({@code RemoteInputChannel.setup}, {@code BufferManager.requestExclusiveBuffers(exclusive)}: 1.14+
 * nothing when 0, else {@code requestUnpooledMemorySegments}; 1.13 {@code requestMemorySegments}, called for real
 * when 0 for its exception; the accounting and exception of a request above 0 are {@code tryRedistributeBuffers},
 * which the bridge calls, not the wait for segments that follows it, as the pool has none). The bridge builds no
 * channel: that a local channel requests nothing is read from Flink's classes (neither
 * {@code LocalRecoveredInputChannel} nor {@code LocalInputChannel} overrides {@code InputChannel.setup}, a no-op,
 * nor has a {@code BufferManager}), and that the exclusive buffers come after all gates' pools from
 * {@code SingleInputGate.setup} and {@code RemoteRecoveredInputChannel.toInputChannelInternal}
 * (docs/protocol/memory-network.md).
 */
public final class NetworkArea implements Area {

    @Override
    public Object answer(String area, Map<String, Object> input) throws Exception {
        if (!"memory.network".equals(area)) {
            throw new BadRequest("NetworkArea does not answer " + area);
        }
        Configuration config = Configuration.fromMap(Area.config(input));
        List<int[]> partitions = new ArrayList<>();
        List<ResultPartitionType> types = new ArrayList<>();
        partitions(input, partitions, types);
        List<int[]> gates = new ArrayList<>();
        List<ResultPartitionType> gateTypes = new ArrayList<>();
        gates(input, gates, gateTypes);
        try {
            Configuration mapped = config;
            Method legacy = null;
            try {
                legacy = TaskExecutorProcessUtils.class.getMethod(
                        "getConfigurationMapLegacyTaskManagerHeapSizeToConfigOption", Configuration.class,
                        ConfigOption.class);
            } catch (NoSuchMethodException e) {
                legacy = null; // 2.x
            }
            if (legacy != null) {
                mapped = (Configuration) call(legacy, null, config, TaskManagerOptions.TOTAL_FLINK_MEMORY);
            }
            TaskExecutorProcessSpec spec = TaskExecutorProcessUtils.processSpecFromConfig(mapped);
            MemorySize network = spec.getNetworkMemSize();
            NettyShuffleEnvironmentConfiguration nsec = NettyShuffleEnvironmentConfiguration.fromConfiguration(
                    config, network, true, InetAddress.getLoopbackAddress());
            int total = nsec.numNetworkBuffers();
            int size = nsec.networkBufferSize();
            if (!gates.isEmpty() && nsec.networkBuffersPerChannel() < 0) {
                throw new BadRequest("negative buffers per channel with input gates is not bridged");
            }
            List<int[]> specs = specs(gates, gateTypes, nsec); // 1.17+: built with the task, before any pool
            NetworkBufferPool pool = new NetworkBufferPool(0, size);
            Reflect.setIfPresent(pool, "totalNumberOfMemorySegments", total);
            unavailable(pool);
            ResultPartitionFactory factory = factory(nsec, pool, size);
            Method create = ResultPartitionFactory.class.getDeclaredMethod("createBufferPoolFactory", int.class,
                    ResultPartitionType.class);
            create.setAccessible(true);
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("network_memory", network.getBytes());
            out.put("buffer_size", size);
            out.put("network_buffers", total);
            List<Object> pools = new ArrayList<>();
            int required = 0;
            for (int i = 0; i < partitions.size(); i++) {
                @SuppressWarnings("unchecked")
                SupplierWithException<BufferPool, ?> supplier = (SupplierWithException<BufferPool, ?>) call(create,
                        factory, partitions.get(i)[0], types.get(i));
                BufferPool bp;
                try {
                    bp = supplier.get();
                } catch (Throwable t) {
                    throw new Rejected(t);
                }
                Map<String, Object> p = new LinkedHashMap<>();
                p.put("min", bp.getNumberOfRequiredMemorySegments());
                p.put("max", bp.getMaxNumberOfMemorySegments());
                required += bp.getNumberOfRequiredMemorySegments();
                pools.add(p);
            }
            out.put("partitions", pools);
            if (!gates.isEmpty()) {
                out.put("gates", gates(gates, gateTypes, specs, pool, nsec));
                for (Object g : (List<?>) out.get("gates")) {
                    Map<?, ?> m = (Map<?, ?>) g;
                    required += (Integer) m.get("floating_min") + ((Number) m.get("exclusive")).intValue();
                }
            }
            out.put("required", required);
            out.put("available", total - required);
            return out;
        } catch (Rejected e) {
            throw e;
        } catch (RuntimeException e) {
            throw new Rejected(e);
        }
    }

    /**
     * 1.17+: each gate's {exclusive per channel, required floating, total floating} from Flink's
     * {@code InputGateSpecUtils.createGateBuffersSpec}; before 1.17, none (null).
     */
    private static List<int[]> specs(List<int[]> gates, List<ResultPartitionType> types,
            NettyShuffleEnvironmentConfiguration nsec) throws Exception {
        Class<?> utils;
        try {
            utils = Class.forName("org.apache.flink.runtime.io.network.partition.consumer.InputGateSpecUtils");
        } catch (ClassNotFoundException e) {
            return null; // before 1.17
        }
        Method create = null;
        for (Method m : utils.getDeclaredMethods()) {
            if (m.getName().equals("createGateBuffersSpec")) {
                create = m;
            }
        }
        create.setAccessible(true);
        Object maxRequired = nsec.getClass().getMethod("maxRequiredBuffersPerGate").invoke(nsec);
        List<int[]> out = new ArrayList<>();
        for (int i = 0; i < gates.size(); i++) {
            int channels = gates.get(i)[0] + gates.get(i)[1];
            Object spec = create.getParameterCount() == 5
                    ? call(create, null, maxRequired, nsec.networkBuffersPerChannel(),
                            nsec.floatingNetworkBuffersPerGate(), types.get(i), channels)
                    : call(create, null, maxRequired, nsec.networkBuffersPerChannel(),
                            nsec.floatingNetworkBuffersPerGate(), types.get(i), channels, false);
            out.add(new int[] {getInt(spec, "getEffectiveExclusiveBuffersPerChannel"),
                getInt(spec, "getRequiredFloatingBuffers"), getInt(spec, "getTotalFloatingBuffers")});
        }
        return out;
    }

    private static int getInt(Object target, String getter) throws Exception {
        Method m = target.getClass().getDeclaredMethod(getter);
        m.setAccessible(true);
        return (Integer) m.invoke(target);
    }

    /** Each gate's floating pool in order, then, gate by gate, its remote channels' exclusive buffers. */
    private static List<Object> gates(List<int[]> gates, List<ResultPartitionType> types, List<int[]> specs,
            NetworkBufferPool pool, NettyShuffleEnvironmentConfiguration nsec) throws Exception {
        Method create = null;
        for (Method m : SingleInputGateFactory.class.getDeclaredMethods()) {
            if (m.getName().equals("createBufferPoolFactory")) {
                create = m;
            }
        }
        create.setAccessible(true);
        Method redistribute = NetworkBufferPool.class.getDeclaredMethod("tryRedistributeBuffers", int.class);
        redistribute.setAccessible(true);
        Object factoryLock = Reflect.get(NetworkBufferPool.class, pool, "factoryLock");
        boolean unpooled = true; // 1.14+: requestUnpooledMemorySegments, after BufferManager's "nothing for 0"
        try {
            NetworkBufferPool.class.getDeclaredMethod("requestUnpooledMemorySegments", int.class);
        } catch (NoSuchMethodException e) {
            unpooled = false; // 1.13: requestMemorySegments(n), which refuses 0
        }
        int perChannel = nsec.networkBuffersPerChannel();
        int floating = nsec.floatingNetworkBuffersPerGate();
        List<Map<String, Object>> out = new ArrayList<>();
        List<Integer> exclusive = new ArrayList<>();
        for (int i = 0; i < gates.size(); i++) {
            Object[] args;
            if (create.getParameterCount() == 5) {
                args = new Object[] {pool, perChannel, floating, gates.get(i)[0] + gates.get(i)[1], types.get(i)};
            } else if (create.getParameterCount() == 2) {
                args = new Object[] {pool, floating};
            } else {
                args = new Object[] {pool, specs.get(i)[1], specs.get(i)[2]};
            }
            @SuppressWarnings("unchecked")
            SupplierWithException<BufferPool, ?> supplier = (SupplierWithException<BufferPool, ?>) call(create, null,
                    args);
            BufferPool bp;
            try {
                bp = supplier.get();
            } catch (Throwable t) {
                throw new Rejected(t);
            }
            Map<String, Object> g = new LinkedHashMap<>();
            g.put("floating_min", bp.getNumberOfRequiredMemorySegments());
            g.put("floating_max", bp.getMaxNumberOfMemorySegments());
            out.add(g);
            exclusive.add(specs == null ? perChannel : specs.get(i)[0]);
        }
        for (int i = 0; i < gates.size(); i++) {
            int remote = gates.get(i)[0];
            int each = exclusive.get(i);
            for (int c = 0; c < remote; c++) {
                if (each == 0 && unpooled) {
                    break;
                }
                if (each == 0) { // 1.13: Flink's own refusal of a request of 0
                    call(NetworkBufferPool.class.getMethod("requestMemorySegments", int.class), pool, 0);
                }
                synchronized (factoryLock) {
                    call(redistribute, pool, each);
                }
            }
            out.get(i).put("exclusive_per_channel", each);
            out.get(i).put("exclusive", (long) remote * each);
        }
        return new ArrayList<Object>(out);
    }

    private static void gates(Map<String, Object> input, List<int[]> out, List<ResultPartitionType> types)
            throws BadRequest {
        Object raw = input.get("gates");
        if (raw == null) {
            return;
        }
        if (!(raw instanceof List)) {
            throw new BadRequest("input.gates must be a list");
        }
        int i = 0;
        for (Object item : (List<?>) raw) {
            if (!(item instanceof Map)) {
                throw new BadRequest("input.gates[" + i + "] must be an object");
            }
            Map<?, ?> m = (Map<?, ?>) item;
            long remote = count(m.get("channels"), "input.gates[" + i + "].channels", false);
            long local = count(m.get("local"), "input.gates[" + i + "].local", true);
            if (remote + local < 1 || remote + local > Integer.MAX_VALUE) {
                throw new BadRequest("input.gates[" + i + "]: channels + local must be in [1, "
                        + Integer.MAX_VALUE + "]");
            }
            Object type = m.get("type") == null ? "PIPELINED_BOUNDED" : m.get("type");
            types.add(type(type, "input.gates[" + i + "]"));
            out.add(new int[] {(int) remote, (int) local});
            i++;
        }
    }

    private static long count(Object n, String where, boolean optional) throws BadRequest {
        if (n == null && optional) {
            return 0;
        }
        if (!(n instanceof Number) || ((Number) n).longValue() < 0
                || ((Number) n).longValue() > Integer.MAX_VALUE) {
            throw new BadRequest(where + " must be an integer in [0, " + Integer.MAX_VALUE + "]");
        }
        return ((Number) n).longValue();
    }

    private static ResultPartitionType type(Object type, String where) throws BadRequest {
        for (ResultPartitionType c : ResultPartitionType.values()) {
            if (c.name().equals(type)) {
                return c;
            }
        }
        throw new BadRequest(where + ".type: " + type + " is no partition type of this release");
    }

    /** The pool has no segment to give: its availability says so (else its pools ask it for ever). */
    private static void unavailable(NetworkBufferPool pool) throws Exception {
        Object helper = Reflect.getIfPresent(pool, "availabilityHelper");
        if (helper != null) {
            helper.getClass().getMethod("resetUnavailable").invoke(helper);
        }
    }

    private static Object call(Method m, Object target, Object... args) throws Exception {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            throw new Rejected(cause);
        }
    }

    /** A ResultPartitionFactory whose fields are the configuration's (each release names a few differently). */
    private static ResultPartitionFactory factory(NettyShuffleEnvironmentConfiguration nsec, NetworkBufferPool pool,
            int size) throws Exception {
        ResultPartitionFactory factory = (ResultPartitionFactory) Reflect.allocate(ResultPartitionFactory.class);
        Reflect.setIfPresent(factory, "bufferPoolFactory", pool);
        Reflect.setIfPresent(factory, "networkBuffersPerChannel", nsec.networkBuffersPerChannel());
        Reflect.setIfPresent(factory, "configuredNetworkBuffersPerChannel", nsec.networkBuffersPerChannel());
        Reflect.setIfPresent(factory, "floatingNetworkBuffersPerGate", nsec.floatingNetworkBuffersPerGate());
        Reflect.setIfPresent(factory, "networkBufferSize", size);
        Reflect.setIfPresent(factory, "maxBuffersPerChannel", nsec.getMaxBuffersPerChannel());
        Reflect.setIfPresent(factory, "sortShuffleMinBuffers", nsec.sortShuffleMinBuffers());
        Reflect.setIfPresent(factory, "sortShuffleMinParallelism", nsec.sortShuffleMinParallelism());
        for (String getter : new String[] {"getMaxOverdraftBuffersPerGate"}) {
            try {
                Method m = nsec.getClass().getMethod(getter);
                Reflect.setIfPresent(factory, "maxOverdraftBuffersPerGate", m.invoke(nsec));
            } catch (NoSuchMethodException e) {
                // before 1.16: no overdraft buffers
            }
        }
        try { // 1.18+: hybrid shuffle's tiered storage, configured only for a hybrid batch shuffle mode
            Object tiered = nsec.getClass().getMethod("getTieredStorageConfiguration").invoke(nsec);
            if (tiered != null) {
                throw new BadRequest("tiered storage (a hybrid execution.batch-shuffle-mode) is not modelled");
            }
        } catch (NoSuchMethodException e) {
            // before 1.18
        }
        Reflect.setIfPresent(factory, "tieredStorage", java.util.Optional.empty());
        return factory;
    }

    private static void partitions(Map<String, Object> input, List<int[]> out, List<ResultPartitionType> types)
            throws BadRequest {
        Object raw = input.get("partitions");
        if (raw == null) {
            return;
        }
        if (!(raw instanceof List)) {
            throw new BadRequest("input.partitions must be a list");
        }
        int i = 0;
        for (Object item : (List<?>) raw) {
            if (!(item instanceof Map)) {
                throw new BadRequest("input.partitions[" + i + "] must be an object");
            }
            Map<?, ?> p = (Map<?, ?>) item;
            Object n = p.get("subpartitions");
            if (!(n instanceof Number) || ((Number) n).longValue() < 1
                    || ((Number) n).longValue() > Integer.MAX_VALUE) {
                throw new BadRequest("input.partitions[" + i + "].subpartitions must be an integer in [1, "
                        + Integer.MAX_VALUE + "]");
            }
            types.add(type(p.get("type"), "input.partitions[" + i + "]"));
            out.add(new int[] {((Number) n).intValue()});
            i++;
        }
    }
}
