// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.Shape;
import dev.smelt.kernel.IndexMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/// Which element of a graph value a kernel needs at each point `p` of its iteration space.
///
/// Usually affine in `p`: `index[a] = offset[a] + Σ_d coef[a][d]·p[d]` for each axis `a` of the value.
/// Permute, expand and slice keep a mapping affine, and so does a reshape that only splits axes or
/// adds unit axes. A reshape that merges axes keeps only the value's *flat* row-major position
/// affine ([#flat]); that suffices for elementwise ops and loads of dense buffers, and the lowering
/// materialises the value when anything else (a view, an iota) needs the multi-index.
final class Mapping {
    private final Shape shape;
    private final int[][] coef;
    private final int[] offset;
    private final int[] flat; // non-null: only the flat position is known, as flat[d] per axis d, plus flatOffset
    private final int flatOffset;
    private final int kernelRank;
    private int hash; // 0 until computed: lowering keys its memo on mappings

    private Mapping(int kernelRank, Shape shape, int[][] coef, int[] offset, int[] flat, int flatOffset) {
        this.kernelRank = kernelRank;
        this.shape = shape;
        this.coef = coef;
        this.offset = offset;
        this.flat = flat;
        this.flatOffset = flatOffset;
    }

    /// Value axis `order[d]` is kernel axis `d`: the identity up to a permutation.
    static Mapping axes(Shape shape, int[] kernelAxisOf, int kernelRank) {
        int[][] coef = new int[shape.rank()][kernelRank];
        for (int a = 0; a < shape.rank(); a++)
            if (kernelAxisOf[a] >= 0) coef[a][kernelAxisOf[a]] = 1;
        return new Mapping(kernelRank, shape, coef, new int[shape.rank()], null, 0);
    }

    /// Every kernel point reads element `index` of the rank-1 value of `shape` (a random node's key).
    static Mapping element(Shape shape, int index, int kernelRank) {
        return new Mapping(kernelRank, shape, new int[][] {new int[kernelRank]}, new int[] {index}, null, 0);
    }

    Shape shape() { return shape; }

    boolean isAffine() { return flat == null; }

    int kernelRank() { return kernelRank; }

    /// The mapping for `x` where this value is `permute(x, order)`: value axis `i` is x's axis `order[i]`.
    Mapping permuted(Shape x, List<Integer> order) {
        int[][] c = new int[x.rank()][];
        int[] o = new int[x.rank()];
        for (int i = 0; i < order.size(); i++) {
            c[order.get(i)] = coef[i];
            o[order.get(i)] = offset[i];
        }
        return new Mapping(kernelRank, x, c, o, null, 0);
    }

    /// For `x` where this value is `expand(x)`: x's broadcast axes (size 1, expanded) are always
    /// index 0. An axis of size 1 on both sides keeps its coefficients (its index is 0 anyway), so
    /// that a batch of 1 reads its inputs through the same maps as any other batch (RowExtent).
    Mapping expanded(Shape x) {
        int[][] c = new int[x.rank()][];
        int[] o = new int[x.rank()];
        for (int a = 0; a < x.rank(); a++) {
            boolean broadcast = x.dim(a) == 1 && shape.dim(a) != 1;
            c[a] = broadcast ? new int[kernelRank()] : coef[a];
            o[a] = broadcast ? 0 : offset[a];
        }
        return new Mapping(kernelRank, x, c, o, null, 0);
    }

    /// For `x` where this value is `gather(x, axis, index)`: the same point with x's axis `axis` at `at`.
    Mapping gathered(Shape x, int axis, int at) {
        int[][] c = coef.clone();
        int[] o = offset.clone();
        c[axis] = new int[kernelRank];
        o[axis] = at;
        return new Mapping(kernelRank, x, c, o, null, 0);
    }

    /// For `x` where this value is `slice(x, axis, start, _, step)`: x's index is `start + step·i`.
    Mapping sliced(Shape x, int axis, int start, int step) {
        int[][] c = coef.clone();
        int[] o = offset.clone();
        c[axis] = Arrays.stream(coef[axis]).map(v -> v * step).toArray();
        o[axis] = start + step * offset[axis];
        return new Mapping(kernelRank, x, c, o, null, 0);
    }

