// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/// `-Dsmelt.profile=true` times every call of every kernel, a one-kernel program's included (its
/// call skips the launch loop, and its time stayed the first call's). Run in a JVM of its own:
/// the property is read once, when the profiler's class loads.
class ProfileTest {
    /// Run in the child JVM: seven calls of a one-kernel chain and of a two-kernel program, then
    /// the lines of `explain()` that count calls.
    public static void main(String[] args) {
        Tensor x = Tensor.randn(new Generator(3), 64, 300);
        Compiled chain = Jit.compile((Tensor t) -> t.mul(2).add(1).relu());
        Compiled twoKernels = Jit.compile((Tensor t) -> t.softmax(-1).matmul(t.t()));
        for (int i = 0; i < 7; i++) {
            chain.apply(x);
            twoKernels.apply(x);
        }
        for (Compiled f : List.of(chain, twoKernels))
            f.explain().lines().filter(line -> line.startsWith("  time:")).forEach(System.out::println);
    }

    @Test
    void everyKernelCountsEveryCall() throws Exception {
        var java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        var process = new ProcessBuilder(java, "--add-modules", "jdk.incubator.vector", "-cp", System.getProperty("java.class.path"),
                "-Dsmelt.profile=true", "-Dsmelt.kernelFiles=off", ProfileTest.class.getName()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), output);
        List<String> counts = output.lines().filter(line -> line.startsWith("  time:")).toList();
        assertTrue(counts.size() >= 3, output);
        assertTrue(counts.stream().allMatch(line -> line.endsWith(", 7 calls")), output);
    }
}
