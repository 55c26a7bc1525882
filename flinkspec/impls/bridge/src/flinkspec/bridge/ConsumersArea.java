package flinkspec.bridge;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.memory.ManagedMemoryUseCase;

/**
 * {@code memory.consumers}: the managed-memory consumer weights a TaskManager reads and the fraction of a
 * slot's managed memory each use case and each operator gets (docs/protocol/memory-consumers.md).
 *
 * <p>{@code ManagedMemoryUtils.getManagedMemoryUseCaseWeightsFromConfig(config)} (package-private, reached by
 * reflection), then {@code convertToFractionOfSlot} for each declared use case with a fraction of the use
 * case of 1, and for each operator declaring OPERATOR with {@code getFractionRoundedDown(weight, sum of the
 * weights)}, as {@code StreamingJobGraphGenerator} sets it. Until 1.18 convertToFractionOfSlot takes the
 * TaskManager's configuration only; from 1.19 the job's and the TaskManager's.
 */
public final class ConsumersArea implements Area {
    private static final String UTILS = "org.apache.flink.runtime.util.config.memory.ManagedMemoryUtils";

    @Override
    public Object answer(String area, Map<String, Object> input) throws Exception {
        if (!"memory.consumers".equals(area)) {
            throw new BadRequest("ConsumersArea does not answer " + area);
        }
        Configuration cluster = Configuration.fromMap(Area.config(input));
        Map<String, Object> jobInput = new LinkedHashMap<>();
        if (input.containsKey("job_config")) {
            jobInput.put("config", input.get("job_config"));
        }
        Configuration job = Configuration.fromMap(Area.config(jobInput));
        Set<ManagedMemoryUseCase> useCases = useCases(input);
        List<Integer> operators = operatorWeights(input, useCases);
        Object app = input.get("state_backend_uses_managed_memory");
        if (app != null && !(app instanceof Boolean)) {
            throw new BadRequest("input.state_backend_uses_managed_memory must be a boolean or null");
        }
        Optional<Boolean> fromApplication = Optional.ofNullable((Boolean) app);

        Class<?> utils = Class.forName(UTILS);
        Method weightsOf = utils.getDeclaredMethod("getManagedMemoryUseCaseWeightsFromConfig", Configuration.class);
        weightsOf.setAccessible(true);
        Method rounded = utils.getMethod("getFractionRoundedDown", long.class, long.class);
        Method convert = null;
        for (Method m : utils.getMethods()) {
            if (m.getName().equals("convertToFractionOfSlot")) {
                convert = m;
            }
        }
        if (convert == null) {
            throw new IllegalStateException("no ManagedMemoryUtils.convertToFractionOfSlot");
        }
        ClassLoader cl = ConsumersArea.class.getClassLoader();
        Map<String, Object> out = new LinkedHashMap<>();
        try {
            @SuppressWarnings("unchecked")
            Map<ManagedMemoryUseCase, Integer> weights = (Map<ManagedMemoryUseCase, Integer>) weightsOf.invoke(null,
                    cluster);
            Map<String, Object> w = new LinkedHashMap<>();
            for (ManagedMemoryUseCase uc : ManagedMemoryUseCase.values()) {
                if (weights.containsKey(uc)) {
                    w.put(uc.name(), weights.get(uc));
                }
            }
            out.put("weights", w);
            Map<String, Object> fractions = new LinkedHashMap<>();
            for (ManagedMemoryUseCase uc : useCases) {
                fractions.put(uc.name(), decimal(fraction(convert, uc, 1.0, useCases, job, cluster, fromApplication,
                        cl)));
            }
            out.put("fractions", fractions);
            long group = 0;
            for (int weight : operators) {
                group += weight;
            }
            List<Object> ops = new ArrayList<>();
            for (int weight : operators) {
                double ofUseCase = (Double) rounded.invoke(null, (long) weight, group);
                ops.add(decimal(fraction(convert, ManagedMemoryUseCase.OPERATOR, ofUseCase, useCases, job, cluster,
                        fromApplication, cl)));
            }
            out.put("operator_fractions", ops);
        } catch (InvocationTargetException e) {
            throw new Rejected(e.getCause());
        }
        return out;
    }

