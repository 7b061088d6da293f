// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.fusion.AttentionFusion;
import dev.smelt.ir.Node;
import dev.smelt.ir.SmeltException;
import dev.smelt.ops.Creation;
import dev.smelt.ops.Value;
import dev.smelt.trace.Tracer;
import java.lang.invoke.MethodHandles;
import java.util.AbstractList;
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
    public interface Function1 {
        /// The function's result for `a`.
        Tensor apply(Tensor a);
    }

    /// A tensor function of two arguments.
    @FunctionalInterface
    public interface Function2 {
        /// The function's result for `a` and `b`.
        Tensor apply(Tensor a, Tensor b);
    }

    /// A tensor function of three arguments.
    @FunctionalInterface
    public interface Function3 {
        /// The function's result for `a`, `b` and `c`.
        Tensor apply(Tensor a, Tensor b, Tensor c);
    }

    /// A tensor function of four arguments.
    @FunctionalInterface
    public interface Function4 {
        /// The function's result for `a` to `d`.
        Tensor apply(Tensor a, Tensor b, Tensor c, Tensor d);
    }

    /// A tensor function of any number of arguments and results.
    @FunctionalInterface
    public interface FunctionN {
        /// The function's results, at least one, for `arguments`.
        List<Tensor> apply(List<Tensor> arguments);
    }

    /// `function` compiled: each call with a new input signature traces, fuses and generates
    /// kernels once; later calls with that signature run them (the Java `torch.compile` / `jax.jit`).
    public static Compiled compile(Function1 function) {
        nonNull("compile", function);
        return new Compiled(args -> Arrays.asList(function.apply(args.get(0))), 1, Compiled.AS_TRACED);
    }

    /// [#compile(Function1)] for a function of two tensors.
    public static Compiled compile(Function2 function) {
        nonNull("compile", function);
        return new Compiled(args -> Arrays.asList(function.apply(args.get(0), args.get(1))), 2, Compiled.AS_TRACED);
    }

    /// [#compile(Function1)] for a function of three tensors.
    public static Compiled compile(Function3 function) {
        nonNull("compile", function);
        return new Compiled(args -> Arrays.asList(function.apply(args.get(0), args.get(1), args.get(2))), 3, Compiled.AS_TRACED);
    }

    /// [#compile(Function1)] for a function of four tensors.
    public static Compiled compile(Function4 function) {
        nonNull("compile", function);
        return new Compiled(args -> Arrays.asList(function.apply(args.get(0), args.get(1), args.get(2), args.get(3))), 4, Compiled.AS_TRACED);
    }

    /// A function of `arity` arguments with any number of results ([Compiled#applyAll]).
    public static Compiled compile(FunctionN function, int arity) {
        return compile(function, arity, Compiled.AS_TRACED);
    }

    /// `function` compiled with `transform` applied to each signature's trace before the pipeline
    /// runs: the hook for graph-to-graph front ends such as autograd, which add gradient outputs
    /// (and inputs, filled from extra captures). The transformed trace keeps the first
    /// `arity` inputs as the arguments.
    public static Compiled compile(FunctionN function, int arity, UnaryOperator<Traced> transform) {
        nonNull("compile", function);
        if (arity < 0) throw SmeltException.of("compile", "arity %d is negative; it is the number of tensor arguments", arity);
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

    /// A new `model` (a class, or an interface whose methods all have bodies) whose [Compile]
    /// methods are traced and compiled per signature, built by the constructor that takes
    /// `constructorArguments`. The instance is of a hidden subclass Smelt generates in `model`'s
    /// package, which needs `model` and those methods to be overridable and the package to be open
    /// to Smelt (any class on the class path is). For a class in another class loader's unnamed
    /// module, such as one declared in JShell, use [#instance(MethodHandles.Lookup, Class, Object...)].
    public static <T> T instance(Class<T> model, Object... constructorArguments) {
        if (model == null) throw SmeltException.of("Jit.instance", "the model class is null");
        MethodHandles.Lookup lookup;
        try {
            Jit.class.getModule().addReads(model.getModule());
            lookup = MethodHandles.privateLookupIn(model, MethodHandles.lookup());
        } catch (IllegalAccessException | IllegalArgumentException e) {
            throw SmeltException.of("Jit.instance", "Smelt cannot define classes in package '%s' (%s): open it to Smelt, or pass MethodHandles.lookup() from a class in it", model.getPackageName(), e.getMessage());
        }
        if ((lookup.lookupModes() & MethodHandles.Lookup.MODULE) == 0)
            throw SmeltException.of("Jit.instance", "%s is in another module than Smelt; pass a lookup from its package: Jit.instance(MethodHandles.lookup(), %s.class, …)", model.getName(), model.getSimpleName());
        return instance(lookup, model, constructorArguments);
    }

    /// [#instance(Class, Object...)] with the subclass defined through `lookup`, which must have full
    /// privilege (`MethodHandles.lookup()` called in the caller's class); the subclass lives in
    /// the lookup class's package.
    public static <T> T instance(MethodHandles.Lookup lookup, Class<T> model, Object... constructorArguments) {
        if (lookup == null) throw SmeltException.of("Jit.instance", "the lookup is null; pass MethodHandles.lookup() from the caller's class");
        if (!lookup.hasFullPrivilegeAccess())
            throw SmeltException.of("Jit.instance", "needs a lookup with full privilege, such as MethodHandles.lookup() in the caller's class");
        return CompiledMethods.instance(lookup, model, constructorArguments == null ? new Object[] {null} : constructorArguments);
    }

    /// The [Compiled] function behind each [Compile] method of an instance made by [#instance],
    /// by method name: for `explain()` and `recompiles()`.
    public static java.util.Map<String, Compiled> methods(Object instance) { return CompiledMethods.of(instance); }

    private static void nonNull(String op, Object function) {
        if (function == null) throw SmeltException.of(op, "the function is null");
    }

    /// `function` traced once on a symbolic tensor shaped like `a` (as `torch.fx` / `jax.make_jaxpr`);
    /// see [#trace(FunctionN, List)].
    public static Traced trace(Function1 function, Tensor a) {
        nonNull("trace", function);
        return trace(args -> Arrays.asList(function.apply(args.get(0))), Arrays.asList(a));
    }

    /// [#trace(Function1, Tensor)] for a function of two tensors.
    public static Traced trace(Function2 function, Tensor a, Tensor b) {
        nonNull("trace", function);
        return trace(args -> Arrays.asList(function.apply(args.get(0), args.get(1))), Arrays.asList(a, b));
    }

    /// [#trace(Function1, Tensor)] for a function of three tensors.
    public static Traced trace(Function3 function, Tensor a, Tensor b, Tensor c) {
        nonNull("trace", function);
        return trace(args -> Arrays.asList(function.apply(args.get(0), args.get(1), args.get(2))), Arrays.asList(a, b, c));
    }

    /// [#trace(Function1, Tensor)] for a function of four tensors.
    public static Traced trace(Function4 function, Tensor a, Tensor b, Tensor c, Tensor d) {
        nonNull("trace", function);
        return trace(args -> Arrays.asList(function.apply(args.get(0), args.get(1), args.get(2), args.get(3))), Arrays.asList(a, b, c, d));
    }

    /// Traces `function` on symbolic arguments with the examples' shapes and dtypes (their values
    /// are not read). Concrete tensors the function reads become extra graph inputs after the
    /// arguments; see [Traced#captures].
    public static Traced trace(FunctionN function, List<Tensor> examples) {
        nonNull("trace", function);
        if (examples == null) throw SmeltException.of("trace", "the list of example tensors is null");
        var tracer = new Tracer();
        var arguments = new ArrayList<Tensor>();
        for (Tensor example : examples) {
            if (example == null) throw SmeltException.of("trace", "example %d is null; every argument needs an example tensor", arguments.size());
            arguments.add(new Tensor(new Value(tracer.argument(example.shape(), example.dtype(), new Object()), tracer)));
        }
        List<Tensor> results = ScopedValue.where(Tracer.CURRENT, tracer).call(() -> function.apply(new Arguments(arguments)));
        requireResults(results);
        var outputs = new ArrayList<Node>();
        for (Tensor result : results) outputs.add(outputNode(tracer, result));
        var graph = AttentionFusion.recognise(tracer.finish(outputs)); // before autograd reads it: attention's gradient is fused too
        var sources = tracer.sources().subList(examples.size(), tracer.sources().size());
        var captures = new ArrayList<Tensor>();
        var draws = new ArrayList<Traced.Draw>();
        for (Object source : sources) {
            if (source instanceof Creation.Draw draw) {
                var generator = (Generator) draw.stream().owner();
                draws.add(new Traced.Draw(captures.size(), generator, draw.offset(), draw.count()));
                captures.add(Tensor.wrap(draw.stream().key(generator.position() + draw.offset())));
            } else captures.add(Tensor.wrap((Value) source));
        }
        return new Traced(graph, examples.size(), captures, draws);
    }

    /// Whether this thread is recording a trace: code whose behaviour depends on a Java value (a
    /// layer's training mode) reads it as a tensor then, so that the compiled function follows
    /// later changes to it instead of keeping the value it had when traced.
    public static boolean isTracing() { return Tracer.CURRENT.isBound(); }

    /// The symbolic arguments as the traced function sees them: reading one past the arity is a
    /// [SmeltException] naming both, not an IndexOutOfBoundsException from inside the trace.
    static final class Arguments extends AbstractList<Tensor> {
        private final List<Tensor> tensors;

        Arguments(List<Tensor> tensors) { this.tensors = List.copyOf(tensors); }

        @Override
        public Tensor get(int index) {
            if (index < 0 || index >= tensors.size())
                throw SmeltException.of("trace", "the function reads argument %d, but it takes %d (its arity)", index, tensors.size());
            return tensors.get(index);
        }

        @Override
        public int size() { return tensors.size(); }
    }

    private static void requireResults(List<Tensor> results) {
        if (results == null) throw SmeltException.of("trace", "the function returned null instead of a list of tensors");
        if (results.isEmpty()) throw SmeltException.of("trace", "the function returned no tensors; it must return at least one");
        for (int i = 0; i < results.size(); i++)
            if (results.get(i) == null) throw SmeltException.of("trace", "the function returned null as result %d of %d; it must return tensors", i, results.size());
    }

    private static Node outputNode(Tracer tracer, Tensor result) {
        Value value = result.value();
        if (!value.isTraced()) return tracer.capture(value, value.shape(), value.dtype());
        if (value.tracer() != tracer) throw SmeltException.of("trace", "the function returned a tensor of another trace");
        return value.node();
    }
}
