// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import dev.smelt.ir.ReduceOp;
import java.util.BitSet;

/// Whether a reduction kernel runs as a *column reduction*: LANES neighbouring rows at once, one
/// lane per row, so that reading down the columns of a row-major `[B, F]` (`sum(x, 0)`) streams
/// whole cache lines like a contiguous read, where row loops would gather a cache line per element.
/// One predicate for the cost model, which prices such reads as streamed, and for code generation,
/// which then emits them so (codegen's `ColumnPlan`, which adds only whether the platform has the
/// vector species it needs).
///
/// On the kernel's own axes, those of size 1 skipped: the last row axis longer than 1 (the *column
/// axis*) has at least a vector of rows; every input moves along it by 0 or 1 (0: one value per
/// reduced point, broadcast), and one by 1 while moving along the last reduced axis longer than 1
/// (the read the row loops would gather); every output, full or per row, is contiguous along it; no
/// reduction is a floating-point product (those run scalar, in double); no gather (its index would
/// be one per lane); the row is not empty; and values reductions keep for a later pass outside an
/// output ([ElementHome]) fit in [#MAX_ELEMENTS] for a vector of rows. A row-major last-axis
/// reduction never qualifies: its input moves by a whole row along the column axis.
public final class ColumnReduction {
    private ColumnReduction() {}

    /// The kept values of a tile of rows are bounded by this many elements (4 MiB of `f32`: far
    /// more than a cache holds, but bounded).
    public static final int MAX_ELEMENTS = 1 << 20;

    /// Whether `kernel` runs as a column reduction with vectors of `lanes` lanes ([Kernel#laneBytes]).
    public static boolean eligible(Kernel kernel, int lanes) {
        int column = lastLongAxis(kernel, 0, kernel.outerRank()), reduced = lastLongAxis(kernel, kernel.outerRank(), kernel.space().rank());
        if (column < 0 || reduced < 0 || kernel.reductions().isEmpty() || kernel.rowLength() == 0 || kernel.space().dim(column) < lanes) return false;
        for (var reduction : kernel.reductions())
            if (reduction.op() == ReduceOp.PROD && reduction.dtype().isFloating()) return false;
        for (var output : kernel.outputs()) if (output.map().stride(column) != 1) return false;
        var loaded = new BitSet();
        boolean gathers = false;
        var kept = new BitSet();
        for (Expr node : Expr.nodes(kernel.expressions())) {
            if (node instanceof Expr.Load load) loaded.set(load.input());
            if (node instanceof Expr.Element element && ElementHome.of(kernel, element.reduction()) < 0) kept.set(element.reduction());
            gathers |= node instanceof Expr.Gather;
        }
        if (gathers || !kept.isEmpty() && (long) kernel.rowLength() * lanes > MAX_ELEMENTS) return false;
        boolean stridedRows = false;
        for (int i = loaded.nextSetBit(0); i >= 0; i = loaded.nextSetBit(i + 1)) {
            var map = kernel.inputs().get(i).map();
            if (map.stride(column) != 0 && map.stride(column) != 1) return false;
            stridedRows |= map.stride(column) == 1 && map.stride(reduced) != 0;
        }
        return stridedRows;
    }

    /// The last axis in `[from, to)` longer than 1, or -1.
    private static int lastLongAxis(Kernel kernel, int from, int to) {
        for (int axis = to - 1; axis >= from; axis--) if (kernel.space().dim(axis) > 1) return axis;
        return -1;
    }
}
