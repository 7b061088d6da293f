// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;
import java.util.Random;
import org.junit.jupiter.api.Test;

/// rmsNorm and rope against their definitions written out in loops (llama2.c's rmsnorm and RoPE
/// loop for the interleaved form), on random shapes, eager and compiled.
class TransformersTest {
    @Test
    void rmsNormIsLlamaRmsnorm() {
        var random = new Random(5);
        for (int trial = 0; trial < 20; trial++) {
            int rows = 1 + random.nextInt(5), dim = 1 + random.nextInt(300);
            double eps = trial % 2 == 0 ? 1e-5 : 1e-6;
            Tensor x = EinsumTest.random(random, DType.F32, rows, dim), w = EinsumTest.random(random, DType.F32, dim);
            float[] xs = x.toFloatArray(), ws = w.toFloatArray(), expected = new float[xs.length];
            for (int r = 0; r < rows; r++) {
                double ss = 0;
                for (int j = 0; j < dim; j++) ss += (double) xs[r * dim + j] * xs[r * dim + j];
                double scale = 1 / Math.sqrt(ss / dim + eps);
                for (int j = 0; j < dim; j++) expected[r * dim + j] = (float) (xs[r * dim + j] * scale * ws[j]);
            }
            for (Tensor result : new Tensor[] {x.rmsNorm(new int[] {dim}, w, eps), Jit.compile((Tensor a, Tensor b) -> a.rmsNorm(new int[] {dim}, b, eps)).apply(x, w)})
                assertClose(expected, result.toFloatArray(), 1e-5);
        }
        assertThrows(SmeltException.class, () -> Tensor.ones(2, 3).rmsNorm(new int[] {2}, null, 1e-5));
        assertThrows(SmeltException.class, () -> Tensor.ones(2, 3).rmsNorm(new int[] {3}, Tensor.ones(2), 1e-5));
        assertThrows(SmeltException.class, () -> Tensor.ones(2, 3).rmsNorm(new int[] {3}, null, -1));
    }

    /// [T, heads, d] with angles pos · 10000^(−2i/d), both pair layouts.
    @Test
    void ropeRotatesEachPair() {
        var random = new Random(6);
        for (int trial = 0; trial < 20; trial++) {
            int tokens = 1 + random.nextInt(6), heads = 1 + random.nextInt(4), d = 2 * (1 + random.nextInt(12)), start = random.nextInt(50);
            boolean interleaved = trial % 2 == 0;
            Tensor x = EinsumTest.random(random, DType.F32, tokens, heads, d);
            float[] angles = new float[tokens * d / 2];
            for (int t = 0; t < tokens; t++)
                for (int i = 0; i < d / 2; i++) angles[t * d / 2 + i] = (float) ((start + t) * Math.pow(10000, -2.0 * i / d));
            Tensor theta = Tensor.of(angles, tokens, 1, d / 2);
            Tensor cos = theta.cos(), sin = theta.sin();
            float[] xs = x.toFloatArray(), c = cos.toFloatArray(), s = sin.toFloatArray(), expected = new float[xs.length];
            for (int t = 0; t < tokens; t++)
                for (int h = 0; h < heads; h++)
                    for (int i = 0; i < d / 2; i++) {
                        int base = (t * heads + h) * d, a = base + (interleaved ? 2 * i : i), b = base + (interleaved ? 2 * i + 1 : i + d / 2);
                        float co = c[t * d / 2 + i], si = s[t * d / 2 + i];
                        expected[a] = xs[a] * co - xs[b] * si;
                        expected[b] = xs[a] * si + xs[b] * co;
                    }
            for (Tensor result : new Tensor[] {x.rope(cos, sin, interleaved), Jit.compile((Tensor v, Tensor co, Tensor si) -> v.rope(co, si, interleaved)).apply(x, cos, sin)}) {
                assertEquals(x.shape(), result.shape());
                assertClose(expected, result.toFloatArray(), 1e-6);
            }
        }
        var error = assertThrows(SmeltException.class, () -> Tensor.ones(2, 3).rope(Tensor.ones(1), Tensor.ones(1), true));
        assertTrue(error.getMessage().startsWith("rope: the last axis of [2,3] must have an even size"), error.getMessage());
        assertThrows(SmeltException.class, () -> Tensor.ones(2, 4).rope(Tensor.ones(3), Tensor.ones(2), true));
        assertThrows(SmeltException.class, () -> Tensor.ones(2, 4).rope(Tensor.ones(3, 2, 2), Tensor.ones(2), true));
    }

    private static void assertClose(float[] expected, float[] actual, double tolerance) {
        assertEquals(expected.length, actual.length);
        for (int i = 0; i < expected.length; i++)
            assertTrue(Math.abs(expected[i] - actual[i]) <= tolerance * (1 + Math.abs(expected[i])), "element " + i + ": " + actual[i] + " vs " + expected[i]);
    }
}
