// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.codegen.GeneratedKernel;
import dev.smelt.codegen.KernelEmitter;
import dev.smelt.codegen.Variant;
import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import java.lang.ref.WeakReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KernelLoaderTest {
    static final Shape SPACE = Shape.of(40);

    /// `out0 = in0 * in0 + in0`.
    static GeneratedKernel emit(Variant variant) {
        var x = new Expr.Load(0, DType.F32);
        var map = IndexMap.contiguous(SPACE);
        var kernel = new Kernel(SPACE, 0, List.of(new Kernel.Input(DType.F32, 40, map)), List.of(),
                List.of(new Kernel.Output(new Expr.Binary(BinaryOp.ADD, new Expr.Binary(BinaryOp.MUL, x, x), x), 40, map, false)));
        return KernelEmitter.emit(kernel, variant);
    }

    @Test
    void loadsAHiddenClassInTheRuntimePackageThatRuns() {
        for (var variant : Variant.values()) {
            var function = KernelLoader.load(emit(variant));
            assertTrue(function.getClass().isHidden());
            assertEquals("dev.smelt.runtime", function.getClass().getPackageName());
            float[] in = new float[40], out = new float[40], expected = new float[40];
            for (int i = 0; i < 40; i++) {
                in[i] = i - 20.5f;
                expected[i] = in[i] * in[i] + in[i];
            }
            function.run(new Object[] {in, out}, 0, 40);
            assertArrayEquals(expected, out);
        }
    }

    /// Defined without `ClassOption.STRONG`: once the function is unreachable, its class can go.
    @Test
    void aLoadedKernelIsUnloadedWithItsFunction() throws InterruptedException {
        var function = KernelLoader.load(emit(Variant.VECTOR));
        var type = new WeakReference<Class<?>>(function.getClass());
        function = null;
        for (int attempt = 0; attempt < 20 && type.get() != null; attempt++) {
            System.gc();
            Thread.sleep(10);
        }
        assertNull(type.get(), "the hidden class is still loaded");
    }

    @Test
    void dumpsClassFilesAndKernelTextWhereTheSystemPropertySays(@TempDir Path directory) throws Exception {
        var generated = emit(Variant.SCALAR);
        String previous = System.getProperty("smelt.dump");
        System.setProperty("smelt.dump", directory.toString());
        try {
            KernelLoader.load(generated);
        } finally {
            if (previous == null) System.clearProperty("smelt.dump");
            else System.setProperty("smelt.dump", previous);
        }
        String simpleName = generated.className().substring("dev.smelt.runtime.".length());
        assertArrayEquals(generated.bytes(), Files.readAllBytes(directory.resolve(simpleName + ".class")));
        assertEquals(generated.kernelText(), Files.readString(directory.resolve(generated.sourceFile())));
    }

    /// A dump directory that cannot be made (a file's path) is reported, not thrown: every compile
    /// failed with an UncheckedIOException.
    @Test
    void aDumpDirectoryThatCannotBeWrittenLeavesTheKernelRunning(@TempDir Path directory) throws Exception {
        var generated = emit(Variant.SCALAR);
        Path file = Files.writeString(directory.resolve("a-file"), "not a directory");
        String previous = System.getProperty("smelt.dump");
        System.setProperty("smelt.dump", file.toString());
        float[] in = java.util.Arrays.copyOf(new float[] {1.5f, -2, 3}, 40), out = new float[40], expected = new float[40];
        try {
            KernelLoader.load(generated).run(new Object[] {in, out}, 0, 40);
        } finally {
            restore("smelt.dump", previous);
        }
        KernelLoader.load(generated).run(new Object[] {in, expected}, 0, 40);
        assertArrayEquals(expected, out);
    }

    @Test
    void readsTheDumpDirectoryFromEitherProperty() {
        String smelt = System.getProperty("smelt.dump"), jit = System.getProperty("jit.dump"), dir = System.getProperty("jit.dump.dir");
        try {
            System.clearProperty("smelt.dump");
            System.clearProperty("jit.dump.dir");
            System.setProperty("jit.dump", "trace,bytecode");
            assertEquals(Optional.of(Path.of("target/jit-dump")), Dump.classDirectory());
            System.setProperty("jit.dump.dir", "out/dumps");
            assertEquals(Optional.of(Path.of("out/dumps")), Dump.classDirectory());
            System.setProperty("jit.dump", "trace,ir");
            assertEquals(Optional.empty(), Dump.classDirectory());
            System.setProperty("smelt.dump", "true");
            assertEquals(Optional.of(Path.of("out/dumps")), Dump.classDirectory());
            System.setProperty("smelt.dump", "out/kernels");
            assertEquals(Optional.of(Path.of("out/kernels")), Dump.classDirectory());
        } finally {
            restore("smelt.dump", smelt);
            restore("jit.dump", jit);
            restore("jit.dump.dir", dir);
        }
    }

    private static void restore(String key, String value) {
        if (value == null) System.clearProperty(key);
        else System.setProperty(key, value);
    }
}
