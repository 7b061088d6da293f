// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Printer;
import dev.smelt.kernel.Schedule;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/// Cuts a graph into kernels. A simple planner: a node gets a buffer of its own ("is realized")
/// only when it must — a graph output, a concat, a matmul operand that is not a view of a buffer,
/// a reduction read by several nodes — or when lowering finds it cannot be computed inside the
/// kernel that reads it ([Realize]); then it plans again. Everything else is fused into the
/// kernels that read it: pointwise chains, views (as index maps), and reductions into the row
/// kernel of their consumers. The cost model (its own issue) will replace the fixed rules.
public final class FusionPlanner {
    private FusionPlanner() {}

    /// `budget` caps the operations fused into one kernel, keeping generated methods well under
    /// HotSpot's 8000-byte limit for JIT compilation (about 30 bytes of bytecode per operation).
    public record Options(int budget) {
        public static final Options DEFAULT = new Options(120);
    }

    public static Schedule plan(Graph graph) { return plan(graph, Options.DEFAULT); }

    public static Schedule plan(Graph graph, Options options) {
        Set<Node> realized = Collections.newSetFromMap(new IdentityHashMap<>());
        var decisions = new ArrayList<String>();
        var labels = labels(graph);
        Realization.initial(graph, realized, decisions, labels);
        while (true) {
            try {
                return new ScheduleBuilder(graph, realized, labels, options.budget(), decisions).build();
            } catch (Realize realize) {
                if (!realized.add(realize.node)) throw new IllegalStateException("planning did not converge at " + labels.get(realize.node));
                decisions.add("materialise " + labels.get(realize.node) + ": " + realize.reason);
            }
        }
    }

    /// `%7 exp`: each node's number in the printed graph and its operator, for `explain()`.
    static Map<Node, String> labels(Graph graph) {
        Map<Node, String> labels = new IdentityHashMap<>();
        List<Node> nodes = graph.nodes();
        for (int i = 0; i < nodes.size(); i++) labels.put(nodes.get(i), "%" + i + " " + Printer.opName(nodes.get(i)));
        return labels;
    }
}
