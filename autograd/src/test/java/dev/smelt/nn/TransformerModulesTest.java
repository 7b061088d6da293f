// SPDX-License-Identifier: Apache-2.0
package dev.smelt.nn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.SmeltException;
import dev.smelt.optim.Adam;
import dev.smelt.optim.TrainStep;
import java.util.List;
import org.junit.jupiter.api.Test;

/// MultiHeadAttention against attention written out per head from its own projections (grouped and
/// not, causal and not), causality checked by perturbing later tokens, a TransformerBlock trained
/// by a compiled step, and the parts' dotted names.
class TransformerModulesTest {
    @Test
    void attentionIsEachHeadsSoftmaxOfItsProjections() {
        var generator = new Generator(11);
        for (int[] config : new int[][] {{12, 3, 3, 1}, {16, 4, 2, 0}, {8, 4, 1, 1}}) {
            int dim = config[0], heads = config[1], kvHeads = config[2], batch = 2, tokens = 5, size = dim / heads, group = heads / kvHeads;
            boolean causal = config[3] == 1;
            var attention = new MultiHeadAttention(dim, heads, kvHeads, causal, generator);
            Tensor x = Tensor.randn(generator, batch, tokens, dim);
            var p = attention.namedParameters();
            Tensor q = project(x, p.get("q.weight"), p.get("q.bias")), k = project(x, p.get("k.weight"), p.get("k.bias")), v = project(x, p.get("v.weight"), p.get("v.bias"));
            double[] joined = new double[batch * tokens * dim];
            for (int b = 0; b < batch; b++)
                for (int h = 0; h < heads; h++)
                    for (int t = 0; t < tokens; t++) {
                        double[] weights = new double[tokens];
                        double max = Double.NEGATIVE_INFINITY, total = 0;
                        for (int s = 0; s < tokens; s++) {
                            double dot = 0;
                            for (int i = 0; i < size; i++) dot += q.get(b, t, h * size + i) * k.get(b, s, (h / group) * size + i);
                            weights[s] = causal && s > t ? Double.NEGATIVE_INFINITY : dot / Math.sqrt(size);
                            max = Math.max(max, weights[s]);
                        }
                        for (int s = 0; s < tokens; s++) total += weights[s] = Math.exp(weights[s] - max);
                        for (int i = 0; i < size; i++) {
                            double sum = 0;
                            for (int s = 0; s < tokens; s++) sum += weights[s] / total * v.get(b, s, (h / group) * size + i);
                            joined[(b * tokens + t) * dim + h * size + i] = sum;
                        }
                    }
            Tensor expected = project(Tensor.of(joined, batch, tokens, dim).to(dev.smelt.ir.DType.F32), p.get("o.weight"), p.get("o.bias"));
            for (Tensor actual : List.of(attention.forward(x), Jit.compile(attention::forward).apply(x)))
                assertTrue(expected.allClose(actual, 1e-4, 1e-5, false), attention + ": " + actual + " vs " + expected);
        }
    }

    @Test
    void causalAttentionIgnoresLaterTokens() {
        var generator = new Generator(12);
        var attention = new MultiHeadAttention(8, 2, true, generator);
        Tensor x = Tensor.randn(generator, 1, 6, 8);
        Tensor changed = Tensor.of(x.toFloatArray(), 1, 6, 8);
        for (int j = 0; j < 8; j++) changed.set(100, 0, 5, j);
        Tensor before = attention.forward(x), after = attention.forward(changed);
        assertTrue(before.slice(1, 0, 5).allClose(after.slice(1, 0, 5)));
        assertTrue(!before.slice(1, 5, 6).allClose(after.slice(1, 5, 6)));
    }

    /// Next-token prediction of a fixed cyclic sequence, which a causal block can learn exactly.
    @Test
    void aCompiledStepTrainsABlock() {
        var generator = new Generator(13);
        int vocab = 5, dim = 16, tokens = 8;
        var block = new TransformerBlock(dim, 4, 2, 32, true, generator);
        var embed = new Linear(vocab, dim, generator);
        var head = new Linear(dim, vocab, generator);
        var model = new Sequential(embed, block, head);
        float[] oneHot = new float[tokens * vocab];
        int[] next = new int[tokens];
        for (int t = 0; t < tokens; t++) {
            oneHot[t * vocab + t % vocab] = 1;
            next[t] = (t + 1) % vocab;
        }
        Tensor x = Tensor.of(oneHot, 1, tokens, vocab), y = Tensor.of(next);
        TrainStep step = new Adam(model.parameters(), 1e-2).compile((input, labels) -> model.forward(input).reshape(tokens, vocab).crossEntropy(labels));
        double first = step.apply(x, y), last = first;
        for (int i = 0; i < 150; i++) last = step.apply(x, y);
        assertTrue(last < 0.05 * first, first + " → " + last);
        assertEquals(1, step.compiledSignatures());
    }

    @Test
    void partsHaveDottedNames() {
        var block = new TransformerBlock(8, 2, 1, 16, true, new Generator(14));
        assertEquals(List.of("norm1.weight", "norm1.bias", "attention.q.weight", "attention.q.bias", "attention.k.weight", "attention.k.bias",
                "attention.v.weight", "attention.v.bias", "attention.o.weight", "attention.o.bias", "norm2.weight", "norm2.bias",
                "mlp.0.weight", "mlp.0.bias", "mlp.2.weight", "mlp.2.bias"), List.copyOf(block.stateDict().keySet()));
        assertEquals(List.of(4, 8), block.stateDict().get("attention.k.weight").shape().dims());
        assertTrue(block.toString().contains("(attention): MultiHeadAttention(dim=8, heads=2, kv_heads=1, causal=True)"), block.toString());
        assertThrows(SmeltException.class, () -> new MultiHeadAttention(10, 3, true, new Generator(1)));
        assertThrows(SmeltException.class, () -> new MultiHeadAttention(12, 4, 3, true, new Generator(1)));
        assertThrows(SmeltException.class, () -> new MultiHeadAttention(8, 2, true, new Generator(1)).forward(Tensor.ones(2, 8)));
    }

    private static Tensor project(Tensor x, Parameter weight, Parameter bias) { return x.matmul(weight.value().t()).add(bias.value()); }
}
