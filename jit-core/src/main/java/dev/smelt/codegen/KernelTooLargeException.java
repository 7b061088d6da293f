// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

/// A kernel whose bytecode would exceed what HotSpot compiles: a method over 8000 bytes is never
/// JIT-compiled (`-XX:+DontCompileHugeMethods`), so it would run interpreted, about 100× slower.
/// The fusion planner catches this and splits the kernel.
public final class KernelTooLargeException extends RuntimeException {
    private final int bytes;

    KernelTooLargeException(String method, int bytes, int limit) {
        super("kernel method %s would be %d bytes of bytecode, over the limit of %d; split the kernel".formatted(method, bytes, limit));
        this.bytes = bytes;
    }

    /// The size of the largest method, in bytes of bytecode.
    public int bytes() { return bytes; }
}
