// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static dev.smelt.TensorAssertions.F32_COMPOSITE;
import static dev.smelt.TensorAssertions.F64_FEW_ULPS;
import static dev.smelt.TensorAssertions.assertClose;
import static dev.smelt.TensorAssertions.assertTensor;
import static dev.smelt.TensorAssertions.shape;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.DType;
import org.junit.jupiter.api.Test;

/// Softmax, log-softmax, layer norm and the losses against closed forms. They chain several
/// f32 roundings, so values are compared within [TensorAssertions#F32_COMPOSITE].
class CompositesTest {
    private static final float INF = Float.POSITIVE_INFINITY, NAN = Float.NaN;
    /// log Σ exp([1, 2, 3]).
    private static final double LSE = 3 + Math.log(1 + Math.exp(-1) + Math.exp(-2));

    @Test
    void softmaxIsExpOverSum() {
        var x = Tensor.of(new float[] {1, 2, 3});
        double total = 1 + Math.exp(-1) + Math.exp(-2);
        assertClose(x.softmax(0), DType.F32, shape(3), F32_COMPOSITE, Math.exp(-2) / total, Math.exp(-1) / total, 1 / total);
        assertClose(x.softmax(-1), DType.F32, shape(3), F32_COMPOSITE, Math.exp(-2) / total, Math.exp(-1) / total, 1 / total);
        assertTensor(Tensor.scalar(5).softmax(0), DType.F32, shape(), 1);
        assertClose(Tensor.of(new int[] {0, 0}).softmax(0), DType.F32, shape(2), F32_COMPOSITE, 0.5, 0.5);
    }

    @Test
    void softmaxIsStableForLargeInputs() {
        var x = Tensor.of(new float[] {1000, 1000, 1000, 1000, 0, -INF, -1000, -1000, -1000}, 3, 3);
        assertClose(x.softmax(1), DType.F32, shape(3, 3), F32_COMPOSITE, 1 / 3.0, 1 / 3.0, 1 / 3.0, 1, 0, 0, 1 / 3.0, 1 / 3.0, 1 / 3.0);
        assertClose(x.logSoftmax(1), DType.F32, shape(3, 3), F32_COMPOSITE,
                -Math.log(3), -Math.log(3), -Math.log(3), 0, -1000, -INF, -Math.log(3), -Math.log(3), -Math.log(3));
        assertTensor(Tensor.of(new float[] {-INF, -INF}).softmax(0), DType.F32, shape(2), NAN, NAN);  // as PyTorch
    }

    @Test
    void softmaxRowsSumToOne() {
        var x = Tensor.randn(new Generator(8), 5, 7).mul(30);
        var rows = x.softmax(1).sum(1).toDoubleArray();
        var columns = x.softmax(0).sum(0).toDoubleArray();
        assertClose(Tensor.of(rows), DType.F64, shape(5), F32_COMPOSITE, 1, 1, 1, 1, 1);
        assertClose(Tensor.of(columns), DType.F64, shape(7), F32_COMPOSITE, 1, 1, 1, 1, 1, 1, 1);
    }

    @Test
    void softmaxOfAStridedViewUsesTheViewsAxes() {
        var x = Tensor.of(new float[] {0, 1, 0, 1}, 2, 2);
        double low = 1 / (1 + Math.E), high = Math.E / (1 + Math.E);
        assertClose(x.t().softmax(1), DType.F32, shape(2, 2), F32_COMPOSITE, 0.5, 0.5, 0.5, 0.5);
        assertClose(x.t().softmax(0), DType.F32, shape(2, 2), F32_COMPOSITE, low, low, high, high);
    }

    @Test
    void logSoftmaxIsXMinusLogsumexp() {
        var x = Tensor.of(new float[] {1, 2, 3, 1, 1, 1}, 2, 3);
        assertClose(x.logSoftmax(1), DType.F32, shape(2, 3), F32_COMPOSITE,
                1 - LSE, 2 - LSE, 3 - LSE, -Math.log(3), -Math.log(3), -Math.log(3));
        assertClose(x.logSoftmax(0), DType.F32, shape(2, 3), F32_COMPOSITE,
                -Math.log(2), 1 - Math.log1p(Math.E), 2 - Math.log1p(Math.exp(2)), -Math.log(2), -Math.log1p(Math.E), -Math.log1p(Math.exp(2)));
        assertTensor(Tensor.scalar(5).logSoftmax(-1), DType.F32, shape(), 0);
    }

    @Test
    void layerNormNormalisesTheTrailingAxes() {
        var x = Tensor.of(new float[] {1, 2, 3, 4, 2, 2, 2, 2}, 2, 4);
        double scale = 1 / Math.sqrt(1.25 + 1e-5);                     // mean 2.5, biased variance 1.25
        assertClose(x.layerNorm(4), DType.F32, shape(2, 4), F32_COMPOSITE,
                -1.5 * scale, -0.5 * scale, 0.5 * scale, 1.5 * scale, 0, 0, 0, 0);
        double whole = 1 / Math.sqrt(0.6875 + 1e-5);                   // mean 2.25, variance 5.5 / 8
        assertClose(x.layerNorm(2, 4), DType.F32, shape(2, 4), F32_COMPOSITE,
                -1.25 * whole, -0.25 * whole, 0.75 * whole, 1.75 * whole, -0.25 * whole, -0.25 * whole, -0.25 * whole, -0.25 * whole);
    }

