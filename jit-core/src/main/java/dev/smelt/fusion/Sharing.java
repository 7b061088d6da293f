// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.kernel.Decision;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.Kernel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/// Inside one kernel, finds each value that a loop body computes more than once and keeps it in a
/// register ([Expr.Shared]: computed once per point), with both estimates for `explain()`. Keeping
/// costs a register for the value's live range; recomputing would cost its arithmetic again, but
/// the JIT commons identical pure operations of a loop anyway, so recomputing cannot relieve
/// register pressure here: the spills that remain are reported, and the planner prices splitting
/// the kernel instead.
final class Sharing {
    /// The kernel with its shared values, the decisions, and the spill cost per point still left.
    record Result(Kernel kernel, List<Decision> decisions, double spillsLeft) {}

    private final FusionMode mode;
    private final Machine machine;
    private final String kernelName;
    private final Map<Expr, Integer> ids = new HashMap<>();
    private final List<Decision> decisions = new ArrayList<>();

    private Sharing(FusionMode mode, Machine machine, String kernelName) {
        this.mode = mode;
        this.machine = machine;
        this.kernelName = kernelName;
    }

    static Result apply(Kernel kernel, FusionMode mode, Machine machine, String kernelName) {
        if (mode == FusionMode.NONE) return new Result(kernel, List.of(), 0);
        return new Sharing(mode, machine, kernelName).run(kernel);
    }

    private Result run(Kernel kernel) {
        var reductions = new ArrayList<Kernel.Reduction>();
        double spillsLeft = 0;
        long points = kernel.space().count();
        for (var reduction : kernel.reductions()) {
            var body = decide(new Bodies.Body(List.of(reduction.value()), false, 1));
            reductions.add(new Kernel.Reduction(reduction.op(), body.values().getFirst()));
            spillsLeft += points * CostModel.spills(body, machine);
        }
        var outputs = new ArrayList<>(kernel.outputs());
        for (boolean perRow : new boolean[] {false, true}) {
            var indices = new ArrayList<Integer>();
            for (int i = 0; i < outputs.size(); i++) if (outputs.get(i).perRow() == perRow) indices.add(i);
            if (indices.isEmpty()) continue;
            var body = decide(new Bodies.Body(indices.stream().map(i -> outputs.get(i).value()).toList(), perRow, 0));
            for (int j = 0; j < indices.size(); j++) {
                var old = outputs.get(indices.get(j));
                outputs.set(indices.get(j), new Kernel.Output(body.values().get(j), old.size(), old.map(), old.perRow()));
            }
            spillsLeft += (perRow ? kernel.workItems() : points) * CostModel.spills(body, machine);
        }
        var shared = renumber(new Kernel(kernel.space(), kernel.reducedRank(), kernel.inputs(), reductions, outputs));
        return new Result(shared, decisions, spillsLeft);
    }

    /// Shared ids 0, 1, 2… in order of first use, so the kernel's text and locals do not depend on
    /// the trials that led to it.
    private static Kernel renumber(Kernel kernel) {
        Map<Integer, Integer> dense = new HashMap<>();
        for (var shared : Expr.sharedValues(kernel.expressions().toList())) dense.putIfAbsent(shared.id(), dense.size());
        if (dense.isEmpty()) return kernel;
        java.util.function.UnaryOperator<Expr>[] renumber = new java.util.function.UnaryOperator[1];
        renumber[0] = expr -> {
            Expr inner = Expr.mapOperands(expr, renumber[0]);
            return inner instanceof Expr.Shared s ? new Expr.Shared(dense.get(s.id()), s.value()) : inner;
        };
        var reductions = kernel.reductions().stream().map(r -> new Kernel.Reduction(r.op(), renumber[0].apply(r.value()))).toList();
        var outputs = kernel.outputs().stream().map(o -> new Kernel.Output(renumber[0].apply(o.value()), o.size(), o.map(), o.perRow())).toList();
        return new Kernel(kernel.space(), kernel.reducedRank(), kernel.inputs(), reductions, outputs);
    }

    /// The body with its repeated values shared as decided.
    private Bodies.Body decide(Bodies.Body body) {
        List<Expr> chosen = candidates(body.values());
        if (chosen.isEmpty()) return body;
        var shared = rewrite(body, chosen);
        if (mode == FusionMode.GREEDY) {
            chosen.forEach(value -> decisions.add(new Decision(subject(value), "keep in a register", Double.NaN, Double.NaN, "greedy fusion keeps every repeated value")));
            return shared;
        }
        // HotSpot's C2 commons identical pure operations of a loop body (global value numbering), so
        // recomputing a value at each use would compile to the same code as sharing it: it cannot
        // relieve register pressure. (FusionBench.wide measured it: 0.49 ms recomputing, 0.48 ms
        // sharing, 0.29 ms split.) What still spills is left to the planner, which splits the kernel.
        double keptCost = CostModel.arithmetic(shared.values()) + CostModel.spills(shared, machine);
        for (Expr value : chosen) {
            var without = new ArrayList<>(chosen);
            without.remove(value);
            var trial = rewrite(body, without);
            double recomputed = CostModel.arithmetic(trial.values()) + CostModel.spills(trial, machine);
            decisions.add(new Decision(subject(value), "keep in a register", keptCost, recomputed,
                    "computed once per point instead of %d times (per point)".formatted(occurrences(body.values(), value, chosen))));
        }
        return shared;
    }

    /// Repeated non-leaf values, largest first, counting a value inside a repeated larger one once
    /// per occurrence of the larger one only if that one is not shared.
    private static List<Expr> candidates(List<Expr> values) {
        Map<Expr, Integer> counts = new LinkedHashMap<>();
        values.forEach(value -> Expr.walk(value, node -> { if (!Expr.isLeaf(node)) counts.merge(node, 1, Integer::sum); }));
        var repeated = counts.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey)
                .sorted(Comparator.comparingInt(Sharing::size).reversed()).toList();
        var chosen = new ArrayList<Expr>();
        for (Expr value : repeated)
            if (occurrences(values, value, chosen) > 1) chosen.add(value);
        return chosen;
    }

    /// How often generated code would compute `value` when the `shared` values are computed once.
    private static int occurrences(List<Expr> values, Expr value, List<Expr> shared) {
        int[] count = {0};
        var seen = new java.util.HashSet<Expr>();
        values.forEach(root -> count(root, value, shared, seen, count));
        return count[0];
    }

    private static void count(Expr expr, Expr value, List<Expr> shared, java.util.Set<Expr> seen, int[] count) {
        if (expr.equals(value)) {
            count[0]++;
            return;
        }
        if (shared.contains(expr) && !seen.add(expr)) return;
        Expr.mapOperands(expr, operand -> { count(operand, value, shared, seen, count); return operand; });
    }

    private static int size(Expr expr) {
        int[] size = {0};
        Expr.walk(expr, node -> size[0]++);
        return size[0];
    }

    private Bodies.Body rewrite(Bodies.Body body, List<Expr> shared) {
        var values = body.values().stream().map(value -> wrap(value, shared)).toList();
        return new Bodies.Body(values, body.perRow(), body.accumulators());
    }

    private Expr wrap(Expr expr, List<Expr> shared) {
        Expr inner = Expr.mapOperands(expr, operand -> wrap(operand, shared));
        if (!shared.contains(expr)) return inner;
        return new Expr.Shared(ids.computeIfAbsent(inner, e -> ids.size()), inner);
    }

    private String subject(Expr value) {
        String text = dev.smelt.kernel.KernelPrinter.expression(value);
        return kernelName + " " + (text.length() > 60 ? text.substring(0, 57) + "…" : text);
    }
}
