// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.DType;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/// A fused attention forward reads k and v that are views of a buffer in place, through their
/// strides (a KV cache's first rows, heads permuted out of `[B, S, H, d]`, a slice of heads, k
/// stored transposed), and writes out dense first only a v whose features are not contiguous. Against the
/// reference interpreter on random shapes, including single queries (a decode step's dot products).
class AttentionViewsTest {
    private static final int[] SIZES = {1, 2, 3, 7, 63, 64, 65, 100};

    /// How k and v are made from the program's inputs.
    enum Layout { CACHE_ROWS, HEADS_PERMUTED, HEADS_SLICED, FEATURES_STRIDED }

    @Test
    void viewsMatchTheInterpreterAndAreReadInPlace() {
        var random = new Random(7);
        for (int trial = 0; trial < 24; trial++) {
            Layout layout = Layout.values()[trial % 4];
            DType dtype = trial % 3 == 2 ? DType.F64 : DType.F32;
            int batch = 1 + random.nextInt(2), kvHeads = 1 + random.nextInt(3), heads = kvHeads * (1 + random.nextInt(2));
            int tokens = trial < 8 ? 1 + random.nextInt(3) : SIZES[random.nextInt(SIZES.length)], sources = SIZES[random.nextInt(SIZES.length)];
            int depth = 1 + random.nextInt(70), extra = 1 + random.nextInt(9);
            boolean causal = trial % 5 == 1;
            String what = "%s %s: batch %d, heads %d/%d, T %d, S %d, d %d, causal %s".formatted(layout, dtype, batch, heads, kvHeads, tokens, sources, depth, causal);
            Tensor q = EinsumTest.random(random, dtype, batch, heads, tokens, depth);
            Tensor k = switch (layout) {
                case CACHE_ROWS -> EinsumTest.random(random, dtype, batch, kvHeads, sources + extra, depth);
                case HEADS_PERMUTED -> EinsumTest.random(random, dtype, batch, sources, kvHeads, depth);
                case HEADS_SLICED -> EinsumTest.random(random, dtype, batch, kvHeads + extra, sources, depth);
                case FEATURES_STRIDED -> EinsumTest.random(random, dtype, batch, kvHeads, depth, sources);
            };
            int[] dims = new int[k.rank()];
            for (int axis = 0; axis < dims.length; axis++) dims[axis] = k.dim(axis);
            Tensor v = EinsumTest.random(random, dtype, dims);
            Jit.FunctionN f = a -> List.of(Tensor.scaledDotProductAttention(a.get(0), view(a.get(1), layout, sources, kvHeads), view(a.get(2), layout, sources, kvHeads), null, causal, 1 / Math.sqrt(depth)));
            Tensor[] inputs = {q, k, v};
            var compiled = Jit.compile(f, 3);
            Tensor fused = compiled.applyAll(inputs).getFirst();
            String explain = compiled.explain(inputs);
            assertTrue(explain.contains("attention fusion (online softmax over key blocks)"), what);
            // k stored transposed is read as it is; v with strided features is copied first
            int kernels = layout == Layout.FEATURES_STRIDED && depth > 1 && sources > 1 ? 2 : 1;
            assertTrue(explain.contains("kernels: " + kernels + " "), what + "\n" + explain);
            Tensor reference = Jit.trace(f, List.of(inputs)).interpret(inputs).getFirst();
            double tolerance = dtype == DType.F64 ? 1e-12 : 3e-5;
            double[] e = reference.toDoubleArray(), got = fused.toDoubleArray();
            for (int i = 0; i < e.length; i++)
                assertTrue(Double.isNaN(e[i]) ? Double.isNaN(got[i]) : Math.abs(got[i] - e[i]) <= tolerance * (1 + Math.abs(e[i])), "%s element %d: %s vs %s".formatted(what, i, got[i], e[i]));
            assertArrayEquals(got, compiled.applyAll(inputs).getFirst().toDoubleArray(), "repeated call, " + what);
        }
    }

    /// The first calls run the attention loops interpreted, later ones compiled by C2: the bits must
    /// not change (the Vector API's `EXP` changes ~5% of f64 results once compiled). f32 scores far
    /// apart, so that some `exp` falls outside the inline polynomial's range.
    @Test
    void sameBitsWhileTheLoopsAreCompiled() {
        var random = new Random(3);
        for (DType dtype : new DType[] {DType.F32, DType.F64}) {
            Tensor q = EinsumTest.random(random, dtype, 1, 2, 66, 16).mul(Tensor.scalar(dtype, dtype == DType.F32 ? 40 : 0.5));
            Tensor k = EinsumTest.random(random, dtype, 1, 2, 150, 16), v = EinsumTest.random(random, dtype, 1, 2, 150, 16);
            var compiled = Jit.compile(a -> List.of(Tensor.scaledDotProductAttention(a.get(0), a.get(1).slice(2, 0, 130), a.get(2).slice(2, 0, 130), null, false, 1.0)), 3);
            double[] first = compiled.applyAll(q, k, v).getFirst().toDoubleArray();
            for (int call = 0; call < 1_000; call++)
                assertArrayEquals(first, compiled.applyAll(q, k, v).getFirst().toDoubleArray(), dtype + " call " + call);
        }
    }

    private static Tensor view(Tensor x, Layout layout, int sources, int kvHeads) {
        return switch (layout) {
            case CACHE_ROWS -> x.slice(2, 0, sources);
            case HEADS_PERMUTED -> x.permute(0, 2, 1, 3);
            case HEADS_SLICED -> x.slice(1, x.dim(1) - kvHeads, x.dim(1));
            case FEATURES_STRIDED -> x.transpose(2, 3);
        };
    }
}
