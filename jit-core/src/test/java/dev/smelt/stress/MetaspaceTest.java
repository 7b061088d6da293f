// SPDX-License-Identifier: Apache-2.0
package dev.smelt.stress;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.Compiled;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/// Generated kernels are hidden classes defined without `STRONG`, so they unload with their
/// program once no cache holds it. This compiles `smelt.stress.compilations` (30,000 in the
/// `stress` profile) functions whose kernels all differ, calls each once and drops it, in a JVM
/// whose metaspace is capped (`-XX:MaxMetaspaceSize=64m`, its own surefire execution): if the
/// classes did not unload, it would end in `OutOfMemoryError: Metaspace`. Metaspace in use after
/// a full GC must also stay flat between the first tenth and the end. Every tenth function is
/// a random program and every hundredth result is checked against the interpreter.
@Tag("metaspace")
class MetaspaceTest {
    @Test
    void thirtyThousandCompilationsUnloadTheirClasses() {
        int compilations = Settings.integer("compilations", 30_000);
        Tensor x = Argument.data(Program.random(1, 0), dev.smelt.ir.DType.F32, dev.smelt.ir.Shape.of(3, 67));
        var failures = new ArrayList<String>();
        long early = 0;
        long start = System.nanoTime();
        for (int i = 0; i < compilations && failures.size() < 5; i++) {
            if (i % 10 == 9) checkRandomProgram(i, failures);
            else compileChain(i, x, failures);
            if (i == compilations / 10) early = metaspaceAfterGc();
            if (i % 5000 == 0) System.out.printf("MetaspaceTest: %,d compilations, metaspace %,d KiB, %s%n", i, metaspaceAfterGc() >> 10, classes());
        }
        long end = metaspaceAfterGc();
        System.out.printf("MetaspaceTest: %,d compilations in %.1f s; metaspace after GC %,d KiB at a tenth, %,d KiB at the end; %s%n", compilations,
                (System.nanoTime() - start) / 1e9, early >> 10, end >> 10, classes());
        if (!failures.isEmpty()) fail(String.join("\n", failures));
        assertTrue(end < early + (16 << 20), "metaspace grew from %,d to %,d KiB: generated classes are not unloading".formatted(early >> 10, end >> 10));
        long unloaded = ManagementFactory.getClassLoadingMXBean().getUnloadedClassCount();
        // The kernel cache keeps 2,048 kernels and eager mode 1,024 programs; the rest must go.
        assertTrue(unloaded > (compilations - 4096) / 2, "only %,d classes unloaded after %,d compilations".formatted(unloaded, compilations));
    }

    /// `sin(x·a + b)·c` with constants distinct for each `i`, so no kernel is shared or cached.
    private static void compileChain(int i, Tensor x, List<String> failures) {
        double a = 1 + i * 1e-6, b = i * 0.001, c = -1 - i;
        Compiled compiled = Jit.compile((Tensor t) -> t.mul(a).add(b).sin().mul(c).sum(-1));
        Tensor result = compiled.apply(x);
        if (i % 100 != 0) return;
        var traced = Jit.trace((Tensor t) -> t.mul(a).add(b).sin().mul(c).sum(-1), x);
        String mismatch = Reference.of(traced, List.of(x)).mismatch(List.of(result));
        if (mismatch != null) failures.add("compilation %d (a = %s, b = %s, c = %s): %s".formatted(i, a, b, c, mismatch));
    }

    private static void checkRandomProgram(long seed, List<String> failures) {
        Program program = ProgramGenerator.generate(seed, Scale.mixed(0, 0));
        List<Tensor> data = program.data(0);
        var results = Jit.compile(program::apply, program.arity()).applyAll(data.toArray(Tensor[]::new));
        if (seed % 100 != 99) return;
        String mismatch = Reference.of(Jit.trace(program::apply, data), data).mismatch(results);
        if (mismatch != null) failures.add("seed %d: %s%n%s".formatted(seed, mismatch, program.listing()));
    }

    /// Classes loaded and unloaded so far, as the JVM counts them.
    static String classes() {
        var loading = ManagementFactory.getClassLoadingMXBean();
        return "%,d classes loaded, %,d unloaded".formatted(loading.getTotalLoadedClassCount(), loading.getUnloadedClassCount());
    }

    /// Metaspace in use after a full collection, which unloads classes nothing references.
    static long metaspaceAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryPoolMXBeans().stream().filter(pool -> pool.getName().equals("Metaspace"))
                .mapToLong(pool -> pool.getUsage().getUsed()).sum();
    }
}
