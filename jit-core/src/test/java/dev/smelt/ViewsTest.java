// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static dev.smelt.TensorAssertions.assertSharesStorage;
import static dev.smelt.TensorAssertions.assertTensor;
import static dev.smelt.TensorAssertions.range;
import static dev.smelt.TensorAssertions.shape;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import dev.smelt.ops.Views;
import org.junit.jupiter.api.Test;

/// Views share their base's storage wherever PyTorch's do; values read through a view are the
/// base's elements at the mapped index.
class ViewsTest {
    private static final Tensor MATRIX = Tensor.arange(12).reshape(3, 4);      // [[0..3], [4..7], [8..11]]
    private static final Tensor CUBE = Tensor.arange(24).reshape(2, 3, 4);

    @Test
    void reshapeOfAContiguousTensorIsAView() {
        var x = MATRIX.reshape(4, 3);
        assertTensor(x, DType.I32, shape(4, 3), range(12));
        assertSharesStorage(MATRIX, x);
        assertTensor(MATRIX.reshape(-1, 6), DType.I32, shape(2, 6), range(12));
        assertTensor(MATRIX.reshape(2, -1, 3), DType.I32, shape(2, 2, 3), range(12));
        assertTensor(MATRIX.reshape(-1), DType.I32, shape(12), range(12));
        assertTensor(Tensor.of(new float[] {5}).reshape(), DType.F32, shape(), 5);
        assertTensor(Tensor.scalar(5).reshape(1, 1), DType.F32, shape(1, 1), 5);
    }

    @Test
    void reshapeOfAZeroSizedTensorInfersZero() {
        assertTensor(Tensor.zeros(0, 3).reshape(-1), DType.F32, shape(0));
        assertTensor(Tensor.zeros(0, 3).reshape(3, -1), DType.F32, shape(3, 0));
        assertTensor(Tensor.zeros(2, 0).reshape(0, 5), DType.F32, shape(0, 5));
    }

    @Test
    void reshapeOfANonContiguousTensorCopiesInItsOwnOrder() {
        var x = MATRIX.t().reshape(12);
        assertTensor(x, DType.I32, shape(12), 0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11);
        assertNotSame(MATRIX.value().storage(), x.value().storage());
    }

    @Test
    void reshapeOfAContiguousSliceKeepsItsOffset() {
        var rows = MATRIX.slice(0, 1, 3);
        var flat = rows.reshape(8);
        assertTensor(flat, DType.I32, shape(8), 4, 5, 6, 7, 8, 9, 10, 11);
        assertSharesStorage(MATRIX, flat);
    }

