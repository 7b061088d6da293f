// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.FusionMode;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import dev.smelt.kernel.Decision;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelForm;
import dev.smelt.kernel.Schedule;
import dev.smelt.kernel.SortKernel;
import dev.smelt.kernel.UpdateKernel;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/// One planning attempt for a fixed set of realized nodes: a buffer per input and realized node,
/// roots grouped into kernels of one loop nest each (siblings share a kernel and its loads), each
/// group lowered. A group that cannot be lowered as planned names a node that needs a buffer
/// ([Realize]); the attempt goes on with the other groups and returns every such demand at once,
/// so that a graph needing many buffers is planned again a few times, not once per buffer.
final class ScheduleBuilder {
    private final Graph graph;
    private final List<Node> nodes;
    private final Set<Node> realized;
    private final Map<Node, Decision.Subject.GraphNode> labels;
    private final FusionPlanner.Options options;
    private final List<Decision> decisions = new ArrayList<>();
    private final Map<Node, Integer> buffers = new IdentityHashMap<>();
    private final List<Schedule.Buffer> bufferList = new ArrayList<>();
    private final Map<Node, Group> owners = new IdentityHashMap<>();
    private final RootCones cones;
    private final KernelPrices prices;

    private final List<List<Node>> fusedNodes = new ArrayList<>();
    private final List<Double> spills = new ArrayList<>();

    /// A built schedule (without decisions) with what the planner weighs next: each launch's fused
    /// nodes, the spill cost each launch still pays, the estimated time of the whole, and the
    /// decisions made inside kernels (what stays in a register).
    /// `demands` non-empty means the attempt is incomplete: those nodes need buffers first; beside
    /// each, the nodes of the kernel that demanded it (its roots and what they inline).
    record Attempt(Schedule schedule, List<List<Node>> fused, List<Double> spills, double cost, List<Decision> kernelDecisions, List<Realize> demands,
                   List<Set<Node>> demandScopes, RootCones cones) {}

    /// What every attempt at one graph shares: the graph, its nodes in order (operands first), their
    /// labels, and the options.
    record Planning(Graph graph, List<Node> nodes, Map<Node, Decision.Subject.GraphNode> labels, FusionPlanner.Options options) {}

    /// With `prices`, the attempt needs only its cost and demands (a trial, or a plan meeting
    /// demands): a kernel priced before is not lowered again, and the attempt has no schedule.
    /// `earlier`, when not null, is an earlier attempt's cones.
    ScheduleBuilder(Planning planning, Set<Node> realized, KernelPrices prices, RootCones earlier) {
        this.prices = prices;
        this.cones = new RootCones(realized, earlier);
        this.graph = planning.graph();
        this.nodes = planning.nodes();
        this.realized = realized;
        this.labels = planning.labels();
        this.options = planning.options();
    }

    Attempt build() {
        for (Node input : graph.inputs()) allocate(input);
        var roots = new ArrayList<Node>();
        for (Node node : nodes)
            if (realized.contains(node) && !(node instanceof Node.Input)) {
                allocate(node);
                roots.add(node);
            }
        var launches = new ArrayList<Schedule.Launch>();
        var demands = new ArrayList<Realize>();
        var demandScopes = new ArrayList<Set<Node>>();
        double cost = 0;
        for (Group group : Groups.of(roots, realized, cones::cone, cones::signature, options.mode() != FusionMode.NONE, options.budget(), decisions, labels)) {
            if (group.concat() == null && group.roots().getFirst() instanceof Node.Attention) { // a concat part that is an attention copies it
                var launch = attention(group);
                cost += options.costs().time(launch.kernel(), options.machine());
                launches.add(launch);
                continue;
            }
            var key = prices == null ? null : KernelPrices.key(group, realized, cones::cone);
            var known = key == null ? null : prices.claimFor(key, group, owners);
            if (known != null) {
                cost += known;
                continue;
            }
            int demanded = demands.size();
            var launched = launch(group, demands);
            if (demands.size() > demanded) {
                var scope = scope(group);
                while (demandScopes.size() < demands.size()) demandScopes.add(scope);
            }
            if (launched == null) {
                owners.values().removeIf(owner -> owner == group); // a later kernel may fold what this one claimed
                continue;
            }
            cost += launched.time();
            launches.add(launched.launch());
            if (key != null) prices.remember(key, launched.time(), launched.claims());
        }
        if (!demands.isEmpty()) return new Attempt(null, fusedNodes, spills, Double.NaN, decisions, demands, demandScopes, cones);
        if (prices != null) return new Attempt(null, fusedNodes, spills, cost, decisions, List.of(), List.of(), cones);
        var inputs = new ArrayList<Integer>();
        for (Node input : graph.inputs()) inputs.add(buffers.get(input));
        var outputs = new ArrayList<Schedule.Output>();
        for (Node output : graph.outputs()) outputs.add(new Schedule.Output(buffers.get(output), output.shape()));
        return new Attempt(new Schedule(bufferList, launches, inputs, outputs, List.of()), fusedNodes, spills, cost, decisions, List.of(), List.of(), cones);
    }

