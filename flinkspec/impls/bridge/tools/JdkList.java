import java.io.IOException;
import java.io.PrintWriter;
import java.lang.module.ModuleReference;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Lists what the JDK shows a Flink user-code class loader through its platform-loader parent.
 * Run as a plain class-path application, like the bridge; {@code flinkspec/impls/jdklist.py} compiles
 * and runs it.
 *
 * <p>{@code java JdkList CLASSES RESOURCES HIDDEN} walks {@code jrt:/modules/<m>} for every module
 * {@code m} of the boot layer and writes, one name a line, sorted: the binary names that
 * {@code ClassLoader.getPlatformClassLoader().loadClass} loads (module-info and package-info
 * excluded), the names of the other files that its {@code getResource} finds, and the binary names of
 * the classes whose class file {@code getResource} does not find (those of modules defined to the
 * application class loader, to which the platform loader delegates their packages' classes only). A few
 * statistics go to stderr.
 */
public final class JdkList {
    public static void main(String[] args) throws IOException {
        ClassLoader platform = ClassLoader.getPlatformClassLoader();
        FileSystem jrt = FileSystems.getFileSystem(URI.create("jrt:/"));
        Set<String> classes = new TreeSet<>();
        Set<String> resources = new TreeSet<>();
        Set<String> hiddenClassFiles = new TreeSet<>();
        int files = 0;
        int notLoadable = 0;
        int classWithoutResource = 0;
        int multiple = 0;
        List<String> modules = ModuleLayer.boot().modules().stream().map(Module::getName).sorted()
                .collect(Collectors.toList());
        for (String module : modules) {
            Path root = jrt.getPath("/modules", module);
            List<Path> paths;
            try (Stream<Path> walk = Files.walk(root)) {
                paths = walk.filter(Files::isRegularFile).collect(Collectors.toList());
            }
            for (Path p : paths) {
                files++;
                String name = root.relativize(p).toString();
                if (name.endsWith(".class")) {
                    String simple = name.substring(name.lastIndexOf('/') + 1);
                    if (simple.equals("module-info.class") || simple.equals("package-info.class")) {
                        continue;
                    }
                    String binary = name.substring(0, name.length() - ".class".length()).replace('/', '.');
                    try {
                        Class<?> c = platform.loadClass(binary);
                        if (c.getName().equals(binary)) {
                            classes.add(binary);
                            if (platform.getResource(name) == null) {
                                hiddenClassFiles.add(binary);
                                classWithoutResource++;
                            }
                        } else {
                            notLoadable++;
                        }
                    } catch (ClassNotFoundException | LinkageError e) {
                        notLoadable++;
                    }
                } else if (platform.getResource(name) != null) {
                    resources.add(name);
                    if (Collections.list(platform.getResources(name)).size() > 1) {
                        multiple++;
                    }
                }
            }
        }
        write(Paths.get(args[0]), classes);
        write(Paths.get(args[1]), resources);
        write(Paths.get(args[2]), hiddenClassFiles);
        System.err.printf("%d boot-layer modules, %d files: %d classes (%d class files not loadable, %d loadable"
                + " classes whose .class file getResource does not find), %d other resources (%d found more than"
                + " once by getResources)%n", modules.size(), files, classes.size(), notLoadable,
                classWithoutResource, resources.size(), multiple);
    }

    private static void write(Path file, Set<String> names) throws IOException {
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8))) {
            for (String n : names) {
                w.print(n);
                w.print('\n');
            }
        }
    }
}
