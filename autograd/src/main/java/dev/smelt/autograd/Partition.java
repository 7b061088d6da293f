// SPDX-License-Identifier: Apache-2.0
package dev.smelt.autograd;

import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/// The joint forward/backward graph cut into two programs. The forward computes the values and the
/// activations it saves; the backward takes the forward's inputs, the saved activations and the
/// cotangents (in that slot order) and computes the gradients, recomputing what
/// [SaveOrRecompute] chose not to save.
record Partition(Graph forward, Graph backward, List<SaveOrRecompute.Choice> choices, int saved) {

    /// `primal` computes the values from its inputs; `gradients` are built over its nodes and the
    /// `cotangents` (inputs numbered after the primal ones, one per value).
    static Partition split(Graph primal, List<Node.Input> cotangents, List<Node> gradients) {
        var inputs = new ArrayList<Node.Input>(primal.inputs());
        inputs.addAll(cotangents);
        List<Node> order = new Graph(inputs, gradients).nodes();
        Set<Node> dependent = identitySet(), needed = identitySet(), recomputed = identitySet();
        for (Node node : order)
            if (cotangents.contains(node) || node.inputs().stream().anyMatch(dependent::contains)) dependent.add(node);
        for (Node node : order)
            if (dependent.contains(node)) node.inputs().stream().filter(x -> !dependent.contains(x)).forEach(needed::add);
        gradients.stream().filter(x -> !dependent.contains(x)).forEach(needed::add);

        var choices = new ArrayList<SaveOrRecompute.Choice>();
        for (Node node : order.reversed()) {
            if (!needed.contains(node) || node instanceof Node.Input) continue;
            var choice = SaveOrRecompute.choose(node);
            if (!(node instanceof Node.Constant || node instanceof Node.Iota)) choices.add(choice);
            if (!choice.save()) {
                recomputed.add(node);
                needed.addAll(node.inputs());
            }
        }
        choices = new ArrayList<>(choices.reversed());
        List<Node> saved = choices.stream().filter(SaveOrRecompute.Choice::save).map(SaveOrRecompute.Choice::node).toList();

        var forwardOutputs = new ArrayList<>(primal.outputs());
        forwardOutputs.addAll(saved);
        Graph forward = new Graph(primal.inputs(), forwardOutputs);

        Map<Node, Node> moved = new IdentityHashMap<>();
        var backwardInputs = new ArrayList<Node.Input>(primal.inputs());
        for (Node node : saved) moved.put(node, input(backwardInputs, node));
        for (Node.Input cotangent : cotangents) moved.put(cotangent, input(backwardInputs, cotangent));
        for (Node node : order) {
            if (moved.containsKey(node) || node instanceof Node.Input) continue;
            if (dependent.contains(node) || recomputed.contains(node)) {
                List<Node> operands = node.inputs().stream().map(x -> moved.getOrDefault(x, x)).toList();
                moved.put(node, node.withInputs(operands));
            }
        }
        Graph backward = new Graph(backwardInputs, gradients.stream().map(x -> moved.getOrDefault(x, x)).toList());
        return new Partition(forward, backward, List.copyOf(choices), saved.size());
    }

    private static Node.Input input(List<Node.Input> inputs, Node like) {
        var input = new Node.Input(inputs.size(), like.shape(), like.dtype());
        inputs.add(input);
        return input;
    }

    private static Set<Node> identitySet() { return Collections.newSetFromMap(new IdentityHashMap<>()); }
}
