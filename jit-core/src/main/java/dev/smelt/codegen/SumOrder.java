// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import dev.smelt.ir.ReduceOp;
import dev.smelt.kernel.Kernel;
import org.objectweb.asm.Type;

/// The order in which a kernel adds up its floating-point sums, which both variants of a tiered
/// kernel follow, so that switching from scalar to vector code changes no result. Fixed by the
/// vector variant this machine would run:
///
/// - row loops ([VectorPlan] `lanes`): where the vector loop folds a sum, point `j < dim & -LANES`
///   of each line goes to lane `j & (2·LANES - 1)` (two chains of lanes, a loop unrolled by two),
///   in the dtype; the points past the last whole vector add to a scalar accumulator, in double for
///   `f32`; the lanes end in [LaneSums#sum]'s fixed order, added to it, at the end of the row and
///   after every [#BLOCK] points of a line (then they start again from 0).
/// - column reductions ([ColumnPlan], `columns`): each row adds its points in sequence in the dtype,
///   as the lane that holds the row does; an `f32` sum over one reduced axis of at least
///   [#COLUMN_BLOCK] points ([#blocked]) adds that running sum to a `double` after every
///   [#COLUMN_BLOCK] points and starts it again from 0, and ends as `(float) (blocks + sum)`.
/// - no vector variant (`lanes` null): in sequence, `f32` in double, as the interpreter does.
///
/// Products, `max`, `min` and integer sums do not depend on it: products run scalar in double in
/// both variants, the others are exact in any order.
record SumOrder(VectorPlan lanes, boolean columns) {
    /// Points of a line after which a sum's lanes are added to its accumulator: a multiple of any
    /// two chains of lanes, long enough that the lanes' sum costs nothing measurable.
    static final int BLOCK = 4096;

    /// Points after which a column sum's running `f32` value is added to a `double`: each lane runs
    /// one row's sum, so a block is that many adds in `f32`, not 4,096 / 32 as in a row's lanes.
    static final int COLUMN_BLOCK = 1024;

    /// Whether `kernel` has a floating-point sum, whose order this fixes.
    static boolean matters(Kernel kernel) {
        for (var reduction : kernel.reductions())
            if (reduction.op() == ReduceOp.SUM && reduction.dtype().isFloating()) return true;
        return false;
    }

    static SumOrder of(VectorPlan twin, ColumnPlan columnPlan) {
        return columnPlan != null ? new SumOrder(null, true) : new SumOrder(twin, false);
    }

    /// The JVM type reduction `k` folds in: the dtype, but `double` for `f32` sums and products
    /// outside column reductions; the best value for arg-reductions.
    Type accumulator(Kernel.Reduction reduction) {
        var op = reduction.op();
        if (op.isArg()) return Code.scalarType(reduction.value().dtype());
        boolean widened = reduction.dtype() == dev.smelt.ir.DType.F32 && (op == ReduceOp.SUM || op == ReduceOp.PROD) && !columns;
        return widened ? Type.DOUBLE_TYPE : Code.scalarType(reduction.dtype());
    }

    /// Whether reduction `k` of `kernel` in `space` folds into lanes: a floating-point sum whose
    /// inner loop the vector variant runs as vectors.
    boolean striped(Kernel kernel, LoopSpace space, int k) {
        var reduction = kernel.reductions().get(k);
        return lanes != null && reduction.op() == ReduceOp.SUM && reduction.dtype().isFloating()
                && space.dim(space.inner()) >= lanes.lanes() && lanes.whyScalar(kernel, space, k).isEmpty();
    }

    /// Whether reduction `k` of `kernel` is a column sum whose running `f32` value is added to a
    /// `double` every [#COLUMN_BLOCK] points: one reduced axis, long enough to hold a block.
    boolean blocked(Kernel kernel, int k) {
        var reduction = kernel.reductions().get(k);
        return columns && reduction.op() == ReduceOp.SUM && reduction.dtype() == dev.smelt.ir.DType.F32
                && kernel.reducedRank() == 1 && kernel.rowLength() >= COLUMN_BLOCK;
    }

    /// How many places a striped sum folds into: two chains of [VectorPlan#lanes].
    int places() { return 2 * lanes.lanes(); }
}
