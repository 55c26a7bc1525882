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
    public static Object call(Method m, Object target, Object... args) throws Exception {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            throw cause instanceof Exception ? (Exception) cause : new RuntimeException(cause);
        }
    }

    /**
     * {@code target.name(args)} (a static method of {@code cls} where {@code target} is null) of the method of that
     * name whose parameters take {@code args} that {@code cls} or a superclass declares (else a public one, an
     * interface's default method), made accessible (an object's class may be a package-private implementation),
     * rethrowing what the method threw: a call that compiles against no single release's signature.
     */
    public static Object invokeOn(Class<?> cls, Object target, String name, Object... args) throws Exception {
        Method found = null;
        for (Class<?> c = cls; c != null && found == null; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.getName().equals(name) && takes(m, args) && !m.isSynthetic()) {
                    found = m;
                }
            }
        }
        if (found == null) {
            found = publicMethod(cls, name, args);
        }
        if (found == null) {
            throw new NoSuchMethodException(cls.getName() + "." + name + " with " + args.length + " parameter(s)");
        }
        found.setAccessible(true);
        return call(found, target, args);
    }

    /** A public method {@code name} of {@code cls} (its own, inherited or an interface's) taking {@code args}. */
    private static Method publicMethod(Class<?> cls, String name, Object... args) {
        for (Method m : cls.getMethods()) {
            if (m.getName().equals(name) && takes(m, args)) {
                return m;
            }
        }
        return null;
    }

    private static boolean takes(Method m, Object[] args) {
        Class<?>[] types = m.getParameterTypes();
        if (types.length != args.length) {
            return false;
        }
        for (int i = 0; i < types.length; i++) {
            Class<?> t = types[i];
            if (args[i] == null ? t.isPrimitive() : !(t.isPrimitive() ? boxed(t) : t).isInstance(args[i])) {
                return false;
            }
        }
        return true;
    }

    private static Class<?> boxed(Class<?> primitive) {
        if (primitive == int.class) {
            return Integer.class;
        }
        if (primitive == long.class) {
            return Long.class;
        }
        return primitive == boolean.class ? Boolean.class : Object.class;
    }

    /** Whether {@code cls} has a public method {@code name} whose parameters take {@code args}. */
    public static boolean hasMethodTaking(Class<?> cls, String name, Object... args) {
        return publicMethod(cls, name, args) != null;
    }

    /** The class {@code name}, or null where this release has none. */
    public static Class<?> classOrNull(String name) {
        try {
            return Class.forName(name);
        } catch (ClassNotFoundException e) {
            return null;
        }
    }

    /** {@code target.name(args)}: {@link #invokeOn} on the object's own class. */
    public static Object invoke(Object target, String name, Object... args) throws Exception {
        return invokeOn(target.getClass(), target, name, args);
    }

    /** The field {@code name} of {@code cls} or of a superclass, made accessible, or null if none has it. */
    public static Field field(Class<?> cls, String name) {
        for (Class<?> c = cls; c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f;
            } catch (NoSuchFieldException e) {
                // a superclass may have it
            }
        }
        return null;
    }

    /** {@code target.name = value}: the field of {@code cls} or of a superclass. */
    public static void set(Class<?> cls, Object target, String name, Object value) throws Exception {
        fieldOf(cls, name).set(target, value);
    }

    /** {@code target.name}: the field of {@code cls} or of a superclass. */
    public static Object get(Class<?> cls, Object target, String name) throws Exception {
        return fieldOf(cls, name).get(target);
    }

    /** {@code target.name = value} where the release has that field (of the target's class or a superclass). */
    public static void setIfPresent(Object target, String name, Object value) throws Exception {
        Field f = field(target.getClass(), name);
        if (f != null) {
            f.set(target, value);
        }
    }

    /** {@code target.name}, or null where the release has no such field. */
    public static Object getIfPresent(Object target, String name) throws Exception {
        Field f = field(target.getClass(), name);
        return f == null ? null : f.get(target);
    }

    /** Whether {@code cls} itself declares the field {@code name}. */
    public static boolean declaresField(Class<?> cls, String name) {
        try {
            cls.getDeclaredField(name);
            return true;
        } catch (NoSuchFieldException e) {
            return false;
        }
    }

    /** Whether {@code cls} has a public method {@code name} (its own, inherited or an interface's), of any arity. */
    public static boolean hasMethod(Class<?> cls, String name) {
        for (Method m : cls.getMethods()) {
            if (m.getName().equals(name)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code cls} itself declares a method {@code name} without parameters. */
    public static boolean declaresMethod(Class<?> cls, String name) {
        for (Method m : cls.getDeclaredMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == 0) {
                return true;
            }
        }
        return false;
    }

    /** The field {@code name} of {@code cls} or of a superclass, made accessible; NoSuchFieldException if none. */
    public static Field fieldOf(Class<?> cls, String name) throws NoSuchFieldException {
        Field f = field(cls, name);
        if (f == null) {
            throw new NoSuchFieldException(cls.getName() + "." + name);
        }
        return f;
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
