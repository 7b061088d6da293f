// SPDX-License-Identifier: Apache-2.0
package dev.smelt.autograd;

import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/// The backward transform: one reverse topological walk over the forward nodes, applying each
/// node's [Vjp] rule to its accumulated gradient and summing the gradients that reach a node along
/// several paths (fan-out). Only floating-point values carry gradients.
final class Backward {
    private Backward() {}

    /// `∂(Σᵢ outputsᵢ·seedsᵢ)/∂wrt` for each node of `wrt`: zeros of its type where no path
    /// reaches it. `inputs` are the forward graph's inputs.
    static List<Node> gradients(List<Node.Input> inputs, List<Node> outputs, List<Node> seeds, List<? extends Node> wrt, Nodes b) {
        Map<Node, Node> grads = new IdentityHashMap<>();
        for (int i = 0; i < outputs.size(); i++) accumulate(grads, outputs.get(i), seeds.get(i), b);
        List<Node> order = new Graph(inputs, outputs).nodes();
        for (Node y : order.reversed()) {
            Node g = grads.get(y);
            if (g == null || y.inputs().isEmpty()) continue;
            List<Node> operandGrads = Vjp.of(y, g, b);
            for (int i = 0; i < operandGrads.size(); i++) {
                Node x = y.inputs().get(i), dx = operandGrads.get(i);
                if (dx == null || !x.dtype().isFloating()) continue;
                if (!dx.shape().equals(x.shape()) || dx.dtype() != x.dtype())
                    throw new IllegalStateException("vjp of %s gave %s%s for operand %d of type %s%s".formatted(y, dx.dtype(), dx.shape(), i, x.dtype(), x.shape()));
                accumulate(grads, x, dx, b);
            }
        }
        var result = new ArrayList<Node>();
        for (Node x : wrt) result.add(grads.getOrDefault(x, b.constant(0, x)));
        return result;
    }

    private static void accumulate(Map<Node, Node> grads, Node x, Node g, Nodes b) {
        grads.merge(x, g, b::add);
    }
}
