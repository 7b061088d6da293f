// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.ir.Shape;

/// Visits the storage offsets of a strided view in row-major order, like an odometer.
public final class StridedWalk {
    private final int[] dims;
    private final int[] strides;
    private final int[] index;
    private int position;
    private boolean started;

    StridedWalk(Shape shape, int[] strides, int offset) {
        this.dims = shape.toArray();
        this.strides = strides;
        this.index = new int[dims.length];
        this.position = offset;
    }

    /// The storage offset of the next element.
    int next() {
        if (!started) {
            started = true;
            return position;
        }
        for (int axis = dims.length - 1; axis >= 0; axis--) {
            if (++index[axis] < dims[axis]) {
                position += strides[axis];
                return position;
            }
            position -= strides[axis] * (dims[axis] - 1);
            index[axis] = 0;
        }
        return position;
    }
}
