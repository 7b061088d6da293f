// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Jit;
import dev.smelt.Tensor;
import java.util.Arrays;

/// The elementwise chain the targets are stated for, `relu((sin(x)·cos(y) + x)·y)`, shared by
/// [ChainBench] and [CompileBench]. A class of its own, free of Vector API fields, so that
/// referring to it in a fresh JVM loads nothing that Smelt itself would not.
final class Chain {
    /// Elements the reference interpreter checks: a prefix, as it evaluates op by op in double.
    static final int PREFIX = 1 << 12;

    private Chain() {}

    /// The benchmarked function: compiled, it is traced; on concrete tensors it runs eagerly.
    static Tensor apply(Tensor x, Tensor y) {
        return x.sin().mul(y.cos()).add(x).mul(y).relu();
    }

    /// `function` on the first `n` elements of `xs` and `ys`, by the reference interpreter.
    static float[] interpreted(Jit.Function2 function, float[] xs, float[] ys, int n) {
        var x = Tensor.of(Arrays.copyOf(xs, n), n);
        var y = Tensor.of(Arrays.copyOf(ys, n), n);
        return Jit.trace(function, x, y).interpret(x, y).getFirst().toFloatArray();
    }
}
