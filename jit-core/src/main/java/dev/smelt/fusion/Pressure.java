// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.kernel.Expr;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/// How many vector registers a loop body needs at its worst moment, estimated from live ranges
/// over the order generated code evaluates it in: loop invariants (broadcast constants and
/// finished reductions, which the JIT hoists into registers) live throughout; each shared value
/// lives from its computation, before the stores, to its last use; and each expression needs the
/// registers of its Sethi–Ullman number, operands evaluated left to right.
final class Pressure {
    private Pressure() {}

    static int peak(Bodies.Body body) {
        List<Expr.Shared> shared = Expr.sharedValues(body.values());
        // The steps in order: each shared value's computation, then each stored value.
        var steps = new java.util.ArrayList<Expr>();
        shared.forEach(s -> steps.add(s.value()));
        steps.addAll(body.values());
        Map<Integer, Integer> lastUse = new HashMap<>();
        // One set for all steps: below a step, only shared values are read by several steps, and
        // the walk stops at them.
        var seen = Expr.visited();
        for (int step = 0; step < steps.size(); step++) {
            int at = step;
            references(steps.get(step), seen, id -> lastUse.put(id, at));
        }
        int[] endsAt = new int[steps.size()];
        for (var s : shared) if (lastUse.containsKey(s.id())) endsAt[lastUse.get(s.id())]++;
        int invariants = invariants(body.values()) + body.accumulators();
        Map<Expr, Integer> needs = new java.util.IdentityHashMap<>();
        int live = 0, peak = 0;
        for (int step = 0; step < steps.size(); step++) {
            peak = Math.max(peak, invariants + live + need(steps.get(step), needs));
            if (step < shared.size() && lastUse.containsKey(shared.get(step).id())) live++;
            live -= endsAt[step];
        }
        return peak;
    }

    /// Calls `found` with each shared value `expr` reads directly (not those inside them).
    private static void references(Expr expr, Set<Expr> seen, java.util.function.IntConsumer found) {
        var pending = new java.util.ArrayDeque<Expr>(List.of(expr));
        while (!pending.isEmpty()) {
            Expr node = pending.pop();
            if (node instanceof Expr.Shared shared) found.accept(shared.id());
            else if (seen.add(node)) Expr.operands(node).forEach(pending::push);
        }
    }

    /// Distinct constants and finished reductions: each a broadcast register for the whole loop.
    private static int invariants(List<Expr> values) {
        Set<Expr> seen = new HashSet<>();
        Expr.walk(values, node -> {
            if (node instanceof Expr.Constant || node instanceof Expr.Accumulated) seen.add(node);
        });
        return seen.size();
    }

    /// Registers to evaluate `expr` when its operands go left to right, each result held while the
    /// next is computed. Values already in registers (invariants, shared values) need none.
    static int need(Expr expr) { return need(expr, new java.util.IdentityHashMap<>()); }

    private static int need(Expr expr, Map<Expr, Integer> known) {
        Integer cached = known.get(expr);
        if (cached != null) return cached;
        int need = switch (expr) {
            case Expr.Constant _, Expr.Accumulated _, Expr.Shared _ -> 0;
            case Expr.Load _, Expr.Index _, Expr.Element _ -> 1;
            case Expr.Unary unary -> Math.max(1, need(unary.x(), known));
            case Expr.Cast cast -> Math.max(1, need(cast.x(), known));
            case Expr.Binary binary -> operands(List.of(binary.left(), binary.right()), known);
            case Expr.Where where -> operands(List.of(where.condition(), where.ifTrue(), where.ifFalse()), known);
        };
        known.put(expr, need);
        return need;
    }

    private static int operands(List<Expr> operands, Map<Expr, Integer> known) {
        int held = 0, peak = 1;
        for (Expr operand : operands) {
            int need = need(operand, known);
            peak = Math.max(peak, held + need);
            if (need > 0) held++;
        }
        return peak;
    }
}
