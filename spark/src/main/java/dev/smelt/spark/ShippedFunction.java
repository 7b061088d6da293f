// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import dev.smelt.Jit;
import dev.smelt.SafeTensors;
import dev.smelt.Tensor;
import dev.smelt.Traced;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Parser;
import dev.smelt.ir.SmeltException;
import java.io.Serial;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/// A compiled function as data, to send to JVMs that do not have the Java code that made it: its
/// graph as text (with the batch size left open where the function is batched), how many of the
/// graph's inputs are arguments, and the tensors it read (its weights) as safetensors bytes under
/// their names. An executor parses and compiles it once per batch size ([Executables]); the
/// text and bytes are checked here, on the driver, before anything is sent, so that a malformed
/// or mismatched description is an error where the job is submitted, not a task that fails and
/// is retried on every executor.
///
/// Serializable (Java serialization, as Spark's broadcasts and closures use); [#id] is a SHA-256
/// of everything, the key under which executors cache it.
public final class ShippedFunction implements Serializable {
    @Serial private static final long serialVersionUID = 1L;
    /// The description's format: an executor refuses another, as its graph text may not parse.
    public static final int FORMAT = 1;
    // Two batch sizes to trace at: primes, so that no other dimension is easily mistaken for a multiple.
    private static final int B1 = 1009, B2 = 1013;

    private final int format;
    private final String graph;
    private final int arguments;
    private final List<String> captureNames;
    private final byte[] weights;
    private final String id;

    ShippedFunction(int format, String graph, int arguments, List<String> captureNames, byte[] weights) {
        this.format = format;
        this.graph = graph;
        this.arguments = arguments;
        this.captureNames = List.copyOf(captureNames);
        this.weights = weights;
        this.id = digest(format, graph, arguments, captureNames, weights);
    }

    /// `function` of a batch of rows, each `features` floats (an `f32[n, features]` argument), whose
    /// results have the batch as axis 0: the usual model's `forward`. Each row's result must depend
    /// on that row only (no mean over the batch), as batches of any size run the same program.
    public static ShippedFunction batched(Jit.Function1 function, int features) {
        if (function == null) throw SmeltException.of("ShippedFunction.batched", "the function is null");
        if (features < 1) throw SmeltException.of("ShippedFunction.batched", "a row needs at least one feature, not %d", features);
        return batched(args -> List.of(function.apply(args.getFirst())), List.of(Tensor.zeros(1, features)));
    }

    /// `function` of batches of rows shaped like `rows` (one example each, shape `[1, …]`): each
    /// argument's axis 0 is the batch, which every call may size anew.
    public static ShippedFunction batched(Jit.FunctionN function, List<Tensor> rows) {
        String op = "ShippedFunction.batched";
        if (function == null || rows == null || rows.isEmpty() || rows.stream().anyMatch(java.util.Objects::isNull))
            throw SmeltException.of(op, "needs a function and at least one example row, got %s and %s", function, rows);
        for (Tensor row : rows)
            if (row.rank() < 1 || row.shape().dim(0) != 1) throw SmeltException.of(op, "an example row has shape [1, …], not %s", row.shape());
        Traced first = Jit.trace(function, withBatch(rows, B1)), second = Jit.trace(function, withBatch(rows, B2));
        String template = BatchTemplate.of(op, first.graph().toString(), B1, second.graph().toString(), B2);
        return validated(op, of(template, first));
    }

    /// The trace `traced` exactly as it is, its shapes fixed: what a data-parallel training step
    /// ships. `names` names the captures it knows (the parameters); the others are `capture.<i>`.
    static ShippedFunction fixed(Traced traced, Map<String, Tensor> names) {
        var byTensor = new IdentityHashMap<Tensor, String>();
        names.forEach((name, tensor) -> byTensor.put(tensor, name));
        var captureNames = new ArrayList<String>();
        var tensors = new LinkedHashMap<String, Tensor>();
        for (int i = 0; i < traced.captures().size(); i++) {
            Tensor capture = traced.captures().get(i);
            String name = byTensor.get(capture);
            if (name == null || tensors.containsKey(name)) name = "capture." + i;
            tensors.put(name, capture);
            captureNames.add(name);
        }
        return validated("ShippedFunction", new ShippedFunction(FORMAT, traced.graph().toString(), traced.arguments(), captureNames, SafeTensors.bytes(tensors)));
    }

