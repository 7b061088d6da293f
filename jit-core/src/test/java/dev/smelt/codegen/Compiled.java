// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelFunction;
import dev.smelt.runtime.KernelLoader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Random;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.util.CheckClassAdapter;
import org.objectweb.asm.util.TraceClassVisitor;

/// A kernel emitted, verified with ASM's `CheckClassAdapter` and loaded, for tests.
record Compiled(Kernel kernel, GeneratedKernel generated, KernelFunction function) {
    static Compiled of(Kernel kernel, Variant variant) { return of(kernel, variant, 0); }

    /// With vectors of `lanes` lanes (0: the preferred count).
    static Compiled of(Kernel kernel, Variant variant, int lanes) {
        var generated = KernelEmitter.emit(kernel, variant, lanes);
        verify(generated, kernel);
        return new Compiled(kernel, generated, KernelLoader.load(generated));
    }

    /// [KernelEmitter#emit], verified.
    static GeneratedKernel emit(Kernel kernel, Variant variant) {
        var generated = KernelEmitter.emit(kernel, variant);
        verify(generated, kernel);
        return generated;
    }

    /// Fails with the verifier's report and the class as text unless the bytecode verifies.
    static void verify(GeneratedKernel generated, Kernel kernel) {
        var report = new StringWriter();
        CheckClassAdapter.verify(new ClassReader(generated.bytes()), Compiled.class.getClassLoader(), false, new PrintWriter(report));
        if (!report.toString().isEmpty()) fail("generated class does not verify:\n" + report + "\nkernel:\n" + kernel + "\n" + text(generated));
    }

    /// The class as `javap`-like text (ASM's Textifier).
    static String text(GeneratedKernel generated) {
        var out = new StringWriter();
        new ClassReader(generated.bytes()).accept(new TraceClassVisitor(new PrintWriter(out)), 0);
        return out.toString();
    }

    /// Runs every row, in pieces: `[0, a)`, the empty `[a, a)`, the single row `[a, a + 1)`, then
    /// `[a + 1, b)` and `[b, rows)` for random cut points, so row-range handling is exercised.
    void runInPieces(Object[] buffers, Random random) {
        int rows = kernel.workItems();
        int a = rows == 0 ? 0 : random.nextInt(rows), b = a + 1 >= rows ? rows : a + 1 + random.nextInt(rows - a - 1);
        function.run(buffers, 0, a);
        function.run(buffers, a, a);
        if (a < rows) function.run(buffers, a, a + 1);
        if (a + 1 < rows) {
            function.run(buffers, a + 1, b);
            function.run(buffers, b, rows);
        }
    }
}
