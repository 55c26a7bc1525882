package flinkspec.bridge;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.URLConnection;
import java.net.URLStreamHandler;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;

/**
 * {@code classloading.lifecycle}: the user-code class loader a TaskManager builds, used, closed and used
 * again, with planted faults (docs/protocol/classloading-lifecycle.md).
 *
 * <p>The configuration is read as {@code TaskManagerServices.fromConfiguration} reads it: the parent-first
 * patterns and the resolve order ({@code TaskManagerServicesConfiguration}), then
 * {@code classloader.fail-on-metaspace-oom-error} and {@code classloader.check-leaked-classloader}. The
 * class-loading exception handler is Flink's own: the one
 * {@code BlobLibraryCacheManager.defaultClassLoaderFactory(order, patterns, fatalErrorHandler or null,
 * checkLeak)} builds (read from the factory it returns), given to
 * {@code FlinkUserCodeClassLoaders.create} wrapped so that each Throwable it receives is recorded first.
 * The fatal error handler stands in for {@code TaskManagerRunner.onFatalError}: it records the call and
 * runs that method's first step, {@code TaskManagerExceptionUtils.tryEnrichTaskManagerError} (the rest
 * logs and terminates the JVM).
 *
 * <p>Faults: a {@code define} fault's class file sits on a second class path entry of its side, a
 * directory URL of the {@code flinkspec-fault} protocol whose class files open but throw the fault's
 * Throwable when read (inside {@code URLClassLoader.findClass}, where the JVM throws while it defines a
 * class). An {@code initialize} fault is a class in its side's jar whose static initializer throws it.
 */
public final class LifecycleArea implements Area {
    private static final String[] KINDS = {"load", "for_name", "get_resource", "get_resources", "close"};
    private static final int MAX_MESSAGE = 1000;
    private static final int MAX_OPERATIONS = 10000;
    private static final Map<String, String> THROWABLES = new LinkedHashMap<>();

    static {
        for (String n : new String[] {"OutOfMemoryError", "StackOverflowError", "InternalError", "UnknownError",
                "LinkageError", "NoClassDefFoundError", "ClassFormatError", "UnsupportedClassVersionError",
                "IncompatibleClassChangeError", "ClassCircularityError", "VerifyError", "AbstractMethodError",
                "NoSuchFieldError", "NoSuchMethodError", "IllegalAccessError", "InstantiationError",
                "ExceptionInInitializerError", "AssertionError", "Error", "RuntimeException",
                "IllegalStateException", "IllegalArgumentException", "NullPointerException", "SecurityException",
                "UnsupportedOperationException", "ClassCastException", "IndexOutOfBoundsException",
                "ArrayIndexOutOfBoundsException", "ArithmeticException", "NegativeArraySizeException",
                "Exception", "Throwable", "ClassNotFoundException", "CloneNotSupportedException",
                "InterruptedException"}) {
            THROWABLES.put(n, "java.lang." + n);
        }
        THROWABLES.put("ConcurrentModificationException", "java.util.ConcurrentModificationException");
        for (String n : new String[] {"IOException", "FileNotFoundException", "EOFException"}) {
            THROWABLES.put(n, "java.io." + n);
        }
        THROWABLES.put("ZipException", "java.util.zip.ZipException");
    }

    /** A planted class: its side, stage and the Throwable it throws. */
    static final class Fault {
        final String name;
        final String side;
        final String stage;
        final Class<? extends Throwable> type;
        final String message;

        Fault(String name, String side, String stage, Class<? extends Throwable> type, String message) {
            this.name = name;
            this.side = side;
            this.stage = stage;
            this.type = type;
            this.message = message;
        }

        Throwable create() {
            try {
                if (message == null) {
                    return type.getDeclaredConstructor().newInstance();
                }
                Class<?> param = type == AssertionError.class ? Object.class : String.class;
                return type.getDeclaredConstructor(param).newInstance(message);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot instantiate " + type, e);
            }
        }
    }

