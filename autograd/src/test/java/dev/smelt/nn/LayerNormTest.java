// SPDX-License-Identifier: Apache-2.0
package dev.smelt.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.autograd.Autograd;
import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;
import dev.smelt.optim.SGD;
import dev.smelt.optim.TrainStep;
import java.util.List;
import org.junit.jupiter.api.Test;

/// `LayerNorm` as `torch.nn.LayerNorm`: the forward against the formula in Java double, the input's
/// gradient against central differences, the weight's and bias's gradients against their closed forms,
/// compiled against eager, on odd shapes.
class LayerNormTest {
    /// `(x - mean) / √(var + eps)` per row of `width` elements, biased variance, in double.
    private static double[] normalized(double[] x, int width, double eps) {
        double[] y = new double[x.length];
        for (int row = 0; row < x.length / width; row++) {
            double mean = 0, variance = 0;
            for (int j = 0; j < width; j++) mean += x[row * width + j] / width;
            for (int j = 0; j < width; j++) variance += Math.pow(x[row * width + j] - mean, 2) / width;
            for (int j = 0; j < width; j++) y[row * width + j] = (x[row * width + j] - mean) / Math.sqrt(variance + eps);
        }
        return y;
    }

    @Test
    void forwardNormalisesTheTrailingAxesThenScalesAndShifts() {
        var generator = new Generator(4);
        for (int[] shape : new int[][] {{1, 7}, {3, 5}, {2, 3, 33}, {5, 257}}) {
            int width = shape[shape.length - 1];
            var norm = new LayerNorm(width);
            norm.weight().value().set(2, 0);
            norm.bias().value().set(-1, width - 1);
            Tensor x = Tensor.randn(generator, DType.F64, shape).mul(3).add(1);
            double[] expected = normalized(x.toDoubleArray(), width, 1e-5);
            for (int i = 0; i < expected.length; i++) {
                if (i % width == 0) expected[i] *= 2;
                if (i % width == width - 1) expected[i] -= 1;
            }
            assertArrayEquals(expected, norm.forward(x).toDoubleArray(), 1e-12, "eager, shape " + java.util.Arrays.toString(shape));
            assertArrayEquals(expected, Jit.compile(norm::forward).apply(x).toDoubleArray(), 1e-12, "compiled");
        }
        var twoAxes = new LayerNorm(new int[] {2, 3}, 0.1, false);
        assertTrue(twoAxes.parameters().isEmpty());
        assertNull(twoAxes.weight());
        Tensor x = Tensor.randn(generator, DType.F64, 4, 2, 3);
        assertArrayEquals(normalized(x.toDoubleArray(), 6, 0.1), twoAxes.forward(x).toDoubleArray(), 1e-12);
    }

    @Test
    void inputGradientMatchesCentralDifferences() {
        var norm = new LayerNorm(5);
        norm.weight().value().set(0.5, 1);
        norm.bias().value().set(2, 3);
        var generator = new Generator(6);
        Tensor x = Tensor.randn(generator, DType.F64, 3, 5), r = Tensor.randn(generator, DType.F64, 3, 5);
        Tensor gradient = Autograd.grad(args -> List.of(norm.forward(args.get(0)).mul(args.get(1)).sum()), 2, 0).apply(x, r);
        double[] values = x.toDoubleArray(), g = gradient.toDoubleArray();
        for (int e = 0; e < values.length; e++) {
            double h = 1e-6, plus, minus;
            values[e] += h;
            plus = norm.forward(Tensor.of(values, 3, 5)).mul(r).sum().item();
            values[e] -= 2 * h;
            minus = norm.forward(Tensor.of(values, 3, 5)).mul(r).sum().item();
            values[e] += h;
            assertEquals((plus - minus) / (2 * h), g[e], 1e-6, "∂/∂x element " + e);
        }
    }

    @Test
    void weightAndBiasGradientsMatchTheirClosedForms() {
        // A step of SGD with lr 1 moves each parameter by minus its gradient:
        // ∂/∂weight_j Σ r·y = Σ_rows r_ij·x̂_ij and ∂/∂bias_j = Σ_rows r_ij.
        var norm = new LayerNorm(9);
        var generator = new Generator(2);
        Tensor x = Tensor.randn(generator, 6, 9), r = Tensor.randn(generator, 6, 9);
        TrainStep step = new SGD(norm.parameters(), 1.0).compile((input, weights) -> norm.forward(input).mul(weights).sum());
        double[] xHat = normalized(x.toDoubleArray(), 9, 1e-5), rs = r.toDoubleArray();
        double[] weight = new double[9], bias = new double[9];
        for (int i = 0; i < xHat.length; i++) {
            weight[i % 9] -= rs[i] * xHat[i];
            bias[i % 9] -= rs[i];
        }
        for (int j = 0; j < 9; j++) weight[j] += 1;
        step.apply(x, r);
        assertArrayEquals(weight, norm.weight().value().toDoubleArray(), 1e-4);
        assertArrayEquals(bias, norm.bias().value().toDoubleArray(), 1e-5);
    }

    @Test
    void printsAndRefusesAsPyTorch() {
        assertEquals("LayerNorm((64,), eps=1e-05, elementwise_affine=True)", new LayerNorm(64).toString());
        assertEquals("LayerNorm((2, 3), eps=0.001, elementwise_affine=False)", new LayerNorm(new int[] {2, 3}, 1e-3, false).toString());
        assertEquals(List.of("weight", "bias"), new LayerNorm(4).parameters().stream().map(Parameter::name).toList());
        assertMessage(() -> new LayerNorm(), "LayerNorm: the normalized shape must name at least one axis size");
        assertMessage(() -> new LayerNorm(3, 0), "must have positive sizes");
        assertMessage(() -> new LayerNorm(new int[] {3}, -1, true), "eps must be finite and ≥ 0, got -1.0");
        assertMessage(() -> new LayerNorm(4).forward(Tensor.zeros(2, 5)), "layerNorm: normalized shape [4] must be the trailing axes of [2,5]");
        assertMessage(() -> new LayerNorm(4).forward(null), "LayerNorm: the input is null");
    }

    static void assertMessage(Runnable call, String expected) {
        var e = assertThrows(SmeltException.class, call::run);
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
