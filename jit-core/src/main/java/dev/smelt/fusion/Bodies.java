// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.kernel.ColumnReduction;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.Kernel;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/// The loop bodies of a kernel as generated code runs them: one per reduction (folding its value at
/// every point of a row), or for a column reduction one per pass ([ColumnReduction#passes]: the
/// reductions that fold together, their accumulators in memory, one in a register at a time); one
/// for the full outputs (every point), one for the row outputs (once per row). A shared value is
/// computed once per body and point, so sharing is decided per body.
final class Bodies {
    private Bodies() {}

    /// `values` evaluated together at each point; `accumulators` vector accumulators live throughout.
    record Body(List<Expr> values, boolean perRow, int accumulators) {
        /// How many times the body runs in `kernel`: once per point, or once per row.
        long runs(Kernel kernel) { return perRow ? kernel.workItems() : kernel.space().count(); }
    }

    /// The reductions each body folds, in order.
    static List<List<Integer>> reductions(Kernel kernel, Machine machine) {
        if (ColumnReads.vectorised(kernel, machine)) return ColumnReduction.passes(kernel);
        return IntStream.range(0, kernel.reductions().size()).mapToObj(List::of).toList();
    }

    static List<Body> of(Kernel kernel, Machine machine) {
        var bodies = new ArrayList<Body>();
        for (var pass : reductions(kernel, machine))
            bodies.add(new Body(pass.stream().map(k -> kernel.reductions().get(k).value()).toList(), false, 1));
        var full = kernel.outputs().stream().filter(o -> !o.perRow()).map(Kernel.Output::value).toList();
        var rows = kernel.outputs().stream().filter(Kernel.Output::perRow).map(Kernel.Output::value).toList();
        if (!full.isEmpty()) bodies.add(new Body(full, false, 0));
        if (!rows.isEmpty()) bodies.add(new Body(rows, true, 0));
        return bodies;
    }
}