    @Override
    public Object answer(String area, Map<String, Object> input) throws Exception {
        if (!"classloading.lifecycle".equals(area)) {
            throw new BadRequest("LifecycleArea does not answer " + area);
        }
        List<String> userClasses = ClassLoadingArea.names(input, "user_classes", false);
        List<String> parentClasses = ClassLoadingArea.names(input, "parent_classes", false);
        List<String> userResources = ClassLoadingArea.names(input, "user_resources", true);
        List<String> parentResources = ClassLoadingArea.names(input, "parent_resources", true);
        Map<String, String> userEntries = ClassLoadingArea.entries("user", userClasses, userResources);
        Map<String, String> parentEntries = ClassLoadingArea.entries("parent", parentClasses, parentResources);
        Map<String, Fault> faults = faults(input, userEntries, parentEntries);
        List<Object[]> operations = operations(input);
        Map<String, String> configMap = Area.config(input);

        Class<?> loaders = ClassLoadingArea.loadersClass();
        Class<?> orderClass = Class.forName(loaders.getName() + "$ResolveOrder");
        String[] patterns;
        Object order;
        boolean failOnMetaspace;
        boolean checkLeak;
        try {
            Configuration config = Configuration.fromMap(configMap);
            patterns = CoreOptions.getParentFirstLoaderPatterns(config);
            order = ClassLoadingArea.invoke(orderClass.getMethod("fromString", String.class), null,
                    config.get(CoreOptions.CLASSLOADER_RESOLVE_ORDER));
            failOnMetaspace = config.get(CoreOptions.FAIL_ON_USER_CLASS_LOADING_METASPACE_OOM);
            checkLeak = config.get(CoreOptions.CHECK_LEAKED_CLASSLOADER);
        } catch (RuntimeException e) {
            throw new Rejected(e);
        }

        List<Map<String, Object>> handled = new ArrayList<>();
        Consumer<Throwable> flinkHandler = flinkHandler(orderClass, order, patterns, failOnMetaspace, checkLeak, handled);
        Consumer<Throwable> recording = t -> {
            Map<String, Object> h = new LinkedHashMap<>();
            h.put("exception", t.getClass().getSimpleName());
            h.put("message", t.getMessage());
            h.put("fatal", false);
            handled.add(h);
            flinkHandler.accept(t);
        };
        Method create = loaders.getMethod("create", orderClass, URL[].class, ClassLoader.class, String[].class,
                Consumer.class, boolean.class);

        for (Fault f : faults.values()) {
            if (f.stage.equals("initialize")) {
                (f.side.equals("user") ? userEntries : parentEntries).put(f.name.replace('.', '/') + ".class", f.name);
            }
        }
        Path dir = Files.createTempDirectory("flinkspec-lifecycle");
        try {
            URL userJar = writeJar(dir.resolve("user.jar"), userEntries, faults, "user");
            URL parentJar = writeJar(dir.resolve("parent.jar"), parentEntries, faults, "parent");
            FaultHandler handler = new FaultHandler(faults);
            URL userFaults = new URL(null, "flinkspec-fault:/user/", handler);
            URL parentFaults = new URL(null, "flinkspec-fault:/parent/", handler);
            try (URLClassLoader parent = new URLClassLoader(new URL[] {parentJar, parentFaults},
                    ClassLoader.getPlatformClassLoader())) {
                URLClassLoader loader = (URLClassLoader) ClassLoadingArea.invoke(create, null, order,
                        new URL[] {userJar, userFaults}, parent, patterns, recording, checkLeak);
                ClassLoader inner = ClassLoadingArea.innerOf(loader);
                List<String> userPrefixes = List.of("jar:" + userJar + "!/", userFaults.toString());
                List<String> parentPrefixes = List.of("jar:" + parentJar + "!/", parentFaults.toString(), "jrt:/");
                List<Object> results = new ArrayList<>();
                try {
                    for (Object[] op : operations) {
                        handled.clear();
                        Object result = run(op, loader, inner, parent, userPrefixes, parentPrefixes);
                        Map<String, Object> r = new LinkedHashMap<>();
                        r.put("result", result);
                        r.put("handled", new ArrayList<Object>(handled));
                        results.add(r);
                    }
                } finally {
                    loader.close();
                }
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("results", results);
                // the loader FlinkUserCodeClassLoaders.create built: SafetyNetWrapperClassLoader (check on) or
                // ChildFirstClassLoader / ParentFirstClassLoader (check off); a property of its class
                out.put("parallel_capable", loader.isRegisteredAsParallelCapable());
                return out;
            }
        } finally {
            ClassLoadingArea.deleteTree(dir);
        }
    }

