// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.fusion.FusionMode;
import dev.smelt.ir.Storage;
import dev.smelt.runtime.Dump;
import dev.smelt.runtime.Explain;
import dev.smelt.runtime.LruMap;
import dev.smelt.runtime.Program;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/// A function compiled by [Jit#compile]. Its first call with a new input signature (shapes and
/// dtypes) traces the function, fuses it and generates its kernels; later calls with that
/// signature run the kernels. Safe to call from many threads; concurrent first calls compile once.
public final class Compiled {
    /// Signatures kept per function; the least recently used is dropped beyond this.
    public static final int CAPACITY = 64;

    private final Jit.FunctionN function;
    private final int arity;
    private final FusionMode fusion;
    private final UnaryOperator<Traced> transform;
    private final Map<String, CompletableFuture<Version>> entries = new LruMap<>(CAPACITY);
    private volatile Version last;

    /// One compiled signature: its trace, the optimised graph its program computes, and the program.
    private record Version(Traced traced, dev.smelt.ir.Graph optimised, Program program) {
        static Version of(Traced traced, FusionMode fusion) {
            var optimised = Compiler.optimise(traced.graph());
            return new Version(traced, optimised, Compiler.program(optimised, fusion));
        }
    }

    Compiled(Jit.FunctionN function, int arity, UnaryOperator<Traced> transform) { this(function, arity, transform, FusionMode.COST_MODEL); }

    private Compiled(Jit.FunctionN function, int arity, UnaryOperator<Traced> transform, FusionMode fusion) {
        this.function = function;
        this.arity = arity;
        this.transform = transform;
        this.fusion = fusion;
    }

    /// A graph built elsewhere (autograd's backward programs) compiled for its one signature: the
    /// inputs that are arguments, the rest filled from its captures. There is no function to trace
    /// again, so other shapes are refused.
    Compiled(Traced traced) {
        this(null, traced.arguments(), UnaryOperator.identity());
        var version = Version.of(traced, FusionMode.COST_MODEL);
        entries.put(key(traced.graph().inputs().subList(0, arity).stream().map(in -> in.dtype() + in.shape().toString())), CompletableFuture.completedFuture(version));
        last = version;
    }

    /// The same function compiled with another fusion strategy (a separate cache): the cost model
    /// (the default), greedy fusion, or none (each op its own kernel, as eager runs them), so that
    /// users and benchmarks can compare them. `explain()` shows each plan's decisions.
    public Compiled withFusion(FusionMode mode) {
        if (mode == null) throw SmeltException.of("withFusion", "the fusion mode is null; use one of %s", java.util.Arrays.toString(FusionMode.values()));
        if (function == null) throw SmeltException.of("withFusion", "this function was compiled from a ready-made graph for one signature; choose the fusion mode where it is compiled");
        return new Compiled(function, arity, transform, mode);
    }

    /// The fusion strategy this function compiles with.
    public FusionMode fusion() { return fusion; }

    /// The function's first result.
    public Tensor apply(Tensor... arguments) { return applyAll(arguments).getFirst(); }

    /// All of the function's results.
    public List<Tensor> applyAll(Tensor... arguments) {
        Version entry = entry(arguments);
        var results = entry.program().run(inputs(entry, arguments));
        var tensors = new ArrayList<Tensor>();
        for (int i = 0; i < results.size(); i++) {
            var shape = entry.traced().graph().outputs().get(i).shape();
            tensors.add(new Tensor(results.get(i), shape, shape.contiguousStrides(), 0));
        }
        return tensors;
    }

    /// Writes the function's only result into `output` instead of a new tensor, as PyTorch's `out=`:
    /// a call then allocates nothing. `output` must be a dense tensor of the result's shape and
    /// dtype that shares no memory with the arguments or the tensors the function reads.
    public Tensor applyInto(Tensor output, Tensor... arguments) { return applyInto(List.of(output), arguments).getFirst(); }

    /// [#applyInto(Tensor, Tensor...)] for every result, in order.
    public List<Tensor> applyInto(List<Tensor> outputs, Tensor... arguments) { return into("applyInto", false, outputs, arguments); }

