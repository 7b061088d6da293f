// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.kernel.Expr;
import dev.smelt.kernel.Kernel;
import java.util.ArrayList;
import java.util.List;

/// The loop bodies of a kernel as generated code runs them: one per pass of its reductions
/// ([Kernel#reductionPasses]: those that fold together at every point of a row, each with its
/// accumulator), one for the full outputs (every point), one for the row outputs (once per row). A
/// shared value is computed once per body and point, so sharing is decided per body.
final class Bodies {
    private Bodies() {}

    /// `values` evaluated together at each point; `accumulators` vector accumulators live throughout.
    record Body(List<Expr> values, boolean perRow, int accumulators) {
        /// How many times the body runs in `kernel`: once per point, or once per row.
        long runs(Kernel kernel) { return perRow ? kernel.workItems() : kernel.space().count(); }
    }

    static List<Body> of(Kernel kernel) {
        var bodies = new ArrayList<Body>();
        for (var pass : kernel.reductionPasses())
            bodies.add(new Body(pass.stream().map(k -> kernel.reductions().get(k).value()).toList(), false, pass.size()));
        var full = kernel.outputs().stream().filter(o -> !o.perRow()).map(Kernel.Output::value).toList();
        var rows = kernel.outputs().stream().filter(Kernel.Output::perRow).map(Kernel.Output::value).toList();
        if (!full.isEmpty()) bodies.add(new Body(full, false, 0));
        if (!rows.isEmpty()) bodies.add(new Body(rows, true, 0));
        return bodies;
    }
}
