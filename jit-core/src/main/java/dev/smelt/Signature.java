// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import java.util.ArrayList;
import java.util.List;

/// What selects a compiled program among a function's cached ones: for each argument, a tensor's
/// dtype and shape, or the value of a non-tensor argument (an `int`,
/// `double`, `boolean`, enum or string of a [Compile] method, which the trace bakes in). Two calls
/// with equal signatures run the same kernels.
public record Signature(List<Argument> arguments) {
    /// Copies `arguments`.
    public Signature {
        arguments = List.copyOf(arguments);
    }

    /// One argument's part of the signature.
    public sealed interface Argument {
        /// The argument's name in messages: the parameter name, or `argument <i>`.
        String name();
    }

    /// A tensor argument, known by type: its values never select a program. The extent of a
    /// dynamic axis ([Compiled#dynamic]) does not select one either: `shape` holds 0 there, and the
    /// type prints `f32[?,784]`.
    public record TensorType(String name, DType dtype, Shape shape, List<Integer> dynamicAxes) implements Argument {
        /// Sets the extents of `dynamicAxes` in `shape` to 0, so signatures differing only there are equal.
        public TensorType {
            dynamicAxes = List.copyOf(dynamicAxes);
            if (!dynamicAxes.isEmpty()) {
                var dims = new ArrayList<>(shape.dims());
                for (int axis : dynamicAxes) dims.set(axis, 0);
                shape = new Shape(dims);
            }
        }

        /// A tensor argument without dynamic axes.
        public TensorType(String name, DType dtype, Shape shape) { this(name, dtype, shape, List.of()); }

        /// `[?,784]`: the shape with each dynamic extent as `?`.
        public String dims() {
            var dims = new ArrayList<String>();
            for (int axis = 0; axis < shape.rank(); axis++) dims.add(dynamicAxes.contains(axis) ? "?" : String.valueOf(shape.dim(axis)));
            return "[" + String.join(",", dims) + "]";
        }

        // The record's equals and hashCode, written out: generated ones are bootstrapped on first
        // use, which a fresh JVM's first call pays for (a signature is hashed on every first call).
        @Override
        public boolean equals(Object o) {
            return o instanceof TensorType t && name.equals(t.name) && dtype == t.dtype && shape.equals(t.shape) && dynamicAxes.equals(t.dynamicAxes);
        }

        @Override
        public int hashCode() { return ((name.hashCode() * 31 + dtype.hashCode()) * 31 + shape.hashCode()) * 31 + dynamicAxes.hashCode(); }

        @Override
        public String toString() { return name + ": " + dtype + dims(); }
    }

    /// A non-tensor argument, known by value (boxed; a string or an enum constant).
    public record Value(String name, Object value) implements Argument {
        @Override
        public String toString() { return name + " = " + describe(value); }
    }

    /// One part of one argument that differs between two signatures, such as `shape [3,4] → [5,4]`.
    public record Change(int argument, String name, String part, String before, String after) {
        @Override
        public String toString() { return "%s: %s %s → %s".formatted(name, part, before, after); }
    }

    static Signature of(List<String> names, List<Object> arguments) {
        return of(names, arguments, DynamicDims.NONE, "");
    }

    /// The signature of `function`'s call with `arguments`, the extents of the `dynamic` axes left out.
    static Signature of(List<String> names, List<Object> arguments, DynamicDims dynamic, String function) {
        var parts = new ArrayList<Argument>();
        for (int i = 0; i < arguments.size(); i++) {
            var axes = dynamic.isEmpty() ? List.<Integer>of() : dynamic.of(function, names.get(i), i, arguments.get(i));
            parts.add(arguments.get(i) instanceof Tensor tensor
                    ? new TensorType(names.get(i), tensor.dtype(), tensor.shape(), axes)
                    : new Value(names.get(i), arguments.get(i)));
        }
        return new Signature(parts);
    }

    /// Whether some tensor has dynamic axes: then each concrete size gets its own program, under
    /// this one signature.
    boolean isDynamic() {
        for (Argument argument : arguments) if (argument instanceof TensorType type && !type.dynamicAxes().isEmpty()) return true;
        return false;
    }

    /// Every part of every argument that differs from `earlier`, in argument order.
    public List<Change> changesFrom(Signature earlier) {
        var changes = new ArrayList<Change>();
        for (int i = 0; i < arguments.size(); i++) {
            Argument now = arguments.get(i), before = earlier.arguments.get(i);
            switch (now) {
                case TensorType type -> {
                    String name = type.name();
                    var dtype = type.dtype();
                    if (!(before instanceof TensorType old)) {
                        changes.add(new Change(i, name, "kind", before.toString(), now.toString()));
                        continue;
                    }
                    if (old.dtype() != dtype) changes.add(new Change(i, name, "dtype", old.dtype().toString(), dtype.toString()));
                    if (!old.dims().equals(type.dims())) changes.add(new Change(i, name, "shape", old.dims(), type.dims())); // [?,4] → [?,5]
                }
                case Value(var name, var value) -> {
                    if (!(before instanceof Value(var _, var old))) changes.add(new Change(i, name, "kind", before.toString(), now.toString()));
                    else if (!old.equals(value)) changes.add(new Change(i, name, "value", describe(old), describe(value)));
                }
            }
        }
        return changes;
    }

    private static String describe(Object value) {
        return value instanceof String text ? '"' + text + '"' : String.valueOf(value);
    }

    // Written out, as TensorType's.
    @Override
    public boolean equals(Object o) { return o instanceof Signature s && arguments.equals(s.arguments); }

    @Override
    public int hashCode() { return arguments.hashCode(); }

    @Override
    public String toString() { return arguments.toString(); }
}
