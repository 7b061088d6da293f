// SPDX-License-Identifier: Apache-2.0
package dev.smelt.autograd;

import dev.smelt.Compiled;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.Traced;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.SmeltException;
import dev.smelt.runtime.OnceMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/// A function and its gradients, from two programs per input signature: the forward computes the
/// value and the activations the backward needs ([SaveOrRecompute] decides which it saves and which
/// the backward recomputes); the backward runs on them. Made by [Autograd#valueAndGrad].
public final class ValueAndGrad {
    /// The function's value and the gradients, in `argnums` order.
    public record Result(Tensor value, List<Tensor> gradients) {}

    private final Jit.FunctionN function;
    private final int arity;
    private final int[] wrt;
    private final OnceMap<String, Split> splits = new OnceMap<>(Compiled.CAPACITY);
    private volatile Split last;

    /// One signature's two programs; `seed` is the cotangent `∂L/∂L = 1`. The forward takes the
    /// trace's captures as arguments, so that both programs of a call read the same random keys.
    private record Split(Partition partition, Compiled forward, Compiled backward, Traced traced, Tensor seed) {}

    ValueAndGrad(Jit.FunctionN function, int arity, int[] wrt) {
        this.function = function;
        this.arity = arity;
        this.wrt = wrt;
    }

    /// The function's value and its gradients at `arguments`: the forward program, then the
    /// backward one on what the forward saved (each compiled once per signature).
    public Result apply(Tensor... arguments) {
        Split split = split(arguments);
        var inputs = new ArrayList<>(Arrays.asList(arguments));
        inputs.addAll(split.traced().callCaptures());
        List<Tensor> forward = split.forward().applyAll(inputs.toArray(Tensor[]::new));
        var backwardArguments = new ArrayList<>(inputs);
        backwardArguments.addAll(forward.subList(1, forward.size()));
        backwardArguments.add(split.seed());
        return new Result(forward.getFirst(), split.backward().applyAll(backwardArguments.toArray(Tensor[]::new)));
    }

    /// Both programs of the most recent signature, and each save-or-recompute decision with its reason.
    public String explain() {
        Split split = last;
        if (split == null) return "not compiled yet: call the function first";
        var text = new StringBuilder("save or recompute (%d saved):%n".formatted(split.partition().saved()));
        for (var choice : split.partition().choices()) text.append("  ").append(choice).append('\n');
        text.append("forward program:\n").append(split.forward().explain().indent(2));
        text.append("backward program:\n").append(split.backward().explain().indent(2));
        return text.toString();
    }

    /// The number of signatures compiled and still cached.
    public int compiledSignatures() {
        return splits.size();
    }

    private Split split(Tensor[] arguments) {
        if (arguments == null || arguments.length != arity)
            throw SmeltException.of("valueAndGrad", "the function takes %d tensor arguments, got %s", arity, arguments == null ? "a null array" : arguments.length);
        for (int i = 0; i < arity; i++)
            if (arguments[i] == null) throw SmeltException.of("valueAndGrad", "argument %d is null", i);
        String key = Arrays.stream(arguments).map(a -> a.dtype() + a.shape().toString()).collect(Collectors.joining(","));
        Split split = splits.get(key, () -> compile(arguments));
        last = split;
        return split;
    }

    private Split compile(Tensor[] arguments) {
        Traced traced = Jit.trace(function, List.of(arguments));
        Graph primal = traced.graph();
        Node loss = Autograd.loss(primal);
        var cotangent = new Node.Input(primal.inputs().size(), loss.shape(), loss.dtype());
        // fresh: a gradient that is the cotangent (`a + b`) was the seed's own storage, written into by a caller
        var gradients = Autograd.fresh(Backward.gradients(primal.inputs(), List.of(loss), List.of(cotangent), Autograd.differentiable(primal, wrt), new Nodes(primal)), List.of());
        Partition partition = Partition.split(primal, List.of(cotangent), gradients);
        Compiled forward = Jit.compile(new Traced(partition.forward(), partition.forward().inputs().size(), List.of()));
        Compiled backward = Jit.compile(new Traced(partition.backward(), partition.backward().inputs().size(), List.of()));
        Tensor seed = Tensor.ones(loss.dtype(), loss.shape().toArray());
        return new Split(partition, forward, backward, traced, seed);
    }
}
