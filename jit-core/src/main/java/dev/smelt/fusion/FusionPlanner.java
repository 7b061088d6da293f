// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.FusionMode;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Printer;
import dev.smelt.kernel.Decision;
import dev.smelt.kernel.Schedule;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/// Cuts a graph into kernels. A node gets a buffer of its own ("is realized") when a fixed rule
/// says it must ([FusionRules]: a graph output, a concat, a matmul operand that is not a view of a
/// buffer), at the start or when lowering finds it cannot be computed inside the kernel that reads
/// it ([Realize], a demand returned as data). Everything else is fused into the kernels that read
/// it: pointwise chains, views (as index maps), and reductions into the row kernels of their consumers.
///
/// Then, in [FusionMode#COST_MODEL], the planner weighs what fusion duplicates, in the estimates of
/// its options' [CostModel]: a node computed in several kernels is materialised once when writing
/// and reading it back is estimated cheaper than recomputing it, and a kernel whose loop body
/// still spills after [Sharing] is split by materialising one of its shared values when that is cheaper. Each candidate is
/// priced by planning the graph with it realized; the best saving is taken, and the search
/// repeats until none saves. Every choice, with both estimates, is kept for `explain()`.
public final class FusionPlanner {
    private FusionPlanner() {}

    /// Materialisation candidates priced per round, and rounds: bounds on compile time.
    private static final int CANDIDATES = 16, ROUNDS = 8;
    /// A materialisation must save this fraction of the estimated time: the estimates are not
    /// exact, and a tie is better left fused (one buffer less). A fraction of the whole program's
    /// time: 2% kept a large program from materialising any node whose recomputation costs only
    /// its own few kernels (a GPT step's residual stream, recomputed by up to 39 kernels: 127 MB
    /// more memory traffic per step).
    private static final double MARGIN = 0.002;

    /// `budget` caps the operations fused into one kernel, keeping generated methods well under
    /// HotSpot's 8000-byte limit for JIT compilation (about 30 bytes of bytecode per operation);
    /// the compiler halves it when the emitter still finds a method too large. `costs` prices every
    /// costed choice; Smelt plans with [CostModel#CALIBRATED].
    public record Options(int budget, FusionMode mode, Machine machine, CostModel costs) {
        /// What the compiler plans with: the cost model, calibrated, on this machine.
        public static final Options DEFAULT = new Options(120, FusionMode.COST_MODEL, Machine.CURRENT, CostModel.CALIBRATED);

        public Options {
            if (budget < 1) throw new IllegalArgumentException("budget " + budget);
            if (mode == null || machine == null || costs == null) throw new IllegalArgumentException("fusion mode, machine and cost model are required");
        }

        /// These options with another operation budget per kernel.
        public Options withBudget(int budget) { return new Options(budget, mode, machine, costs); }

        /// These options with another fusion mode.
        public Options withMode(FusionMode mode) { return new Options(budget, mode, machine, costs); }

        /// These options pricing choices with `costs`.
        public Options withCosts(CostModel costs) { return new Options(budget, mode, machine, costs); }
    }

    /// `graph` planned with [Options#DEFAULT].

    public static Schedule plan(Graph graph) { return plan(graph, Options.DEFAULT); }

    /// `graph` cut into kernels as `options` say, with every decision made on the way.
    public static Schedule plan(Graph graph, Options options) {
        Set<Node> realized = Collections.newSetFromMap(new IdentityHashMap<>());
        var decisions = new ArrayList<Decision>();
        var nodes = graph.nodes();
        var labels = labels(nodes);
        Realization.initial(graph, options.mode(), realized, decisions, labels);
        // Once: every node realized later only shrinks the cones the cut has bounded.
        KernelBudget.cut(graph, options.budget(), realized, decisions, labels);
        var planning = new ScheduleBuilder.Planning(graph, nodes, labels, options);
        var prices = new KernelPrices();
        var attempt = attempt(planning, realized, decisions, prices, null, Purpose.SCHEDULE);
        if (options.mode() != FusionMode.COST_MODEL) return finish(attempt, decisions, recomputed(attempt, labels, options.mode(), Map.of()));
        Map<Node, Double> priced = new IdentityHashMap<>();
        for (int round = 0; round < ROUNDS; round++) {
            priced.clear();
            var best = bestTrial(planning, attempt, realized, prices, priced);
            if (best == null) break;
            decisions.add(decision(labels.get(best.candidate()), best.candidate(), attempt, best.attempt().cost()));
            realized.addAll(best.realized()); // its plan met the demands that realizing it makes: planning again would meet the same
            decisions.addAll(best.demanded());
            attempt = attempt(planning, realized, decisions, prices, attempt.cones(), Purpose.ADOPTED);
        }
        return finish(attempt, decisions, recomputed(attempt, labels, options.mode(), priced));
    }

