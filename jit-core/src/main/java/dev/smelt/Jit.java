// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.ir.Node;
import dev.smelt.trace.Tracer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;

/// Entry points that turn Java tensor code into graphs. [#trace] runs a function once on symbolic
/// tensors shaped like the examples and returns the recorded graph.
public final class Jit {
    private Jit() {}

    /// A tensor function of one argument: a lambda or a method reference such as `Model::forward`.
    @FunctionalInterface
    public interface Function1 { Tensor apply(Tensor a); }

    @FunctionalInterface
    public interface Function2 { Tensor apply(Tensor a, Tensor b); }

    @FunctionalInterface
    public interface Function3 { Tensor apply(Tensor a, Tensor b, Tensor c); }

    @FunctionalInterface
    public interface Function4 { Tensor apply(Tensor a, Tensor b, Tensor c, Tensor d); }

    /// A tensor function of any number of arguments and results.
    @FunctionalInterface
    public interface FunctionN { List<Tensor> apply(List<Tensor> arguments); }

    /// `function` compiled: each call with a new input signature traces, fuses and generates
    /// kernels once; later calls with that signature run them (the Java `torch.compile` / `jax.jit`).
    public static Compiled compile(Function1 function) {
        nonNull(function);
        return new Compiled(args -> List.of(function.apply(args.get(0))), 1, UnaryOperator.identity());
    }

    public static Compiled compile(Function2 function) {
        nonNull(function);
        return new Compiled(args -> List.of(function.apply(args.get(0), args.get(1))), 2, UnaryOperator.identity());
    }

    public static Compiled compile(Function3 function) {
        nonNull(function);
        return new Compiled(args -> List.of(function.apply(args.get(0), args.get(1), args.get(2))), 3, UnaryOperator.identity());
    }

    public static Compiled compile(Function4 function) {
        nonNull(function);
        return new Compiled(args -> List.of(function.apply(args.get(0), args.get(1), args.get(2), args.get(3))), 4, UnaryOperator.identity());
    }

    /// A function of `arity` arguments with any number of results ([Compiled#applyAll]).
    public static Compiled compile(FunctionN function, int arity) {
        return compile(function, arity, UnaryOperator.identity());
    }

    /// `function` compiled with `transform` applied to each signature's trace before the pipeline
    /// runs: the hook for graph-to-graph front ends such as autograd, which add gradient outputs
    /// (and inputs, filled from extra captures). The transformed trace keeps the first
    /// `arity` inputs as the arguments.
    public static Compiled compile(FunctionN function, int arity, UnaryOperator<Traced> transform) {
        nonNull(function);
        if (transform == null) throw SmeltException.of("compile", "the transform is null");
        return new Compiled(function, arity, traced -> {
            Traced result = transform.apply(traced);
            if (result == null || result.arguments() != arity)
                throw SmeltException.of("compile", "the transform must keep the %d arguments of the trace", arity);
            return result;
        });
    }

    /// A trace built or rewritten elsewhere, compiled for its one signature (its arguments' shapes
    /// and dtypes); calls with other shapes are refused, as there is no function to trace again.
    public static Compiled compile(Traced traced) {
        if (traced == null) throw SmeltException.of("compile", "the trace is null");
        return new Compiled(traced);
    }

    private static void nonNull(Object function) {
        if (function == null) throw SmeltException.of("compile", "the function is null");
    }

    public static Traced trace(Function1 function, Tensor a) {
        return trace(args -> Arrays.asList(function.apply(args.get(0))), Arrays.asList(a));
    }

    public static Traced trace(Function2 function, Tensor a, Tensor b) {
        return trace(args -> Arrays.asList(function.apply(args.get(0), args.get(1))), Arrays.asList(a, b));
    }

    public static Traced trace(Function3 function, Tensor a, Tensor b, Tensor c) {
        return trace(args -> Arrays.asList(function.apply(args.get(0), args.get(1), args.get(2))), Arrays.asList(a, b, c));
    }

    public static Traced trace(Function4 function, Tensor a, Tensor b, Tensor c, Tensor d) {
        return trace(args -> Arrays.asList(function.apply(args.get(0), args.get(1), args.get(2), args.get(3))), Arrays.asList(a, b, c, d));
    }

    /// Traces `function` on symbolic arguments with the examples' shapes and dtypes (their values
    /// are not read). Concrete tensors the function reads become extra graph inputs after the
    /// arguments; see [Traced#captures].
    public static Traced trace(FunctionN function, List<Tensor> examples) {
        if (function == null || examples == null || examples.stream().anyMatch(java.util.Objects::isNull))
            throw SmeltException.of("trace", "the function and every example tensor must be non-null");
        var tracer = new Tracer();
        var arguments = new ArrayList<Tensor>();
        for (Tensor example : examples)
            arguments.add(new Tensor(tracer.argument(example.shape(), example.dtype(), new Object()), tracer));
        List<Tensor> results = ScopedValue.where(Tracer.CURRENT, tracer).call(() -> function.apply(List.copyOf(arguments)));
        if (results == null || results.isEmpty() || results.stream().anyMatch(java.util.Objects::isNull))
            throw SmeltException.of("trace", "the traced function must return at least one non-null tensor");
        var outputs = new ArrayList<Node>();
        for (Tensor result : results) outputs.add(outputNode(tracer, result));
        var graph = tracer.finish(outputs);
        var captures = tracer.sources().subList(examples.size(), tracer.sources().size()).stream().map(Tensor.class::cast).toList();
        return new Traced(graph, examples.size(), captures);
    }

    private static Node outputNode(Tracer tracer, Tensor result) {
        if (!result.isTraced()) return tracer.capture(result, result.shape(), result.dtype());
        if (result.tracer() != tracer) throw SmeltException.of("trace", "the function returned a tensor of another trace");
        return result.node();
    }
}
