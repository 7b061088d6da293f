// SPDX-License-Identifier: Apache-2.0
package dev.smelt.trace;

import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Interner;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/// Records the nodes a traced function builds. The tracer of the running trace is bound to
/// [#CURRENT]; tensor operations consult it to record instead of compute.
///
/// Nodes are hash-consed: recording a node equal to an earlier one (same operator and attributes
/// over the same operands) returns the earlier instance, so equal subgraphs are one node.
/// Concrete values the function reads (weights in fields, tensors in closures) become graph inputs,
/// one per distinct source object, so later updates to them need no retrace.
public final class Tracer {
    /// The trace being recorded on this thread, if any. A [ScopedValue], so nested and concurrent
    /// traces cannot leak into each other.
    public static final ScopedValue<Tracer> CURRENT = ScopedValue.newInstance();

    private final List<Node.Input> inputs = new ArrayList<>();
    private final List<Object> sources = new ArrayList<>();
    private final Map<Object, Node.Input> captured = new IdentityHashMap<>();
    private final Set<Object> madeHere = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Interner interned = new Interner();
    private boolean finished;

    /// A new input slot for a function argument of the given type.
    public Node.Input argument(Shape shape, DType dtype, Object source) {
        var input = new Node.Input(inputs.size(), shape, dtype);
        inputs.add(input);
        sources.add(source);
        captured.put(source, input);
        return input;
    }

    /// The input slot for a concrete value the function reads: the same slot each time the same
    /// `source` object is read.
    public Node.Input capture(Object source, Shape shape, DType dtype) {
        var known = captured.get(source);
        return known != null ? known : argument(shape, dtype, source);
    }

    /// The input slot for `key` (a storage whose views the function reads: one slot however many
    /// views), filled by the concrete value `source` makes the first time `key` is read.
    public Node.Input capture(Object key, Supplier<Object> source, Shape shape, DType dtype) {
        var known = captured.get(key);
        if (known != null) return known;
        var input = argument(shape, dtype, source.get());
        captured.put(key, input);
        return input;
    }

    /// Notes a random generator's stream made while this trace runs: the function makes it afresh
    /// on every call, so its draws are the same on every call.
    public void madeHere(Object stream) { madeHere.add(stream); }

    /// Whether `stream` was made while this trace runs ([#madeHere]).
    public boolean isMadeHere(Object stream) { return madeHere.contains(stream); }

    /// `node`, or the equal node recorded before it.
    public Node record(Node node) {
        if (finished) throw new IllegalStateException("this trace has finished; its tensors cannot be used any more");
        return interned.intern(node);
    }

    /// The source objects of the inputs, in slot order: the arguments, then each capture.
    public List<Object> sources() { return List.copyOf(sources); }

    public boolean isFinished() { return finished; }

    /// Ends the trace and returns the graph computing `outputs`.
    public Graph finish(List<Node> outputs) {
        finished = true;
        return new Graph(inputs, outputs);
    }
}
