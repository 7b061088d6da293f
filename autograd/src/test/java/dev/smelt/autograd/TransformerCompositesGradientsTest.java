// SPDX-License-Identifier: Apache-2.0
package dev.smelt.autograd;

import dev.smelt.Jit;
import dev.smelt.Tensor;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/// Gradients of rmsNorm (input and weight), rope (input and angles, both pair layouts) and causal
/// grouped-query attention (q, k, v), compiled against the interpreter and against central differences.
class TransformerCompositesGradientsTest {
    @Test
    void rmsNorm() {
        var random = new Random(7);
        Tensor x = values(random, 3, 17), w = values(random, 17), out = values(random, 3, 17);
        Jit.FunctionN f = a -> List.of(VjpRulesTest.weighted(a.get(0).rmsNorm(new int[] {17}, a.get(1), 1e-5), a.get(2)));
        GradientCheck.check("rmsNorm", f, List.of(x, w, out), 0, 1);
        GradientCheck.checkF32("rmsNorm", f, List.of(x, w, out), 0, 1);
    }

    @Test
    void rope() {
        var random = new Random(8);
        for (boolean interleaved : new boolean[] {true, false}) {
            Tensor x = values(random, 4, 2, 6), theta = values(random, 4, 1, 3), out = values(random, 4, 2, 6);
            Jit.FunctionN f = a -> List.of(VjpRulesTest.weighted(a.get(0).rope(a.get(1).cos(), a.get(1).sin(), interleaved), a.get(2)));
            GradientCheck.check("rope interleaved=" + interleaved, f, List.of(x, theta, out), 0, 1);
            GradientCheck.checkF32("rope interleaved=" + interleaved, f, List.of(x, theta, out), 0, 1);
        }
    }

    @Test
    void groupedCausalAttention() {
        var random = new Random(10);
        Tensor q = values(random, 1, 4, 3, 5), k = values(random, 1, 2, 3, 5), v = values(random, 1, 2, 3, 2), out = values(random, 1, 4, 3, 2);
        Jit.FunctionN f = a -> List.of(VjpRulesTest.weighted(Tensor.scaledDotProductAttention(a.get(0), a.get(1), a.get(2), true), a.get(3)));
        GradientCheck.check("attention", f, List.of(q, k, v, out), 0, 1, 2);
        GradientCheck.checkF32("attention", f, List.of(q, k, v, out), 0, 1, 2);
    }

    private static Tensor values(Random random, int... shape) { return VjpRulesTest.values(random, false, shape); }
}
