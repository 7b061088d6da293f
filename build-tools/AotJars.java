// SPDX-License-Identifier: Apache-2.0
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.ZipFile;

/// Keeps copies of a class path's jars for the JDK's AOT cache, which rejects a jar whose file
/// changed since the cache was recorded (its size and time are checked, not its classes): every
/// `package` rewrites the jars with the same classes, so a cache recorded from them never
/// matched the next run. A copy is replaced only when an entry's name, size or CRC differs.
/// Writes `<dir>/classpath.args`, `-classpath` and the copies, for `java @<dir>/classpath.args`.
/// Run from source: `java build-tools/AotJars.java <dir> <class path>`.
public final class AotJars {
    private AotJars() {}

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        Files.createDirectories(dir);
        var copies = new ArrayList<String>();
        var names = new HashSet<String>();
        for (String entry : args[1].split(File.pathSeparator)) {
            if (entry.isBlank()) continue;
            Path jar = Path.of(entry);
            if (!entry.endsWith(".jar") || !names.add(jar.getFileName().toString()))
                throw new IllegalArgumentException("expected distinct jars on the class path, got " + entry);
            Path copy = dir.resolve(jar.getFileName());
            if (!Files.exists(copy) || !entries(copy).equals(entries(jar))) {
                Path partial = dir.resolve(jar.getFileName() + ".partial");
                Files.copy(jar, partial, StandardCopyOption.REPLACE_EXISTING);
                Files.move(partial, copy, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            }
            copies.add(copy.toAbsolutePath().toString());
        }
        try (var stale = Files.list(dir)) {
            for (Path file : stale.filter(f -> f.toString().endsWith(".jar") && !names.contains(f.getFileName().toString())).toList())
                Files.delete(file);
        }
        String classPath = String.join(File.pathSeparator, copies);
        Files.writeString(dir.resolve("classpath.args"), "-classpath \"" + classPath.replace("\\", "\\\\") + "\"\n");
    }

    // Name -> size and CRC of every entry: what the jar holds, whatever its file's time.
    private static Map<String, List<Long>> entries(Path jar) throws IOException {
        var entries = new TreeMap<String, List<Long>>();
        try (var zip = new ZipFile(jar.toFile())) {
            zip.stream().forEach(e -> entries.put(e.getName(), List.of(e.getSize(), e.getCrc())));
        }
        return entries;
    }
}
