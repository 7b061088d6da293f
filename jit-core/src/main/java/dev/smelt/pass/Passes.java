// SPDX-License-Identifier: Apache-2.0
package dev.smelt.pass;

import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import java.util.ArrayList;
import java.util.List;

/// The graph passes the compiler runs before fusion, in a fixed order, repeated until the graph
/// stops changing (at most [#MAX_ROUNDS] times). Every pass is exact: the result interprets to the
/// same values, bit for bit, as the input.
public final class Passes {
    /// Rounds before the passes stop even if the graph still changes; each round only simplifies,
    /// so real graphs settle in two or three.
    static final int MAX_ROUNDS = 8;

    private Passes() {}

    public static Graph apply(Graph graph) { return distinctOutputs(graph, simplify(graph)); }

    /// The rounds, to a fixed point.
    static Graph simplify(Graph graph) {
        Graph current = graph;
        for (int round = 0; round < MAX_ROUNDS; round++) {
            Graph next = round(current);
            if (Node.sameNodes(next.outputs(), current.outputs())) break;    // passes rebuild only what they change
            current = next;
        }
        return current;
    }

    /// One round. Folding runs first, since the algebraic and view rules look for constants
    /// (`x * 1`); split reshapes move past elementwise operations after the view rules have made
    /// each chain of reshapes one; common subexpressions last, to merge what the rules made equal. Dead code needs no
    /// place of its own in the order: every pass returns only what the outputs reach.
    static Graph round(Graph graph) {
        graph = DeadCode.apply(graph);
        graph = ConstantFolding.apply(graph);
        graph = Rewriter.toFixpoint(graph, AlgebraicRules::rewrite);
        graph = Rewriter.toFixpoint(graph, ViewRules::rewrite);
        graph = Rewriter.toFixpoint(graph, SplitReshapes::rewrite);
        return CommonSubexpressions.apply(graph);
    }

    /// A compiled function returns a fresh tensor wherever its traced code computed one, so an
    /// output the passes reduced to a graph input (`x * 1`), or to the same node as an earlier
    /// output that was a different node, is given a node of its own: a reshape to its own shape,
    /// which fusion writes as a copy. Outputs that were inputs or shared nodes stay as they were.
    static Graph distinctOutputs(Graph before, Graph after) {
        var outputs = new ArrayList<Node>();
        for (int i = 0; i < after.outputs().size(); i++) {
            Node output = after.outputs().get(i), original = before.outputs().get(i);
            boolean aliases = output instanceof Node.Input && !(original instanceof Node.Input)
                    || sharedWithEarlier(after.outputs(), i) && !sharedWithEarlier(before.outputs(), i);
            outputs.add(aliases ? new Node.Reshape(output, output.shape()) : output);
        }
        return new Graph(after.inputs(), outputs);
    }

    private static boolean sharedWithEarlier(List<Node> outputs, int index) {
        for (int j = 0; j < index; j++)
            if (outputs.get(j) == outputs.get(index)) return true;
        return false;
    }
}
