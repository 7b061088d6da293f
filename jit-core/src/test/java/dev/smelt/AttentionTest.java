// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;
import java.util.Random;
import org.junit.jupiter.api.Test;

/// scaledDotProductAttention against attention written out in loops (per batch, head and query:
/// scores, a max-shifted softmax, the weighted sum of values), on random shapes with grouped heads,
/// causal, boolean and additive masks, eager and compiled.
class AttentionTest {
    @Test
    void matchesAttentionWrittenInLoops() {
        var random = new Random(9);
        for (int trial = 0; trial < 24; trial++) {
            int batch = 1 + random.nextInt(2), kvHeads = 1 + random.nextInt(3), group = 1 + random.nextInt(3), heads = kvHeads * group;
            int tokens = 1 + random.nextInt(7), sources = trial % 4 == 0 ? tokens : 1 + random.nextInt(9), d = 1 + random.nextInt(9), dv = 1 + random.nextInt(5);
            Tensor q = EinsumTest.random(random, DType.F32, batch, heads, tokens, d), k = EinsumTest.random(random, DType.F32, batch, kvHeads, sources, d);
            Tensor v = EinsumTest.random(random, DType.F32, batch, kvHeads, sources, dv);
            int kind = trial % 4; // 0 causal, 1 boolean mask, 2 additive mask, 3 none
            boolean causal = kind == 0;
            Tensor mask = kind == 1 ? EinsumTest.random(random, DType.F32, tokens, sources).gt(-0.8) : kind == 2 ? EinsumTest.random(random, DType.F32, 1, tokens, sources) : null;
            double scale = trial % 3 == 0 ? 0.7 : 1 / Math.sqrt(d);
            float[] expected = reference(q, k, v, mask, causal, scale, group);
            Tensor eager = Tensor.scaledDotProductAttention(q, k, v, mask, causal, scale);
            var compiled = Jit.compile(a -> java.util.List.of(Tensor.scaledDotProductAttention(a.get(0), a.get(1), a.get(2), mask == null ? null : a.get(3), causal, scale)), 4);
            Tensor fromCompiled = compiled.apply(q, k, v, mask == null ? Tensor.zeros(1) : mask);
            for (Tensor result : new Tensor[] {eager, fromCompiled}) {
                assertEquals(java.util.List.of(batch, heads, tokens, dv), result.shape().dims());
                float[] actual = result.toFloatArray();
                for (int i = 0; i < actual.length; i++)
                    assertTrue(Float.isNaN(expected[i]) ? Float.isNaN(actual[i]) : Math.abs(actual[i] - expected[i]) <= 1e-5 * (1 + Math.abs(expected[i])),
                            "trial " + trial + " element " + i + ": " + actual[i] + " vs " + expected[i]);
            }
        }
    }

    // Queries and keys of no features: every score is an empty sum, 0, so each query takes the mean
    // of the values it sees, as PyTorch gives; the default scale 1/√0 must not make that an error.
    @Test
    void featurelessQueriesAverageTheValues() {
        Tensor k = Tensor.zeros(1, 4, 0), v = Tensor.of(new float[] {1, 2, 3, 4, 5, 6, 7, 8}, 1, 4, 2);
        float[] seen = {1, 2, 2, 3, 3, 4, 4, 5, 4, 5}; // query t under a causal mask: the mean of values 0…t
        for (int tokens : new int[] {3, 5}) // 5: enough queries to take the packed-keys path
            for (boolean causal : new boolean[] {false, true}) {
                Tensor q = Tensor.zeros(1, tokens, 0);
                float[] expected = new float[2 * tokens];
                for (int t = 0; t < tokens; t++) {
                    expected[2 * t] = causal ? seen[2 * t] : 4;
                    expected[2 * t + 1] = causal ? seen[2 * t + 1] : 5;
                }
                var compiled = Jit.compile((Jit.Function3) (a, b, c) -> Tensor.scaledDotProductAttention(a, b, c, causal));
                for (Tensor result : new Tensor[] {Tensor.scaledDotProductAttention(q, k, v, causal), compiled.apply(q, k, v)})
                    org.junit.jupiter.api.Assertions.assertArrayEquals(expected, result.toFloatArray(), 1e-6f, tokens + " queries, causal " + causal);
            }
    }

