// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import java.util.List;

/// Where a point of the iteration space lives in a flat buffer: `offset + Σ index[axis]·strides[axis]`.
/// Every view (permute, slice, expand, reshape of contiguous data) is an index map; a stride of 0
/// broadcasts along that axis.
public record IndexMap(int offset, List<Integer> strides) {
    public IndexMap {
        strides = List.copyOf(strides);
        if (offset < 0) throw new IllegalArgumentException("negative offset " + offset);
    }

    public static IndexMap contiguous(dev.smelt.ir.Shape shape) { return of(0, shape.contiguousStrides()); }

    /// `offset` and `strides` as an index map (a loop, not a stream: a fresh JVM's first compile
    /// builds index maps, and a stream pipeline loads a dozen classes and bootstraps a lambda).
    public static IndexMap of(int offset, int[] strides) {
        var boxed = new Integer[strides.length];
        for (int axis = 0; axis < strides.length; axis++) boxed[axis] = strides[axis];
        return new IndexMap(offset, List.of(boxed));
    }

    public int rank() { return strides.size(); }

    public int stride(int axis) { return strides.get(axis); }

    /// The buffer position of the point `index`.
    public int at(int[] index) {
        long position = offset;
        for (int axis = 0; axis < index.length; axis++) position += (long) index[axis] * strides.get(axis);
        return Math.toIntExact(position);
    }

    // the record's own equals and hashCode, written out: generated ones are bootstrapped on first
    // use, which a fresh JVM's first compile pays for
    @Override
    public boolean equals(Object o) { return o instanceof IndexMap m && offset == m.offset && strides.equals(m.strides); }

    @Override
    public int hashCode() { return 31 * offset + strides.hashCode(); }

    /// `@3[1,0]`: offset 3, strides 1 and 0.
    @Override
    public String toString() {
        var text = new StringBuilder("@").append(offset).append('['); // a loop: kernel texts are cache keys, printed on a fresh JVM's first call
        for (int axis = 0; axis < strides.size(); axis++) text.append(axis == 0 ? "" : ",").append(strides.get(axis));
        return text.append(']').toString();
    }
}
