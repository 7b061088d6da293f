// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static dev.smelt.TensorAssertions.F32_COMPOSITE;
import static dev.smelt.TensorAssertions.assertClose;
import static dev.smelt.TensorAssertions.assertTensor;
import static dev.smelt.TensorAssertions.shape;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;
import org.junit.jupiter.api.Test;

/// Every reduction over all axes, one axis, several axes, with and without keepDims, on strided
/// views and over empty axes. Inputs are small integers, so sums and products are exact.
class ReductionsTest {
    private static final float INF = Float.POSITIVE_INFINITY, NAN = Float.NaN;
    private static final Tensor X = Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);   // [[1,2,3],[4,5,6]]
    private static final Tensor CUBE = Tensor.arange(24).reshape(2, 3, 4);              // [i,j,k] = 12i + 4j + k

    @Test
    void sumOverAllOneOrSeveralAxes() {
        assertTensor(X.sum(), DType.F32, shape(), 21);
        assertTensor(X.sum(0), DType.F32, shape(3), 5, 7, 9);
        assertTensor(X.sum(1), DType.F32, shape(2), 6, 15);
        assertTensor(X.sum(-1), DType.F32, shape(2), 6, 15);
        assertTensor(X.sum(0, 1), DType.F32, shape(), 21);
        // Σᵢ Σₖ (12i + 4j + k) = 32j + 60
        assertTensor(CUBE.sum(0, 2), DType.I32, shape(3), 60, 92, 124);
        assertTensor(CUBE.sum(2, 0), DType.I32, shape(3), 60, 92, 124);
        assertTensor(Tensor.scalar(4).sum(), DType.F32, shape(), 4);
    }

    /// A long f32 sum adds its lanes to a double accumulator every few thousand points, so its
    /// error does not grow with the length as one lane's running f32 sum does: ten million 0.1f
    /// summed to 997,297.6 (2.7e-3 off) before, with the mean and the compiled sum alike.
    @Test
    void aLongF32SumStaysAccurate() {
        int n = 10_000_000;
        float[] values = new float[n];
        java.util.Arrays.fill(values, 0.1f);
        Tensor x = Tensor.of(values, n);
        double exact = n * (double) 0.1f;
        var compiled = Jit.compile((Tensor t) -> t.sum());
        for (double got : new double[] {x.sum().item(), compiled.apply(x).item(), compiled.apply(x).item(), x.mean().item() * n})
            assertEquals(exact, got, exact * 1e-5, "sum of ten million 0.1f");
    }

    /// A column sum over many rows adds each column's running f32 sum to a double every 1,024 rows:
    /// a [100000, 40] sum(0) of 0.1f was 9,998.56 for 10,000 before.
    @Test
    void aLongColumnSumStaysAccurate() {
        int rows = 100_000, columns = 40;
        float[] values = new float[rows * columns];
        java.util.Arrays.fill(values, 0.1f);
        Tensor x = Tensor.of(values, rows, columns);
        double exact = rows * (double) 0.1f;
        var compiled = Jit.compile((Tensor t) -> t.sum(0));
        for (Tensor sums : new Tensor[] {x.sum(0), compiled.apply(x), compiled.apply(x)})
            for (float sum : sums.toFloatArray()) assertEquals(exact, sum, exact * 1e-5, "a column of 100,000 0.1f");
    }

    @Test
    void keepDimsKeepsReducedAxesWithSizeOne() {
        assertTensor(X.sum(0, true), DType.F32, shape(1, 3), 5, 7, 9);
        assertTensor(X.sum(1, false), DType.F32, shape(2), 6, 15);
        assertTensor(X.sum(new int[] {0, 1}, true), DType.F32, shape(1, 1), 21);
        assertTensor(X.sum(new int[] {}, true), DType.F32, shape(1, 1), 21);
        assertTensor(CUBE.sum(new int[] {-1, 0}, true), DType.I32, shape(1, 3, 1), 60, 92, 124);
        assertTensor(X.prod(1, true), DType.F32, shape(2, 1), 6, 120);
        assertTensor(X.max(new int[] {0}, true), DType.F32, shape(1, 3), 4, 5, 6);
        assertTensor(X.min(0, true), DType.F32, shape(1, 3), 1, 2, 3);
        assertTensor(X.mean(new int[] {1}, true), DType.F32, shape(2, 1), 2, 5);
        assertTensor(X.var(1, true), DType.F32, shape(2, 1), 1, 1);
        assertTensor(X.argmax(1, true), DType.I32, shape(2, 1), 2, 2);
        assertTensor(X.argmin(0, true), DType.I32, shape(1, 3), 0, 0, 0);
    }

    @Test
    void prodMaxAndMin() {
        assertTensor(X.prod(), DType.F32, shape(), 720);
        assertTensor(X.prod(0), DType.F32, shape(3), 4, 10, 18);
        assertTensor(X.prod(new int[] {1}, false), DType.F32, shape(2), 6, 120);
        assertTensor(X.max(), DType.F32, shape(), 6);
        assertTensor(X.max(0), DType.F32, shape(3), 4, 5, 6);
        assertTensor(X.max(1, false), DType.F32, shape(2), 3, 6);
        assertTensor(X.min(), DType.F32, shape(), 1);
        assertTensor(X.min(1), DType.F32, shape(2), 1, 4);
        assertTensor(X.min(new int[] {0}, false), DType.F32, shape(3), 1, 2, 3);
        assertTensor(CUBE.max(1, 2), DType.I32, shape(2), 11, 23);
        assertTensor(CUBE.min(-1), DType.I32, shape(2, 3), 0, 4, 8, 12, 16, 20);
    }

    @Test
    void maxAndMinPropagateNaNAndSeeInfinities() {
        var x = Tensor.of(new float[] {1, NAN, 3, -INF, INF, 0}, 2, 3);
        assertTensor(x.max(1), DType.F32, shape(2), NAN, INF);
        assertTensor(x.min(1), DType.F32, shape(2), NAN, -INF);
        assertTensor(x.sum(1), DType.F32, shape(2), NAN, NAN);                 // -inf + inf
        assertTensor(Tensor.of(new float[] {-0.0f, 0}).max(), DType.F32, shape(), 0.0);
        assertTensor(Tensor.of(new float[] {0, -0.0f}).min(), DType.F32, shape(), -0.0);
    }

    @Test
    void meanAndVariance() {
        assertTensor(X.mean(), DType.F32, shape(), 3.5);
        assertTensor(X.mean(0), DType.F32, shape(3), 2.5, 3.5, 4.5);
        assertTensor(X.mean(1, false), DType.F32, shape(2), 2, 5);
        assertTensor(Tensor.of(new int[] {1, 2}).mean(), DType.F32, shape(), 1.5);
        // Σ(x - 3.5)² = 17.5 over n - 1 = 5
        assertTensor(X.var(), DType.F32, shape(), 3.5);
        assertTensor(X.var(1), DType.F32, shape(2), 1, 1);
        assertTensor(X.var(0), DType.F32, shape(3), 4.5, 4.5, 4.5);
        assertTensor(X.var(new int[] {1}, 0, false), DType.F32, shape(2), 2.0 / 3, 2.0 / 3);
        assertTensor(X.var(new int[] {}, 0, true), DType.F32, shape(1, 1), 17.5 / 6);
        assertTensor(X.var(new int[] {0, 1}, 2, false), DType.F32, shape(), 17.5 / 4);
        assertTensor(Tensor.of(new double[] {1, 2, 3, 4}).var(), DType.F64, shape(), 5.0 / 3);
    }

    /// Values far from 0 with a small spread, whose f32 sum loses the spread: var of 1031 values
    /// 1e6 + U(0, 1) came out 0.15 for 0.08, and layerNorm's outputs moved by up to 1.1. Eager and
    /// compiled, against the variance and the normalized values computed in double.
    @Test
    void varianceAndLayerNormKeepASmallSpreadFarFromZero() {
        var random = new java.util.Random(2);
        int n = 1031;
        float[] values = new float[2 * n];
        for (int i = 0; i < values.length; i++) values[i] = (float) ((i < n ? 1e6 : -3e5) + random.nextDouble());
        Tensor x = Tensor.of(values, 2, n);
        double[] variances = new double[2], means = new double[2];
        for (int row = 0; row < 2; row++) {
            for (int j = 0; j < n; j++) means[row] += values[row * n + j] / (double) n;
            for (int j = 0; j < n; j++) variances[row] += Math.pow(values[row * n + j] - means[row], 2) / (n - 1);
        }
        for (Tensor variance : java.util.List.of(x.var(1), Jit.compile((Tensor t) -> t.var(1)).apply(x)))
            for (int row = 0; row < 2; row++) assertEquals(variances[row], variance.get(row), 1e-5 * variances[row], "row " + row);
        for (Tensor normalized : java.util.List.of(x.layerNorm(n), Jit.compile((Tensor t) -> t.layerNorm(n)).apply(x)))
            for (int i = 0; i < values.length; i++) {
                int row = i / n;
                double want = (values[i] - means[row]) / Math.sqrt(variances[row] * (n - 1) / n + 1e-5);
                assertEquals(want, normalized.get(row, i % n), 1e-5, "element " + i);
            }
    }

    @Test
    void varianceWithNoDegreesOfFreedomIsNaNOrInfinite() {
        assertTensor(Tensor.of(new float[] {5}).var(), DType.F32, shape(), NAN);          // 0 / 0
        assertTensor(Tensor.of(new float[] {1, 3}).var(new int[] {0}, 3, false), DType.F32, shape(), INF); // 2 / max(0, -1)
    }

    @Test
    void logsumexpIsStable() {
        assertClose(Tensor.of(new float[] {0, 0}).logsumexp(), DType.F32, shape(), F32_COMPOSITE, Math.log(2));
        assertClose(Tensor.of(new float[] {1000, 1000}).logsumexp(), DType.F32, shape(), F32_COMPOSITE, 1000 + Math.log(2));
        assertClose(Tensor.of(new float[] {-1000, -1000}).logsumexp(), DType.F32, shape(), F32_COMPOSITE, -1000 + Math.log(2));
        double row = 3 + Math.log(1 + Math.exp(-1) + Math.exp(-2));
        assertClose(X.logsumexp(1), DType.F32, shape(2), F32_COMPOSITE, row, row + 3);
        assertClose(X.logsumexp(1, true), DType.F32, shape(2, 1), F32_COMPOSITE, row, row + 3);
        assertClose(X.logsumexp(new int[] {0}, false), DType.F32, shape(3), F32_COMPOSITE,
                4 + Math.log1p(Math.exp(-3)), 5 + Math.log1p(Math.exp(-3)), 6 + Math.log1p(Math.exp(-3)));
        assertClose(X.logsumexp(0, 1), DType.F32, shape(), F32_COMPOSITE, row + Math.log1p(Math.exp(3)));
    }

    @Test
    void logsumexpOfInfiniteRows() {
        var x = Tensor.of(new float[] {-INF, -INF, -INF, 0, INF, 1, NAN, 1, 2}, 3, 3);
        assertTensor(x.logsumexp(1), DType.F32, shape(3), -INF, INF, NAN);
    }

    @Test
    void argmaxAndArgminTakeTheFirstExtreme() {
        var x = Tensor.of(new float[] {1, 5, 5, 7, 0, 0}, 2, 3);
        assertTensor(x.argmax(1), DType.I32, shape(2), 1, 0);
        assertTensor(x.argmin(1), DType.I32, shape(2), 0, 1);
        assertTensor(x.argmax(0), DType.I32, shape(3), 1, 0, 0);
        assertTensor(x.argmin(-2), DType.I32, shape(3), 0, 1, 1);
        assertTensor(x.argmax(), DType.I32, shape(), 3);
        assertTensor(x.argmin(), DType.I32, shape(), 4);
        assertTensor(Tensor.scalar(3).argmax(), DType.I32, shape(), 0);
        assertTensor(Tensor.scalar(3).argmin(0), DType.I32, shape(), 0);
        // a 0-d tensor's axis 0 or -1 is accepted as PyTorch accepts it, and reduces nothing
        Tensor three = Tensor.scalar(3);
        assertTensor(three.sum(0), DType.F32, shape(), 3);
        assertTensor(three.max(-1), DType.F32, shape(), 3);
        assertTensor(three.logsumexp(0), DType.F32, shape(), 3);
        assertTensor(three.squeeze(0), DType.F32, shape(), 3);
        assertTensor(Jit.compile((Tensor t) -> t.sum(0)).apply(three), DType.F32, shape(), 3);
        org.junit.jupiter.api.Assertions.assertThrows(dev.smelt.ir.SmeltException.class, () -> three.sum(1));
        assertTensor(Tensor.of(new boolean[] {false, true, true}).argmax(), DType.I32, shape(), 1);
    }

    @Test
    void argReductionsTreatNaNAsTheExtreme() {
        var x = Tensor.of(new float[] {1, NAN, 3, NAN});
        assertTensor(x.argmax(), DType.I32, shape(), 1);
        assertTensor(x.argmin(), DType.I32, shape(), 1);
        assertTensor(Tensor.of(new float[] {-INF, -INF, 2, INF, INF}).argmax(0), DType.I32, shape(), 3);
        assertTensor(Tensor.of(new float[] {-INF, -INF, 2, INF, INF}).argmin(0), DType.I32, shape(), 0);
    }

    @Test
    void stridedViewsReduceInTheirOwnLayout() {
        assertTensor(X.t().sum(1), DType.F32, shape(3), 5, 7, 9);
        assertTensor(X.t().argmax(0), DType.I32, shape(2), 2, 2);
        assertTensor(X.t().argmax(), DType.I32, shape(), 5);                  // [1,4,2,5,3,6]: 6 is last
        assertTensor(X.slice(1, 0, 3, 2).prod(0), DType.F32, shape(2), 4, 18);
        assertTensor(Tensor.of(new float[] {1, 2, 3}).expand(4, 3).sum(0), DType.F32, shape(3), 4, 8, 12);
        assertTensor(Tensor.of(new float[] {1, 2, 3}).expand(4, 3).mean(), DType.F32, shape(), 2);
        assertTensor(CUBE.permute(2, 0, 1).sum(0), DType.I32, shape(2, 3), 6, 22, 38, 54, 70, 86);
        assertTensor(CUBE.slice(2, 1, 4, 2).max(2), DType.I32, shape(2, 3), 3, 7, 11, 15, 19, 23);
    }

    @Test
    void reductionsOverNoElementsGiveTheirIdentity() {
        var empty = Tensor.zeros(2, 0);
        assertTensor(empty.sum(1), DType.F32, shape(2), 0, 0);
        assertTensor(empty.prod(1), DType.F32, shape(2), 1, 1);
        assertTensor(empty.mean(1), DType.F32, shape(2), NAN, NAN);
        assertTensor(empty.logsumexp(1), DType.F32, shape(2), -INF, -INF);
        assertTensor(empty.sum(0), DType.F32, shape(0));
        assertTensor(empty.max(0), DType.F32, shape(0));                      // reduces a size-2 axis
        assertTensor(Tensor.zeros(0).sum(), DType.F32, shape(), 0);
        assertTensor(Tensor.zeros(DType.I32, 0).sum(), DType.I32, shape(), 0);
        assertTensor(Tensor.zeros(DType.I32, 0).prod(), DType.I32, shape(), 1);
        assertTensor(Tensor.zeros(0).mean(), DType.F32, shape(), NAN);
        assertTensor(Tensor.zeros(0).var(), DType.F32, shape(), NAN);
    }

    @Test
    void maxMinAndArgReductionsRefuseEmptyAxes() {
        var empty = Tensor.zeros(2, 0);
        assertThrows(SmeltException.class, () -> empty.max(1));
        assertThrows(SmeltException.class, () -> empty.min());
        assertThrows(SmeltException.class, () -> empty.argmax(1));
        assertThrows(SmeltException.class, () -> empty.argmin());
        assertThrows(SmeltException.class, () -> Tensor.zeros(DType.I32, 0).max());
    }
}
