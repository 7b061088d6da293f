// SPDX-License-Identifier: Apache-2.0
package dev.smelt.data;

import dev.smelt.Tensor;
import dev.smelt.ir.DType;

/// A concrete tensor's values as a row-major Java array, cut into rows along axis 0, so that a
/// batch of any rows, in any order, is one `System.arraycopy` per row (there is no gather op).
final class Rows {
    private final DType dtype;
    private final Object values; // float[], double[], int[] or boolean[], by dtype
    private final int[] shape;
    private final int width;     // elements per row

    Rows(Tensor tensor) {
        this.dtype = tensor.dtype();
        this.shape = tensor.shape().toArray();
        this.width = tensor.rank() == 0 ? 1 : tensor.size() / Math.max(1, shape[0]);
        this.values = switch (dtype) {
            case F32 -> tensor.toFloatArray();
            case F64 -> tensor.toDoubleArray();
            case I32 -> tensor.toIntArray();
            case BOOL -> tensor.toBooleanArray();
        };
    }

    /// Rows `indices[from…to-1]`, in that order, as a new dense tensor `[to - from, …]`.
    Tensor gather(int[] indices, int from, int to) {
        int count = to - from;
        Object batch = java.lang.reflect.Array.newInstance(values.getClass().getComponentType(), count * width);
        for (int r = 0; r < count; r++) System.arraycopy(values, indices[from + r] * width, batch, r * width, width);
        int[] dims = shape.clone();
        dims[0] = count;
        return switch (dtype) {
            case F32 -> Tensor.of((float[]) batch, dims);
            case F64 -> Tensor.of((double[]) batch, dims);
            case I32 -> Tensor.of((int[]) batch, dims);
            case BOOL -> Tensor.of((boolean[]) batch, dims);
        };
    }
}
