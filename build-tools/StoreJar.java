// SPDX-License-Identifier: Apache-2.0
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/// Rewrites a jar with every entry stored rather than deflated, in the same order: what the
/// library jars get from `maven-jar-plugin`'s `compress` setting, for jars the shade plugin writes
/// (benchmarks.jar), which has no such setting. A fresh JVM then reads each class as it is.
/// Run from source: `java build-tools/StoreJar.java <jar>`.
public final class StoreJar {
    private StoreJar() {}

    public static void main(String[] args) throws IOException {
        Path jar = Path.of(args[0]), stored = jar.resolveSibling(jar.getFileName() + ".stored");
        try (var in = new ZipFile(jar.toFile()); var out = new ZipOutputStream(Files.newOutputStream(stored))) {
            for (var entries = in.entries(); entries.hasMoreElements(); ) {
                ZipEntry entry = entries.nextElement();
                byte[] bytes;
                try (var content = in.getInputStream(entry)) { bytes = content.readAllBytes(); }
                var crc = new CRC32();
                crc.update(bytes);
                var copy = new ZipEntry(entry.getName());
                copy.setMethod(ZipEntry.STORED);
                copy.setSize(bytes.length);
                copy.setCompressedSize(bytes.length);
                copy.setCrc(crc.getValue());
                copy.setTime(entry.getTime());
                out.putNextEntry(copy);
                out.write(bytes);
                out.closeEntry();
            }
        }
        Files.move(stored, jar, StandardCopyOption.REPLACE_EXISTING);
    }
}
