package flinkspec.bridge;

import java.lang.reflect.Field;
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
import org.apache.flink.runtime.io.network.buffer.BufferPoolFactory;
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
 * <p>Then (1.14-1.16) each input gate, after all partitions as {@code Task.setupPartitionsAndGates} sets them up:
 * its floating pool from Flink's {@code SingleInputGateFactory.createBufferPoolFactory(pool, floatingBuffersPerGate)},
 * then, for each remote channel, what {@code RemoteInputChannel.setup} asks of the {@code NetworkBufferPool}
 * ({@code BufferManager.requestExclusiveBuffers(buffersPerChannel)}: nothing when 0, else
 * {@code requestUnpooledMemorySegments}, whose accounting and exception are {@code tryRedistributeBuffers}; the
 * bridge calls that, not the wait for segments that follows it, as the pool has none).
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
        List<Integer> gates = gates(input);
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
            NetworkBufferPool pool = new NetworkBufferPool(0, size);
            set(pool, "totalNumberOfMemorySegments", total);
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
                out.put("gates", gates(gates, pool, nsec));
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

    /** Each gate's floating pool, then its remote channels' exclusive buffers (1.14-1.16). */
    private static List<Object> gates(List<Integer> gates, NetworkBufferPool pool,
            NettyShuffleEnvironmentConfiguration nsec) throws Exception {
        Method create;
        try {
            create = SingleInputGateFactory.class.getDeclaredMethod("createBufferPoolFactory", BufferPoolFactory.class,
                    int.class);
        } catch (NoSuchMethodException e) {
            throw new BadRequest("input gates of this release are not bridged (no createBufferPoolFactory(pool, int))");
        }
        create.setAccessible(true);
        Method redistribute = NetworkBufferPool.class.getDeclaredMethod("tryRedistributeBuffers", int.class);
        redistribute.setAccessible(true);
        Field lock = field(NetworkBufferPool.class, "factoryLock");
        lock.setAccessible(true);
        Object factoryLock = lock.get(pool);
        int perChannel = nsec.networkBuffersPerChannel();
        List<Object> out = new ArrayList<>();
        for (int channels : gates) {
            @SuppressWarnings("unchecked")
            SupplierWithException<BufferPool, ?> supplier = (SupplierWithException<BufferPool, ?>) call(create, null,
                    pool, nsec.floatingNetworkBuffersPerGate());
            BufferPool bp;
            try {
                bp = supplier.get();
            } catch (Throwable t) {
                throw new Rejected(t);
            }
            if (perChannel < 0) {
                throw new BadRequest("negative buffers per channel with input gates is not bridged");
            }
            for (int c = 0; c < channels && perChannel > 0; c++) {
                synchronized (factoryLock) {
                    call(redistribute, pool, perChannel);
                }
            }
            Map<String, Object> g = new LinkedHashMap<>();
            g.put("floating_min", bp.getNumberOfRequiredMemorySegments());
            g.put("floating_max", bp.getMaxNumberOfMemorySegments());
            g.put("exclusive_per_channel", perChannel);
            g.put("exclusive", (long) channels * perChannel);
            out.add(g);
        }
        return out;
    }

    private static List<Integer> gates(Map<String, Object> input) throws BadRequest {
        Object raw = input.get("gates");
        List<Integer> out = new ArrayList<>();
        if (raw == null) {
            return out;
        }
        if (!(raw instanceof List)) {
            throw new BadRequest("input.gates must be a list");
        }
        int i = 0;
        for (Object item : (List<?>) raw) {
            Object n = item instanceof Map ? ((Map<?, ?>) item).get("channels") : null;
            Object local = item instanceof Map ? ((Map<?, ?>) item).get("local") : null;
            if (!(n instanceof Number) || ((Number) n).longValue() < 1
                    || ((Number) n).longValue() > Integer.MAX_VALUE) {
                throw new BadRequest("input.gates[" + i + "].channels must be an integer in [1, "
                        + Integer.MAX_VALUE + "]");
            }
            if (local instanceof Number && ((Number) local).longValue() != 0) {
                throw new BadRequest("input.gates[" + i + "].local: local channels are not bridged");
            }
            out.add(((Number) n).intValue());
            i++;
        }
        return out;
    }

    /** The pool has no segment to give: its availability says so (else its pools ask it for ever). */
    private static void unavailable(NetworkBufferPool pool) throws Exception {
        Field f = field(NetworkBufferPool.class, "availabilityHelper");
        if (f != null) {
            f.setAccessible(true);
            Object helper = f.get(pool);
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
        Field f = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
        f.setAccessible(true);
        Object unsafe = f.get(null);
        Method allocate = unsafe.getClass().getMethod("allocateInstance", Class.class);
        ResultPartitionFactory factory = (ResultPartitionFactory) allocate.invoke(unsafe, ResultPartitionFactory.class);
        set(factory, "bufferPoolFactory", pool);
        set(factory, "networkBuffersPerChannel", nsec.networkBuffersPerChannel());
        set(factory, "configuredNetworkBuffersPerChannel", nsec.networkBuffersPerChannel());
        set(factory, "floatingNetworkBuffersPerGate", nsec.floatingNetworkBuffersPerGate());
        set(factory, "networkBufferSize", size);
        set(factory, "maxBuffersPerChannel", nsec.getMaxBuffersPerChannel());
        set(factory, "sortShuffleMinBuffers", nsec.sortShuffleMinBuffers());
        set(factory, "sortShuffleMinParallelism", nsec.sortShuffleMinParallelism());
        for (String getter : new String[] {"getMaxOverdraftBuffersPerGate"}) {
            try {
                Method m = nsec.getClass().getMethod(getter);
                set(factory, "maxOverdraftBuffersPerGate", m.invoke(nsec));
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
        set(factory, "tieredStorage", java.util.Optional.empty());
        return factory;
    }

    private static Field field(Class<?> cls, String name) {
        for (Class<?> c = cls; c != null; c = c.getSuperclass()) {
            try {
                return c.getDeclaredField(name);
            } catch (NoSuchFieldException e) {
                // the superclass may have it
            }
        }
        return null;
    }

    private static void set(Object target, String name, Object value) throws Exception {
        Field f = field(target.getClass(), name);
        if (f == null) {
            return; // not a field of this release
        }
        f.setAccessible(true);
        f.set(target, value);
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
            Object type = p.get("type");
            ResultPartitionType t = null;
            for (ResultPartitionType c : ResultPartitionType.values()) {
                if (c.name().equals(type)) {
                    t = c;
                }
            }
            if (t == null) {
                throw new BadRequest("input.partitions[" + i + "].type: " + type + " is no partition type of this"
                        + " release");
            }
            out.add(new int[] {((Number) n).intValue()});
            types.add(t);
            i++;
        }
    }
}
