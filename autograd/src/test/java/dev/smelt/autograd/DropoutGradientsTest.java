// SPDX-License-Identifier: Apache-2.0
package dev.smelt.autograd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Generator;
import dev.smelt.Tensor;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/// The backward of compiled dropout uses its forward's mask, regenerated from the key rather than
/// saved: for `L = Σ dropout(x)·w`, `∂L/∂x = mask·w/(1-p)`, where `mask` is what an eager call from
/// the same generator state draws.
class DropoutGradientsTest {
    static final double P = 0.4;
    static final int N = 1031;

    private static Tensor loss(Tensor x, Tensor w, Generator g) { return x.dropout(P, g).mul(w).sum(); }

    /// `w/(1-p)` where the eager draw keeps the element, 0 elsewhere; advances `eager` as the call does.
    private static float[] expectedGradient(Generator eager, Tensor w) {
        return Tensor.ones(N).dropout(P, eager).mul(w).toFloatArray();
    }

    @Test
    void valueAndGradientUseTheSameMaskAsEager() {
        var g = new Generator(17);
        var eager = new Generator(17);
        var x = Tensor.rand(new Generator(1), N).add(1);
        var w = Tensor.randn(new Generator(2), N);
        var vg = Autograd.valueAndGrad((a, b) -> loss(a, b, g), 0);
        float[] previous = null;
        for (int call = 0; call < 3; call++) {
            float[] expected = expectedGradient(eager, w), xs = x.toFloatArray();
            double expectedValue = 0;
            for (int i = 0; i < N; i++) expectedValue += (double) xs[i] * expected[i];
            var result = vg.apply(x, w);
            float[] gradient = result.gradients().getFirst().toFloatArray();
            assertArrayEquals(expected, gradient, "call " + call);
            assertEquals(expectedValue, result.value().item(), Math.abs(expectedValue) * 1e-4 + 1e-3, "call " + call);
            assertEquals(eager.position(), g.position());
            if (previous != null) assertFalse(Arrays.equals(previous, gradient), "a fresh mask each call");
            previous = gradient;
        }
        String explain = vg.explain();
        assertTrue(explain.contains("recompute") && explain.contains("random: regenerated from its key"), explain);
    }

    @Test
    void jointGradientProgramUsesTheEagerMask() {
        var g = new Generator(5);
        var eager = new Generator(5);
        var w = Tensor.randn(new Generator(3), N);
        var grad = Autograd.grad((a, b) -> loss(a, b, g), 0);
        for (int call = 0; call < 2; call++)
            assertArrayEquals(expectedGradient(eager, w), grad.apply(Tensor.ones(N), w).toFloatArray(), "call " + call);
        assertEquals(eager.position(), g.position());
    }
}