    @Test
    void permuteReordersAxesOverTheSameStorage() {
        var x = CUBE.permute(2, 0, 1);
        assertEquals(Shape.of(4, 2, 3), x.shape());
        assertSharesStorage(CUBE, x);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 2; j++)
                for (int k = 0; k < 3; k++) assertEquals(CUBE.get(j, k, i), x.get(i, j, k));
        assertArrayEquals(x.toIntArray(), CUBE.permute(-1, 0, -2).toIntArray());
        assertTensor(CUBE.permute(0, 1, 2), DType.I32, shape(2, 3, 4), range(24));
    }

    @Test
    void transposeAndTSwapTwoAxes() {
        var t = MATRIX.t();
        assertTensor(t, DType.I32, shape(4, 3), 0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11);
        assertSharesStorage(MATRIX, t);
        assertEquals(MATRIX.get(2, 1), t.get(1, 2));
        assertArrayEquals(t.toIntArray(), MATRIX.transpose(1, 0).toIntArray());
        var x = CUBE.transpose(0, 2);
        assertEquals(Shape.of(4, 3, 2), x.shape());
        assertEquals(CUBE.get(1, 2, 3), x.get(3, 2, 1));
        assertArrayEquals(CUBE.transpose(-1, -2).toIntArray(), CUBE.permute(0, 2, 1).toIntArray());
        assertTensor(MATRIX.t().t(), DType.I32, shape(3, 4), range(12));
    }

    @Test
    void expandRepeatsSizeOneAxesWithStrideZero() {
        var column = Tensor.of(new float[] {1, 2, 3}).reshape(3, 1);
        var x = column.expand(2, 3, 4);
        assertTensor(x, DType.F32, shape(2, 3, 4), 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
        assertSharesStorage(column, x);
        assertArrayEquals(new int[] {0, 1, 0}, x.value().strides());
        assertEquals(3, x.get(1, 2, 3));
        assertTensor(Tensor.scalar(7).broadcastTo(2, 2), DType.F32, shape(2, 2), 7, 7, 7, 7);
        assertTensor(column.broadcastTo(3, 1), DType.F32, shape(3, 1), 1, 2, 3);
        assertTensor(Tensor.ones(1, 3).expand(0, 3), DType.F32, shape(0, 3));
        assertTensor(column.expand(2, -1, 2), DType.F32, shape(2, 3, 2), 1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3);  // -1 keeps the size
        assertEquals(Shape.of(3, 4), Jit.compile((Tensor c) -> c.expand(-1, 4)).apply(column).shape());
        var error = org.junit.jupiter.api.Assertions.assertThrows(dev.smelt.ir.SmeltException.class, () -> column.expand(-1, 3, 1));
        assertTrue(error.getMessage().startsWith("expand: size -1 (keep) on new leading axis 0"), error.getMessage());
    }

    @Test
    void sliceTakesStartStopAndStepWithNegativeIndices() {
        var x = Tensor.arange(10);
        assertTensor(x.slice(0, 1, 8, 3), DType.I32, shape(3), 1, 4, 7);
        assertTensor(x.slice(0, -3, 10), DType.I32, shape(3), 7, 8, 9);
        assertTensor(x.slice(0, -4, -1, 2), DType.I32, shape(2), 6, 8);
        assertTensor(x.slice(0, 0, 10, 20), DType.I32, shape(1), 0);
        assertTensor(x.slice(0, 5, 2), DType.I32, shape(0));               // stop before start: empty
        assertTensor(x.slice(0, 10, 10), DType.I32, shape(0));
        assertTensor(x.slice(-1, 0, 10, 4), DType.I32, shape(3), 0, 4, 8);
    }

    @Test
    void sliceIsAViewAndComposes() {
        var columns = MATRIX.slice(1, 1, 4, 2);
        assertTensor(columns, DType.I32, shape(3, 2), 1, 3, 5, 7, 9, 11);
        assertSharesStorage(MATRIX, columns);
        assertEquals(MATRIX.get(2, 3), columns.get(2, 1));
        var corner = columns.slice(0, 1, 3).slice(1, -1, 2);
        assertTensor(corner, DType.I32, shape(2, 1), 7, 11);
        assertEquals(MATRIX.get(-1, -1), corner.get(-1, 0));
        assertTensor(MATRIX.t().slice(0, 1, 4, 2), DType.I32, shape(2, 3), 1, 5, 9, 3, 7, 11);
    }

    @Test
    void squeezeAndUnsqueezeRemoveAndAddSizeOneAxes() {
        var x = Tensor.arange(6).reshape(1, 3, 1, 2);
        assertTensor(x.squeeze(), DType.I32, shape(3, 2), range(6));
        assertTensor(x.squeeze(0), DType.I32, shape(3, 1, 2), range(6));
        assertTensor(x.squeeze(-2, 0), DType.I32, shape(3, 2), range(6));
        assertTensor(x.squeeze().unsqueeze(0), DType.I32, shape(1, 3, 2), range(6));
        assertTensor(x.squeeze().unsqueeze(-1), DType.I32, shape(3, 2, 1), range(6));
        assertTensor(x.squeeze().unsqueeze(1), DType.I32, shape(3, 1, 2), range(6));
        assertTensor(Tensor.scalar(4).unsqueeze(0), DType.F32, shape(1), 4);
        assertTensor(Tensor.ones(1).squeeze(), DType.F32, shape(), 1);
        assertSharesStorage(x, x.squeeze().unsqueeze(0));
    }

    @Test
    void squeezeAndUnsqueezeKeepANonContiguousLayout() {
        var t = MATRIX.t().unsqueeze(1);
        assertEquals(Shape.of(4, 1, 3), t.shape());
        assertSharesStorage(MATRIX, t);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 3; j++) assertEquals(MATRIX.get(j, i), t.get(i, 0, j));
        assertArrayEquals(MATRIX.t().toIntArray(), t.squeeze(1).toIntArray());
    }

    @Test
    void flattenMergesARangeOfAxes() {
        assertTensor(CUBE.flatten(), DType.I32, shape(24), range(24));
        assertTensor(CUBE.flatten(1, 2), DType.I32, shape(2, 12), range(24));
        assertTensor(CUBE.flatten(0, 1), DType.I32, shape(6, 4), range(24));
        assertTensor(CUBE.flatten(-2, -1), DType.I32, shape(2, 12), range(24));
        assertTensor(CUBE.flatten(1, 1), DType.I32, shape(2, 3, 4), range(24));
        assertTensor(Tensor.scalar(3).flatten(), DType.F32, shape(1), 3);
        assertSharesStorage(CUBE, CUBE.flatten());
        assertTensor(MATRIX.t().flatten(), DType.I32, shape(12), 0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11);
    }

    @Test
    void contiguousCopiesOnlyWhenTheLayoutIsNotRowMajor() {
        assertSame(MATRIX, MATRIX.contiguous());
        var dense = MATRIX.t().contiguous();
        assertTensor(dense, DType.I32, shape(4, 3), 0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11);
        assertNotSame(MATRIX.value().storage(), dense.value().storage());
        assertArrayEquals(new int[] {3, 1}, dense.value().strides());
        assertTrue(Views.isContiguous(MATRIX.slice(0, 1, 2).value()));
        assertFalse(Views.isContiguous(MATRIX.slice(1, 0, 4, 2).value()));
        assertFalse(Views.isContiguous(Tensor.ones(1, 3).expand(2, 3).value()));
        assertTensor(Tensor.ones(1, 3).expand(2, 3).contiguous(), DType.F32, shape(2, 3), 1, 1, 1, 1, 1, 1);
    }

    /// As PyTorch's, an eager `detach` shares the tensor's storage: a write through it is seen by the tensor.
    @Test
    void detachOutsideATraceSharesStorage() {
        var x = Tensor.of(new float[] {1, 2, 3});
        x.detach().set(7, 0);
        assertTensor(x, DType.F32, shape(3), 7, 2, 3);
    }

    @Test
    void toConvertsBetweenDtypes() {
        var x = Tensor.of(new float[] {-2.7f, -0.5f, 0, 2.7f, Float.NaN});
        assertSame(x, x.to(DType.F32));
        assertTensor(x.to(DType.I32), DType.I32, shape(5), -2, 0, 0, 2, 0);   // truncation; NaN → 0
        assertTensor(x.to(DType.BOOL), DType.BOOL, shape(5), 1, 1, 0, 1, 1);  // x ≠ 0; NaN is true
        assertTensor(x.to(DType.F64), DType.F64, shape(5), -2.7f, -0.5, 0, 2.7f, Double.NaN);
        assertTensor(Tensor.of(new boolean[] {true, false}).to(DType.F32), DType.F32, shape(2), 1, 0);
        assertTensor(Tensor.of(new double[] {0.1}).to(DType.F32), DType.F32, shape(1), (float) 0.1);
        assertTensor(MATRIX.t().to(DType.F32), DType.F32, shape(4, 3), 0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11);
    }

    @Test
    void metadataDescribesTheView() {
        var x = CUBE.slice(2, 0, 4, 2);
        assertEquals(3, x.rank());
        assertEquals(12, x.size());
        assertEquals(2, x.dim(-1));
        assertEquals(3, x.dim(1));
        assertFalse(x.isTraced());
        assertEquals(DType.I32, x.dtype());
    }

    /// A view's values read out (its dense copy: rows copied whole when they are contiguous, else
    /// element by element) equal its elements one by one: random slices with steps, permutations
    /// and broadcasts of 1-D to 4-D tensors of every dtype, empty ones included.
    @Test
    void randomViewsCopyOutTheirElements() {
        var random = new java.util.Random(37);
        for (int trial = 0; trial < 300; trial++) {
            int rank = 1 + random.nextInt(4);
            int[] dims = new int[rank];
            for (int d = 0; d < rank; d++) dims[d] = 1 + random.nextInt(6);
            int count = 1;
            for (int d : dims) count *= d;
            DType dtype = DType.values()[trial % DType.values().length];
            Tensor view = Tensor.arange(count).sub(count / 3).reshape(dims).to(dtype);
            for (int step = 0; step < 3; step++) {
                int axis = random.nextInt(rank), size = view.dim(axis);
                view = switch (random.nextInt(3)) {
                    case 0 -> {
                        int start = random.nextInt(size + 1);
                        yield view.slice(axis, start, start + random.nextInt(size - start + 1), 1 + random.nextInt(2));
                    }
                    case 1 -> rank > 1 ? view.transpose(axis, random.nextInt(rank)) : view;
                    default -> size == 1 ? view.expand(expanded(view.shape(), axis, 3)) : view;
                };
            }
            double[] values = view.toDoubleArray();
            int[] index = new int[rank];
            for (int i = 0; i < values.length; i++) {
                assertEquals(view.get(index), values[i], "trial %d, %s%s, element %d".formatted(trial, dtype, view.shape(), i));
                for (int d = rank - 1; d >= 0 && ++index[d] == view.dim(d); d--) index[d] = 0;
            }
        }
    }

    private static int[] expanded(Shape shape, int axis, int size) {
        int[] dims = shape.toArray();
        dims[axis] = size;
        return dims;
    }
}
