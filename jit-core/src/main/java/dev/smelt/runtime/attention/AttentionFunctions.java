// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.attention;

import dev.smelt.kernel.AttentionKernel;
import dev.smelt.kernel.KernelFunction;

/// The runnable code of an [AttentionKernel]: hand-written Vector API loops per dtype
/// (`FloatAttention`, `DoubleAttention`), compiled by C2 like any Java method. There is no scalar
/// tier: until C2 has compiled them (the first calls), the loops run boxed and slower.
public final class AttentionFunctions {
    private AttentionFunctions() {}

    public static KernelFunction of(AttentionKernel kernel) {
        return switch (kernel.dtype()) {
            case F32 -> new FloatAttention(kernel);
            case F64 -> new DoubleAttention(kernel);
            case I32, BOOL -> throw new IllegalArgumentException("attention over " + kernel.dtype());
        };
    }

    /// How attention code runs, for `explain()`.
    static final String TIER = "vector code (Vector API loops, compiled by C2 on first use)";

    /// The forward's work item `index` of a head's `blocks` is query block `0, blocks-1, 1,
    /// blocks-2, …`: under a causal mask later blocks see more keys, and threads take contiguous
    /// ranges of items, so each range gets short and long blocks alike.
    static int queryBlock(int index, int blocks) { return index % 2 == 0 ? index / 2 : blocks - 1 - index / 2; }
}
