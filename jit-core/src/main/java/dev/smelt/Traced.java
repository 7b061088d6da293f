// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.IndexOutOfRange;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import dev.smelt.ir.SmeltException;
import dev.smelt.ir.Storage;
import dev.smelt.ops.Dispatch;
import dev.smelt.ops.Value;
import dev.smelt.ops.Values;
import dev.smelt.ref.Interpreter;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;

/// The result of [Jit#trace]: the graph, how many of its inputs are the function's arguments, the
/// concrete tensors the function read, which fill the remaining inputs in order, and the random
/// tensors it drew. Captures are read afresh on every [#interpret], so updating a weight in place
/// needs no retrace.
public record Traced(Graph graph, int arguments, List<Tensor> captures, List<Draw> draws) {
    /// A random tensor the function drew from `generator`: capture `capture` is the `i32[2]` key of
    /// its stream, which starts `offset` draws after the generator's position when a call begins
    /// and takes `count` draws. [#callCaptures] fills it in for each call.
    public record Draw(int capture, Generator generator, long offset, long count) {}

    /// Checks that the captures fill exactly the inputs after the arguments, each with its input's
    /// type: a kernel trusts the graph's shapes when it indexes a capture's array.
    public Traced {
        if (graph == null || captures == null || draws == null)
            throw SmeltException.of("Traced", "the %s is null", graph == null ? "graph" : captures == null ? "list of captures" : "list of draws");
        for (int i = 0; i < captures.size(); i++)
            if (captures.get(i) == null) throw SmeltException.of("Traced", "capture %d is null", i);
        int inputs = graph.inputs().size();
        if (arguments < 0 || arguments + captures.size() != inputs)
            throw SmeltException.of("Traced", "%d arguments and %d captures do not make the graph's %d inputs", arguments, captures.size(), inputs);
        for (int i = 0; i < captures.size(); i++) requireCapture(i, captures.get(i), graph.inputs().get(arguments + i));
        for (Draw draw : draws)
            if (draw == null || draw.generator() == null || !isKey(draw.capture(), captures))
                throw SmeltException.of("Traced", "draw %s does not name an i32[2] key among the %d captures", draw, captures.size());
        captures = List.copyOf(captures);
        draws = List.copyOf(draws);
    }

    /// A function that draws no random tensors.
    public Traced(Graph graph, int arguments, List<Tensor> captures) { this(graph, arguments, captures, List.of()); }

    private static boolean isKey(int capture, List<Tensor> captures) {
        return capture >= 0 && capture < captures.size() && captures.get(capture).dtype() == DType.I32 && captures.get(capture).shape().equals(Shape.of(2));
    }

    /// The same arguments, captures and draws around `graph`, which has the same inputs (a
    /// transform of this trace, such as its gradients).
    public Traced withGraph(Graph graph) { return new Traced(graph, arguments, captures, draws); }

    /// The captures one call reads: [#captures] with each draw's key taken from its generator now.
    /// Each generator advances past all of the call's draws from it, as running the function
    /// eagerly would, so every call draws fresh values and eager and compiled calls from the same
    /// generator state draw the same ones.
    public List<Tensor> callCaptures() {
        if (draws.isEmpty()) return captures;
        var starts = new IdentityHashMap<Generator, Long>();
        for (Draw draw : draws)
            starts.computeIfAbsent(draw.generator(), g -> g.advance(draws.stream().filter(d -> d.generator() == g).mapToLong(Draw::count).sum()));
        var fresh = new ArrayList<>(captures);
        for (Draw draw : draws) fresh.set(draw.capture(), Tensor.wrap(Generator.stream(draw.generator()).key(starts.get(draw.generator()) + draw.offset())));
        return fresh;
    }

    private static void requireCapture(int index, Tensor capture, Node.Input input) {
        if (capture.isTraced()) throw SmeltException.of("Traced", "capture %d is a traced tensor; captures are the concrete tensors a function reads", index);
        if (!capture.shape().equals(input.shape()) || capture.dtype() != input.dtype())
            throw SmeltException.of("Traced", "capture %d is %s%s but fills input %d of %s%s", index, capture.dtype(), capture.shape(), input.slot(), input.dtype(), input.shape());
    }

    /// Evaluates the graph on `arguments` with the reference interpreter: the slow, obviously
    /// correct oracle that compiled code is tested against. Like a call of a compiled function, it
    /// draws fresh random values ([#callCaptures]).
    public List<Tensor> interpret(Tensor... arguments) {
        if (arguments == null) throw SmeltException.of("interpret", "the array of arguments is null; expected %d tensors", this.arguments);
        if (arguments.length != this.arguments) throw SmeltException.of("interpret", "expected %d arguments, got %d", this.arguments, arguments.length);
        var storages = new ArrayList<Storage>();
        var captures = callCaptures();
        for (int slot = 0; slot < graph.inputs().size(); slot++) {
            Tensor value = slot < this.arguments ? arguments[slot] : captures.get(slot - this.arguments);
            Node.Input input = graph.inputs().get(slot);
            if (value == null) throw SmeltException.of("interpret", "argument %d is null", slot);
            Values.requireConcrete("interpret", value.value());
            if (!value.shape().equals(input.shape()) || value.dtype() != input.dtype())
                throw SmeltException.of("interpret", "input %d was traced as %s%s but is now %s%s", slot, input.dtype(), input.shape(), value.dtype(), value.shape());
            storages.add(Dispatch.dense(value.value()));
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
            tensors.add(Tensor.wrap(Value.dense(results.get(i), shape)));
        }
        return tensors;
    }

    /// The graph in its text form.
    @Override
    public String toString() { return graph.toString(); }
}
