// SPDX-License-Identifier: Apache-2.0
package dev.smelt.autograd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/// The fused attention backward (FlashAttention-2, one kernel) against the reference interpreter
/// and central differences in f64 ([GradientCheck]), and against the same attention's unfused
/// backward, on random shapes: T and S of 1 and across the 64-key block, grouped-query heads,
/// causal, bool and added masks (the added mask's own gradient too).
class FusedAttentionGradientTest {
    private static Tensor values(Random random, int... shape) { return VjpRulesTest.values(random, false, shape); }

    // Σ w ∘ attention(q, k, v, mask), the mask by kind: 0 none, 1 causal, 2 bool, 3 added.
    private static Jit.FunctionN loss(int mask, double scale) {
        return a -> List.of(VjpRulesTest.weighted(Tensor.scaledDotProductAttention(a.get(0), a.get(1), a.get(2),
                mask == 2 ? a.get(4).gt(-0.7) : mask == 3 ? a.get(4) : null, mask == 1, scale), a.get(3)));
    }

    @Test
    void smallShapesAgainstCentralDifferences() {
        var random = new Random(21);
        int[][] shapes = {{1, 1, 1, 1, 3, 2}, {1, 2, 1, 3, 5, 2}, {2, 4, 2, 4, 3, 3}, {1, 3, 3, 5, 1, 2}};
        for (int trial = 0; trial < 8; trial++) {
            int[] s = shapes[trial % shapes.length];
            int batch = s[0], heads = s[1], kvHeads = s[2], tokens = s[3], sources = s[4], d = s[5], mask = trial % 4;
            var arguments = List.of(values(random, batch, heads, tokens, d), values(random, batch, kvHeads, sources, d), values(random, batch, kvHeads, sources, d + 1),
                    values(random, batch, heads, tokens, d + 1), keepingFirstKey(values(random, 1, heads, tokens, sources)));
            String name = "attention %s mask %d".formatted(java.util.Arrays.toString(s), mask);
            int[] wrt = mask == 3 ? new int[] {0, 1, 2, 4} : new int[] {0, 1, 2};
            GradientCheck.check(name, loss(mask, 0.7), arguments, wrt);
            GradientCheck.checkF32(name, loss(mask, 0.7), arguments, wrt);
        }
    }

    // A bool mask `x > -0.7` that keeps every query's first key: a row with no key is NaN (as
    // unfused), which central differences cannot check; blocksOfKeys… compares such rows.
    private static Tensor keepingFirstKey(Tensor x) {
        double[] values = x.toDoubleArray();
        int keys = x.dim(-1);
        for (int i = 0; i < values.length; i += keys) values[i] = 1;
        return Tensor.of(values, x.shape().toArray());
    }

    @Test
    void blocksOfKeysAndQueriesAgainstTheUnfusedBackward() {
        var random = new Random(22);
        int[][] shapes = {{1, 4, 2, 70, 67, 8}, {1, 2, 1, 130, 1, 5}, {2, 3, 3, 1, 129, 9}};
        for (int trial = 0; trial < shapes.length * 2; trial++) {
            int[] s = shapes[trial % shapes.length];
            int batch = s[0], heads = s[1], kvHeads = s[2], tokens = s[3], sources = s[4], d = s[5], mask = trial % 3 == 0 ? 1 : trial % 3 == 1 ? 2 : 0;
            Tensor[] arguments = {values(random, batch, heads, tokens, d), values(random, batch, kvHeads, sources, d), values(random, batch, kvHeads, sources, d),
                    values(random, batch, heads, tokens, d), values(random, tokens, sources)};
            var fused = Autograd.grad(loss(mask, 0.3), 5, 0, 1, 2);
            var unfused = Autograd.grad(unrecognised(mask, 0.3), 5, 0, 1, 2);
            assertTrue(fused.explain(arguments).contains("attention backward fusion"), fused.explain(arguments));
            assertTrue(!unfused.explain(arguments).contains("attention"), "the unfused form is not recognised");
            List<Tensor> expected = unfused.applyAll(arguments), actual = fused.applyAll(arguments);
            for (int i = 0; i < 3; i++)
                GradientCheck.agree("%s mask %d: gradient %d fused vs unfused".formatted(java.util.Arrays.toString(s), mask, i), expected.get(i), actual.get(i), 1e-10);
        }
    }

