// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.driver.Pipeline;
import dev.smelt.ir.FusionMode;
import dev.smelt.ir.SmeltException;
import dev.smelt.ir.Storage;
import dev.smelt.ops.Calls;
import dev.smelt.ops.Dispatch;
import dev.smelt.ops.Formats;
import dev.smelt.ops.Value;
import dev.smelt.ops.Values;
import dev.smelt.runtime.Dump;
import dev.smelt.runtime.Explain;
import dev.smelt.runtime.OnceMap;
import dev.smelt.runtime.Preload;
import dev.smelt.runtime.Program;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/// A function compiled by [Jit#compile] or a [Compile] method. Its first call with a new
/// [Signature] (tensor shapes and dtypes, non-tensor argument values) traces the function, fuses it
/// and generates its kernels; later calls with that signature run them. Each later compilation is a
/// [Recompile] whose reason says which argument changed how; past [#recompileLimit] of them, one
/// warning is logged. Extents of axes marked [#dynamic] are left out of the signature: each new one is
/// traced and planned again, not recompiled, and reuses the kernels. Safe to call from many threads;
/// concurrent first calls compile once.
public final class Compiled {
    /// Signatures kept per function; the least recently used is dropped beyond this.
    public static final int CAPACITY = 64;
    /// Recompiles of one function before the warning, unless [#withRecompileLimit] says otherwise:
    /// the system property `smelt.recompileLimit`, else 8 (torch.compile's default cache size limit).
    public static final int DEFAULT_RECOMPILE_LIMIT = dev.smelt.ir.Settings.integer("smelt.recompileLimit", 8, 0);

    private final Function<List<Object>, List<Tensor>> function;
    private final String name;
    private final List<String> parameters;
    private final FusionMode fusion;
    private final int recompileLimit;
    private final UnaryOperator<Traced> transform;
    /// The transform of a function compiled as traced. Not `UnaryOperator.identity()`: that is the
    /// JDK's lambda, linked on first use, which a fresh JVM's first compile would pay for.
    static final UnaryOperator<Traced> AS_TRACED = traced -> traced;
    private final DynamicDims dynamic;
    private final SignatureCache<Compilation> cache;
    private volatile Version last;
    private volatile RecentCall recent;

    /// What the cache holds for a signature: one program, or one per size of its dynamic dims.
    private sealed interface Compilation permits Version, Sizes {}

    /// One compiled signature: its trace, the optimised graph its program computes, and the program.
    /// `signature` is the signature it serves, with `?` for dynamic extents.
    record Version(Signature signature, Traced traced, dev.smelt.ir.Graph optimised, Program program) implements Compilation {
        static Version of(Signature signature, Traced traced, FusionMode fusion) {
            Calls.requireVectorApi("compile");
            var compiled = Pipeline.compile(traced.graph(), fusion);
            return new Version(signature, traced, compiled.graph(), compiled.program());
        }

        /// The storages a call passes: the arguments', then the captured tensors', dense.
        List<Storage> inputs(Tensor[] arguments) {
            var storages = new ArrayList<Storage>(arguments.length + traced.captures().size());
            for (Tensor argument : arguments) storages.add(Dispatch.dense(argument.value()));
            var captures = traced.callCaptures();
            for (int i = 0; i < captures.size(); i++) storages.add(Dispatch.dense(captures.get(i).value()));
            return storages;
        }
    }

    /// A signature with dynamic dims: a program per concrete size (the latest [#SIZES] kept), each
    /// traced and planned for its size once, their kernels shared through the kernel cache. None of
    /// them is a recompile. Cached before its first size is compiled, so that a trace that calls the
    /// function at another size (its own recursion's base case) compiles that size instead of
    /// waiting for the signature it is tracing.
    private record Sizes(OnceMap<Signature, Version> versions) implements Compilation {
        static final int SIZES = 32;
    }

    /// `function` of `arity` tensors, with `transform` applied to each signature's trace before the
    /// pipeline runs (autograd's hook; identity otherwise).
    Compiled(Jit.FunctionN function, int arity, UnaryOperator<Traced> transform) {
        this(arguments -> function.apply(new Jit.Arguments(tensors(arguments))), "compiled function", names(arity), transform,
                FusionMode.COST_MODEL, DEFAULT_RECOMPILE_LIMIT);
    }

