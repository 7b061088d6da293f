// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import java.util.List;

/// A tensor with a region rewritten: the graph's scatter (`torch.scatter`, `scatter_add`) and slice
/// update. Buffers: `base`, `index` (a scatter's index of `region`'s shape, or a slice's 0-d start),
/// `source` (of `region`'s shape), then the output of `shape`. The output starts as a copy of `base`
/// (no copy at all when it is `base`'s own array, which the memory plan grants when base is dead
/// or donated after this launch: then only the region is written), then each source element, in
/// row-major order, is written to or added to its position: one work item, so repeated indices
/// sum in the same order, to the same bits, on every call, as the reference interpreter sums them.
public record UpdateKernel(Kind kind, Shape shape, int axis, Shape region, DType dtype) implements KernelForm {
    /// What happens to each position of the region.
    public enum Kind {
        /// `out[p with p[axis] = index[p]] = source[p]`.
        SCATTER,
        /// `out[p with p[axis] = index[p]] += source[p]`, rounded to the dtype each time (`i32` wraps).
        SCATTER_ADD,
        /// `out[p with p[axis] += start] = source[p]`.
        SLICE
    }

    public UpdateKernel {
        if (region.rank() != shape.rank() || axis < 0 || axis >= shape.rank())
            throw new IllegalArgumentException("kernel: update of %s along axis %d over a region %s".formatted(shape, axis, region));
        for (int d = 0; d < shape.rank(); d++)
            if (region.dim(d) > shape.dim(d) && d != axis) throw new IllegalArgumentException("kernel: region %s exceeds %s off axis %d".formatted(region, shape, axis));
        if (kind == Kind.SCATTER_ADD && dtype == DType.BOOL) throw new IllegalArgumentException("kernel: scatter add of bool");
    }

    @Override
    public List<Kernel.Input> inputs() {
        Shape index = kind == Kind.SLICE ? Shape.SCALAR : region;
        return List.of(dense(dtype, shape), dense(DType.I32, index), dense(dtype, region));
    }

    /// One output, `base` where the region does not reach.
    @Override
    public List<Kernel.Output> outputs() { return List.of(new Kernel.Output(new Expr.Load(0, dtype), shape.size(), IndexMap.contiguous(shape), false)); }

    @Override
    public int workItems() { return 1; }

    /// The copy (when there is one) and the region.
    @Override
    public long work() { return (long) shape.size() + region.size(); }

    @Override
    public int splitGranule() { return 1; }

    private static Kernel.Input dense(DType dtype, Shape shape) { return new Kernel.Input(dtype, shape.size(), IndexMap.contiguous(shape)); }

    @Override
    public String toString() { return "update %s %s%s axis=%d region %s\n".formatted(kind, dtype, shape, axis, region); }
}
