// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import dev.smelt.ir.Shape;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import java.util.ArrayList;

/// One generated class serves a kernel at every extent of its outermost axis when that axis
/// indexes rows, which is what lets a dynamic (batch) dimension vary without new classes. The code
/// never reads that extent: `run(buffers, start, end)` is told which rows to compute,
/// [LoopEmitter] splits a row into indices with the extents of the other axes only (the outermost
/// index is what remains), offsets and strides do not depend on it, merging axes never looks at
/// it, and a pointwise kernel merged into one loop ends its segment at `end`, not at the extent.
///
/// Where the outermost axis is reduced (a sum over the batch), the loops do read its extent, and
/// each extent keeps its own class; so does a kernel that [ColumnPlan] vectorises across rows,
/// whose tiles of rows are laid out from the extents.
public final class RowExtent {
    /// The representative's outermost extent: 2, so that it is not dropped as an axis of size 1.
    static final int REPRESENTATIVE = 2;

    private RowExtent() {}

    /// The kernel whose generated class runs `kernel` at whatever extent its outermost axis has:
    /// `kernel` with that extent set to 2 and each buffer sized to what the smaller space reaches.
    /// `kernel` itself when that axis is reduced, or when the representative would reach before a
    /// buffer's start (a negative stride on an axis of size 1) or past an int (a `[1, n]` space
    /// with `n > 2^30`, or a `[0, n]` one, whose row stride the representative would step over).
    public static Kernel representative(Kernel kernel) {
        Shape space = kernel.space();
        if (space.rank() == 0 || kernel.outerRank() == 0 || acrossRows(kernel)) return kernel;
        var dims = new ArrayList<>(space.dims());
        dims.set(0, REPRESENTATIVE);
        var shared = new Shape(dims);
        try {
            long[] gathered = gatherReach(kernel);
            var inputs = new ArrayList<Kernel.Input>();
            for (int i = 0; i < kernel.inputs().size(); i++) {
                var in = kernel.inputs().get(i);
                inputs.add(new Kernel.Input(in.dtype(), Math.toIntExact(reach(in.map(), shared) + gathered[i]), in.map()));
            }
            var outputs = new ArrayList<Kernel.Output>();
            for (var out : kernel.outputs()) outputs.add(new Kernel.Output(out.value(), reach(out.map(), shared), out.map(), out.perRow()));
            return new Kernel(shared, kernel.reducedRank(), inputs, kernel.reductions(), outputs);
        } catch (IllegalArgumentException | ArithmeticException beforeStartOrPastAnInt) {
            return kernel;
        }
    }

    private static boolean acrossRows(Kernel kernel) {
        return ColumnPlan.across(kernel, VectorPlan.of(kernel, 0));
    }

    /// How far past its map each input is read: a gather reaches `(limit - 1)·stride` further.
    private static long[] gatherReach(Kernel kernel) {
        long[] reach = new long[kernel.inputs().size()];
        for (Expr node : Expr.nodes(kernel.expressions()))
            if (node instanceof Expr.Gather g) reach[g.input()] = Math.max(reach[g.input()], (long) Math.max(0, g.limit() - 1) * g.stride());
        return reach;
    }

    /// One past the last position `map` reaches over `space`: the smallest buffer that holds it.
    private static int reach(IndexMap map, Shape space) {
        long high = map.offset();
        for (int axis = 0; axis < space.rank(); axis++) high += Math.max(0L, (long) (space.dim(axis) - 1) * map.stride(axis));
        return Math.toIntExact(high + 1);
    }
}