    /// A function of tensors and non-tensor values (a [Compile] method): `name` and `parameters`
    /// appear in recompile reasons and errors.
    Compiled(Function<List<Object>, List<Tensor>> function, String name, List<String> parameters, UnaryOperator<Traced> transform,
             FusionMode fusion, int recompileLimit) {
        this(function, name, parameters, transform, fusion, recompileLimit, DynamicDims.NONE);
    }

    private Compiled(Function<List<Object>, List<Tensor>> function, String name, List<String> parameters, UnaryOperator<Traced> transform,
                     FusionMode fusion, int recompileLimit, DynamicDims dynamic) {
        Preload.start(); // the first compile's classes, on another core while this one traces
        this.function = function;
        this.dynamic = dynamic;
        this.name = name;
        this.parameters = List.copyOf(parameters);
        this.transform = transform;
        this.fusion = fusion;
        this.recompileLimit = recompileLimit;
        this.cache = new SignatureCache<>(name, recompileLimit, CAPACITY);
    }

    /// A graph built elsewhere (autograd's backward programs) compiled for its one signature: the
    /// inputs that are arguments, the rest filled from its captures. There is no function to trace
    /// again, so other shapes are refused.
    Compiled(Traced traced) {
        this(null, "compiled graph", names(traced.arguments()), AS_TRACED,
                FusionMode.COST_MODEL, DEFAULT_RECOMPILE_LIMIT);
        var types = traced.graph().inputs().subList(0, traced.arguments()).stream()
                .<Signature.Argument>map(in -> new Signature.TensorType("argument " + in.slot(), in.dtype(), in.shape())).toList();
        var version = Version.of(new Signature(types), traced, FusionMode.COST_MODEL);
        cache.get(version.signature(), () -> version);
        last = version;
    }

    /// The same function compiled with another fusion strategy (a separate cache): the cost model
    /// (the default), greedy fusion, or none (each op its own kernel, as eager runs them), so that
    /// users and benchmarks can compare them. `explain()` shows each plan's decisions.
    public Compiled withFusion(FusionMode mode) {
        if (mode == null) throw SmeltException.of("withFusion", "the fusion mode is null; use one of %s", java.util.Arrays.toString(FusionMode.values()));
        if (function == null) throw SmeltException.of("withFusion", "this function was compiled from a ready-made graph for one signature; choose the fusion mode where it is compiled");
        return new Compiled(function, name, parameters, transform, mode, recompileLimit, dynamic);
    }

    /// The same function (a separate cache) warning after `limit` recompiles instead of
    /// [#DEFAULT_RECOMPILE_LIMIT].
    public Compiled withRecompileLimit(int limit) {
        if (limit < 0) throw SmeltException.of("withRecompileLimit", "the limit must be at least 0, not %d", limit);
        if (function == null) throw SmeltException.of("withRecompileLimit", "this function was compiled from a ready-made graph for one signature; it never recompiles");
        return new Compiled(function, name, parameters, transform, fusion, limit, dynamic);
    }

    /// The same function (a separate cache) with `axes` of argument `argument` dynamic, typically
    /// the batch: `Jit.compile(model::forward).dynamic(0, 0)`. Negative axes count from the end;
    /// marks add up over calls. A call with new extents along dynamic axes is not a recompile: it
    /// traces and plans the function for those extents (0.2 ms for a small MLP, DynamicBench) and reuses
    /// the kernels, which take their row count at run time. Other dims, dtypes and ranks still
    /// select programs as before. Axes beyond an argument's rank, or a non-tensor argument, are
    /// refused when called.
    public Compiled dynamic(int argument, int... axes) {
        if (function == null) throw SmeltException.of("dynamic", "this function was compiled from a ready-made graph for one signature; its dimensions are fixed");
        return new Compiled(function, name, parameters, transform, fusion, recompileLimit, dynamic.with(name, parameters, argument, axes));
    }

    /// How recompile reasons and errors name the function: `Model.forward(Tensor, int)` for a
    /// [Compile] method, else `compiled function`.
    public String name() { return name; }

    /// `Compiled[<name>, fusion COST_MODEL, 2 signatures cached, 1 recompile]`, as JShell shows it.
    @Override
    public String toString() {
        return "Compiled[%s, fusion %s, %d signatures cached, %d recompiles]".formatted(name, fusion, cache.size(), Math.max(0, cache.compilations() - 1));
    }

