// SPDX-License-Identifier: Apache-2.0
package dev.smelt.testing;

import dev.smelt.codegen.KernelEmitter;
import dev.smelt.codegen.MicroKernelShape;
import dev.smelt.codegen.Variant;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelForm;
import dev.smelt.kernel.KernelFunction;
import dev.smelt.kernel.MatMulKernel;
import dev.smelt.runtime.KernelLoader;
import dev.smelt.runtime.matmul.MatMulFunction;
import dev.smelt.runtime.matmul.MicroKernels;

/// Compiles a kernel to its vector code only, skipping the scalar tier that small kernels and a
/// fresh JVM would otherwise run: loop kernels as [Variant#VECTOR], matmuls with the generated
/// vector micro-kernel and a vector epilogue.
public final class VectorOnly {
    private VectorOnly() {}

    public static KernelFunction compile(KernelForm kernel) {
        return switch (kernel) {
            case Kernel loops -> KernelLoader.load(KernelEmitter.emit(loops, Variant.VECTOR));
            case MatMulKernel matmul -> matmul(matmul, MicroKernelShape.of(matmul.dtype()));
        };
    }

    /// `matmul` on the vector micro-kernel of `shape` (any lane count and tile the species allows).
    public static KernelFunction matmul(MatMulKernel matmul, MicroKernelShape shape) {
        var tile = MicroKernels.vector(shape);
        return new MatMulFunction(matmul, shape, () -> tile, matmul.plain() ? null : compile(matmul.epilogue()));
    }
}
