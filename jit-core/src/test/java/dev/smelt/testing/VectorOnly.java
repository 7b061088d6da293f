// SPDX-License-Identifier: Apache-2.0
package dev.smelt.testing;

import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.codegen.GeneratedKernel;
import dev.smelt.codegen.KernelEmitter;
import dev.smelt.codegen.MicroKernel;
import dev.smelt.codegen.MicroKernelEmitter;
import dev.smelt.codegen.MicroKernelShape;
import dev.smelt.codegen.Variant;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelForm;
import dev.smelt.kernel.KernelFunction;
import dev.smelt.kernel.MatMulKernel;
import dev.smelt.runtime.KernelLoader;
import dev.smelt.runtime.matmul.MatMulFunction;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.util.CheckClassAdapter;

/// Compiles a kernel to its vector code only, skipping the scalar tier that small kernels and a
/// fresh JVM would otherwise run: loop kernels as [Variant#VECTOR], matmuls with the generated
/// vector micro-kernel and a vector epilogue. Every class is verified with ASM's
/// `CheckClassAdapter` before it is loaded.
public final class VectorOnly {
    private VectorOnly() {}

    public static KernelFunction compile(KernelForm kernel) {
        return switch (kernel) {
            case Kernel loops -> KernelLoader.load(verified(KernelEmitter.emit(loops, Variant.VECTOR)));
            case MatMulKernel matmul -> matmul(matmul, MicroKernelShape.of(matmul.dtype()));
            case dev.smelt.kernel.UpdateKernel update -> new dev.smelt.kernel.UpdateFunction(update); // no generated code
            case dev.smelt.kernel.SortKernel sort -> new dev.smelt.kernel.SortFunction(sort);
            case dev.smelt.kernel.AttentionKernel attention -> dev.smelt.runtime.attention.AttentionFunctions.of(attention); // vector code only already
        };
    }

    /// `matmul` on the vector micro-kernel of `shape` (any lane count and tile the species allows).
    public static KernelFunction matmul(MatMulKernel matmul, MicroKernelShape shape) {
        var tile = KernelLoader.load(verified(MicroKernelEmitter.emit(shape)), MicroKernel.class);
        return new MatMulFunction(matmul, shape, () -> tile, matmul.plain() ? null : compile(matmul.epilogue()));
    }

    /// Fails with the verifier's report unless the class verifies.
    public static GeneratedKernel verified(GeneratedKernel generated) {
        var report = new StringWriter();
        CheckClassAdapter.verify(new ClassReader(generated.bytes()), VectorOnly.class.getClassLoader(), false, new PrintWriter(report));
        if (!report.toString().isEmpty()) fail(generated.className() + " does not verify:\n" + report + "\n" + generated.kernelText());
        return generated;
    }
}