    /// Recompiles after which one warning is logged.
    public int recompileLimit() { return recompileLimit; }

    /// Every compilation after the first (the latest 256), oldest first, each with its reason.
    public List<Recompile> recompiles() { return cache.recompiles(); }

    /// The fusion strategy this function compiles with.
    public FusionMode fusion() { return fusion; }

    /// The function's first result.
    public Tensor apply(Tensor... arguments) {
        RecentCall hit = recent;
        Tensor result = hit != null && hit.results() == 1 ? hit.first(arguments) : null;
        return result != null ? result : run(entry("apply", arguments), arguments).getFirst();
    }

    /// All of the function's results.
    public List<Tensor> applyAll(Tensor... arguments) {
        RecentCall hit = recent;
        if (hit != null && hit.results() == 1) {
            Tensor result = hit.first(arguments);
            if (result != null) return List.of(result);
        } else if (hit != null && hit.matches(arguments)) return hit.run(arguments);
        return run(entry("applyAll", arguments), arguments);
    }

    /// Runs a [Compile] method: `arguments` are its parameters in order, tensors and values.
    List<Tensor> call(List<Object> arguments) {
        for (Object argument : arguments) if (argument instanceof Tensor tensor) Values.requireConcrete(name, tensor.value());
        return run(entry(arguments), tensors(arguments).toArray(new Tensor[0]));
    }

    private static List<Tensor> run(Version entry, Tensor[] arguments) {
        var results = Calls.run(entry.program(), entry.inputs(arguments), null);
        var tensors = new ArrayList<Tensor>(results.size());
        for (int i = 0; i < results.size(); i++) {
            var shape = entry.traced().graph().outputs().get(i).shape();
            tensors.add(new Tensor(Value.dense(results.get(i), shape)));
        }
        return tensors;
    }

    /// Writes the function's only result into `output` instead of a new tensor, as PyTorch's `out=`:
    /// a call then allocates nothing. `output` must be a dense tensor of the result's shape and
    /// dtype that shares no memory with the arguments or the tensors the function reads.
    public Tensor applyInto(Tensor output, Tensor... arguments) { return into("applyInto", false, Arrays.asList(output), arguments).getFirst(); }

    /// [#applyInto(Tensor, Tensor...)] for every result, in order.
    public List<Tensor> applyInto(List<Tensor> outputs, Tensor... arguments) { return into("applyInto", false, outputs, arguments); }

    /// [#applyInto(List, Tensor...)] where an output may also be an argument or a captured tensor:
    /// an update in place, as an optimizer step writes its parameters. The program's memory plan
    /// for that pattern of updates (made on first use) writes each such result straight into the
    /// tensor's array where no later kernel reads the old value and its kernel reads it only at the
    /// point it writes (`explain()` shows `in the array of input …`); any other such result is
    /// computed into a scratch buffer and copied in after the whole program ran.
    public List<Tensor> applyUpdating(List<Tensor> outputs, Tensor... arguments) { return into("applyUpdating", true, outputs, arguments); }

    private List<Tensor> into(String op, boolean updating, List<Tensor> outputs, Tensor[] arguments) {
        Version entry = entry(op, arguments);
        var graph = entry.traced().graph();
        if (outputs == null) throw SmeltException.of(op, "the list of outputs is null");
        if (outputs.size() != graph.outputs().size())
            throw SmeltException.of(op, "the function has %d results, but %d outputs were given", graph.outputs().size(), outputs.size());
        var inputs = entry.inputs(arguments);
        var targets = new ArrayList<Storage>(outputs.size());
        for (int o = 0; o < outputs.size(); o++)
            targets.add(Calls.output(op, o, Tensor.value(outputs.get(o)), graph.outputs().get(o), updating ? List.of() : inputs, targets));
        Calls.run(entry.program(), inputs, targets);
        return outputs;
    }

    /// How the most recently compiled signature was compiled: the graph, each kernel with the
    /// nodes it fuses, its category and the bytes it moves, and every planning decision.
    public String explain() {
        Version entry = last;
        return entry == null ? "not compiled yet: call the function first" : explain(entry);
    }

