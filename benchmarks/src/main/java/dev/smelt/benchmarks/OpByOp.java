// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Compiled;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.Traced;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/// A graph run one node per program, each node its own generated kernel writing its own result, as
/// eager mode runs ops: Smelt's unfused baseline for a graph that no eager code spells out (a
/// backward). Views are copies here, where eager mode would share storage.
final class OpByOp {
    private final Graph graph;
    private final Map<Node, Compiled> programs = new IdentityHashMap<>();

    OpByOp(Graph graph) {
        this.graph = graph;
        for (Node node : graph.nodes()) {
            if (node instanceof Node.Input) continue;
            var inputs = new ArrayList<Node.Input>();
            for (Node operand : node.inputs()) inputs.add(new Node.Input(inputs.size(), operand.shape(), operand.dtype()));
            Node op = node.withInputs(List.copyOf(inputs));
            programs.put(node, Jit.compile(new Traced(new Graph(inputs, List.of(op)), inputs.size(), List.of())));
        }
    }

    List<Tensor> run(List<Tensor> arguments) {
        Map<Node, Tensor> values = new IdentityHashMap<>();
        for (Node node : graph.nodes()) {
            if (node instanceof Node.Input input) {
                values.put(node, arguments.get(input.slot()));
                continue;
            }
            Tensor[] operands = node.inputs().stream().map(values::get).toArray(Tensor[]::new);
            values.put(node, programs.get(node).apply(operands));
        }
        return graph.outputs().stream().map(values::get).toList();
    }
}
