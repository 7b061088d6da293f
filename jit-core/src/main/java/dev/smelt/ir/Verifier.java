// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/// Checks the facts about a graph that no node constructor can see; tests run it after every pass.
///
/// Each node's own typing rule (shapes, dtypes, axes) already holds: nodes are immutable and their
/// constructors check it. What remains is how the nodes fit together: every input reached from the
/// outputs is the very node the graph declares for its slot, and [Graph#nodes] lists each node
/// once, operands first. One operator rule needs more than a constructor sees in context, so it is
/// here too: an arg-reduction over an empty axis has no index to return, unless its result is empty.
/// Errors are `IllegalArgumentException`s that quote the offending node's printed line.
public final class Verifier {
    private Verifier() {}

    public static void verify(Graph graph) {
        checkDeclaredInputs(graph);
        List<Node> order = graph.nodes();
        int inputs = graph.inputs().size();
        for (int slot = 0; slot < inputs; slot++)
            if (order.get(slot) != graph.inputs().get(slot)) fail("nodes() does not start with the declared inputs", declaration(graph.inputs().get(slot)));
        List<String> lines = Printer.print(graph).lines().toList();
        Set<Node> listed = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int index = 0; index < order.size(); index++) {
            Node node = order.get(index);
            String line = index < inputs ? declaration(graph.inputs().get(index)) : lines.get(1 + index - inputs).strip();
            if (!listed.add(node)) fail("nodes() lists this node twice", line);
            if (!listed.containsAll(node.inputs())) fail("nodes() lists this node before its operands", line);
            checkNode(node, line);
        }
        for (Node output : graph.outputs())
            if (!listed.contains(output)) fail("nodes() leaves out an output", Printer.type(output));
    }

    /// Operator rules that depend on more than a constructor checks.
    private static void checkNode(Node node, String line) {
        if (node instanceof Node.Reduce r && r.op().isArg() && r.x().shape().dim(r.axes().getFirst()) == 0 && r.shape().size() > 0)
            fail(r.op() + " over an empty axis has no index to return", line);
    }

    /// Walks every node reachable from the outputs, by identity, so that an undeclared input is
    /// reported before [Graph#nodes] or [Printer] trips over it.
    private static void checkDeclaredInputs(Graph graph) {
        Set<Node> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        var pending = new ArrayDeque<Node>(graph.outputs());
        while (!pending.isEmpty()) {
            Node node = pending.pop();
            if (!seen.add(node)) continue;
            pending.addAll(node.inputs());
            if (node instanceof Node.Input in) checkDeclared(in, graph.inputs());
        }
    }

    private static void checkDeclared(Node.Input input, List<Node.Input> declared) {
        String line = declaration(input);
        if (input.slot() < 0 || input.slot() >= declared.size())
            fail("input slot %d is used but the graph declares %d inputs".formatted(input.slot(), declared.size()), line);
        Node.Input expected = declared.get(input.slot());
        if (!input.equals(expected)) fail("used input differs from the declared %" + input.slot() + ": " + Printer.type(expected), line);
        if (input != expected) fail("used input is an equal copy of the declared one, not the same node", line);
    }

    /// `%0: f32[2,3]`, as the graph header declares an input.
    private static String declaration(Node.Input input) { return "%" + input.slot() + ": " + Printer.type(input); }

    private static void fail(String what, String line) {
        throw new IllegalArgumentException(what + ": " + line);
    }
}
