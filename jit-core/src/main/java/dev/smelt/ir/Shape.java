// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

import java.util.ArrayList;
import java.util.List;

/// The dimensions of a tensor, outermost first. A rank-0 shape is a scalar with one element.
///
/// A tensor holds at most 2^31-1 elements ([#size] refuses more, as every tensor's storage asks
/// it); an iteration space may be larger — a matmul's `[M, N, K]` — and is counted by [#count].
public record Shape(List<Integer> dims) {
    /// Copies `dims`; a negative size, or sizes whose product overflows a `long`, throw.
    public Shape {
        dims = List.copyOf(dims);
        for (int d : dims)
            if (d < 0) throw new IllegalArgumentException("negative dimension in " + dims);
        long size = 1;
        for (int d : dims) size = Math.multiplyExact(size, d);
    }

    /// Number of points, for an iteration space that no tensor materialises.
    public long count() {
        long count = 1;
        for (int axis = 0; axis < dims.size(); axis++) count *= dims.get(axis); // no iterator: tensors ask on every call
        return count;
    }

    /// The shape with these sizes: `Shape.of(2, 3)` is `[2,3]`.
    public static Shape of(int... dims) {
        var list = new ArrayList<Integer>(dims.length);
        for (int d : dims) list.add(d);
        return new Shape(list);
    }

    /// The shape of a 0-d tensor: no axes, one element.
    public static final Shape SCALAR = new Shape(List.of());

    /// The number of axes.
    public int rank() { return dims.size(); }

    /// The size of `axis`, counted from 0 (no negative axes here).
    public int dim(int axis) { return dims.get(axis); }

    /// Number of elements: the product of the dimensions (1 for a scalar).
    public int size() {
        long count = count();
        if (count > Integer.MAX_VALUE)
            throw new IllegalArgumentException("shape " + dims + " has " + count + " elements; at most 2^31-1 are supported");
        return (int) count;
    }

    /// The sizes as a new array.
    public int[] toArray() {
        int[] array = new int[dims.size()];
        for (int axis = 0; axis < array.length; axis++) array[axis] = dims.get(axis);
        return array;
    }

    /// Row-major strides of a contiguous tensor of this shape, in elements.
    public int[] contiguousStrides() {
        int[] strides = new int[rank()];
        int stride = 1;
        for (int axis = rank() - 1; axis >= 0; axis--) {
            strides[axis] = stride;
            stride *= dim(axis);
        }
        return strides;
    }

    /// This shape with `axis` set to `size`.
    public Shape with(int axis, int size) {
        var copy = new ArrayList<>(dims);
        copy.set(axis, size);
        return new Shape(copy);
    }

    /// This shape with the given axes set to 1, as reductions that keep their dimensions produce.
    public Shape reduced(List<Integer> axes) {
        var copy = new ArrayList<>(dims);
        for (int axis : axes) copy.set(axis, 1);
        return new Shape(copy);
    }

    // equals, hashCode and toString written out, here and in other hot records: a record's own are
    // bootstrapped by invokedynamic on first use, which costs a fresh JVM's first compile ~0.5 ms each.

    /// Equal dimensions.
    @Override
    public boolean equals(Object other) { return other instanceof Shape shape && dims.equals(shape.dims); }

    @Override
    public int hashCode() { return dims.hashCode(); }

    /// `[2,3]`, the form the IR text uses.
    @Override
    public String toString() {
        var text = new StringBuilder("[");
        for (int axis = 0; axis < dims.size(); axis++) text.append(axis == 0 ? "" : ",").append(dims.get(axis));
        return text.append(']').toString();
    }
}