    private void allocate(Node node) {
        buffers.put(node, buffers.size());
        if (prices == null) bufferList.add(new Schedule.Buffer(node.dtype(), node.shape().size(), labels.get(node).toString())); // else no schedule is built
    }

    /// A group of roots with one loop nest; a concat is one group per part.
    record Group(Signature signature, List<Node> roots, Node.Concat concat, int part) {}

    // The nodes `group`'s kernel computes: its roots and what they inline.
    private Set<Node> scope(Group group) {
        Set<Node> nodes = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (Node root : group.roots()) {
            nodes.add(root);
            nodes.addAll(Cones.inside(root, realized));
        }
        return nodes;
    }

    /// A kernel's launch, its estimated time and the reductions it folds.
    private record Launched(Schedule.Launch launch, double time, Set<Node> claims) {}

    /// The launch of `group`'s kernel, or null after adding to `demands` what it needs first.
    private Launched launch(Group group, List<Realize> demands) {
        var own = group.concat() == null ? standaloneKernel(group.roots().getFirst()) : null; // a concat part copies its value
        if (own != null) return standalone(group.roots().getFirst(), own);
        Set<Node> written = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        if (group.concat() == null) written.addAll(group.roots());
        var lowering = new Lowering(group, buffers, owners, options.budget(), written);
        var outputs = new ArrayList<Kernel.Output>();
        var outputBuffers = new ArrayList<Integer>();
        for (Node root : group.roots()) {
            Mapping mapping = rootMapping(group.signature(), root);
            boolean perRow = !group.signature().atEveryPoint(root.shape());
            Expr value = group.concat() == null ? lowering.root(root, mapping) : lowering.lower(root, mapping);
            Node target = group.concat() == null ? root : group.concat();
            outputs.add(new Kernel.Output(value, target.shape().size(), targetMap(group, root, mapping), perRow));
            outputBuffers.add(buffers.get(target));
        }
        if (!lowering.demands().isEmpty()) {
            demands.addAll(lowering.demands());
            return null;
        }
        var signature = group.signature();
        var reused = ElementReuse.apply(new Kernel(signature.space(), signature.reducedRank(), lowering.inputs(), lowering.reductions(), outputs), options.costs());
        int number = fusedNodes.size();
        var sharing = Sharing.apply(reused, options.mode(), options.machine(), options.costs(), prices == null ? number : -1);
        var kernel = sharing.kernel();
        decisions.addAll(sharing.decisions());
        fusedNodes.add(List.copyOf(lowering.fused()));
        spills.add(sharing.spillsLeft());
        var bound = new ArrayList<>(lowering.inputBuffers());
        bound.addAll(outputBuffers);
        var labelled = new java.util.LinkedHashSet<String>();
        for (Node node : lowering.fused()) labelled.add(labels.get(node).toString());
        var fused = List.copyOf(labelled);
        Node.MatMul matmul = matmul(lowering);
        int demanded = demands.size();
        var converted = matmul == null ? null : MatMulLaunch.of(kernel, matmul, lowering.products(), outputBuffers, demands);
        if (demands.size() > demanded) return null;
        var layouts = converted == null ? List.<Decision>of() : Relayout.choose(number, matmul, converted.kernel(), realized, demands, options.costs());
        if (demands.size() > demanded) return null;
        if (converted == null) {
            double time = options.mode() == FusionMode.NONE ? options.costs().time(kernel, options.machine()) : options.costs().kernelTime(kernel, options.machine(), sharing.computeTime());
            return new Launched(new Schedule.Launch(kernel, bound, fused, category(group, lowering)), time, lowering.claimed());
        }
        bound = new ArrayList<>(lowering.inputBuffers());
        bound.addAll(converted.outputBuffers());
        if (prices == null) {
            decisions.add(MatMulLaunch.decision(number, labels.get(matmul), fused, converted.kernel(), options.machine(), options.costs()));
            decisions.addAll(layouts);
        }
        var launch = new Schedule.Launch(converted.kernel(), bound, fused, category(group, lowering));
        return new Launched(launch, options.costs().time(converted.kernel(), options.machine()), lowering.claimed());
    }