    @Test
    void layerNormAppliesWeightAndBias() {
        var x = Tensor.of(new float[] {1, 2, 3, 4}, 1, 4);
        var weight = Tensor.of(new float[] {1, -1, 2, 0.5f});
        var bias = Tensor.of(new float[] {0, 1, 0, -1});
        double s = 1 / Math.sqrt(1.25 + 0.1);
        assertClose(x.layerNorm(new int[] {4}, weight, bias, 0.1), DType.F32, shape(1, 4), F32_COMPOSITE,
                -1.5 * s, 1 + 0.5 * s, s, 0.75 * s - 1);
        assertClose(x.layerNorm(new int[] {4}, weight, null, 0.1), DType.F32, shape(1, 4), F32_COMPOSITE,
                -1.5 * s, 0.5 * s, s, 0.75 * s);
        assertClose(x.layerNorm(new int[] {4}, null, bias, 0.1), DType.F32, shape(1, 4), F32_COMPOSITE,
                -1.5 * s, 1 - 0.5 * s, 0.5 * s, 1.5 * s - 1);
        assertClose(x.layerNorm(new int[] {4}, null, null, 0), DType.F32, shape(1, 4), F32_COMPOSITE,
                -1.5 / Math.sqrt(1.25), -0.5 / Math.sqrt(1.25), 0.5 / Math.sqrt(1.25), 1.5 / Math.sqrt(1.25));
    }

    @Test
    void crossEntropyWithClassIndicesIsTheMeanNegativeLogLikelihood() {
        var logits = Tensor.of(new float[] {1, 2, 3, 1, 1, 1}, 2, 3);
        var targets = Tensor.of(new int[] {2, 0});
        assertClose(logits.crossEntropy(targets), DType.F32, shape(), F32_COMPOSITE, ((LSE - 3) + Math.log(3)) / 2);
        assertClose(logits.crossEntropy(Tensor.of(new int[] {0, 0})), DType.F32, shape(), F32_COMPOSITE, ((LSE - 1) + Math.log(3)) / 2);
        var single = Tensor.of(new float[] {1, 2, 3});
        assertClose(single.crossEntropy(Tensor.scalar(DType.I32, 0)), DType.F32, shape(), F32_COMPOSITE, LSE - 1);
        var large = Tensor.of(new float[] {1000, 0}, 1, 2);
        assertClose(large.crossEntropy(Tensor.of(new int[] {1})), DType.F32, shape(), F32_COMPOSITE, 1000);
        assertClose(Tensor.of(new double[] {1, 2, 3}, 1, 3).crossEntropy(Tensor.of(new int[] {2})), DType.F64, shape(), F64_FEW_ULPS, LSE - 3);
    }

    @Test
    void crossEntropyWithProbabilitiesAveragesOverRows() {
        var logits = Tensor.of(new float[] {1, 2, 3, 1, 2, 3}, 2, 3);
        var probabilities = Tensor.of(new float[] {0, 0, 1, 0.5f, 0.5f, 0}, 2, 3);
        // Row 1: -log p₃ = LSE - 3; row 2: -(½ log p₁ + ½ log p₂) = LSE - 1.5.
        assertClose(logits.crossEntropy(probabilities), DType.F32, shape(), F32_COMPOSITE, LSE - 2.25);
        var vector = Tensor.of(new float[] {1, 2, 3});
        assertClose(vector.crossEntropy(Tensor.of(new float[] {0.5f, 0.5f, 0})), DType.F32, shape(), F32_COMPOSITE, LSE - 1.5);
        assertClose(logits.crossEntropy(probabilities.to(DType.F64)), DType.F64, shape(), F32_COMPOSITE, LSE - 2.25);
    }

    @Test
    void crossEntropyWithProbabilitiesOverNoClassesIsNaN() { // as PyTorch's: -Σ over an empty input / 0
        for (int[] shape : new int[][] {{2, 0}, {0, 3}, {0}}) {
            Tensor logits = Tensor.zeros(shape), probabilities = Tensor.zeros(shape);
            assertTrue(Double.isNaN(logits.crossEntropy(probabilities).item()), java.util.Arrays.toString(shape));
            var compiled = Jit.compile((Tensor l, Tensor p) -> l.crossEntropy(p));
            for (int call = 0; call < 3; call++) assertTrue(Double.isNaN(compiled.apply(logits, probabilities).item()));
        }
    }

    @Test
    void crossEntropyOfF64LogitsAcceptsF32Probabilities() {
        var logits = Tensor.of(new double[] {1, 2, 3}, 1, 3);
        var probabilities = Tensor.of(new float[] {0, 0, 1}, 1, 3);
        assertClose(logits.crossEntropy(probabilities), DType.F64, shape(), F64_FEW_ULPS, LSE - 3);
    }

    @Test
    void mseLossIsTheMeanSquaredDifference() {
        var x = Tensor.of(new float[] {1, 2, 3});
        assertTensor(x.mseLoss(Tensor.of(new float[] {1, 4, 0})), DType.F32, shape(), 13.0 / 3);
        assertTensor(x.mseLoss(x), DType.F32, shape(), 0);
        assertTensor(Tensor.of(new int[] {1, 2}).mseLoss(Tensor.of(new int[] {3, 2})), DType.F32, shape(), 2);
        assertTensor(Tensor.scalar(2).mseLoss(Tensor.scalar(5)), DType.F32, shape(), 9);
        assertTensor(Tensor.arange(6).reshape(2, 3).t().mseLoss(Tensor.zeros(3, 2)), DType.F32, shape(), 55.0 / 6);
        assertTensor(Tensor.zeros(0).mseLoss(Tensor.zeros(0)), DType.F32, shape(), NAN);
    }
}
