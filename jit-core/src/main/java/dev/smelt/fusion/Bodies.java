// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.kernel.Expr;
import dev.smelt.kernel.Kernel;
import java.util.ArrayList;
import java.util.List;

/// The loop bodies of a kernel as generated code runs them: one per reduction (folding its value at
/// every point of a row), one for the full outputs (every point), one for the row outputs (once per
/// row). A shared value is computed once per body and point, so sharing is decided per body.
final class Bodies {
    private Bodies() {}

    /// `values` evaluated together at each point; `accumulators` vector accumulators live throughout.
    record Body(List<Expr> values, boolean perRow, int accumulators) {
        /// How many times the body runs in `kernel`: once per point, or once per row.
        long runs(Kernel kernel) { return perRow ? kernel.workItems() : kernel.space().count(); }
    }

    static List<Body> of(Kernel kernel) {
        var bodies = new ArrayList<Body>();
        for (var reduction : kernel.reductions()) bodies.add(new Body(List.of(reduction.value()), false, 1));
        var full = kernel.outputs().stream().filter(o -> !o.perRow()).map(Kernel.Output::value).toList();
        var rows = kernel.outputs().stream().filter(Kernel.Output::perRow).map(Kernel.Output::value).toList();
        if (!full.isEmpty()) bodies.add(new Body(full, false, 0));
        if (!rows.isEmpty()) bodies.add(new Body(rows, true, 0));
        return bodies;
    }
}
