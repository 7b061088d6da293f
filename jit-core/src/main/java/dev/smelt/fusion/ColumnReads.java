// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.ReduceOp;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.Kernel;
import java.util.BitSet;

/// Whether generated code reads a reduction kernel's strided inputs as a *column reduction*:
/// LANES neighbouring rows at once, one lane per row (codegen's `ColumnPlan`), so that reading down
/// the columns of a row-major `[B, F]` streams whole cache lines like a contiguous read. Fusion may
/// not import codegen, so this is the same test on the kernel's own axes, where axes of size 1 are
/// skipped instead of dropped: the last row axis (the *column axis*) has at least a vector of rows;
/// every input moves along it by 0 or 1, and one by 1 while moving along the last reduced axis;
/// every output is contiguous along it; and no reduction is a floating-point product (those run
/// scalar, in double).
final class ColumnReads {
    private ColumnReads() {}

    static boolean vectorised(Kernel kernel, Machine machine) {
        int column = lastLongAxis(kernel, 0, kernel.outerRank()), reduced = lastLongAxis(kernel, kernel.outerRank(), kernel.space().rank());
        if (column < 0 || reduced < 0 || kernel.space().dim(column) < machine.lanes(widestBytes(kernel))) return false;
        for (var reduction : kernel.reductions())
            if (reduction.op() == ReduceOp.PROD && reduction.dtype().isFloating()) return false;
        for (var output : kernel.outputs()) if (output.map().stride(column) != 1) return false;
        var loaded = new BitSet();
        boolean[] gathers = {false};
        kernel.expressions().forEach(expr -> Expr.walk(expr, node -> {
            if (node instanceof Expr.Load load) loaded.set(load.input());
            gathers[0] |= node instanceof Expr.Gather;
        }));
        if (gathers[0]) return false; // a gather's index per row would be one per lane: ColumnPlan keeps row loops
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

    private static int widestBytes(Kernel kernel) {
        int bytes = 1;
        for (var input : kernel.inputs()) bytes = Math.max(bytes, input.dtype().bytes());
        for (var output : kernel.outputs()) bytes = Math.max(bytes, output.dtype().bytes());
        for (var reduction : kernel.reductions()) bytes = Math.max(bytes, reduction.dtype().bytes());
        return bytes;
    }
}
