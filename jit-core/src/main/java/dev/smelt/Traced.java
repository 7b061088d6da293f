// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.ir.Graph;
import dev.smelt.ir.IndexOutOfRange;
import dev.smelt.ir.Node;
import dev.smelt.ir.Storage;
import dev.smelt.ref.Interpreter;
import java.util.ArrayList;
import java.util.List;

/// The result of [Jit#trace]: the graph, how many of its inputs are the function's arguments, and
/// the concrete tensors the function read, which fill the remaining inputs in order. Captures are
/// read afresh on every [#interpret], so updating a weight in place needs no retrace.
public record Traced(Graph graph, int arguments, List<Tensor> captures) {
    /// Checks that the captures fill exactly the inputs after the arguments, each with its input's
    /// type: a kernel trusts the graph's shapes when it indexes a capture's array.
    public Traced {
        if (graph == null || captures == null) throw SmeltException.of("Traced", "the %s is null", graph == null ? "graph" : "list of captures");
        for (int i = 0; i < captures.size(); i++)
            if (captures.get(i) == null) throw SmeltException.of("Traced", "capture %d is null", i);
        int inputs = graph.inputs().size();
        if (arguments < 0 || arguments + captures.size() != inputs)
            throw SmeltException.of("Traced", "%d arguments and %d captures do not make the graph's %d inputs", arguments, captures.size(), inputs);
        for (int i = 0; i < captures.size(); i++) requireCapture(i, captures.get(i), graph.inputs().get(arguments + i));
        captures = List.copyOf(captures);
    }

    private static void requireCapture(int index, Tensor capture, Node.Input input) {
        if (capture.isTraced()) throw SmeltException.of("Traced", "capture %d is a traced tensor; captures are the concrete tensors a function reads", index);
        if (!capture.shape().equals(input.shape()) || capture.dtype() != input.dtype())
            throw SmeltException.of("Traced", "capture %d is %s%s but fills input %d of %s%s", index, capture.dtype(), capture.shape(), input.slot(), input.dtype(), input.shape());
    }

    /// Evaluates the graph on `arguments` with the reference interpreter: the slow, obviously
    /// correct oracle that compiled code is tested against.
    public List<Tensor> interpret(Tensor... arguments) {
        if (arguments == null) throw SmeltException.of("interpret", "the array of arguments is null; expected %d tensors", this.arguments);
        if (arguments.length != this.arguments) throw SmeltException.of("interpret", "expected %d arguments, got %d", this.arguments, arguments.length);
        var storages = new ArrayList<Storage>();
        for (int slot = 0; slot < graph.inputs().size(); slot++) {
            Tensor value = slot < this.arguments ? arguments[slot] : captures.get(slot - this.arguments);
            Node.Input input = graph.inputs().get(slot);
            if (value == null) throw SmeltException.of("interpret", "argument %d is null", slot);
            Values.requireConcrete("interpret", value);
            if (!value.shape().equals(input.shape()) || value.dtype() != input.dtype())
                throw SmeltException.of("interpret", "input %d was traced as %s%s but is now %s%s", slot, input.dtype(), input.shape(), value.dtype(), value.shape());
            storages.add(Dispatch.dense(value));
        }
        List<Storage> results;
        try {
            results = Interpreter.run(graph, storages);
        } catch (IndexOutOfRange failure) {
            throw SmeltException.of(failure);
        }
        var tensors = new ArrayList<Tensor>();
        for (int i = 0; i < results.size(); i++) {
            var shape = graph.outputs().get(i).shape();
            tensors.add(new Tensor(results.get(i), shape, shape.contiguousStrides(), 0));
        }
        return tensors;
    }

    /// The graph in its text form.
    @Override
    public String toString() { return graph.toString(); }
}