    // Depths of whole vectors (64, as GPT's heads, and 80): the kernels' block products then run
    // their four-row tiles, which skip what a causal diagonal block's mask zeroes; T and S around
    // the block, apart (S > T and S < T move the diagonal), grouped-query; f32 and f64.
    @Test
    void causalDiagonalBlocksAtVectorDepthsAgainstTheUnfusedBackward() {
        var random = new Random(24);
        int[][] shapes = {{2, 2, 1, 128, 128, 64}, {1, 2, 2, 67, 130, 64}, {1, 3, 1, 129, 70, 80}, {1, 1, 1, 5, 5, 64}};
        for (int trial = 0; trial < shapes.length * 2; trial++) {
            int[] s = shapes[trial % shapes.length];
            int batch = s[0], heads = s[1], kvHeads = s[2], tokens = s[3], sources = s[4], d = s[5];
            DType dtype = trial < shapes.length ? DType.F32 : DType.F64;
            Tensor[] arguments = {values(random, batch, heads, tokens, d).to(dtype), values(random, batch, kvHeads, sources, d).to(dtype),
                    values(random, batch, kvHeads, sources, d).to(dtype), values(random, batch, heads, tokens, d).to(dtype), values(random, tokens, sources).to(dtype)};
            var fused = Autograd.grad(loss(1, 0.125), 5, 0, 1, 2);
            var unfused = Autograd.grad(unrecognised(1, 0.125), 5, 0, 1, 2);
            assertTrue(fused.explain(arguments).contains("attention backward fusion"), fused.explain(arguments));
            List<Tensor> expected = unfused.applyAll(arguments), actual = fused.applyAll(arguments);
            for (int i = 0; i < 3; i++)
                GradientCheck.agree("%s %s: gradient %d fused vs unfused".formatted(java.util.Arrays.toString(s), dtype, i), expected.get(i), actual.get(i), dtype == DType.F32 ? 2e-5 : 1e-10);
            for (int i = 0; i < 3; i++)
                assertArrayEquals(actual.get(i).toDoubleArray(), fused.applyAll(arguments).get(i).toDoubleArray(), "repeated call, gradient " + i);
        }
    }

    // The same attention with its softmax written as exp(logSoftmax), which the fusion rule does not
    // recognise: autograd differentiates the unfused ops.
    private static Jit.FunctionN unrecognised(int mask, double scale) {
        return a -> {
            Tensor scores = a.get(0).matmul(groups(a.get(1), a.get(0)).transpose(-1, -2)).mul(scale);
            int tokens = a.get(0).dim(-2), sources = a.get(1).dim(-2);
            if (mask == 1) scores = scores.add(Tensor.full(DType.F64, Double.NEGATIVE_INFINITY, tokens, sources).triu(1));
            if (mask == 2) scores = Tensor.where(a.get(4).gt(-0.7), scores, Double.NEGATIVE_INFINITY);
            return List.of(VjpRulesTest.weighted(scores.logSoftmax(-1).exp().matmul(groups(a.get(2), a.get(0))), a.get(3)));
        };
    }

    // k or v with each head repeated for the q heads sharing it.
    private static Tensor groups(Tensor kv, Tensor q) {
        int group = q.dim(1) / kv.dim(1);
        if (group == 1) return kv;
        return kv.unsqueeze(2).expand(kv.dim(0), kv.dim(1), group, kv.dim(2), kv.dim(3)).reshape(kv.dim(0), q.dim(1), kv.dim(2), kv.dim(3));
    }

    @Test
    void theForwardProgramWritesTheLogsumexpBesideTheOutput() {
        var random = new Random(23);
        Tensor[] arguments = {values(random, 1, 2, 9, 4), values(random, 1, 2, 9, 4), values(random, 1, 2, 9, 4), values(random, 1, 2, 9, 4), values(random, 9, 9)};
        var split = Autograd.valueAndGrad(loss(1, 0.5), 5, 0, 1, 2);
        split.apply(arguments);
        String explained = split.explain();
        assertTrue(explained.contains("writes [output, logsumexp]"), explained);
        assertTrue(explained.contains("writes [grad_q, grad_k, grad_v]"), explained);
    }
}
