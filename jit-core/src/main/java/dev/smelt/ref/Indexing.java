// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ref;

import dev.smelt.ir.DType;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import dev.smelt.ir.Storage;

/// Gather, scatter, slice update and argsort, element by element. A scatter visits its source in row-major
/// order: a repeated index keeps the last value written, or sums in that order, each sum rounded to
/// the dtype (`i32` wraps), which is the order compiled code keeps too.
final class Indexing {
    private Indexing() {}

    // out[p] = x[p with p[axis] = index[p]]
    static Storage gather(Node.Gather gather, Storage x, Storage index) {
        Shape shape = gather.shape();
        int[] xStrides = gather.x().shape().contiguousStrides();
        int[] positions = Strides.offsets(shape, withoutAxis(xStrides, gather.axis()), 0);
        var result = Storage.allocate(gather.dtype(), shape.size());
        for (int p = 0; p < positions.length; p++)
            result.set(p, x.get(positions[p] + index.ints()[p] * xStrides[gather.axis()]));
        return result;
    }

    // out = x; out[p with p[axis] = index[p]] = src[p] (or += src[p]), p in row-major order
    static Storage scatter(Node.Scatter scatter, Storage x, Storage index, Storage src) {
        int[] xStrides = scatter.shape().contiguousStrides();
        int[] positions = Strides.offsets(scatter.index().shape(), withoutAxis(xStrides, scatter.axis()), 0);
        var result = copy(x);
        for (int p = 0; p < positions.length; p++) {
            int target = positions[p] + index.ints()[p] * xStrides[scatter.axis()];
            if (!scatter.add()) result.set(target, src.get(p));
            else if (scatter.dtype() == DType.I32) result.ints()[target] += src.ints()[p];
            else result.set(target, result.get(target) + src.get(p));
        }
        return result;
    }

    // out = x; out[… start + i …] = value[… i …]
    static Storage sliceUpdate(Node.SliceUpdate update, Storage x, Storage start, Storage value) {
        int[] xStrides = update.shape().contiguousStrides();
        int[] positions = Strides.offsets(update.value().shape(), xStrides, start.ints()[0] * xStrides[update.axis()]);
        var result = copy(x);
        for (int p = 0; p < positions.length; p++) result.set(positions[p], value.get(p));
        return result;
    }

    // each line's positions sorted by value (NaN above all, -0 = +0), ties in position order
    static Storage argsort(Node.ArgSort sort, Storage x) {
        Shape shape = sort.shape();
        int n = shape.dim(sort.axis()), stride = shape.contiguousStrides()[sort.axis()];
        int[] starts = Strides.offsets(shape.with(sort.axis(), 1), withoutAxis(shape.contiguousStrides(), sort.axis()), 0);
        var result = Storage.allocate(DType.I32, shape.size());
        java.util.Comparator<Integer> ascending = (i, j) -> order(x.get(i), x.get(j));
        for (int start : starts) {
            Integer[] line = new Integer[n];
            for (int i = 0; i < n; i++) line[i] = start + i * stride;
            java.util.Arrays.sort(line, sort.descending() ? ascending.reversed().thenComparing(java.util.Comparator.naturalOrder()) : ascending);
            for (int i = 0; i < n; i++) result.set(start + i * stride, (line[i] - start) / stride);
        }
        return result;
    }

    // Ascending order of values: NaN above every number, -0 equal to +0.
    private static int order(double a, double b) {
        if (Double.isNaN(a) || Double.isNaN(b)) return Boolean.compare(Double.isNaN(a), Double.isNaN(b));
        return a < b ? -1 : a > b ? 1 : 0;
    }

    private static int[] withoutAxis(int[] strides, int axis) {
        int[] result = strides.clone();
        result[axis] = 0;
        return result;
    }

    private static Storage copy(Storage x) {
        var result = Storage.allocate(x.dtype(), x.size());
        System.arraycopy(x.array(), 0, result.array(), 0, x.size());
        return result;
    }
}
