// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.kernel.Expr;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/// How many vector registers a loop body needs at its worst moment, estimated from live ranges
/// over the order generated code evaluates it in: loop invariants (broadcast constants and
/// finished reductions, which the JIT hoists into registers) live throughout; each shared value
/// lives from its computation, before the stores, to its last use; and each expression needs the
/// registers of its Sethi–Ullman number, operands evaluated left to right.
///
/// The shared values are either [Expr.Shared] nodes (a kernel as generated) or, before [Sharing]
/// has rewritten a body, the nodes it will share: the planner prices a body without building it.
final class Pressure {
    private Pressure() {}

    /// A body whose shared values are its [Expr.Shared] nodes.
    static int peak(Bodies.Body body) { return measure(body.values(), body.accumulators(), expr -> expr instanceof Expr.Shared, expr -> 0).peak(); }

    /// A body's registers at its worst moment and its arithmetic per point (each distinct node's `operation` once),
    /// from one walk.
    record Measure(int peak, double arithmetic) {}

    /// A body whose nodes in `shared` will each be computed once, before the stores, into a register.
    static Measure measure(List<Expr> values, int accumulators, Predicate<Expr> shared, ToDoubleFunction<Expr> operation) {
        var order = new ArrayList<Expr>();
        var invariants = new HashSet<Expr>();
        double arithmetic = collect(values, shared, operation, order, invariants);
        // The steps in order: each shared value's computation, then each stored value.
        var steps = new ArrayList<Expr>(order);
        steps.addAll(values);
        Map<Expr, Integer> lastUse = new IdentityHashMap<>();
        // One set for all steps: below a step, only shared values are read by several steps, and
        // the walk stops at them.
        var seen = Expr.visited();
        for (int step = 0; step < steps.size(); step++) {
            int at = step;
            Expr computed = steps.get(step);
            if (step >= order.size() && shared.test(computed)) lastUse.put(computed, at); // a stored value read from its register
            else references(computed, shared, seen, value -> lastUse.put(value, at));
        }
        int[] endsAt = new int[steps.size()];
        for (var value : order) if (lastUse.containsKey(value)) endsAt[lastUse.get(value)]++;
        int held = invariants.size() + accumulators;
        Map<Expr, Integer> needs = new IdentityHashMap<>();
        int live = 0, peak = 0;
        for (int step = 0; step < steps.size(); step++) {
            Expr computed = steps.get(step);
            int need = step >= order.size() && shared.test(computed) ? 0 : operation(computed, shared, needs);
            peak = Math.max(peak, held + live + need);
            if (step < order.size() && lastUse.containsKey(order.get(step))) live++;
            live -= endsAt[step];
        }
        return new Measure(peak, arithmetic);
    }

    /// Adds the shared values of `values` to `order`, each after the shared values it reads (the
    /// order in which a loop body computes them), and the distinct constants and finished
    /// reductions to `invariants` (each a broadcast register for the whole loop); returns the
    /// arithmetic of each distinct node.
    private static double collect(List<Expr> values, Predicate<Expr> shared, ToDoubleFunction<Expr> operation, List<Expr> order, Set<Expr> invariants) {
        var seen = Expr.visited();
        double arithmetic = 0;
        for (Expr value : values) arithmetic += collect(value, shared, operation, order, invariants, seen);
        return arithmetic;
    }

    private static double collect(Expr expr, Predicate<Expr> shared, ToDoubleFunction<Expr> operation, List<Expr> order, Set<Expr> invariants, Set<Expr> seen) {
        if (!seen.add(expr)) return 0;
        double arithmetic = operation.applyAsDouble(expr);
        for (Expr operand : Expr.operands(expr)) arithmetic += collect(operand, shared, operation, order, invariants, seen);
        if (shared.test(expr)) order.add(expr);
        if (expr instanceof Expr.Constant || expr instanceof Expr.Accumulated) invariants.add(expr);
        return arithmetic;
    }

    /// Calls `found` with each shared value that computing `step` reads directly (not those inside them).
    private static void references(Expr step, Predicate<Expr> shared, Set<Expr> seen, java.util.function.Consumer<Expr> found) {
        var pending = new java.util.ArrayDeque<Expr>(); // not ArrayDeque(Collection): its forEach lambda is linked on first use
        for (Expr operand : Expr.operands(step)) pending.addLast(operand);
        while (!pending.isEmpty()) {
            Expr node = pending.pop();
            if (shared.test(node)) found.accept(node);
            else if (seen.add(node)) for (Expr operand : Expr.operands(node)) pending.push(operand);
        }
    }

    /// Registers to evaluate `expr` when its operands go left to right, each result held while the
    /// next is computed. Values already in registers (invariants, shared values) need none.
    private static int need(Expr expr, Predicate<Expr> shared, Map<Expr, Integer> known) {
        return shared.test(expr) ? 0 : operation(expr, shared, known);
    }

    /// Registers to compute `expr`'s own operation (a shared value's computation included).
    private static int operation(Expr expr, Predicate<Expr> shared, Map<Expr, Integer> known) {
        Integer cached = known.get(expr);
        if (cached != null) return cached;
        int need = switch (expr) {
            case Expr.Constant _, Expr.Accumulated _ -> 0;
            case Expr.Load _, Expr.Index _, Expr.Element _ -> 1;
            case Expr.Gather gather -> Math.max(1, need(gather.index(), shared, known));
            case Expr.Shared s -> need(s.value(), shared, known);
            case Expr.Unary unary -> Math.max(1, need(unary.x(), shared, known));
            case Expr.Cast cast -> Math.max(1, need(cast.x(), shared, known));
            // The key is scalar and the lanes are sampled in a call, which saves the registers.
            case Expr.Random random -> Math.max(1, need(random.position(), shared, known));
            case Expr.Binary binary -> operands(List.of(binary.left(), binary.right()), shared, known);
            case Expr.Where where -> operands(List.of(where.condition(), where.ifTrue(), where.ifFalse()), shared, known);
            // the forms of a rewritten transcendental, which code generation makes after fusion has planned
            case Expr.Var _ -> 0;
            case Expr.Bits bits -> Math.max(1, need(bits.x(), shared, known));
            case Expr.Fma fma -> operands(List.of(fma.a(), fma.b(), fma.c()), shared, known);
            case Expr.Bitwise bitwise -> operands(List.of(bitwise.left(), bitwise.right()), shared, known);
            case Expr.Fallback f -> operands(List.of(f.x(), f.inRange(), f.value()), shared, known);
            case Expr.Let let -> Math.max(need(let.value(), shared, known), 1 + need(let.body(), shared, known));
        };
        known.put(expr, need);
        return need;
    }

    private static int operands(List<Expr> operands, Predicate<Expr> shared, Map<Expr, Integer> known) {
        int held = 0, peak = 1;
        for (Expr operand : operands) {
            int need = need(operand, shared, known);
            peak = Math.max(peak, held + need);
            if (need > 0) held++;
        }
        return peak;
    }
}
