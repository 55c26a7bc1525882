package flinkspec.bridge;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;

/**
 * {@code classloading.resolve}: a user-code class loader built by Flink's own
 * {@code FlinkUserCodeClassLoaders.create}, over a real user jar and a real parent jar written
 * for the request.
 *
 * <p>The configuration is read in the order the TaskManager reads it
 * ({@code TaskManagerServicesConfiguration.fromConfiguration}, then
 * {@code TaskManagerServices.fromConfiguration}): the parent-first patterns
 * ({@code CoreOptions.getParentFirstLoaderPatterns}), then {@code ResolveOrder.fromString} of
 * {@code classloader.resolve-order}, then {@code classloader.check-leaked-classloader}.
 *
 * <p>{@code FlinkUserCodeClassLoaders} lives in {@code org.apache.flink.runtime.execution.librarycache}
 * in 1.13-1.15 and in {@code org.apache.flink.util} from 1.16 on; it and its {@code ResolveOrder}
 * are reached by reflection so that one source compiles against every flink-dist jar.
 * {@code getParentFirstLoaderPatterns} takes a {@code Configuration} in 1.13-1.15 and a
 * {@code ReadableConfig} from 1.16 on; both accept the {@code Configuration} passed here.
 *
 * <p>The parent is a {@code URLClassLoader} over the parent jar whose parent is the platform
 * class loader, so the JDK (and nothing of Flink's own class path) is visible above it. A class
 * counts as "parent" when its loader is the boot, platform or parent loader, or the application
 * loader for a class of a named (JDK) module: the platform loader delegates to the application
 * loader for the packages of JDK modules defined to it (jdk.compiler, jdk.jshell, ...).
 *
 * <p>{@code resources} lists where {@code getResources} finds each name; {@code resource} (protocol 3,
 * only when the request has {@code resource_lookup_one}) where {@code getResource} finds each name, or
 * null. Both are asked of the loader {@code create} returned (a {@code SafetyNetWrapperClassLoader} when
 * the leak check is on), so whether they agree is Flink's answer, not the bridge's.
 *
 * <p>Every resource entry holds the bytes of an empty but valid manifest, so that names the jar
 * code treats specially ({@code META-INF/MANIFEST.MF} in any case, signature files) stay inert:
 * with other bytes, a {@code META-INF/MANIFEST.MF} entry makes every class of a named package in
 * that jar unloadable ({@code URLClassLoader.defineClass} reads the manifest).
 */