    /** Flink's handler, built by BlobLibraryCacheManager.defaultClassLoaderFactory, with a recording fatal handler. */
    private static Consumer<Throwable> flinkHandler(Class<?> orderClass, Object order, String[] patterns,
            boolean failOnMetaspace, boolean checkLeak, List<Map<String, Object>> handled) throws Exception {
        Class<?> fatalClass = Class.forName("org.apache.flink.runtime.rpc.FatalErrorHandler");
        Method enrich = Class.forName("org.apache.flink.util.TaskManagerExceptionUtils")
                .getMethod("tryEnrichTaskManagerError", Throwable.class);
        Object fatal = Reflect.proxy(fatalClass, (proxy, m, args) -> {
            if (!m.getName().equals("onFatalError")) {
                return Reflect.objectMethod(proxy, m, args, "TaskManagerRunner");
            }
            handled.get(handled.size() - 1).put("fatal", true);
            enrich.invoke(null, args[0]); // TaskManagerRunner.onFatalError's first step
            return null;
        });
        Class<?> cache = Class.forName("org.apache.flink.runtime.execution.librarycache.BlobLibraryCacheManager");
        Method factoryMethod = cache.getMethod("defaultClassLoaderFactory", orderClass, String[].class, fatalClass,
                boolean.class);
        Object factory = factoryMethod.invoke(null, order, patterns, failOnMetaspace ? fatal : null, checkLeak);
        Field f = factory.getClass().getDeclaredField("classLoadingExceptionHandler");
        f.setAccessible(true);
        @SuppressWarnings("unchecked")
        Consumer<Throwable> h = (Consumer<Throwable>) f.get(factory);
        return h;
    }

    private static Object run(Object[] op, URLClassLoader loader, ClassLoader inner, ClassLoader parent,
            List<String> userPrefixes, List<String> parentPrefixes) throws IOException {
        String kind = (String) op[0];
        String name = (String) op[1];
        try {
            switch (kind) {
                case "load":
                    return side(loader.loadClass(name), loader, inner, parent, name);
                case "for_name":
                    return side(Class.forName(name, (Boolean) op[2], loader), loader, inner, parent, name);
                case "get_resource": {
                    URL url = loader.getResource(name);
                    return url == null ? "not_found" : side(url, userPrefixes, parentPrefixes);
                }
                case "get_resources": {
                    List<Object> where = new ArrayList<>();
                    Enumeration<URL> urls = loader.getResources(name);
                    while (urls.hasMoreElements()) {
                        where.add(side(urls.nextElement(), userPrefixes, parentPrefixes));
                    }
                    return where;
                }
                default:
                    loader.close();
                    return "closed";
            }
        } catch (ClassNotFoundException e) {
            return "not_found";
        } catch (Throwable t) {
            return "error:" + t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
        }
    }

    private static String side(Class<?> c, ClassLoader loader, ClassLoader inner, ClassLoader parent, String name) {
        ClassLoader cl = c.getClassLoader();
        if (cl == loader || cl == inner) {
            return "user";
        }
        if (cl == null || cl == ClassLoader.getPlatformClassLoader() || cl == parent
                || (cl == ClassLoader.getSystemClassLoader() && c.getModule().isNamed())) {
            return "parent";
        }
        throw new IllegalStateException(name + " was defined by an unexpected class loader " + cl);
    }

    private static String side(URL url, List<String> userPrefixes, List<String> parentPrefixes) {
        String text = url.toString();
        for (String p : userPrefixes) {
            if (text.startsWith(p)) {
                return "user";
            }
        }
        for (String p : parentPrefixes) {
            if (text.startsWith(p)) {
                return "parent";
            }
        }
        throw new IllegalStateException("a resource found at an unexpected place " + text);
    }

    // ---------------------------------------------------------------- the class path

