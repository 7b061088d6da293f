// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.driver.Pipeline;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import dev.smelt.ir.SmeltException;
import dev.smelt.ir.Storage;
import dev.smelt.trace.Tracer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/// Runs an operation either way: inside a trace (one is bound, or an operand is traced) it records
/// the nodes; otherwise it records them into a one-op graph and evaluates that at once. So eager
/// and traced code share every shape rule; eager ops run as generated kernels, one per op.
public final class Dispatch {
    private Dispatch() {}

    /// Builds an operation's nodes over its operands' nodes.
    interface Op {
        Node build(Builder builder, List<Node> operands);
    }

    /// `op`, the operation named `name` in errors, over `operands`.
    static Value apply(String name, List<Value> operands, Op op) {
        Calls.requireVectorApi(name);
        Tracer tracer = recordingTracer(operands);
        if (tracer != null) {
            List<Node> inputs = nodes(tracer, operands, true);
            return new Value(op.build(new Builder(tracer, name, inputs), inputs), tracer);
        }
        var local = new Tracer();
        List<Node> inputs = nodes(local, operands, false);
        Node output = op.build(new Builder(local, name, inputs), inputs);
        int same = inputs.indexOf(output);
        if (same >= 0 && output instanceof Node.Input) return operands.get(same);
        var graph = local.finish(List.of(output));
        // No elements, nothing to compute: no kernel, whose loops a [0, 2^31-1] space would overflow.
        if (output.shape().count() == 0) return Value.dense(Storage.allocate(output.dtype(), 0), output.shape());
        // A constant (full, zeros, scalar, a hyper-parameter) is filled in place: a kernel per value
        // would define a class per distinct learning rate or bias correction.
        if (output instanceof Node.Constant constant)
            return Value.dense(Storage.filled(constant.dtype(), output.shape().size(), constant.value()), output.shape());
        var storages = local.sources().stream().map(source -> dense((Value) source)).toList();
        Storage result = Calls.run(Pipeline.eager(graph), storages, null).getFirst();
        return Value.dense(result, output.shape());
    }

    /// True when operations should record rather than compute.
    static boolean isRecording(List<Value> operands) { return recordingTracer(operands) != null; }

    /// The tracer to record into: the bound one, or that of a traced operand; null when eager.
    private static Tracer recordingTracer(List<Value> operands) {
        Tracer bound = Tracer.CURRENT.isBound() ? Tracer.CURRENT.get() : null;
        for (Value operand : operands) {
            Tracer owner = operand.tracer();
            if (owner == null) continue;
            if (owner.isFinished())
                throw SmeltException.of("trace", "a tensor of a finished trace was used; traced tensors live only inside their function");
            if (bound != null && owner != bound)
                throw SmeltException.of("trace", "a tensor of another trace was used; nested traces cannot share tensors");
            bound = owner;
        }
        return bound;
    }

    /// Each operand's node in `tracer`: its own if traced, else the input capturing it (in a
    /// function's trace, a contiguous view of part of a storage is read in place: [#inPlace]).
    private static List<Node> nodes(Tracer tracer, List<Value> operands, boolean function) {
        var nodes = new ArrayList<Node>();
        for (Value operand : operands) {
            if (operand.isTraced()) nodes.add(operand.node());
            else if (function && isPartOfStorage(operand)) nodes.add(inPlace(tracer, operand));
            else nodes.add(tracer.capture(operand, operand.shape(), operand.dtype()));
        }
        return nodes;
    }

    private static boolean isPartOfStorage(Value x) {
        return x.storage().packed() == null && x.size() > 0 && Views.isContiguous(x) && !Views.isDense(x);
    }

    // A compiled function reads a contiguous view (a block of a matrix's rows, a weight held in a
    // larger array) where it lies: the input is its whole storage (one per storage), and the view
    // a slice of that, which kernels fold into their indexing. Captured as itself, the view would
    // be copied into a dense array on every call (eager ops' one-op graphs keep doing so: an
    // offset in their graph would make a kernel per offset).
    private static Node inPlace(Tracer tracer, Value view) {
        Storage storage = view.storage();
        Shape whole = Shape.of(storage.size());
        var all = new Value(tracer.capture(storage, () -> Value.dense(storage, whole), whole, view.dtype()), tracer);
        return Views.reshape(Views.slice(all, 0, view.offset(), view.offset() + view.size(), 1), view.shape().toArray()).node();
    }

    /// The tensor's elements as a dense row-major storage: its own storage when already so laid
    /// out, else a copy.
    public static Storage dense(Value tensor) {
        if (tensor.isTraced()) throw SmeltException.of("values", "cannot read the values of a traced tensor %s%s", tensor.dtype(), tensor.shape());
        Storage storage = tensor.storage();
        if (Views.isDense(tensor)) return storage;
        Storage copy = Storage.allocate(tensor.dtype(), tensor.size());
        int rank = tensor.rank();
        if (rank > 0 && tensor.strides()[rank - 1] == 1 && storage.packed() == null) { // rows contiguous: a copy per row
            int[] dims = tensor.shape().toArray();
            int run = dims[rank - 1];
            Object from = storage.array(), to = copy.array();
            var rows = new StridedWalk(Shape.of(Arrays.copyOf(dims, rank - 1)), Arrays.copyOf(tensor.strides(), rank - 1), tensor.offset());
            for (int at = 0; at < copy.size(); at += run) System.arraycopy(from, rows.next(), to, at, run);
            return copy;
        }
        var walk = new StridedWalk(tensor.shape(), tensor.strides(), tensor.offset());
        for (int i = 0; i < copy.size(); i++) copy.set(i, storage.get(walk.next()));
        return copy;
    }
}
