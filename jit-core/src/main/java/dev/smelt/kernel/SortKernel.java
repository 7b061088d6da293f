// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import java.util.List;

/// The graph's argsort: buffer 0 holds `x` of `shape` and `dtype`, buffer 1 receives, for each
/// line along `axis`, the `i32` positions that sort it, stably (see `Node.ArgSort`). The work items
/// are the lines, which sort independently.
public record SortKernel(Shape shape, int axis, boolean descending, DType dtype) implements KernelForm {
    public SortKernel {
        if (axis < 0 || axis >= shape.rank() || dtype == DType.BOOL) throw new IllegalArgumentException("kernel: argsort of %s%s along axis %d".formatted(dtype, shape, axis));
    }

    @Override
    public List<Kernel.Input> inputs() { return List.of(new Kernel.Input(dtype, shape.size(), IndexMap.contiguous(shape))); }

    @Override
    public List<Kernel.Output> outputs() {
        return List.of(new Kernel.Output(new Expr.Constant(0, DType.I32), shape.size(), IndexMap.contiguous(shape), false));
    }

    /// The number of lines.
    @Override
    public int workItems() { return shape.dim(axis) == 0 ? 0 : shape.size() / shape.dim(axis); }

    /// `n·log₂ n` comparisons per line.
    @Override
    public long work() {
        int n = shape.dim(axis);
        return (long) workItems() * n * (64 - Long.numberOfLeadingZeros(Math.max(1, n)));
    }

    @Override
    public int splitGranule() { return 1; }

    @Override
    public String toString() { return "argsort %s%s axis=%d%s\n".formatted(dtype, shape, axis, descending ? " descending" : ""); }
}
