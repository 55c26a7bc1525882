package flinkspec.bridge;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Helpers the area classes share: proxies standing in for Flink's runtime, reflective calls, events. */
public final class Reflect {
    private Reflect() {}

    /** A dynamic proxy of {@code iface} answering through {@code h}. */
    public static Object proxy(Class<?> iface, InvocationHandler h) {
        return Proxy.newProxyInstance(Reflect.class.getClassLoader(), new Class<?>[] {iface}, h);
    }

    /** {@code hashCode}, {@code equals} and {@code toString} of a proxy named {@code name}. */
    public static Object objectMethod(Object proxy, Method m, Object[] args, String name) {
        switch (m.getName()) {
            case "hashCode":
                return System.identityHashCode(proxy);
            case "equals":
                return proxy == args[0];
            case "toString":
                return name;
            default:
                throw new IllegalStateException("unexpected call " + m);
        }
    }

    /** {@code m.invoke(target, args)}, rethrowing what the method threw rather than a wrapper. */
    public static void call(Method m, Object target, Object... args) throws Exception {
        try {
            m.invoke(target, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            throw cause instanceof Exception ? (Exception) cause : new RuntimeException(cause);
        }
    }

    /** An instance created without running any constructor ({@code sun.misc.Unsafe.allocateInstance}). */
    public static Object allocate(Class<?> cls) throws Exception {
        Field f = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
        f.setAccessible(true);
        Object unsafe = f.get(null);
        return unsafe.getClass().getMethod("allocateInstance", Class.class).invoke(unsafe, cls);
    }

    /** {@code input.events} as a list of objects, or a BadRequest naming the first bad element. */
    @SuppressWarnings("unchecked")
    public static List<Map<String, Object>> eventObjects(Map<String, Object> input) throws Area.BadRequest {
        Object raw = input.get("events");
        if (!(raw instanceof List)) {
            throw new Area.BadRequest("input.events must be an array");
        }
        List<Object> list = (List<Object>) raw;
        List<Map<String, Object>> out = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            if (!(list.get(i) instanceof Map)) {
                throw new Area.BadRequest("input.events[" + i + "] must be an object");
            }
            out.add((Map<String, Object>) list.get(i));
        }
        return out;
    }
}
