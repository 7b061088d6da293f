// SPDX-License-Identifier: Apache-2.0
package dev.smelt.pass;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Node.Binary;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;

/// Merges nodes that compute the same value: equal operator and attributes over the same operands.
///
/// The tracer and the parser hash-cons as they build, but a graph assembled by hand or by another
/// transform (autograd) may hold equal nodes twice, and a rewrite can make two nodes equal that were
/// not. Beyond that equality, this pass also knows that `a + b` and `b + a` are the same value for
/// the commutative operators (IEEE `+`, `·`, `max`, `min`, `==` and `≠` are exactly commutative,
/// NaN and -0 included; `i32` too), and that `a < b` is `b > a`: the later of two such nodes is
/// replaced by the earlier, so the printed operand order of surviving nodes never changes.
public final class CommonSubexpressions {
    private final Map<Node, Node> merged = new IdentityHashMap<>();
    private final Map<Node, Node> known = new HashMap<>();

    private CommonSubexpressions() {}

    public static Graph apply(Graph graph) {
        var cse = new CommonSubexpressions();
        for (Node node : graph.nodes()) cse.visit(node);
        var outputs = new ArrayList<Node>();
        for (Node output : graph.outputs()) outputs.add(cse.merged.get(output));
        return new Graph(graph.inputs(), outputs);
    }

    // Operands come first in nodes(), so they are merged already.
    private void visit(Node node) {
        var inputs = new ArrayList<Node>();
        for (Node input : node.inputs()) inputs.add(merged.get(input));
        Node rebuilt = node.withInputs(inputs);
        Node equal = known.get(rebuilt);
        if (equal == null && rebuilt instanceof Binary(var op, var a, var b, var _, var _) && mirror(op) != null)
            equal = known.get(new Binary(mirror(op), b, a));
        if (equal == null) known.put(rebuilt, equal = rebuilt);
        merged.put(node, equal);
    }

    /// The operator that gives the same value with the operands swapped, if there is one.
    static BinaryOp mirror(BinaryOp op) {
        return switch (op) {
            case ADD, MUL, MAXIMUM, MINIMUM, EQ, NE -> op;   // a op b = b op a
            case LT -> BinaryOp.GT;                          // a < b = b > a
            case GT -> BinaryOp.LT;
            case LE -> BinaryOp.GE;
            case GE -> BinaryOp.LE;
            case SUB, DIV, POW -> null;
        };
    }
}
