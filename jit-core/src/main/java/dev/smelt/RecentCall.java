// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.ir.Shape;
import dev.smelt.ir.Storage;
import dev.smelt.ops.Calls;
import dev.smelt.ops.Dispatch;
import dev.smelt.ops.Value;
import java.util.ArrayList;
import java.util.List;

/// The signature of the latest call and its program, with the results' shapes and strides: a
/// call whose tensors have the same dtypes and shapes runs it without building a signature,
/// locking the cache or working out strides, which cost a tiny function more than its kernels.
final class RecentCall {
    private final Compiled.Version version;
    private final Shape[] shapes;
    private final int[][] strides; // shared by every result tensor: tensors never write their strides
    // The signature's arguments as arrays (null where one is not a tensor), and each tensor
    // argument's element count and dense strides, so a call checks them without boxing.
    private final Signature.TensorType[] types;
    private final int[] sizes;
    private final int[][] denseStrides;

    RecentCall(Signature signature, Compiled.Version version) {
        this.version = version;
        // Loops, not streams: each lambda is a bootstrap on a fresh JVM's first call.
        var outputs = version.traced().graph().outputs();
        this.shapes = new Shape[outputs.size()];
        this.strides = new int[shapes.length][];
        for (int i = 0; i < shapes.length; i++) {
            shapes[i] = outputs.get(i).shape();
            strides[i] = shapes[i].contiguousStrides();
        }
        int count = signature.arguments().size();
        this.types = new Signature.TensorType[count];
        this.sizes = new int[count];
        this.denseStrides = new int[count][];
        for (int i = 0; i < count; i++) {
            types[i] = signature.arguments().get(i) instanceof Signature.TensorType type ? type : null;
            sizes[i] = types[i] == null ? -1 : types[i].shape().size();
            denseStrides[i] = types[i] == null ? null : types[i].shape().contiguousStrides();
        }
    }

    boolean matches(Tensor[] arguments) {
        if (arguments == null || arguments.length != types.length) return false;
        for (int i = 0; i < arguments.length; i++)
            if (!matches(arguments[i], i)) return false;
        return true;
    }

    private boolean matches(Tensor argument, int i) {
        if (argument == null) return false;
        Value value = argument.value();
        var type = types[i];
        return type != null && !value.isTraced() && value.dtype() == type.dtype()
                && (value.shape() == type.shape() || value.shape().equals(type.shape()));
    }

    /// The result of a one-result function, or null when `arguments` do not match: one pass
    /// over them both checks and binds them, as [#matches] then a call would.
    Tensor first(Tensor[] arguments) {
        var program = version.program();
        // An argument returned unchanged is its storage, which only the full call binds.
        if (arguments == null || arguments.length != types.length || program.returnsAnInput(0)) return null;
        var buffers = program.newBuffers();
        for (int i = 0; i < arguments.length; i++) {
            Tensor argument = arguments[i];
            if (!matches(argument, i)) return null;
            buffers[program.inputBuffer(i)] = Calls.inputArray(program, i, argument.value(), sizes[i], denseStrides[i]);
        }
        var captures = version.traced().callCaptures();
        for (int i = 0; i < captures.size(); i++) buffers[program.inputBuffer(arguments.length + i)] = program.inputArray(arguments.length + i, Dispatch.dense(captures.get(i).value()));
        return new Tensor(new Value(Storage.wrapArray(Calls.runOne(program, buffers)), shapes[0], strides[0], 0));
    }

    /// The results of a function of several, whose `arguments` [#matches] has checked.
    List<Tensor> run(Tensor[] arguments) {
        var results = Calls.run(version.program(), version.inputs(arguments), null);
        var tensors = new ArrayList<Tensor>(results.size());
        for (int i = 0; i < results.size(); i++) tensors.add(new Tensor(new Value(results.get(i), shapes[i], strides[i], 0)));
        return tensors;
    }

    /// The program this call's signature runs.
    Compiled.Version version() { return version; }

    /// How many results the function returns.
    int results() { return shapes.length; }
}
