// SPDX-License-Identifier: Apache-2.0
package dev.smelt.pass;

import dev.smelt.ir.Graph;
import dev.smelt.ir.IndexBounds;
import dev.smelt.ir.Node;
import java.util.ArrayList;
import java.util.List;

/// A graph's index checks taken out of its computation, to be run before its first kernel: the
/// kernels compute `unchecked` (the graph with each [Node.IndexCheck] replaced by its operand), and
/// none of them can have written anything, a parameter updated in place included, when a check
/// fails. A check of an input (class labels, token ids: the usual case) reads the input's array.
/// Checked values that are computed are the outputs of `computed`, a graph over the same inputs
/// that the runtime runs first: their arithmetic is done twice, once to check and once, fused,
/// for the result. `computed` may hold index checks of its own (an index computed from checked
/// indices), taken out in turn when it is compiled.
public record IndexChecks(Graph unchecked, List<OnInput> onInputs, Graph computed, List<IndexBounds> computedBounds) {
    /// Input `slot`'s elements must lie within `bounds`.
    public record OnInput(int slot, IndexBounds bounds) {}

    public IndexChecks {
        onInputs = List.copyOf(onInputs);
        computedBounds = List.copyOf(computedBounds);
    }

    /// Whether the graph checks anything.
    public boolean any() { return !onInputs.isEmpty() || computed != null; }

    /// The checks of `graph`, in [Graph#nodes] order (operands first), and the graph without them.
    public static IndexChecks of(Graph graph) {
        var onInputs = new ArrayList<OnInput>();
        var operands = new ArrayList<Node>();
        var bounds = new ArrayList<IndexBounds>();
        for (Node node : graph.nodes()) {
            if (!(node instanceof Node.IndexCheck check)) continue;
            if (check.x() instanceof Node.Input input) onInputs.add(new OnInput(input.slot(), check.bounds()));
            else {
                operands.add(check.x());
                bounds.add(check.bounds());
            }
        }
        if (onInputs.isEmpty() && operands.isEmpty()) return new IndexChecks(graph, List.of(), null, List.of());
        Graph unchecked = Passes.distinctOutputs(graph, Rewriter.toFixpoint(graph, n -> n instanceof Node.IndexCheck c ? c.x() : n));
        Graph computed = operands.isEmpty() ? null : new Graph(graph.inputs(), operands);
        return new IndexChecks(unchecked, onInputs, computed, bounds);
    }
}
