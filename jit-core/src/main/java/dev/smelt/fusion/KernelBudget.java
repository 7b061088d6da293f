// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.kernel.Decision;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/// Cuts the graph so that no kernel computes more than `budget` operations (the limit that keeps
/// generated methods under HotSpot's 8,000 bytes for JIT compilation). In one pass, operands
/// before users, each node's cone is the set of operations it would compute inline: itself and
/// its unrealized operands' cones, each operation once however often it is read. When that set
/// outgrows the budget, the operand with the largest cone gets a buffer of its own, then the next,
/// until it fits. A chain is cut every `budget` operations, and a chain that reads each value
/// twice (`y·sigmoid(y)`) every `budget / 2` levels, not at every value below the cut. A cone
/// never holds more than `budget + 1` nodes and is dropped once its last user is done: linear in
/// the graph.
final class KernelBudget {
    private KernelBudget() {}

    static void cut(Graph graph, int budget, Set<Node> realized, List<Decision> decisions, Map<Node, Decision.Subject.GraphNode> labels) {
        List<Node> nodes = graph.nodes();
        Map<Node, Integer> usersLeft = new IdentityHashMap<>();
        for (Node node : nodes) for (Node operand : distinct(node.inputs())) usersLeft.put(operand, usersLeft.getOrDefault(operand, 0) + 1);
        Map<Node, Set<Node>> cones = new IdentityHashMap<>();
        for (Node node : nodes) {
            if (node instanceof Node.Input) continue;
            var inline = new ArrayList<Node>();
            for (Node operand : distinct(node.inputs())) if (cones.containsKey(operand) && !realized.contains(operand)) inline.add(operand);
            Set<Node> cone = union(node, inline, cones);
            if (inline.size() > 1) inline.sort((a, b) -> Integer.compare(cones.get(b).size(), cones.get(a).size())); // largest first
            for (int i = 0; FusionRules.BUDGET.test(cone.size() - budget) && i < inline.size(); i++) {
                Realization.decide(inline.get(i), FusionRules.BUDGET.reason(budget), realized, decisions, labels);
                cone = union(node, inline.subList(i + 1, inline.size()), cones);
            }
            cones.put(node, cone);
            for (Node operand : distinct(node.inputs())) {
                int left = usersLeft.get(operand) - 1;
                usersLeft.put(operand, left);
                if (left == 0) cones.remove(operand);
            }
        }
    }

    /// `node`'s own operation (if it is one) and the cones of its `inline` operands.
    private static Set<Node> union(Node node, List<Node> inline, Map<Node, Set<Node>> cones) {
        Set<Node> cone = Collections.newSetFromMap(new IdentityHashMap<>());
        if (Realization.isOperation(node)) cone.add(node);
        for (Node operand : inline) cone.addAll(cones.get(operand));
        return cone;
    }

    private static List<Node> distinct(List<Node> operands) {
        if (operands.size() < 2) return operands;
        var distinct = new ArrayList<Node>();
        for (Node operand : operands) if (!holds(distinct, operand)) distinct.add(operand);
        return distinct;
    }

    // Loops and counts by hand here: each lambda or method reference costs a fresh JVM's first compile a bootstrap.
    private static boolean holds(List<Node> nodes, Node node) {
        for (Node held : nodes) if (held == node) return true;
        return false;
    }
}