    /// [#applyInto(List, Tensor...)] where an output may also be an argument or a captured tensor:
    /// an update in place, as an optimizer step writes its parameters. Such results are computed into
    /// scratch buffers and copied into the outputs after the whole program ran, so no kernel reads a
    /// value already overwritten. (Until the memory plan writes them in place.)
    public List<Tensor> applyUpdating(List<Tensor> outputs, Tensor... arguments) { return into("applyUpdating", true, outputs, arguments); }

    private List<Tensor> into(String op, boolean updating, List<Tensor> outputs, Tensor[] arguments) {
        Version entry = entry(arguments);
        var graph = entry.traced().graph();
        if (outputs == null || outputs.size() != graph.outputs().size())
            throw SmeltException.of(op, "the function has %d results, but %s outputs were given", graph.outputs().size(), outputs == null ? "no" : outputs.size());
        var inputs = inputs(entry, arguments);
        var targets = new ArrayList<Storage>();
        for (int o = 0; o < outputs.size(); o++) targets.add(target(op, o, outputs.get(o), graph.outputs().get(o), updating ? List.of() : inputs, targets));
        entry.program().run(inputs, targets);
        return outputs;
    }

    private static Storage target(String op, int index, Tensor output, dev.smelt.ir.Node result, List<Storage> inputs, List<Storage> earlier) {
        Values.requireConcrete(op, output);
        if (!output.shape().equals(result.shape()) || output.dtype() != result.dtype())
            throw SmeltException.of(op, "output %d is %s%s but the result is %s%s", index, output.dtype(), output.shape(), result.dtype(), result.shape());
        if (output.offset() != 0 || output.storage().size() != output.size() || !Views.isContiguous(output))
            throw SmeltException.of(op, "output %d must be a dense tensor, not a view; use contiguous() or a new tensor", index);
        Storage storage = output.storage();
        if (inputs.stream().anyMatch(in -> in.array() == storage.array()) || earlier.stream().anyMatch(t -> t.array() == storage.array()))
            throw SmeltException.of(op, "output %d shares memory with an argument, a captured tensor or another output", index);
        return storage;
    }

    private static List<Storage> inputs(Version entry, Tensor[] arguments) {
        var storages = new ArrayList<Storage>();
        for (Tensor argument : arguments) storages.add(Dispatch.dense(argument));
        for (Tensor capture : entry.traced().captures()) storages.add(Dispatch.dense(capture));
        return storages;
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
        return "fusion: " + strategy + "\n" + Explain.of(entry.optimised(), entry.program());
    }

    /// How the signature of `arguments` is compiled (compiling it if need be).
    public String explain(Tensor... arguments) {
        return explain(entry(arguments));
    }

    /// The number of signatures compiled and still cached.
    public int compiledSignatures() {
        synchronized (entries) { return entries.size(); }
    }

    private Version entry(Tensor[] arguments) {
        if (arguments == null || arguments.length != arity || Arrays.stream(arguments).anyMatch(java.util.Objects::isNull))
            throw SmeltException.of("compiled function", "expected %d non-null tensor arguments, got %s", arity, arguments == null ? "null" : arguments.length);
        for (Tensor argument : arguments) Values.requireConcrete("compiled function", argument);
        String key = key(Arrays.stream(arguments).map(a -> a.dtype() + a.shape().toString()));
        CompletableFuture<Version> future, mine = new CompletableFuture<>();
        synchronized (entries) {
            future = function == null ? entries.get(key) : entries.putIfAbsent(key, mine);
            if (future == null && function == null)
                throw SmeltException.of("compiled function", "compiled from a graph for arguments (%s) only, but called with (%s)", String.join("; ", entries.keySet()), key);
            if (future == null) future = mine;
        }
        if (future == mine) {
            try {
                Traced traced = Dump.after("transform", transform.apply(Dump.after("trace", Jit.trace(function, List.of(arguments)))));
                mine.complete(Version.of(traced, fusion));
            } catch (RuntimeException | Error e) {
                synchronized (entries) { entries.remove(key); }
                mine.completeExceptionally(e);
                throw e;
            }
        }
        Version entry = future.join();
        last = entry;
        return entry;
    }

    private static String key(java.util.stream.Stream<String> types) { return types.collect(Collectors.joining(",")); }

}