    // One q head broadcasts over k's heads, as PyTorch's matmuls broadcast it (it was refused as
    // not a multiple): the same as q expanded to those heads, eager and compiled.
    @Test
    void oneQueryHeadBroadcastsOverTheKeysHeads() {
        var generator = new Generator(31);
        for (int kvHeads : new int[] {3, 4})
            for (boolean causal : new boolean[] {false, true}) {
                Tensor q = Tensor.randn(generator, 2, 1, 5, 8), k = Tensor.randn(generator, 2, kvHeads, 7, 8), v = Tensor.randn(generator, 2, kvHeads, 7, 6);
                float[] expected = Tensor.scaledDotProductAttention(q.expand(2, kvHeads, 5, 8).contiguous(), k, v, causal).toFloatArray();
                var compiled = Jit.compile((Jit.Function3) (a, b, c) -> Tensor.scaledDotProductAttention(a, b, c, causal));
                for (Tensor result : new Tensor[] {Tensor.scaledDotProductAttention(q, k, v, causal), compiled.apply(q, k, v)}) {
                    assertEquals(dev.smelt.ir.Shape.of(2, kvHeads, 5, 6), result.shape());
                    org.junit.jupiter.api.Assertions.assertArrayEquals(expected, result.toFloatArray(), 1e-6f, kvHeads + " kv heads, causal " + causal);
                }
            }
    }

    // Axis -3 of size 0 against 1 broadcasts to an empty result, eager and compiled, as a batch
    // axis does (it threw ArithmeticException: / by zero); against 2 it is refused.
    @Test
    void anEmptyAxisOfHeadsBroadcastsAgainstOne() {
        int[][][] cases = {{{1, 3, 8}, {0, 5, 8}, {0, 3, 6}}, {{0, 3, 8}, {1, 5, 8}, {0, 3, 6}}, {{2, 1, 3, 8}, {2, 0, 5, 8}, {2, 0, 3, 6}}};
        for (int[][] c : cases) {
            Tensor q = Tensor.ones(c[0]), k = Tensor.ones(c[1]), v = Tensor.ones(k.shape().with(k.rank() - 1, 6).toArray());
            var compiled = Jit.compile((Jit.Function3) (a, b, x) -> Tensor.scaledDotProductAttention(a, b, x, false));
            for (Tensor result : new Tensor[] {Tensor.scaledDotProductAttention(q, k, v, false), compiled.apply(q, k, v)})
                assertEquals(dev.smelt.ir.Shape.of(c[2]), result.shape(), java.util.Arrays.deepToString(c));
        }
        var e = assertThrows(SmeltException.class, () -> Tensor.scaledDotProductAttention(Tensor.ones(1, 2, 3, 8), Tensor.ones(1, 0, 5, 8), Tensor.ones(1, 0, 5, 8), false));
        assertTrue(e.getMessage().contains("q has 2 heads"), e.getMessage());
    }

