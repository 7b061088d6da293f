// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import dev.smelt.kernel.Expr;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/// The parts of a row's loop bodies that are the same at every point of the row: operations on
/// finished reductions and constants only (logSoftmax's `log(r1)`, layer norm's
/// `rsqrt(r1 / n + eps)`). A loop emitter computes each once per row, before the loop, into a local.
/// C2 would hoist plain arithmetic out of the loop itself, but not a `Math.log` or `Math.exp`,
/// which it compiles to calls: left in the loop they cost one call per vector of points.
final class RowValues {
    private RowValues() {}

    // float row0 = <value>; …; <loops reading row0>   (in locals past the vector temporaries in use)
    static void around(List<Expr> values, ScalarEmitter scalar, VectorEmitter vector, int firstTemp, Runnable loops) {
        var rowValues = of(values);
        if (rowValues.isEmpty()) loops.run();
        else if (vector == null) scalar.withRowValues(rowValues, firstTemp, loops);
        else vector.withTemps(2 * rowValues.size(), first -> scalar.withRowValues(rowValues, first, loops));
    }

    /// The largest such subtrees of `exprs` that are operations (not leaves), each once, in order.
    private static List<Expr> of(List<Expr> exprs) {
        Set<Expr> found = new LinkedHashSet<>();
        var seen = java.util.Collections.<Expr>newSetFromMap(new java.util.IdentityHashMap<>());
        exprs.forEach(expr -> collect(expr, found, seen));
        return new ArrayList<>(found);
    }

    private static void collect(Expr expr, Set<Expr> found, Set<Expr> seen) {
        if (!seen.add(expr)) return;
        if (!Expr.isLeaf(expr) && !(expr instanceof Expr.Shared) && sameInRow(expr)) {
            found.add(expr);
            return;
        }
        Expr.operands(expr).forEach(operand -> collect(operand, found, seen));
    }

    /// Whether `expr` reads only finished reductions and constants.
    private static boolean sameInRow(Expr expr) {
        var same = new boolean[] {true};
        Expr.walk(expr, node -> {
            if (node instanceof Expr.Load || node instanceof Expr.Index || node instanceof Expr.Element || node instanceof Expr.Shared) same[0] = false;
        });
        return same[0];
    }
}