    /// A candidate's trial plan, the nodes it realized (the candidate and those its plan demanded)
    /// and why it realized them.
    private record Trial(Node candidate, ScheduleBuilder.Attempt attempt, Set<Node> realized, List<Decision> demanded) {}

    /// The trial that saves the most over `attempt`, if any saves more than the margin; each
    /// candidate's cost goes to `priced`.
    private static Trial bestTrial(ScheduleBuilder.Planning planning, ScheduleBuilder.Attempt attempt, Set<Node> realized, KernelPrices prices, Map<Node, Double> priced) {
        Trial best = null;
        for (Node candidate : candidates(attempt, realized)) {
            Set<Node> with = Collections.newSetFromMap(new IdentityHashMap<>());
            with.addAll(realized);
            with.add(candidate);
            var demanded = new ArrayList<Decision>();
            var trial = attempt(planning, with, demanded, prices, attempt.cones(), Purpose.TRIAL);
            priced.put(candidate, trial.cost());
            if (trial.cost() < attempt.cost() * (1 - MARGIN) && (best == null || trial.cost() < best.attempt().cost())) best = new Trial(candidate, trial, with, demanded);
        }
        return best;
    }

    /// What an attempt is for: a trial's cost; a schedule; or a schedule for nodes a trial realized,
    /// whose demands it met already.
    private enum Purpose { TRIAL, SCHEDULE, ADOPTED }

    /// One plan for a fixed set of realized nodes, realizing more (and noting why in `decisions`)
    /// where lowering demands it.
    ///
    /// The plans that find and meet demands skip the kernels `prices` knows: a kernel with the same
    /// roots, loop and reads lowers as it did before, demanding nothing. Only once every demand is
    /// met is a schedule built, every kernel lowered (a GPT step's graph met its demands in ten
    /// plans, each lowering all of its kernels).
    private static ScheduleBuilder.Attempt attempt(ScheduleBuilder.Planning planning, Set<Node> realized, List<Decision> decisions, KernelPrices prices, RootCones cones,
                                                   Purpose purpose) {
        boolean skipKnown = purpose != Purpose.ADOPTED;
        while (true) {
            var attempt = new ScheduleBuilder(planning, realized, skipKnown ? prices : null, cones).build();
            cones = attempt.cones();
            if (attempt.demands().isEmpty()) {
                if (purpose == Purpose.TRIAL || !skipKnown) return attempt;
                skipKnown = false;
                continue;
            }
            skipKnown = true;
            Set<Node> demanded = Collections.newSetFromMap(new IdentityHashMap<>());
            for (Realize demand : chosen(attempt.demands(), attempt.demandScopes())) {
                if (!demanded.add(demand.node())) continue;
                var label = planning.labels().get(demand.node());
                if (!realized.add(demand.node())) throw new IllegalStateException("planning did not converge at " + label);
                decisions.add(new Decision(label, demand.choice(), "", demand.cost(), demand.alternative(), demand.reason()));
            }
        }
    }

    /// The demands met before planning again: every claimed reduction, and of the demands that
    /// depend on a kernel's loop, each whose kernel computes no node chosen before and whose node
    /// no kernel chosen from computes. Meeting a demand changes the loops of the kernels that
    /// compute its node, and only theirs: the rest would make the same demands in the next attempt.
    /// One loop demand per attempt planned a 12-layer decode graph (288 demands) in 97 attempts.
    private static List<Realize> chosen(List<Realize> demands, List<Set<Node>> scopes) {
        var chosen = new ArrayList<Realize>();
        var nodes = new ArrayList<Node>();
        var kernels = new ArrayList<Set<Node>>();
        for (int i = 0; i < demands.size(); i++) {
            Realize demand = demands.get(i);
            if (demand.kind() == Realize.Kind.LOOP) {
                Set<Node> scope = scopes.get(i);
                if (nodes.stream().anyMatch(scope::contains) || kernels.stream().anyMatch(k -> k.contains(demand.node()))) continue;
                nodes.add(demand.node());
                kernels.add(scope);
            }
            chosen.add(demand);
        }
        return chosen;
    }

