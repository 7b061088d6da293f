// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/// A rewrite of expression DAGs that handles each distinct node (by identity) once, so a value
/// reached along many paths is rewritten once and stays one node: linear in the DAG, where a
/// recursive [Expr#mapOperands] would be linear in the tree it unfolds to. Used for one kernel at
/// a time; it remembers every node it has seen.
public final class Rewrite implements UnaryOperator<Expr> {
    private final Map<Expr, Expr> done = new IdentityHashMap<>();
    private final Function<Expr, Expr> replace;
    private final BiFunction<Expr, Expr, Expr> rebuild;

    private Rewrite(Function<Expr, Expr> replace, BiFunction<Expr, Expr, Expr> rebuild) {
        this.replace = replace;
        this.rebuild = rebuild;
    }

    /// Top down: a node for which `replace` returns non-null becomes that and its operands are not
    /// visited; any other node is rebuilt over its rewritten operands.
    public static Rewrite topDown(Function<Expr, Expr> replace) { return new Rewrite(replace, (original, rebuilt) -> rebuilt); }

    /// Bottom up: `rule(original, rebuilt)` receives each node and the same node over its rewritten
    /// operands, and returns what replaces it.
    public static Rewrite bottomUp(BiFunction<Expr, Expr, Expr> rule) { return new Rewrite(expr -> null, rule); }

    @Override
    public Expr apply(Expr expr) {
        Expr known = done.get(expr);
        if (known != null) return known;
        Expr replaced = replace.apply(expr);
        Expr result = replaced != null ? replaced : rebuild.apply(expr, Expr.isLeaf(expr) ? expr : Expr.mapOperands(expr, this));
        done.put(expr, result);
        return result;
    }
}
