// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ref;

import dev.smelt.ir.Shape;

/// Element offsets of a strided layout, listed in row-major order of the multi-indices.
///
/// Every index map the interpreter needs is one such list: a permute reads its operand with the
/// operand's strides reordered, an expand with stride 0 on the repeated axes, a slice with a base
/// and a stretched stride; a reduction writes each element to the output offset with stride 0 on
/// the reduced axes, and a concat writes each part at its base along the axis.
final class Strides {
    private Strides() {}

    /// For each multi-index `i` of `shape`, in row-major order, `base + Σ i[axis] · strides[axis]`.
    static int[] offsets(Shape shape, int[] strides, int base) {
        int[] offsets = new int[shape.size()];
        int[] index = new int[shape.rank()];
        int offset = base;
        for (int flat = 0; flat < offsets.length; flat++) {
            offsets[flat] = offset;
            for (int axis = shape.rank() - 1; axis >= 0; axis--) { // odometer: carry into the next axis out
                offset += strides[axis];
                if (++index[axis] < shape.dim(axis)) break;
                offset -= strides[axis] * shape.dim(axis);
                index[axis] = 0;
            }
        }
        return offsets;
    }

    /// Each element's index along `axis`, in row-major order.
    static int[] coordinates(Shape shape, int axis) {
        int[] strides = new int[shape.rank()];
        strides[axis] = 1;
        return offsets(shape, strides, 0);
    }
}
