// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import dev.smelt.ir.DType;
import dev.smelt.kernel.ColumnReduction;
import dev.smelt.kernel.Kernel;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/// Whether a reduction kernel runs as a *column reduction*, the loop space it then runs in, and how
/// many rows a tile holds.
///
/// A kernel such as `sum(x, 0)` of a row-major `[B, F]` folds each row (one output element) over
/// points `F` apart: the inner loop [LoopEmitter] vectorises has no contiguous lanes, and gathers
/// or scalar loads cost a cache line per element. The neighbouring *rows*, though, are contiguous.
/// A column reduction therefore vectorises across rows: [ColumnEmitter] takes a tile of rows and,
/// for each reduced point, folds vectors of [VectorPlan#lanes] neighbouring rows' values into the
/// tile's accumulators, one lane per row. Each lane folds its row in the row's own order.
///
/// It runs in `columns`, the kernel's [LoopSpace] with the innermost row axis (the *column axis*)
/// moved last: `[i0 … | reduced axes … | column]`, whose `outerRank` counts the row axes before the
/// column axis. There the column axis is the inner axis, so [VectorEmitter] and [ScalarEmitter]
/// address LANES neighbouring rows exactly as they address LANES points of a row elsewhere.
///
/// Which kernels qualify is [ColumnReduction#eligible]'s to say, which the cost model asks too;
/// a qualifying kernel keeps [LoopEmitter]'s loops only where the platform lacks a species the
/// column loops need (arg-reductions keep a vector of `i32` indices beside their best values).
///
/// Kept values ([dev.smelt.kernel.Expr.Element]) need a tile's rows times a row's points; the
/// tile shrinks to keep them under [ColumnReduction#MAX_ELEMENTS].
///
/// Rows run in tiles of `tile` rows (32 vectors, 2 KiB of `f32` on AVX-512), each reduction
/// folding into an array of the tile's results: for each reduced point, the tile's slice of a
/// row-major input is one contiguous run, so the whole input streams in order. (LANES rows alone
/// would read one cache line per row, 4 KiB apart for a `[1024, 1024]` `f32`, which the prefetcher
/// does not follow: 3–5× slower in a hand-written comparison.)
record ColumnPlan(LoopSpace columns, int tile) {
    /// Vectors per tile.
    static final int TILE_VECTORS = 32;

    /// Whether `kernel`, in its own loop space, runs its vector lanes across rows (this plan).
    static boolean across(Kernel kernel, VectorPlan plan) { return of(kernel, LoopSpace.of(kernel), plan) != null; }

    /// The plan for `kernel` in `space`, or null when the kernel keeps [LoopEmitter]'s loops.
    static ColumnPlan of(Kernel kernel, LoopSpace space, VectorPlan plan) {
        if (plan == null || !ColumnReduction.eligible(kernel, plan.lanes())) return null;
        // what remains is the platform's: whether it has the species the loops need
        var columns = transposed(space);
        var reasons = new ArrayList<String>();
        for (int k = 0; k < kernel.reductions().size(); k++) {
            var reduction = kernel.reductions().get(k);
            if (!reduction.op().isArg()) reasons.addAll(plan.whyScalar(kernel, columns, k));
            else if (!plan.hasSpecies(DType.I32)) reasons.add("no i32 species for the indices");
            else if (plan.missingSpecies(reduction.value(), columns) != null) reasons.add(plan.missingSpecies(reduction.value(), columns));
        }
        reasons.addAll(plan.whyScalar(kernel, columns, IntStream.range(0, kernel.outputs().size()).boxed().toList()));
        if (!reasons.isEmpty()) return null;
        int tile = plan.lanes() * TILE_VECTORS;
        if (!LoopSpace.elements(kernel).isEmpty())
            tile = (int) Math.min(tile, ColumnReduction.MAX_ELEMENTS / Math.max(1, kernel.rowLength()) / plan.lanes() * plan.lanes());
        return new ColumnPlan(columns, tile);
    }

    /// `space` with its column axis (the last row axis) moved after the reduced axes.
    static LoopSpace transposed(LoopSpace space) {
        int column = space.outerRank() - 1, last = space.rank() - 1;
        int[] order = new int[space.rank()];  // order[new axis] = old axis
        for (int axis = 0; axis < space.rank(); axis++) order[axis] = axis < column ? axis : axis < last ? axis + 1 : column;
        int[] position = new int[space.rank()];
        for (int axis = 0; axis < order.length; axis++) position[order[axis]] = axis;
        var dims = IntStream.of(order).map(space::dim).boxed().toList();
        var strides = new ArrayList<List<Integer>>();
        for (var buffer : space.strides()) strides.add(IntStream.of(order).mapToObj(buffer::get).toList());
        var axisOf = space.axisOf().stream().map(axis -> axis < 0 ? axis : position[axis]).toList();
        return new LoopSpace(dims, column, space.offsets(), List.copyOf(strides), axisOf);
    }

    /// The column axis, the inner axis of [#columns].
    int columnAxis() { return columns.inner(); }
}