    /// For `x` where this value is `reshape(x)`: affine when every axis of `x` is split into
    /// consecutive axes of this value (or is a unit axis), else flat.
    Mapping reshaped(Shape x) {
        if (!isAffine()) return new Mapping(kernelRank, x, null, null, flat, flatOffset);
        int[][] c = new int[x.rank()][kernelRank()];
        int[] o = new int[x.rank()];
        int a = 0; // next axis of this value
        for (int b = 0; b < x.rank(); b++) {
            if (x.dim(b) == 1) continue;
            long product = 1;
            var group = new ArrayList<Integer>();
            while (a < shape.rank() && product < x.dim(b)) {
                if (shape.dim(a) != 1) group.add(a); // a unit axis's index is 0: leaving it out keeps a batch of 1's maps those of any batch
                product *= shape.dim(a++);
            }
            if (product != x.dim(b)) return flatFor(x);
            int scale = 1;
            for (int g = group.size() - 1; g >= 0; g--) {
                int axis = group.get(g);
                for (int d = 0; d < kernelRank(); d++) c[b][d] += scale * coef[axis][d];
                o[b] += scale * offset[axis];
                scale *= shape.dim(axis);
            }
        }
        return new Mapping(kernelRank, x, c, o, null, 0);
    }

    private Mapping flatFor(Shape x) {
        IndexMap position = dense();
        return new Mapping(kernelRank, x, null, null, position.strides().stream().mapToInt(Integer::intValue).toArray(), position.offset());
    }

    /// Where each kernel point is in a dense row-major buffer holding this value.
    IndexMap dense() {
        if (!isAffine()) return IndexMap.of(flatOffset, flat);
        return into(shape.contiguousStrides(), 0);
    }

    /// Where each kernel point is in a buffer holding this value at `base + Σ strides[a]·index[a]`.
    IndexMap into(int[] strides, int base) {
        if (!isAffine()) throw new IllegalStateException("only the flat position is known");
        long start = base;
        long[] perAxis = new long[kernelRank()];
        for (int a = 0; a < shape.rank(); a++) {
            start += (long) strides[a] * offset[a];
            for (int d = 0; d < perAxis.length; d++) perAxis[d] += (long) strides[a] * coef[a][d];
        }
        int[] exact = new int[perAxis.length];
        for (int d = 0; d < perAxis.length; d++) exact[d] = Math.toIntExact(perAxis[d]);
        return IndexMap.of(Math.toIntExact(start), exact);
    }

    /// Value axis `axis` as `offset + Σ coef·p`, for iota; null when only the flat position is known.
    int[] axisCoefficients(int axis) { return isAffine() ? coef[axis] : null; }

    int axisOffset(int axis) { return offset[axis]; }

    /// Whether this maps kernel points to the value's indices as `expected` does, on every axis
    /// whose size is not 1 (unit axes are always index 0).
    /// Equal mappings read the same element at every point: lowering computes a node once per mapping.
    @Override
    public boolean equals(Object o) {
        return o instanceof Mapping m && kernelRank == m.kernelRank && flatOffset == m.flatOffset && shape.equals(m.shape)
                && Arrays.deepEquals(coef, m.coef) && Arrays.equals(offset, m.offset) && Arrays.equals(flat, m.flat);
    }

    @Override
    public int hashCode() {
        if (hash == 0) hash = ((shape.hashCode() * 31 + Arrays.deepHashCode(coef)) * 31 + Arrays.hashCode(offset)) * 31 + Arrays.hashCode(flat) + flatOffset;
        return hash;
    }

    boolean sameAs(Mapping expected) {
        if (!isAffine() || !expected.isAffine() || shape.rank() != expected.shape.rank()) return false;
        for (int a = 0; a < shape.rank(); a++)
            if (shape.dim(a) != 1 && (offset[a] != expected.offset[a] || !Arrays.equals(coef[a], expected.coef[a]))) return false;
        return true;
    }
}
