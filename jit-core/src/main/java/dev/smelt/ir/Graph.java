// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/// A traced program: its inputs (slot `i` at index `i`) and its outputs, which reach every other
/// node. Two graphs are equal when they print the same text, which is canonical.
public record Graph(List<Node.Input> inputs, List<Node> outputs) {
    public Graph {
        inputs = List.copyOf(inputs);
        outputs = List.copyOf(outputs);
        if (outputs.isEmpty()) throw new IllegalArgumentException("a graph needs at least one output");
        for (int slot = 0; slot < inputs.size(); slot++)
            if (inputs.get(slot).slot() != slot)
                throw new IllegalArgumentException("input " + slot + " has slot " + inputs.get(slot).slot());
    }

    /// Every node once, operands before users: the inputs in slot order, then the rest in the
    /// order a depth-first walk from the outputs finishes them. Iterative, so deep chains cannot
    /// overflow the stack.
    public List<Node> nodes() {
        Set<Node> done = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Node> order = new ArrayList<>(inputs);
        done.addAll(inputs);
        for (Node output : outputs) {
            var stack = new ArrayDeque<Node>();
            var next = new ArrayDeque<Integer>();
            if (done.contains(output)) continue;
            if (output instanceof Node.Input in)
                throw new IllegalArgumentException("input %" + in.slot() + " is returned but not declared");
            stack.push(output);
            next.push(0);
            while (!stack.isEmpty()) {
                Node node = stack.peek();
                int operand = next.pop();
                if (operand < node.inputs().size()) {
                    next.push(operand + 1);
                    Node child = node.inputs().get(operand);
                    if (!done.contains(child)) {
                        if (child instanceof Node.Input in)
                            throw new IllegalArgumentException("input %" + in.slot() + " is used but not declared");
                        stack.push(child);
                        next.push(0);
                    }
                } else {
                    stack.pop();
                    if (done.add(node)) order.add(node);
                }
            }
        }
        return order;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Graph graph && Printer.print(this).equals(Printer.print(graph));
    }

    @Override
    public int hashCode() { return Printer.print(this).hashCode(); }

    @Override
    public String toString() { return Printer.print(this); }
}