    /// The kernel of a node that is a launch of its own, reading its operands' buffers whole: an
    /// update or a sort (Groups gives each a group alone); null for a node that loop kernels compute.
    private static KernelForm standaloneKernel(Node root) {
        return switch (root) {
            case Node.ArgSort s -> new SortKernel(s.x().shape(), s.axis(), s.descending(), s.x().dtype());
            case Node.Scatter s -> new UpdateKernel(s.add() ? UpdateKernel.Kind.SCATTER_ADD : UpdateKernel.Kind.SCATTER, s.shape(), s.axis(), s.index().shape(), s.dtype());
            case Node.SliceUpdate u -> new UpdateKernel(UpdateKernel.Kind.SLICE, u.shape(), u.axis(), u.value().shape(), u.dtype());
            case Node.Input _, Node.Constant _, Node.Iota _, Node.Random _, Node.Unary _, Node.Binary _, Node.Where _, Node.Cast _, Node.IndexCheck _,
                 Node.Reduce _, Node.MatMul _, Node.Reshape _, Node.Permute _, Node.Expand _, Node.Slice _, Node.Concat _, Node.Gather _, Node.Attention _ -> null;
        };
    }

    // x (and an update's index or start, and source) → the node's own buffer; Realization gave each operand a buffer.
    private Launched standalone(Node root, KernelForm kernel) {
        var bound = new ArrayList<Integer>();
        for (Node operand : root.inputs()) bound.add(buffers.get(operand));
        bound.add(buffers.get(root));
        fusedNodes.add(List.of(root));
        spills.add(0.0);
        var launch = new Schedule.Launch(kernel, bound, List.of(labels.get(root).toString()), root instanceof Node.ArgSort ? "sort" : "update");
        return new Launched(launch, options.costs().time(kernel, options.machine()), Set.of());
    }

    // One attention kernel for a group of siblings, with the decision that says how it runs.
    private Schedule.Launch attention(Group group) {
        var launch = AttentionLaunch.of(group.roots(), buffers, labels);
        if (prices == null)
            decisions.add(AttentionLaunch.decision(new Decision.Subject.InKernel(fusedNodes.size(), labels.get(group.roots().getFirst())), (dev.smelt.kernel.AttentionKernel) launch.kernel(),
                    options.machine(), options.costs()));
        fusedNodes.add(List.copyOf(group.roots()));
        spills.add(0.0);
        return launch;
    }

    private static Mapping rootMapping(Signature signature, Node root) {
        if (signature.atEveryPoint(root.shape())) return signature.operandMapping();
        return signature.rowMapping(root.shape());
    }

    // A root writes its own dense buffer; a concat part writes its slice of the concat's buffer.
    private static dev.smelt.kernel.IndexMap targetMap(Group group, Node root, Mapping mapping) {
        if (group.concat() == null) return mapping.dense();
        Shape whole = group.concat().shape();
        int[] strides = whole.contiguousStrides();
        int start = 0;
        for (int i = 0; i < group.part(); i++) start += group.concat().parts().get(i).shape().dim(group.concat().axis());
        return mapping.into(strides, start * strides[group.concat().axis()]);
    }

    /// The first matmul the kernel computes, or null.
    private static Node.MatMul matmul(Lowering lowering) {
        for (Node node : lowering.fused())
            if (node instanceof Node.MatMul m) return m;
        return null;
    }

    /// XLA's fusion categories: loop (elementwise), input (a reduction with fused producers),
    /// output (a matmul with a fused epilogue).
    private static String category(Group group, Lowering lowering) {
        if (matmul(lowering) != null) return lowering.fused().size() > 1 ? "output fusion (matmul + epilogue)" : "matmul";
        if (!lowering.reductions().isEmpty()) return "input fusion (reduction)";
        return group.concat() != null ? "loop fusion (concat part)" : "loop fusion (elementwise)";
    }
}