    private static double fraction(Method convert, ManagedMemoryUseCase uc, double ofUseCase,
            Set<ManagedMemoryUseCase> all, Configuration job, Configuration cluster, Optional<Boolean> app,
            ClassLoader cl) throws Exception {
        if (convert.getParameterCount() == 6) { // 1.13-1.18: (useCase, fraction, all, taskManagerConfig, app, cl)
            return (Double) convert.invoke(null, uc, ofUseCase, all, cluster, app, cl);
        }
        // 1.19+: (useCase, fraction, all, jobConfig, clusterConfig, app, cl)
        return (Double) convert.invoke(null, uc, ofUseCase, all, job, cluster, app, cl);
    }

    private static Set<ManagedMemoryUseCase> useCases(Map<String, Object> input) throws BadRequest {
        Object raw = input.get("use_cases");
        if (!(raw instanceof List)) {
            throw new BadRequest("input.use_cases " + (input.containsKey("use_cases") ? "must be a list" : "is missing"));
        }
        Set<ManagedMemoryUseCase> out = EnumSet.noneOf(ManagedMemoryUseCase.class);
        for (Object name : (List<?>) raw) {
            ManagedMemoryUseCase uc = null;
            for (ManagedMemoryUseCase c : ManagedMemoryUseCase.values()) {
                if (c.name().equals(name)) {
                    uc = c;
                }
            }
            if (uc == null) {
                throw new BadRequest("input.use_cases: " + name + " is no use case");
            }
            if (!out.add(uc)) {
                throw new BadRequest("input.use_cases must not repeat a use case");
            }
        }
        return out;
    }

    private static List<Integer> operatorWeights(Map<String, Object> input, Set<ManagedMemoryUseCase> useCases)
            throws BadRequest {
        List<Integer> out = new ArrayList<>();
        if (!input.containsKey("operator_weights")) {
            return out;
        }
        Object raw = input.get("operator_weights");
        if (!(raw instanceof List)) {
            throw new BadRequest("input.operator_weights must be a list");
        }
        long sum = 0;
        for (Object w : (List<?>) raw) {
            if (!(w instanceof Long || w instanceof Integer) || ((Number) w).longValue() < 1
                    || ((Number) w).longValue() > Integer.MAX_VALUE) {
                throw new BadRequest("input.operator_weights: " + w + " must be an integer in [1, 2147483647]");
            }
            sum += ((Number) w).longValue();
            out.add(((Number) w).intValue());
        }
        if (sum > Integer.MAX_VALUE) {
            throw new BadRequest("input.operator_weights: their sum must fit an int");
        }
        if (!out.isEmpty() && !useCases.contains(ManagedMemoryUseCase.OPERATOR)) {
            throw new BadRequest("input.operator_weights: operators declaring OPERATOR need OPERATOR in input.use_cases");
        }
        return out;
    }

    /** The shortest decimal that reads back as {@code d} (the closest such), in plain notation. */
    static String decimal(double d) {
        if (d == 0) {
            return "0";
        }
        BigDecimal exact = new BigDecimal(d);
        RoundingMode[] modes = {RoundingMode.HALF_EVEN, RoundingMode.FLOOR, RoundingMode.CEILING};
        for (int n = 1; n <= 17; n++) {
            BigDecimal best = null;
            for (RoundingMode mode : modes) {
                BigDecimal c = exact.round(new MathContext(n, mode));
                if (c.doubleValue() != d) {
                    continue;
                }
                if (best == null || c.subtract(exact).abs().compareTo(best.subtract(exact).abs()) < 0) {
                    best = c;
                }
            }
            if (best != null) {
                return best.stripTrailingZeros().toPlainString();
            }
        }
        throw new IllegalStateException("no decimal of at most 17 digits reads back as " + d);
    }
}
