// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.FusionMode;
import dev.smelt.kernel.Decision;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelPrinter;
import dev.smelt.kernel.Rewrite;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
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
    /// `spillsLeft`: the spill penalty of all the kernel's bodies over all their runs; `computeTime`:
    /// that and their arithmetic ([CostModel#kernelTime]).
    record Result(Kernel kernel, List<Decision> decisions, double spillsLeft, double computeTime) {}

    private final FusionMode mode;
    private final Machine machine;
    private final CostModel costs;
    /// The kernel's launch number, or -1 in a trial plan.
    private final int launch;
    /// The next shared value's id: each body numbers its own (a value two bodies share may have
    /// different parts shared in each), and [#renumber] makes them dense in order of first use.
    private int nextId;
    private final List<Decision> decisions = new ArrayList<>();
    /// Over every body and all its runs: the spill penalty, and that with the arithmetic.
    private double spillsLeft, computeTime;

    private Sharing(FusionMode mode, Machine machine, CostModel costs, int launch) {
        this.mode = mode;
        this.machine = machine;
        this.costs = costs;
        this.launch = launch;
    }

    /// `launch` is the kernel's launch number; -1 for a trial plan, which needs only the kernel's
    /// cost. Its kernel is then the one given, unshared: it costs the same arithmetic (each
    /// distinct node once), and the spills are priced as if shared.
    static Result apply(Kernel kernel, FusionMode mode, Machine machine, CostModel costs, int launch) {
        if (mode == FusionMode.NONE) return new Result(kernel, List.of(), 0, Double.NaN);
        return new Sharing(mode, machine, costs, launch).run(kernel);
    }

    private Result run(Kernel kernel) {
        var reductions = new ArrayList<>(kernel.reductions());
        for (var pass : kernel.reductionPasses()) {
            var decided = decide(kernel, new Bodies.Body(pass.stream().map(k -> kernel.reductions().get(k).value()).toList(), false, pass.size()));
            for (int j = 0; j < pass.size(); j++)
                reductions.set(pass.get(j), new Kernel.Reduction(reductions.get(pass.get(j)).op(), decided.body().values().get(j)));
        }
        var outputs = new ArrayList<>(kernel.outputs());
        for (boolean perRow : new boolean[] {false, true}) {
            var indices = new ArrayList<Integer>();
            for (int i = 0; i < outputs.size(); i++) if (outputs.get(i).perRow() == perRow) indices.add(i);
            if (indices.isEmpty()) continue;
            var values = new ArrayList<Expr>();
            for (int i : indices) values.add(outputs.get(i).value());
            var decided = decide(kernel, new Bodies.Body(values, perRow, 0));
            for (int j = 0; j < indices.size(); j++) {
                var old = outputs.get(indices.get(j));
                outputs.set(indices.get(j), new Kernel.Output(decided.body().values().get(j), old.size(), old.map(), old.perRow()));
            }
        }
        if (launch < 0) return new Result(kernel, decisions, spillsLeft, computeTime);
        var shared = renumber(new Kernel(kernel.space(), kernel.reducedRank(), kernel.inputs(), reductions, outputs));
        return new Result(shared, decisions, spillsLeft, computeTime);
    }

    /// Shared ids 0, 1, 2… in order of first use, so the kernel's text and locals do not depend on
    /// the trials that led to it.
    private static Kernel renumber(Kernel kernel) {
        Map<Integer, Integer> dense = new HashMap<>();
        boolean inOrder = true;
        for (var shared : Expr.sharedValues(kernel.expressions())) {
            inOrder &= shared.id() == dense.size();
            dense.putIfAbsent(shared.id(), dense.size());
        }
        if (inOrder) return kernel;
        var renumber = Rewrite.bottomUp((original, rebuilt) -> rebuilt instanceof Expr.Shared s ? new Expr.Shared(dense.get(s.id()), s.value()) : rebuilt);
        return kernel.withValues(renumber);
    }

    /// A body with its repeated values shared, the spill cost per point it still pays, and its
    /// arithmetic per point.
    private record Decided(Bodies.Body body, double spills, double arithmetic) {}

    /// The body with its repeated values shared as decided; its cost is added to the kernel's.
    private Decided decide(Kernel kernel, Bodies.Body body) {
        var decided = decide(body);
        long runs = body.runs(kernel);
        spillsLeft += runs * decided.spills();
        computeTime += runs * (decided.spills() + decided.arithmetic());
        return decided;
    }

    private Decided decide(Bodies.Body body) {
        var order = new ArrayList<Expr>();
        Map<Expr, Integer> uses = uses(body.values(), order);
        List<Expr> chosen = new ArrayList<>();
        for (Expr node : order) if (uses.get(node) > 1 && !Expr.isLeaf(node)) chosen.add(node);
        var chosenSet = java.util.Collections.<Expr>newSetFromMap(new IdentityHashMap<>());
        chosenSet.addAll(chosen);
        var measure = Pressure.measure(body.values(), body.accumulators(), chosenSet::contains, costs::operation);
        double spills = costs.spills(measure.peak(), machine), arithmetic = measure.arithmetic();
        if (chosen.isEmpty() || launch < 0) return new Decided(body, spills, arithmetic);
        var shared = rewrite(body, chosenSet);
        if (mode == FusionMode.GREEDY) {
            for (Expr value : chosen) decisions.add(Decision.rule(subject(value), Decision.Choice.KEEP_IN_REGISTER, "greedy fusion keeps every repeated value"));
            return new Decided(shared, spills, arithmetic);
        }
        // HotSpot's C2 commons identical pure operations of a loop body (global value numbering), so
        // recomputing a value at each use would compile to the same code as sharing it: it cannot
        // relieve register pressure, and recomputing is priced as its extra arithmetic alone.
        // (FusionBench.wide measured it: 0.49 ms recomputing, 0.48 ms sharing, 0.29 ms split.) What
        // still spills is left to the planner, which splits the kernel.
        double keptCost = arithmetic + spills;
        for (Expr value : chosen) {
            int count = uses.get(value);
            double recomputed = keptCost + (count - 1) * inline(value, chosenSet);
            decisions.add(Decision.costed(subject(value), Decision.Choice.KEEP_IN_REGISTER, keptCost, recomputed,
                    "computed once per point instead of " + count + " times (per point)")); // not formatted: a training step's compile makes hundreds
        }
        return new Decided(shared, spills, arithmetic);
    }

    /// How many times generated code reads each distinct node of `values` (by identity) when every
    /// node read more than once is computed once: one per root it is, and one per operand slot of
    /// each node that reads it. Adds the nodes to `order`, parents before their operands.
    private static Map<Expr, Integer> uses(List<Expr> values, List<Expr> order) {
        Map<Expr, Integer> counts = new IdentityHashMap<>();
        for (Expr value : values) counts.put(value, counts.getOrDefault(value, 0) + 1);
        for (Expr node : Expr.nodes(values)) {
            order.add(node);
            for (Expr operand : Expr.operands(node)) counts.put(operand, counts.getOrDefault(operand, 0) + 1);
        }
        return counts;
    }

    /// The arithmetic of `value` down to the shared values and leaves it reads: what each extra
    /// computation of it would cost.
    private double inline(Expr value, java.util.Set<Expr> shared) {
        double[] total = {0};
        var seen = java.util.Collections.<Expr>newSetFromMap(new IdentityHashMap<>());
        var pending = new java.util.ArrayDeque<Expr>(); // not ArrayDeque(Collection): its forEach lambda is linked on first use
        pending.push(value);
        while (!pending.isEmpty()) {
            Expr node = pending.pop();
            if (!seen.add(node)) continue;
            total[0] += costs.operation(node);
            for (Expr operand : Expr.operands(node)) if (!shared.contains(operand)) pending.push(operand);
        }
        return total[0];
    }

    private Bodies.Body rewrite(Bodies.Body body, java.util.Set<Expr> chosen) {
        var wrap = Rewrite.bottomUp((original, rebuilt) ->
                chosen.contains(original) ? new Expr.Shared(nextId++, rebuilt) : rebuilt);
        return new Bodies.Body(body.values().stream().map(wrap).toList(), body.perRow(), body.accumulators());
    }

    private Decision.Subject subject(Expr value) {
        String text = KernelPrinter.expression(value, 61);
        return new Decision.Subject.InKernel(launch, new Decision.Subject.Value(text.length() > 60 ? text.substring(0, 57) + "…" : text));
    }
}