    /// Nodes worth pricing as materialised: those computed by several kernels, the most kernels
    /// first, then the nodes of kernels that still spill; ties in launch order (so that plans do
    /// not depend on identity hashes). Most kernels first: in a GPT step's graph over 80 nodes are
    /// computed twice or more, and in launch order the residual stream, recomputed from all its
    /// parts by up to 30 kernels, came after the limit and was never priced.
    private static List<Node> candidates(ScheduleBuilder.Attempt attempt, Set<Node> realized) {
        var candidates = new ArrayList<Node>();
        Set<Node> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        var shared = new ArrayList<Computed>();
        for (var computed : kernelCounts(attempt)) if (computed.kernels() > 1) shared.add(computed);
        shared.sort((a, b) -> Integer.compare(b.kernels(), a.kernels())); // most first; stable: launch order within a count
        for (var computed : shared)
            if (!realized.contains(computed.node()) && seen.add(computed.node())) candidates.add(computed.node());
        for (int l = 0; l < attempt.fused().size(); l++) {
            if (attempt.spills().get(l) <= 0) continue;
            for (Node node : attempt.fused().get(l))
                if (!realized.contains(node) && !FusionRules.FOLDED_ONCE.test(node) && seen.add(node)) candidates.add(node);
        }
        return candidates.size() <= CANDIDATES ? candidates : candidates.subList(0, CANDIDATES);
    }

    /// A node some kernel computes, and how many kernels compute it.
    private record Computed(Node node, int kernels) {}

    /// Each node the kernels compute, in the order they first appear in the launches.
    private static List<Computed> kernelCounts(ScheduleBuilder.Attempt attempt) {
        Map<Node, Integer> kernels = new IdentityHashMap<>();
        var order = new ArrayList<Node>();
        for (var fused : attempt.fused()) {
            Set<Node> once = Collections.newSetFromMap(new IdentityHashMap<>());
            for (Node node : fused) {
                if (!once.add(node)) continue;
                Integer before = kernels.put(node, kernels.getOrDefault(node, 0) + 1);
                if (before == null) order.add(node);
            }
        }
        var computed = new ArrayList<Computed>(); // loops, not streams: the planner runs on a fresh JVM's first call
        for (Node node : order) computed.add(new Computed(node, kernels.get(node)));
        return computed;
    }

    /// Materialising `node`, which `attempt` leaves fused, estimated at `cost`: a node several kernels
    /// compute is written once; else it splits the kernel that spills.
    private static Decision decision(Decision.Subject subject, Node node, ScheduleBuilder.Attempt attempt, double cost) {
        int kernels = kernelCounts(attempt).stream().filter(c -> c.node() == node).mapToInt(Computed::kernels).findFirst().orElse(0);
        if (kernels > 1) return Decision.costed(subject, Decision.Choice.MATERIALISE, cost, attempt.cost(), "computed by " + kernels + " kernels; writing it once and reading it back is cheaper");
        return Decision.costed(subject, Decision.Choice.SPLIT, cost, attempt.cost(), "its kernel spills registers; splitting the kernel here is cheaper");
    }

    /// A decision for each node the final plan computes in several kernels.
    private static List<Decision> recomputed(ScheduleBuilder.Attempt attempt, Map<Node, Decision.Subject.GraphNode> labels, FusionMode mode, Map<Node, Double> priced) {
        var decisions = new ArrayList<Decision>();
        for (var computed : kernelCounts(attempt)) {
            Node node = computed.node();
            if (computed.kernels() < 2 || FusionRules.FOLDED_ONCE.test(node)) continue;
            double alternative = priced.getOrDefault(node, Double.NaN);
            Decision decision;
            if (mode == FusionMode.GREEDY) decision = Decision.rule(labels.get(node), Decision.Choice.RECOMPUTE, "greedy fusion recomputes every producer in every consumer");
            else if (Double.isNaN(alternative)) decision = Decision.rule(labels.get(node), Decision.Choice.RECOMPUTE, "materialising it was not priced (candidate limit)");
            else decision = Decision.costed(labels.get(node), Decision.Choice.RECOMPUTE, attempt.cost(), alternative, "recomputing it is cheaper than writing it once and reading it back");
            decisions.add(decision.withDetail("in each of " + computed.kernels() + " kernels"));
        }
        return decisions;
    }

    /// The plan's schedule with its decisions: what must be materialised and why, what the cost
    /// model materialised, what stays in registers, what is recomputed.
    private static Schedule finish(ScheduleBuilder.Attempt attempt, List<Decision> planned, List<Decision> recomputed) {
        var schedule = attempt.schedule();
        var decisions = new ArrayList<>(planned);
        decisions.addAll(attempt.kernelDecisions());
        decisions.addAll(recomputed);
        var launches = SinkOrder.early(schedule);
        return new Schedule(schedule.buffers(), launches, schedule.inputs(), schedule.outputs(), decisions);
    }

    /// `%7 exp`: each node's number in the printed graph and its operator, for `explain()`.
    static Map<Node, Decision.Subject.GraphNode> labels(List<Node> nodes) {
        Map<Node, Decision.Subject.GraphNode> labels = new IdentityHashMap<>();
        for (int i = 0; i < nodes.size(); i++) labels.put(nodes.get(i), new Decision.Subject.GraphNode(i, Printer.opName(nodes.get(i))));
        return labels;
    }
}
