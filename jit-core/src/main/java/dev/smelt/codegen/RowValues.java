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
    static void around(List<Expr> values, ScalarEmitter scalar, Runnable loops) {
        var rowValues = of(values);
        if (rowValues.isEmpty()) loops.run();
        else scalar.withTemps(2 * rowValues.size(), first -> scalar.withRowValues(rowValues, first, loops));
    }

    /// The largest such subtrees of `exprs` that are operations (not leaves), each once, in order.
    private static List<Expr> of(List<Expr> exprs) {
        Set<Expr> found = new LinkedHashSet<>();
        var same = new java.util.IdentityHashMap<Expr, Boolean>();
        var seen = Expr.visited();
        exprs.forEach(expr -> collect(expr, found, seen, same));
        return new ArrayList<>(found);
    }

    private static void collect(Expr expr, Set<Expr> found, Set<Expr> seen, java.util.Map<Expr, Boolean> same) {
        if (!seen.add(expr)) return;
        if (!Expr.isLeaf(expr) && !(expr instanceof Expr.Shared) && sameInRow(expr, same)) {
            found.add(expr);
            return;
        }
        Expr.operands(expr).forEach(operand -> collect(operand, found, seen, same));
    }

    /// Whether `expr` reads only finished reductions and constants; `known` remembers each node's
    /// answer, and each [Expr.Let] variable's (its value's), before its body asks.
    private static boolean sameInRow(Expr expr, java.util.Map<Expr, Boolean> known) {
        Boolean cached = known.get(expr);
        if (cached != null) return cached;
        boolean same = switch (expr) {
            case Expr.Load _, Expr.Index _, Expr.Element _, Expr.Shared _, Expr.Gather _ -> false;
            case Expr.Constant _, Expr.Accumulated _ -> true;
            case Expr.Var variable -> known.getOrDefault(variable, false);
            case Expr.Let let -> {
                boolean value = sameInRow(let.value(), known);
                known.put(let.variable(), value);
                yield value && sameInRow(let.body(), known);
            }
            case Expr.Unary _, Expr.Binary _, Expr.Where _, Expr.Cast _, Expr.Random _, Expr.Fma _, Expr.Bits _, Expr.Bitwise _, Expr.Fallback _ ->
                    Expr.operands(expr).stream().allMatch(operand -> sameInRow(operand, known));
        };
        known.put(expr, same);
        return same;
    }
}