    @Test
    void badShapesSayWhatIsWrong() {
        Tensor q = Tensor.ones(2, 3, 4, 8), k = Tensor.ones(2, 2, 5, 8), v = Tensor.ones(2, 2, 5, 6);
        var e = assertThrows(SmeltException.class, () -> Tensor.scaledDotProductAttention(q, k, v, false));
        assertTrue(e.getMessage().contains("q has 3 heads"), e.getMessage());
        assertThrows(SmeltException.class, () -> Tensor.scaledDotProductAttention(q, Tensor.ones(2, 3, 5, 7), v, false));
        assertThrows(SmeltException.class, () -> Tensor.scaledDotProductAttention(q, Tensor.ones(2, 3, 5, 8), Tensor.ones(2, 3, 4, 6), false));
        assertThrows(SmeltException.class, () -> Tensor.scaledDotProductAttention(q, q, q, Tensor.ones(4, 4), true, 1));
        assertThrows(SmeltException.class, () -> Tensor.scaledDotProductAttention(q, q, q, Tensor.ones(3, 4), false, 1));
        // a 0/1 i32 "keep" mask, or an additive one of another dtype, is refused as PyTorch refuses it
        for (Tensor mask : java.util.List.of(Tensor.ones(dev.smelt.ir.DType.I32, 4, 4), Tensor.zeros(dev.smelt.ir.DType.F64, 4, 4))) {
            var wrongType = assertThrows(SmeltException.class, () -> Tensor.scaledDotProductAttention(q, q, q, mask, false, 1));
            assertTrue(wrongType.getMessage().contains("expected bool (true keeps a key) or an additive mask of the scores' dtype f32"), wrongType.getMessage());
        }
    }

    // A mask broadcasting the scores to more axes or batches made a bigger result; PyTorch adds the
    // mask to its scores in place and refuses it. Eager and compiled.
    @Test
    void aMaskMayNotGrowTheResult() {
        Tensor q = Tensor.ones(1, 3, 4, 8), k = Tensor.ones(1, 3, 5, 8);
        var compiled = Jit.compile((Jit.Function4) (a, b, c, m) -> Tensor.scaledDotProductAttention(a, b, c, m));
        for (Tensor mask : java.util.List.of(Tensor.ones(DType.BOOL, 2, 1, 4, 5), Tensor.zeros(2, 1, 3, 4, 5))) {
            var eager = assertThrows(SmeltException.class, () -> Tensor.scaledDotProductAttention(q, k, k, mask));
            var fromCompiled = assertThrows(SmeltException.class, () -> compiled.apply(q, k, k, mask));
            for (var e : java.util.List.of(eager, fromCompiled))
                assertTrue(e.getMessage().contains("the mask " + mask.shape() + " must broadcast to the scores [1,3,4,5] without growing them"), e.getMessage());
        }
        assertEquals(dev.smelt.ir.Shape.of(1, 3, 4, 8), Tensor.scaledDotProductAttention(q, k, k, Tensor.ones(DType.BOOL, 1, 1, 1, 5)).shape());
    }

    static float[] reference(Tensor q, Tensor k, Tensor v, Tensor mask, boolean causal, double scale, int group) {
        int batch = q.dim(0), heads = q.dim(1), tokens = q.dim(2), d = q.dim(3), sources = k.dim(2), dv = v.dim(3);
        float[] out = new float[batch * heads * tokens * dv];
        for (int b = 0; b < batch; b++)
            for (int h = 0; h < heads; h++)
                for (int t = 0; t < tokens; t++) {
                    double[] scores = new double[sources];
                    double max = Double.NEGATIVE_INFINITY;
                    for (int s = 0; s < sources; s++) {
                        double dot = 0;
                        for (int i = 0; i < d; i++) dot += q.get(b, h, t, i) * k.get(b, h / group, s, i);
                        scores[s] = dot * scale;
                        if (causal && s > t) scores[s] = Double.NEGATIVE_INFINITY;
                        if (mask != null && mask.dtype() == DType.BOOL && mask.get(t, s) == 0) scores[s] = Double.NEGATIVE_INFINITY;
                        if (mask != null && mask.dtype() != DType.BOOL) scores[s] += mask.get(0, t, s);
                        max = Math.max(max, scores[s]);
                    }
                    double total = 0;
                    for (int s = 0; s < sources; s++) total += scores[s] = Math.exp(scores[s] - max);
                    for (int j = 0; j < dv; j++) {
                        double sum = 0;
                        for (int s = 0; s < sources; s++) sum += scores[s] / total * v.get(b, h / group, s, j);
                        out[((b * heads + h) * tokens + t) * dv + j] = (float) sum;
                    }
                }
        return out;
    }
}