    private String explain(Version entry) {
        String strategy = switch (fusion) {
            case COST_MODEL -> "cost model";
            case GREEDY -> "greedy (every producer fused into every consumer)";
            case NONE -> "none (one kernel per operation)";
        };
        var captures = Tensor.value(entry.traced().captures());
        int arguments = entry.traced().arguments();
        return (entry.signature().isDynamic() ? "signature %s: planned for the sizes below, each size of ? reuses the kernels%n".formatted(entry.signature()) : "")
                + "fusion: " + strategy + "\n" + Explain.of(entry.optimised(), entry.program(), i -> Formats.packedBytes(captures, arguments, i))
                + Formats.explain(captures, arguments, entry.program()::readsPacked);
    }

    /// How the signature of `arguments` is compiled (compiling it if need be).
    public String explain(Tensor... arguments) { return explain(entry("explain", arguments)); }

    /// The number of signatures compiled and still cached.
    public int compiledSignatures() { return cache.size(); }

    /// The program for `arguments` of a call to `op` (`apply`, `applyInto`, …), checked first.
    private Version entry(String op, Tensor[] arguments) {
        RecentCall hit = recent;
        if (hit != null && hit.matches(arguments)) return hit.version();
        if (arguments == null) throw SmeltException.of(op, "the array of arguments is null; %s has %d parameters", name, parameters.size());
        if (arguments.length != parameters.size())
            throw SmeltException.of(op, "%s has %d parameters, got %d arguments", name, parameters.size(), arguments.length);
        for (int i = 0; i < arguments.length; i++) {
            if (arguments[i] == null) throw SmeltException.of(op, "argument %d of %s is null", i, name);
            if (arguments[i].isTraced())
                throw SmeltException.of(op, "argument %d of %s is a traced tensor; a compiled function runs on concrete tensors, so inside a trace call the function it compiles", i, name);
        }
        List<Object> values = Arrays.asList((Object[]) arguments);
        Version entry = entry(values);
        recent = new RecentCall(Signature.of(parameters, values), entry);
        return entry;
    }

    /// The program for `arguments`, tensors and non-tensor values in parameter order, compiled by
    /// the first caller with this signature while any others wait for it.
    private Version entry(List<Object> arguments) {
        Signature signature = Signature.of(parameters, arguments, dynamic, name);
        if (function == null) {
            if (!(cache.cached(signature) instanceof Version fixed)) throw SmeltException.of(name, "compiled from a graph for arguments %s only, but called with %s", cache.signatures(), signature);
            return fixed;
        }
        Version entry = switch (cache.get(signature, () -> signature.isDynamic() ? new Sizes(new OnceMap<>(Sizes.SIZES)) : compile(signature, arguments))) {
            case Version version -> version;
            case Sizes sizes -> sizes.versions().get(concrete(arguments), () -> compile(signature, arguments));
        };
        last = entry;
        return entry;
    }

    /// The signature with the extents of the dynamic dims: which program of a [Sizes] runs.
    private Signature concrete(List<Object> arguments) { return Signature.of(parameters, arguments); }

    private Version compile(Signature signature, List<Object> arguments) {
        return Version.of(signature, Dump.after("transform", transform.apply(Dump.after("trace", trace(arguments)))), fusion);
    }

    /// Traces with the non-tensor arguments fixed: each tensor argument becomes a graph input.
    private Traced trace(List<Object> arguments) {
        var tensors = tensors(arguments);
        return Jit.trace(symbolic -> {
            var merged = new ArrayList<>(arguments);
            int next = 0;
            for (int i = 0; i < merged.size(); i++) if (merged.get(i) instanceof Tensor) merged.set(i, symbolic.get(next++));
            return function.apply(merged);
        }, tensors);
    }

    // `argument 0`, `argument 1`, …: the parameters of a function of tensors.
    private static List<String> names(int arity) {
        var names = new ArrayList<String>(arity);
        for (int i = 0; i < arity; i++) names.add("argument " + i);
        return names;
    }

    /// The tensors among `arguments`, in order.
    private static List<Tensor> tensors(List<Object> arguments) {
        var tensors = new ArrayList<Tensor>(arguments.size());
        for (Object argument : arguments) if (argument instanceof Tensor tensor) tensors.add(tensor);
        return tensors;
    }
}
