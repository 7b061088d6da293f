// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;

/// Assertions on concrete tensors. Expected values are written in double and rounded once to the
/// tensor's dtype, which is exactly what the reference interpreter does with its double results;
/// so "exact" means bit for bit, with NaN equal to NaN and -0.0 distinct from +0.0.
final class TensorAssertions {
    private TensorAssertions() {}

    /// Relative bound for a composite such as softmax: every primitive rounds to f32 once, and a
    /// handful of them (sub, exp, sum, div, log) chain, so allow 8 ulps of 1.0f.
    static final double F32_COMPOSITE = 8 * Math.ulp(1f);

    /// Relative bound for f64 results through [dev.smelt.ir.Erf], documented as "a few ulps".
    static final double F64_FEW_ULPS = 8 * Math.ulp(1.0);

    static int[] shape(int... dims) { return dims; }

    /// `actual` has this dtype and shape and exactly these values in row-major order.
    static void assertTensor(Tensor actual, DType dtype, int[] shape, double... expected) {
        assertEquals(dtype, actual.dtype(), () -> "dtype of " + actual);
        assertEquals(Shape.of(shape), actual.shape(), () -> "shape of " + actual);
        assertValues(actual, expected);
    }

    /// `actual` holds exactly `expected` (each rounded to the tensor's dtype) in row-major order.
    static void assertValues(Tensor actual, double... expected) {
        double[] values = actual.toDoubleArray();
        assertEquals(expected.length, values.length, () -> "element count of " + actual);
        for (int i = 0; i < values.length; i++) {
            double want = actual.dtype().round(expected[i]);
            if (Double.compare(want, values[i]) != 0)
                fail("element %d: expected %s but was %s in %s".formatted(i, want, values[i], actual));
        }
    }

    /// `actual` has this dtype and shape, and each value is within `relative · max(1, |expected|)`
    /// of `expected`; NaN and infinities must match exactly.
    static void assertClose(Tensor actual, DType dtype, int[] shape, double relative, double... expected) {
        assertEquals(dtype, actual.dtype(), () -> "dtype of " + actual);
        assertEquals(Shape.of(shape), actual.shape(), () -> "shape of " + actual);
        double[] values = actual.toDoubleArray();
        assertEquals(expected.length, values.length, () -> "element count of " + actual);
        for (int i = 0; i < values.length; i++) {
            boolean close = Double.isFinite(expected[i])
                    ? Math.abs(values[i] - expected[i]) <= relative * Math.max(1, Math.abs(expected[i]))
                    : Double.compare(expected[i], values[i]) == 0;
            if (!close) fail("element %d: expected %s ± %s but was %s in %s".formatted(i, expected[i], relative, values[i], actual));
        }
    }

    /// Whether `view` reads the same memory as `base`, as PyTorch's views do.
    static void assertSharesStorage(Tensor base, Tensor view) {
        if (base.value().storage() != view.value().storage()) fail("expected %s to be a view of %s's storage".formatted(view, base));
    }

    /// `0, 1, …, count-1` as doubles, for building expected values.
    static double[] range(int count) {
        double[] values = new double[count];
        for (int i = 0; i < count; i++) values[i] = i;
        return values;
    }
}
