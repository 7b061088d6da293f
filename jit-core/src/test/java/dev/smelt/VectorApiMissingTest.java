// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.SmeltException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/// A JVM started without `--add-modules jdk.incubator.vector`: the first op and the first compile
/// throw a SmeltException that names the flag and the caller's line, not a NoClassDefFoundError.
class VectorApiMissingTest {
    /// Run in the child JVM: an eager op, then a compile, each caught and printed.
    public static void main(String[] args) {
        var x = Tensor.of(new float[] {1, 2, 3}, 3);
        try {
            x.add(x);
        } catch (SmeltException e) {
            System.out.println(e.getMessage());
        }
        try {
            Jit.compile((Tensor t) -> t).apply(x);
        } catch (SmeltException e) {
            System.out.println(e.getMessage());
        }
    }

    @Test
    void theFirstOpAndCompileSayWhichFlagToAdd() throws Exception {
        var java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        var process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), VectorApiMissingTest.class.getName())
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), output);
        List<String> lines = output.lines().toList();
        assertEquals(2, lines.size(), output);
        assertTrue(lines.get(0).startsWith("add: Smelt needs the Vector API module"), output);
        assertTrue(lines.get(1).startsWith("compile: Smelt needs the Vector API module"), output);
        for (String line : lines) {
            assertTrue(line.contains("--add-modules jdk.incubator.vector"), line);
            assertTrue(line.contains("(at dev.smelt.VectorApiMissingTest.main(VectorApiMissingTest.java:"), line);
        }
    }
}
