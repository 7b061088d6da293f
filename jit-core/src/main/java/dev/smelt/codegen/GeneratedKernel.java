// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import java.util.Arrays;
import java.util.List;

/// One kernel's class file, ready for `KernelLoader`.
///
/// @param className       the binary name, `dev.smelt.runtime.Kernel$<hash>$Scalar` or `dev.smelt.runtime.VectorKernel$<hash>`
/// @param bytes           the class file (a copy is kept and returned)
/// @param runCodeSize     the bytecode size of `run`, which stays under HotSpot's 8000-byte limit
/// @param variant         the variant asked for
/// @param scalarFallbacks for [Variant#VECTOR], each loop that runs scalar and why (empty when every
///                        loop has a vector main loop); always empty for [Variant#SCALAR]
/// @param kernelText      the printed kernel, the `kernel-<hash>.ir` that the class's line numbers refer to
public record GeneratedKernel(String className, byte[] bytes, int runCodeSize, Variant variant, List<String> scalarFallbacks, String kernelText) {
    public GeneratedKernel {
        bytes = bytes.clone();
        scalarFallbacks = List.copyOf(scalarFallbacks);
    }

    @Override
    public byte[] bytes() { return bytes.clone(); }

    /// The `SourceFile` of the class: `kernel-<hash>.ir`.
    public String sourceFile() { return "kernel-" + KernelEmitter.hash(kernelText) + ".ir"; }

    @Override
    public boolean equals(Object other) {
        return other instanceof GeneratedKernel that && className.equals(that.className) && Arrays.equals(bytes, that.bytes)
                && variant == that.variant;
    }

    @Override
    public int hashCode() { return className.hashCode() * 31 + Arrays.hashCode(bytes); }

    @Override
    public String toString() {
        return "GeneratedKernel[%s, %d bytes, run %d bytes, %s%s]".formatted(className, bytes.length, runCodeSize, variant,
                scalarFallbacks.isEmpty() ? "" : ", scalar: " + scalarFallbacks);
    }
}