public final class ClassLoadingArea implements Area {
    private static final int MAX_NAME = 1024;
    static final byte[] RESOURCE_BYTES = "Manifest-Version: 1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final String[] LOADERS_CLASS = {
        "org.apache.flink.util.FlinkUserCodeClassLoaders", // 1.16+
        "org.apache.flink.runtime.execution.librarycache.FlinkUserCodeClassLoaders", // 1.13-1.15
    };

    @Override
    public Object answer(String area, Map<String, Object> input) throws Exception {
        if (!"classloading.resolve".equals(area)) {
            throw new BadRequest("ClassLoadingArea does not answer " + area);
        }
        List<String> userClasses = names(input, "user_classes", false);
        List<String> parentClasses = names(input, "parent_classes", false);
        List<String> lookups = names(input, "lookups", false);
        List<String> userResources = names(input, "user_resources", true);
        List<String> parentResources = names(input, "parent_resources", true);
        List<String> resourceLookups = names(input, "resource_lookups", true);
        List<String> singleLookups = names(input, "resource_lookup_one", true);
        Map<String, String> userEntries = entries("user", userClasses, userResources);
        Map<String, String> parentEntries = entries("parent", parentClasses, parentResources);
        Map<String, String> configMap = Area.config(input);
        List<URL> userJars = realJars(input, "user_jars");
        List<URL> parentJars = realJars(input, "parent_jars");

        Class<?> loaders = loadersClass();
        Class<?> orderClass = Class.forName(loaders.getName() + "$ResolveOrder");
        String[] patterns;
        Object order;
        boolean checkLeak;
        try {
            Configuration config = Configuration.fromMap(configMap);
            patterns = CoreOptions.getParentFirstLoaderPatterns(config);
            order = invoke(orderClass.getMethod("fromString", String.class), null,
                    config.get(CoreOptions.CLASSLOADER_RESOLVE_ORDER));
            checkLeak = config.get(CoreOptions.CHECK_LEAKED_CLASSLOADER);
        } catch (RuntimeException e) {
            throw new Rejected(e);
        }
        Method create = loaders.getMethod("create", orderClass, URL[].class, ClassLoader.class, String[].class,
                Consumer.class, boolean.class);

        Path dir = Files.createTempDirectory("flinkspec-classloading");
        try {
            Path userJar = writeJar(dir.resolve("user.jar"), userEntries);
            Path parentJar = writeJar(dir.resolve("parent.jar"), parentEntries);
            List<URL> userUrls = new ArrayList<>();
            userUrls.add(userJar.toUri().toURL());
            userUrls.addAll(userJars);
            List<URL> parentUrls = new ArrayList<>();
            parentUrls.add(parentJar.toUri().toURL());
            parentUrls.addAll(parentJars);
            Consumer<Throwable> noop = t -> { };
            try (URLClassLoader parent = new URLClassLoader(parentUrls.toArray(new URL[0]),
                    ClassLoader.getPlatformClassLoader());
                    URLClassLoader loader = (URLClassLoader) invoke(create, null,
                            order, userUrls.toArray(new URL[0]), parent, patterns, noop, checkLeak)) {
                ClassLoader inner = innerOf(loader);
                Map<String, Object> out = new LinkedHashMap<>();
                List<Object> patternList = new ArrayList<>();
                Collections.addAll(patternList, (Object[]) patterns);
                out.put("patterns", patternList);
                List<Object> resolved = new ArrayList<>();
                for (String name : lookups) {
                    resolved.add(resolve(loader, inner, parent, name));
                }
                out.put("resolved", resolved);
                List<Object> resources = new ArrayList<>();
                for (String name : resourceLookups) {
                    resources.add(resources(loader, name, prefixes(userUrls), prefixes(parentUrls)));
                }
                out.put("resources", resources);
                if (input.containsKey("resource_lookup_one")) {
                    List<Object> single = new ArrayList<>();
                    for (String name : singleLookups) {
                        single.add(resource(loader, name, prefixes(userUrls), prefixes(parentUrls)));
                    }
                    out.put("resource", single);
                }
                return out;
            }
        } finally {
            deleteTree(dir);
        }
    }

    static String resolve(ClassLoader loader, ClassLoader inner, ClassLoader parent, String name) {
        Class<?> c;
        try {
            c = loader.loadClass(name);
        } catch (ClassNotFoundException e) {
            return "not_found";
        } catch (Throwable t) {
            return "error:" + t.getClass().getSimpleName();
        }
        ClassLoader cl = c.getClassLoader();
        if (cl == null || cl == ClassLoader.getPlatformClassLoader() || cl == parent) {
            return "parent";
        }
        if (cl == ClassLoader.getSystemClassLoader() && c.getModule().isNamed()) {
            // a JDK module defined to the application loader (jdk.compiler, ...): the platform
            // loader delegates to it for those packages
            return "parent";
        }
        if (cl == loader || cl == inner) {
            return "user";
        }
        throw new IllegalStateException(name + " was defined by an unexpected class loader " + cl);
    }

    static List<String> prefixes(List<URL> jars) {
        List<String> out = new ArrayList<>();
        for (URL jar : jars) {
            out.add("jar:" + jar + "!/");
        }
        return out;
    }

    private static boolean startsWithAny(String url, List<String> prefixes) {
        for (String p : prefixes) {
            if (url.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Extension {@code user_jars} / {@code parent_jars}: absolute paths of existing jars put on that
     * side's class path after the generated jar ({@code flinkspec classpath --impl flink:X.Y}).
     */
    @SuppressWarnings("unchecked")
    private static List<URL> realJars(Map<String, Object> input, String key) throws Exception {
        List<URL> out = new ArrayList<>();
        if (!input.containsKey(key)) {
            return out;
        }
        Object raw = input.get(key);
        if (!(raw instanceof List)) {
            throw new BadRequest("input." + key + " must be an array of jar paths");
        }
        List<Object> items = (List<Object>) raw;
        for (int i = 0; i < items.size(); i++) {
            Object item = items.get(i);
            if (!(item instanceof String) || !java.nio.file.Paths.get((String) item).isAbsolute()) {
                throw new BadRequest("input." + key + "[" + i + "] must be an absolute path");
            }
            Path jar = java.nio.file.Paths.get((String) item);
            if (!Files.isRegularFile(jar)) {
                throw new BadRequest("input." + key + "[" + i + "] = " + item + ": no such jar");
            }
            out.add(jar.toUri().toURL());
        }
        return out;
    }

    static List<Object> resources(ClassLoader loader, String name, List<String> userPrefixes,
            List<String> parentPrefixes) throws IOException {
        List<Object> where = new ArrayList<>();
        Enumeration<URL> urls = loader.getResources(name);
        while (urls.hasMoreElements()) {
            where.add(side(name, urls.nextElement(), userPrefixes, parentPrefixes));
        }
        return where;
    }

    /** Where {@code loader.getResource(name)} finds it: "user", "parent", or null for nowhere. */
    private static Object resource(ClassLoader loader, String name, List<String> userPrefixes,
            List<String> parentPrefixes) {
        URL url = loader.getResource(name);
        return url == null ? null : side(name, url, userPrefixes, parentPrefixes);
    }

    private static String side(String name, URL found, List<String> userPrefixes, List<String> parentPrefixes) {
        String url = found.toString();
        if (startsWithAny(url, userPrefixes)) {
            return "user";
        }
        if (startsWithAny(url, parentPrefixes) || url.startsWith("jrt:/")) {
            return "parent";
        }
        throw new IllegalStateException("resource " + name + " found at an unexpected place " + url);
    }

    /** The loader a SafetyNetWrapperClassLoader delegates to, or {@code loader} itself. */
    static ClassLoader innerOf(ClassLoader loader) throws ReflectiveOperationException {
        if (!loader.getClass().getSimpleName().equals("SafetyNetWrapperClassLoader")) {
            return loader;
        }
        Field f = loader.getClass().getDeclaredField("inner");
        f.setAccessible(true);
        return (ClassLoader) f.get(loader);
    }

    static Class<?> loadersClass() throws ClassNotFoundException {
        for (String name : LOADERS_CLASS) {
            try {
                return Class.forName(name);
            } catch (ClassNotFoundException e) {
                // try the next place
            }
        }
        throw new ClassNotFoundException("FlinkUserCodeClassLoaders in none of " + String.join(", ", LOADERS_CLASS));
    }

    // ---------------------------------------------------------------- the jars

    static Path writeJar(Path jar, Map<String, String> entries) throws IOException {
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file)) {
            for (Map.Entry<String, String> e : entries.entrySet()) {
                out.putNextEntry(new JarEntry(e.getKey()));
                out.write(e.getValue() == null ? RESOURCE_BYTES : classFile(e.getValue().replace('.', '/')));
                out.closeEntry();
            }
        }
        return jar;
    }

    /** A public class {@code internalName} extending Object, version 52.0, with no members. */
    static byte[] classFile(String internalName) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(0xCAFEBABE);
        out.writeShort(0); // minor
        out.writeShort(52); // major: Java 8
        out.writeShort(5); // constant pool count (entries 1..4)
        out.writeByte(7); // #1 Class #2
        out.writeShort(2);
        out.writeByte(1); // #2 Utf8 this class
        out.writeUTF(internalName);
        out.writeByte(7); // #3 Class #4
        out.writeShort(4);
        out.writeByte(1); // #4 Utf8 super class
        out.writeUTF("java/lang/Object");
        out.writeShort(0x0021); // ACC_PUBLIC | ACC_SUPER
        out.writeShort(1); // this_class
        out.writeShort(3); // super_class
        out.writeShort(0); // interfaces
        out.writeShort(0); // fields
        out.writeShort(0); // methods
        out.writeShort(0); // attributes
        out.flush();
        return bytes.toByteArray();
    }

    static void deleteTree(Path dir) throws IOException {
        List<Path> paths = new ArrayList<>();
        try (java.util.stream.Stream<Path> walk = Files.walk(dir)) {
            walk.forEach(paths::add);
        }
        Collections.reverse(paths);
        for (Path p : paths) {
            Files.deleteIfExists(p);
        }
    }

    // ---------------------------------------------------------------- validation

    /**
     * The jar entries of one side, entry name to class name (null for a resource): class files,
     * then resources. A resource equal to a class file would be a duplicate entry and is refused.
     */
    static Map<String, String> entries(String side, List<String> classes, List<String> resources)
            throws BadRequest {
        Map<String, String> entries = new LinkedHashMap<>();
        for (String c : classes) {
            entries.put(c.replace('.', '/') + ".class", c);
        }
        for (int i = 0; i < resources.size(); i++) {
            String r = resources.get(i);
            String cls = entries.get(r);
            if (cls != null) {
                throw new BadRequest(side + "_resources[" + i + "] = " + Json.write(r) + " is the class file of "
                        + Json.write(cls) + " in " + side + "_classes (it would be a duplicate jar entry)");
            }
            entries.put(r, null);
        }
        return entries;
    }

    @SuppressWarnings("unchecked")
    static List<String> names(Map<String, Object> input, String field, boolean resource) throws BadRequest {
        List<String> out = new ArrayList<>();
        if (!input.containsKey(field)) {
            return out;
        }
        Object raw = input.get(field);
        if (!(raw instanceof List)) {
            throw new BadRequest("input." + field + " must be an array of strings");
        }
        List<Object> list = (List<Object>) raw;
        for (int i = 0; i < list.size(); i++) {
            Object v = list.get(i);
            if (!(v instanceof String)) {
                throw new BadRequest("input." + field + "[" + i + "] must be a string");
            }
            String name = (String) v;
            String why = resource ? resourceNameProblem(name) : binaryNameProblem(name);
            if (why != null) {
                throw new BadRequest(field + "[" + i + "] = " + Json.write(name) + " is not a valid "
                        + (resource ? "resource" : "binary") + " name: " + why);
            }
            out.add(name);
        }
        return out;
    }

    /** Why {@code name} is not a binary name the bridge can put in a jar, or null. */
    static String binaryNameProblem(String name) {
        String common = commonProblem(name, "/;[");
        if (common != null) {
            return common;
        }
        for (String seg : name.split("\\.", -1)) {
            if (seg.isEmpty()) {
                return "empty segment";
            }
        }
        return null;
    }

    /** Why {@code name} is not a resource name the bridge can put in a jar, or null. */
    static String resourceNameProblem(String name) {
        String common = commonProblem(name, "\\");
        if (common != null) {
            return common;
        }
        for (String seg : name.split("/", -1)) {
            if (seg.isEmpty()) {
                return "empty segment";
            }
            if (seg.equals(".") || seg.equals("..")) {
                return "segment '" + seg + "'";
            }
        }
        return null;
    }

    private static String commonProblem(String name, String forbidden) {
        if (name.isEmpty() || name.length() > MAX_NAME) {
            return "length " + name.length() + " is not in 1.." + MAX_NAME;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x20) {
                return String.format("control character U+%04X", (int) c);
            }
            if (forbidden.indexOf(c) >= 0) {
                return "character '" + c + "'";
            }
            if (Character.isHighSurrogate(c) && i + 1 < name.length() && Character.isLowSurrogate(name.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return String.format("unpaired surrogate U+%04X", (int) c);
            }
        }
        return null;
    }

    /** {@code m.invoke(target, args)}, rethrowing what the method threw (Flink's own exception) unwrapped. */
    static Object invoke(Method m, Object target, Object... args) throws Exception {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception) {
                throw (Exception) cause;
            }
            throw e;
        }
    }
}
