// SPDX-License-Identifier: Apache-2.0
package dev.smelt.pass;

import dev.smelt.ir.Graph;
import dev.smelt.ir.Interner;
import dev.smelt.ir.Node;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/// The one driver every rule set runs under. It walks the graph bottom-up, operands before users,
/// rebuilds each node over its operands' rewritten forms, and applies the rule until it returns its
/// argument; whatever new nodes a rule builds are rewritten the same way before they are used.
/// Every result is hash-consed, so nodes that become equal merge (common subexpressions after a
/// rewrite), and only what the outputs reach survives in the new [Graph].
///
/// Rules see a node whose operands are already in final form and never walk the graph themselves.
public final class Rewriter {
    /// Rule applications on one node before the driver gives up: rules that undo each other are a bug.
    static final int MAX_STEPS = 64;
    /// New nodes a rule may nest inside one another before the driver gives up: rules that keep
    /// building fresh operands for themselves are a bug too.
    static final int MAX_DEPTH = 256;

    private final UnaryOperator<Node> rule;
    private final Map<Node, Node> rewritten = new IdentityHashMap<>();
    private final Interner interned = new Interner();
    private int depth;

    private Rewriter(UnaryOperator<Node> rule) { this.rule = rule; }

    /// `graph` with `rule` applied everywhere until no node changes.
    public static Graph toFixpoint(Graph graph, UnaryOperator<Node> rule) {
        var rewriter = new Rewriter(rule);
        for (Node input : graph.inputs()) rewriter.settle(input, input);
        for (Node node : graph.nodes()) rewriter.rewrite(node);
        var outputs = new java.util.ArrayList<Node>();
        for (Node output : graph.outputs()) outputs.add(rewriter.rewritten.get(output));
        return new Graph(graph.inputs(), outputs);
    }

    private Node rewrite(Node node) {
        Node known = rewritten.get(node);
        if (known != null) return known;
        if (++depth > MAX_DEPTH)
            throw new IllegalStateException("rewrite rules do not settle on " + node + ": they keep building new operands");
        try {
            return settle(node, simplify(node));
        } finally {
            depth--;
        }
    }

    // Operands first (in nodes() order they are done already; a rule's new nodes are not), then the rule.
    private Node simplify(Node node) {
        Node current = intern(node.withInputs(rewriteAll(node.inputs())));
        for (int step = 0; ; step++) {
            Node next = rule.apply(current);
            if (next == current) break;
            if (step == MAX_STEPS)
                throw new IllegalStateException("rewrite rules do not settle on " + node + ": they keep rewriting " + current);
            if (!next.shape().equals(node.shape()) || next.dtype() != node.dtype())
                throw new IllegalStateException("a rule changed the type of " + current + " to " + next);
            current = rewritten.containsKey(next) ? rewritten.get(next)
                    : intern(next.withInputs(rewriteAll(next.inputs())));
        }
        return current;
    }

    private List<Node> rewriteAll(List<Node> nodes) {
        var rewrittenNodes = new java.util.ArrayList<Node>(nodes.size());
        for (Node node : nodes) rewrittenNodes.add(rewrite(node));
        return rewrittenNodes;
    }

    private Node settle(Node node, Node result) {
        rewritten.put(node, result);
        rewritten.put(result, result);
        return result;
    }

    private Node intern(Node node) { return interned.intern(node); }
}