    /** The jar of one side: its entries, an initialize fault's class with a throwing static initializer. */
    private static URL writeJar(Path jar, Map<String, String> entries, Map<String, Fault> faults, String side)
            throws IOException {
        Map<String, byte[]> bytes = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : entries.entrySet()) {
            String cls = e.getValue();
            Fault f = cls == null ? null : faults.get(side + ":" + cls);
            String internal = cls == null ? null : cls.replace('.', '/');
            bytes.put(e.getKey(), cls == null ? ClassLoadingArea.RESOURCE_BYTES
                    : f == null ? ClassLoadingArea.classFile(internal) : throwingClassFile(internal, f));
        }
        try (java.io.OutputStream file = Files.newOutputStream(jar);
                java.util.jar.JarOutputStream out = new java.util.jar.JarOutputStream(file)) {
            for (Map.Entry<String, byte[]> e : bytes.entrySet()) {
                out.putNextEntry(new java.util.jar.JarEntry(e.getKey()));
                out.write(e.getValue());
                out.closeEntry();
            }
        }
        return jar.toUri().toURL();
    }

    /** A public class extending Object whose static initializer throws {@code new T(message)}. */
    static byte[] throwingClassFile(String internalName, Fault f) throws IOException {
        boolean withMessage = f.message != null;
        String ctor = !withMessage ? "()V" : f.type == AssertionError.class ? "(Ljava/lang/Object;)V"
                : "(Ljava/lang/String;)V";
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(0xCAFEBABE);
        out.writeShort(0);
        out.writeShort(52);
        out.writeShort(withMessage ? 16 : 14); // constant pool count
        out.writeByte(7); out.writeShort(2); // #1 Class this
        out.writeByte(1); out.writeUTF(internalName); // #2
        out.writeByte(7); out.writeShort(4); // #3 Class Object
        out.writeByte(1); out.writeUTF("java/lang/Object"); // #4
        out.writeByte(7); out.writeShort(6); // #5 Class T
        out.writeByte(1); out.writeUTF(f.type.getName().replace('.', '/')); // #6
        out.writeByte(1); out.writeUTF("<clinit>"); // #7
        out.writeByte(1); out.writeUTF("()V"); // #8
        out.writeByte(1); out.writeUTF("Code"); // #9
        out.writeByte(10); out.writeShort(5); out.writeShort(11); // #10 Methodref T.<init>
        out.writeByte(12); out.writeShort(12); out.writeShort(13); // #11 NameAndType
        out.writeByte(1); out.writeUTF("<init>"); // #12
        out.writeByte(1); out.writeUTF(ctor); // #13
        if (withMessage) {
            out.writeByte(8); out.writeShort(15); // #14 String
            out.writeByte(1); out.writeUTF(f.message); // #15
        }
        out.writeShort(0x0021); // ACC_PUBLIC | ACC_SUPER
        out.writeShort(1);
        out.writeShort(3);
        out.writeShort(0); // interfaces
        out.writeShort(0); // fields
        out.writeShort(1); // methods
        out.writeShort(0x0008); // ACC_STATIC
        out.writeShort(7);
        out.writeShort(8);
        out.writeShort(1); // attributes
        byte[] code = withMessage
                ? new byte[] {(byte) 0xbb, 0, 5, 0x59, 0x13, 0, 14, (byte) 0xb7, 0, 10, (byte) 0xbf}
                : new byte[] {(byte) 0xbb, 0, 5, 0x59, (byte) 0xb7, 0, 10, (byte) 0xbf};
        out.writeShort(9);
        out.writeInt(12 + code.length);
        out.writeShort(3); // max stack
        out.writeShort(0); // max locals
        out.writeInt(code.length);
        out.write(code);
        out.writeShort(0); // exception table
        out.writeShort(0); // attributes
        out.writeShort(0); // class attributes
        out.flush();
        return bytes.toByteArray();
    }

    /** {@code flinkspec-fault:/<side>/<class file>}: opens for a define fault's class file, throws when read. */
    static final class FaultHandler extends URLStreamHandler {
        private final Map<String, Fault> faults;

        FaultHandler(Map<String, Fault> faults) {
            this.faults = faults;
        }

        @Override
        protected URLConnection openConnection(URL u) {
            return new URLConnection(u) {
                @Override
                public void connect() {
                }

                @Override
                public InputStream getInputStream() throws IOException {
                    String path = decode(url.getPath());
                    int slash = path.indexOf('/', 1);
                    Fault f = null;
                    if (slash > 0 && path.endsWith(".class")) {
                        String cls = path.substring(slash + 1, path.length() - 6).replace('/', '.');
                        f = faults.get(path.substring(1, slash) + ":" + cls);
                    }
                    if (f == null || !f.stage.equals("define")) {
                        throw new FileNotFoundException(url.toString());
                    }
                    Fault fault = f;
                    return new InputStream() {
                        @Override
                        public int read() throws IOException {
                            return read(new byte[1], 0, 1);
                        }

                        @Override
                        public int read(byte[] b, int off, int len) throws IOException {
                            Throwable t = fault.create();
                            if (t instanceof IOException) {
                                throw (IOException) t;
                            }
                            if (t instanceof RuntimeException) {
                                throw (RuntimeException) t;
                            }
                            throw (Error) t;
                        }
                    };
                }
            };
        }

        /**
         * A URL path's %XX escapes decoded: {@code ParseUtil.encodePath} (which {@code URLClassPath} applies to a
         * resource name) writes each UTF-16 char of a non-ASCII name as its own 1-3 byte sequence, so a
         * supplementary char comes as two 3-byte surrogate sequences; '+' stays '+'.
         */
        static String decode(String path) {
            StringBuilder out = new StringBuilder();
            int i = 0;
            while (i < path.length()) {
                if (path.charAt(i) != '%') {
                    out.append(path.charAt(i++));
                    continue;
                }
                int b = hex(path, i);
                int n = b < 0x80 ? 1 : b < 0xE0 ? 2 : 3;
                int c = n == 1 ? b : n == 2 ? b & 0x1F : b & 0x0F;
                for (int k = 1; k < n; k++) {
                    c = (c << 6) | (hex(path, i + 3 * k) & 0x3F);
                }
                out.append((char) c);
                i += 3 * n;
            }
            return out.toString();
        }

        private static int hex(String s, int at) {
            return Integer.parseInt(s.substring(at + 1, at + 3), 16);
        }
    }

    // ---------------------------------------------------------------- validation

    @SuppressWarnings("unchecked")
    private static Map<String, Fault> faults(Map<String, Object> input, Map<String, String> userEntries,
            Map<String, String> parentEntries) throws BadRequest {
        Map<String, Fault> out = new LinkedHashMap<>();
        if (!input.containsKey("faults")) {
            return out;
        }
        if (!(input.get("faults") instanceof List)) {
            throw new BadRequest("input.faults must be an array");
        }
        List<Object> raw = (List<Object>) input.get("faults");
        boolean initializers = false;
        String java = null;
        for (int i = 0; i < raw.size(); i++) {
            String where = "input.faults[" + i + "]";
            if (!(raw.get(i) instanceof Map)) {
                throw new BadRequest(where + " must be an object");
            }
            Map<String, Object> item = (Map<String, Object>) raw.get(i);
            String name = Json.string(item, "class", where);
            String why = ClassLoadingArea.binaryNameProblem(name);
            if (why != null) {
                throw new BadRequest(where + ".class = " + Json.write(name) + " is not a valid binary name: " + why);
            }
            String side = Json.string(item, "side", where);
            String stage = Json.string(item, "stage", where);
            String throwsName = Json.string(item, "throws", where);
            Object message = item.get("message");
            if (!side.equals("user") && !side.equals("parent")) {
                throw new BadRequest(where + ".side must be 'user' or 'parent'");
            }
            if (!stage.equals("define") && !stage.equals("initialize")) {
                throw new BadRequest(where + ".stage must be 'define' or 'initialize'");
            }
            if (!THROWABLES.containsKey(throwsName)) {
                throw new BadRequest(where + ".throws = " + Json.write(throwsName) + " is no known Throwable");
            }
            Class<? extends Throwable> type;
            try {
                type = Class.forName(THROWABLES.get(throwsName)).asSubclass(Throwable.class);
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
            boolean checked = !Error.class.isAssignableFrom(type) && !RuntimeException.class.isAssignableFrom(type)
                    && !IOException.class.isAssignableFrom(type);
            if (stage.equals("define") && checked) {
                throw new BadRequest(where + ": reading a class file throws no " + throwsName);
            }
            if (message != null && !(message instanceof String)) {
                throw new BadRequest(where + ".message must be a string or null");
            }
            String text = (String) message;
            if (text != null && (text.length() > MAX_MESSAGE || hasLoneSurrogate(text))) {
                throw new BadRequest(where + ".message must be at most " + MAX_MESSAGE + " chars with no lone surrogate");
            }
            Map<String, String> entries = side.equals("user") ? userEntries : parentEntries;
            String key = side + ":" + name;
            if (out.containsKey(key) || entries.containsKey(name.replace('.', '/') + ".class")) {
                throw new BadRequest(where + ".class = " + Json.write(name) + " is already an entry of the " + side + " jar");
            }
            out.put(key, new Fault(name, side, stage, type, text));
            initializers |= stage.equals("initialize");
            if (java == null && name.startsWith("java.")) {
                java = name;
            }
        }
        for (Map<String, String> entries : List.of(userEntries, parentEntries)) {
            for (String entry : entries.keySet()) {
                if (java == null && entry.startsWith("java/") && entry.endsWith(".class")) {
                    java = entry;
                }
            }
        }
        if (initializers && java != null) {
            throw new BadRequest("input.faults: a class whose initializer throws needs content without java.* "
                    + "classes, got " + Json.write(java));
        }
        return out;
    }

    private static boolean hasLoneSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    @SuppressWarnings("unchecked")
    private static List<Object[]> operations(Map<String, Object> input) throws BadRequest {
        if (!(input.get("operations") instanceof List)) {
            throw new BadRequest("input.operations " + (input.containsKey("operations") ? "must be an array"
                    : "is missing"));
        }
        List<Object> raw = (List<Object>) input.get("operations");
        if (raw.size() > MAX_OPERATIONS) {
            throw new BadRequest("input.operations has " + raw.size() + " entries; at most " + MAX_OPERATIONS);
        }
        List<Object[]> out = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            String where = "input.operations[" + i + "]";
            if (!(raw.get(i) instanceof Map)) {
                throw new BadRequest(where + " must be an object");
            }
            Map<String, Object> op = (Map<String, Object>) raw.get(i);
            String kind = null;
            int count = 0;
            for (String k : KINDS) {
                if (op.containsKey(k)) {
                    kind = k;
                    count++;
                }
            }
            int known = count + (op.containsKey("initialize") ? 1 : 0);
            if (count != 1 || known != op.size() || (op.containsKey("initialize") && !"for_name".equals(kind))) {
                throw new BadRequest(where + " must have exactly one of load, for_name (with an optional "
                        + "initialize), get_resource, get_resources, close");
            }
            if (kind.equals("close")) {
                if (!Boolean.TRUE.equals(op.get("close"))) {
                    throw new BadRequest(where + ".close must be true");
                }
                out.add(new Object[] {kind, null, false});
                continue;
            }
            String name = Json.string(op, kind, where);
            boolean resource = kind.startsWith("get_");
            String why = resource ? ClassLoadingArea.resourceNameProblem(name) : ClassLoadingArea.binaryNameProblem(name);
            if (why != null) {
                throw new BadRequest(where + "." + kind + " = " + Json.write(name) + " is not a valid "
                        + (resource ? "resource" : "binary") + " name: " + why);
            }
            Object init = op.getOrDefault("initialize", false);
            if (!(init instanceof Boolean)) {
                throw new BadRequest(where + ".initialize must be a boolean");
            }
            if ((Boolean) init && isJdkClass(name)) {
                throw new BadRequest(where + ": initializing the JDK class " + Json.write(name) + " is not modelled");
            }
            out.add(new Object[] {kind, name, init});
        }
        return out;
    }

    private static boolean isJdkClass(String name) {
        try {
            Class.forName(name, false, ClassLoader.getPlatformClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