    private static ShippedFunction of(String template, Traced traced) {
        if (!traced.draws().isEmpty())
            throw SmeltException.of("ShippedFunction", "the function draws random numbers (%d draws), whose generator state cannot be shipped; trace it without dropout or sampling", traced.draws().size());
        var tensors = new LinkedHashMap<String, Tensor>();
        var names = new ArrayList<String>();
        for (int i = 0; i < traced.captures().size(); i++) {
            names.add("capture." + i);
            tensors.put("capture." + i, traced.captures().get(i));
        }
        return new ShippedFunction(FORMAT, template, traced.arguments(), names, SafeTensors.bytes(tensors));
    }

    /// `function` if it reads back: its format is this one, and its graph parses at two batch
    /// sizes with its weights filling the inputs after the arguments.
    private static ShippedFunction validated(String op, ShippedFunction function) {
        function.validate(op);
        return function;
    }

    /// Checks, on the driver, what an executor will do with it: format, graph text and weights.
    /// Throws [SmeltException] saying what is wrong.
    public void validate(String op) {
        if (format != FORMAT)
            throw SmeltException.of(op, "the function was described in format %d, but this Smelt reads format %d; describe it again with this version", format, FORMAT);
        traced(1);
        if (isBatched()) traced(2);
    }

    /// Whether calls may size axis 0 of the arguments freely ([#batched]); a [#fixed] function takes
    /// only the shapes it was traced with.
    public boolean isBatched() { return BatchTemplate.isBatched(graph); }

    /// The SHA-256 of the whole description in hexadecimal: equal descriptions, equal ids.
    public String id() { return id; }

    /// How many of the graph's inputs are arguments (the rest are the weights).
    public int arguments() { return arguments; }

    /// The graph text for batch size `batch` (the traced shapes for a fixed function).
    public String graph(int batch) { return BatchTemplate.instantiate(graph, batch); }

    /// The weights under their names, new tensors each call: a replica's own copy.
    public Map<String, Tensor> weights() { return SafeTensors.fromBytes(weights); }

    /// The names of the captures, in the order of the graph's inputs after the arguments.
    public List<String> captureNames() { return captureNames; }

    /// The trace for batch size `batch`, its captures new tensors from [#weights].
    Traced traced(int batch) { return traced(batch, weights()); }

    /// The trace for batch size `batch`, reading `weights` (by name) as its captures.
    Traced traced(int batch, Map<String, Tensor> weights) {
        Graph parsed;
        try {
            parsed = Parser.parse(graph(batch));
        } catch (IllegalArgumentException e) {
            throw SmeltException.of("ShippedFunction", "the graph text does not parse at batch size %d: %s", batch, e.getMessage());
        }
        var captures = new ArrayList<Tensor>();
        for (String name : captureNames) {
            Tensor tensor = weights.get(name);
            if (tensor == null) throw SmeltException.of("ShippedFunction", "the graph reads weight %s, which is not among the weights %s", name, weights.keySet());
            captures.add(tensor);
        }
        return new Traced(parsed, arguments, captures);
    }

    private static List<Tensor> withBatch(List<Tensor> rows, int batch) {
        return rows.stream().map(row -> {
            int[] dims = row.shape().toArray();
            dims[0] = batch;
            return Tensor.zeros(row.dtype(), dims);
        }).toList();
    }

    private static String digest(int format, String graph, int arguments, List<String> names, byte[] weights) {
        try {
            var sha = MessageDigest.getInstance("SHA-256");
            sha.update((format + "\n" + arguments + "\n" + names + "\n" + graph).getBytes(StandardCharsets.UTF_8));
            sha.update(weights);
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /// `ShippedFunction[3f2a…, 1 argument, batched, 2 weights, 203 KiB]`.
    @Override
    public String toString() {
        return "ShippedFunction[%s…, %d argument%s, %s, %d weights, %d KiB]".formatted(id.substring(0, 8), arguments, arguments == 1 ? "" : "s",
                isBatched() ? "batched" : "fixed shapes", captureNames.size(), weights.length / 1024);
    }

    /// Refuses a description whose fields are absent, as a corrupted stream would leave them.
    @Serial
    private Object readResolve() {
        if (graph == null || captureNames == null || weights == null || id == null)
            throw SmeltException.of("ShippedFunction", "the description arrived incomplete (graph, names, weights or id missing)");
        return this;
    }
}
