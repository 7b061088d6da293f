// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;
import dev.smelt.ir.Storage;

/// Copying a concrete tensor's values in and out. Writing is in place, as [Values#set] does one element: through the
/// tensor's shape, strides and offset, into the storage it shares with its views. A compiled
/// function or training step that reads the tensor (a captured weight, a parameter) reads its
/// storage afresh at each call, so it sees the new values at its next call without recompiling.
///
/// Values keep their bits: a copy between tensors or from an array of the tensor's own type moves
/// bits (NaN payloads, -0.0, subnormals), never values through a wider type.
public final class Copies {
    private Copies() {}

    public static Value copyFrom(Value target, Value source) {
        if (source == null) throw SmeltException.of("copyFrom", "the source tensor is null");
        requireWritable(target);
        Values.requireConcrete("copyFrom", source);
        if (!source.shape().equals(target.shape()))
            throw SmeltException.of("copyFrom", "the source is %s%s but the tensor is %s%s; expected the same shape (reshape the source first)", source.dtype(), source.shape(), target.dtype(), target.shape());
        if (source.dtype() != target.dtype())
            throw SmeltException.of("copyFrom", "the source is %s%s but the tensor is %s%s; convert it first with .to(DType.%s)", source.dtype(), source.shape(), target.dtype(), target.shape(), target.dtype().name());
        // A source over the target's own storage (itself, or a transpose of it) is read whole
        // before any element is written.
        return write("copyFrom", target, source.storage() == target.storage() ? copyOf(source) : dense(source));
    }

    /// From floats: into `f32` bit for bit, into `f64` exactly.
    public static Value copyFrom(Value target, float[] values) {
        DType dtype = checkArray(target, values == null ? -1 : values.length, "float[]", DType.F32, DType.F64);
        if (dtype == DType.F32) return write("copyFrom", target, values);
        double[] widened = new double[values.length];
        for (int i = 0; i < values.length; i++) widened[i] = values[i];
        return write("copyFrom", target, widened);
    }

    /// From doubles: into `f64` only, since rounding to `f32` would change the values.
    public static Value copyFrom(Value target, double[] values) {
        checkArray(target, values == null ? -1 : values.length, "double[]", DType.F64, DType.F64);
        return write("copyFrom", target, values);
    }

    /// From ints: into `i32`, or into `f64`, which holds every int exactly (`f32` does not).
    public static Value copyFrom(Value target, int[] values) {
        DType dtype = checkArray(target, values == null ? -1 : values.length, "int[]", DType.I32, DType.F64);
        if (dtype == DType.I32) return write("copyFrom", target, values);
        double[] widened = new double[values.length];
        for (int i = 0; i < values.length; i++) widened[i] = values[i];
        return write("copyFrom", target, widened);
    }

    public static Value copyFrom(Value target, boolean[] values) {
        checkArray(target, values == null ? -1 : values.length, "boolean[]", DType.BOOL, DType.BOOL);
        return write("copyFrom", target, Creation.bools(values).array());
    }

    // The target's dtype, after checking that it is concrete, writable, one of the dtypes the
    // array converts to exactly, and has `length` elements (-1: the array is null).
    private static DType checkArray(Value target, int length, String type, DType exact, DType widened) {
        if (length < 0) throw SmeltException.of("copyFrom", "the %s is null", type);
        requireWritable(target);
        DType dtype = target.dtype();
        if (dtype != exact && dtype != widened)
            throw SmeltException.of("copyFrom", "a %s cannot be written into a %s tensor without changing values; expected a tensor of %s%s (or copy from a tensor converted with .to(DType.%s))",
                    type, dtype, exact, exact == widened ? "" : " or " + widened, dtype.name());
        if (length != target.size())
            throw SmeltException.of("copyFrom", "%d values cannot fill the tensor %s%s (%d elements)", length, dtype, target.shape(), target.size());
        return dtype;
    }

    private static void requireWritable(Value target) {
        if (target.isTraced())
            throw SmeltException.of("copyFrom", "cannot write into a traced tensor %s%s: a trace records operations, not data; write into concrete tensors outside the traced function, or return the new values",
                    target.dtype(), target.shape());
        Formats.requireWritable("copyFrom", target);
    }

    // Writes `values`, a dense row-major array of the target's dtype and size, through its strides.
    private static Value write(String op, Value target, Object values) {
        Values.requireNotTracing(op, target);
        int[] strides = target.strides();
        for (int axis = 0; axis < target.rank(); axis++)
            if (strides[axis] == 0 && target.shape().dim(axis) > 1)
                throw SmeltException.of(op, "the tensor %s%s is a broadcast view (stride 0 on axis %d): several of its elements are one storage slot; write into the tensor it was expanded from",
                        target.dtype(), target.shape(), axis);
        Object array = target.storage().array();
        if (Views.isDense(target)) {
            System.arraycopy(values, 0, array, 0, target.size());
            return target;
        }
        var walk = new StridedWalk(target.shape(), strides, target.offset());
        int size = target.size();
        switch (values) {
            case float[] from -> { float[] to = (float[]) array; for (int i = 0; i < size; i++) to[walk.next()] = from[i]; }
            case double[] from -> { double[] to = (double[]) array; for (int i = 0; i < size; i++) to[walk.next()] = from[i]; }
            case int[] from -> { int[] to = (int[]) array; for (int i = 0; i < size; i++) to[walk.next()] = from[i]; }
            case byte[] from -> { byte[] to = (byte[]) array; for (int i = 0; i < size; i++) to[walk.next()] = from[i]; }
            default -> throw new IllegalArgumentException("not a tensor array: " + values.getClass());
        }
        return target;
    }

    /// The elements of concrete `x` as a dense row-major array of its dtype: its own storage's array
    /// when already so laid out (not a copy: callers only read it), else a copy moving bits, where
    /// [Dispatch#dense] moves values through doubles.
    public static Object dense(Value x) {
        Storage storage = x.storage();
        if (Views.isDense(x)) return storage.array();
        var walk = new StridedWalk(x.shape(), x.strides(), x.offset());
        int size = x.size();
        Object copy = Storage.newArray(x.dtype(), size);
        switch (storage.array()) {
            case float[] from -> { float[] to = (float[]) copy; for (int i = 0; i < size; i++) to[i] = from[walk.next()]; }
            case double[] from -> { double[] to = (double[]) copy; for (int i = 0; i < size; i++) to[i] = from[walk.next()]; }
            case int[] from -> { int[] to = (int[]) copy; for (int i = 0; i < size; i++) to[i] = from[walk.next()]; }
            case byte[] from -> { byte[] to = (byte[]) copy; for (int i = 0; i < size; i++) to[i] = from[walk.next()]; }
            default -> throw new IllegalArgumentException("not a tensor array: " + storage.array().getClass());
        }
        return copy;
    }

    // A dense copy that shares nothing with `x`.
    private static Object copyOf(Value x) {
        Object dense = dense(x);
        if (dense != x.storage().array()) return dense;
        Object copy = Storage.newArray(x.dtype(), x.size());
        System.arraycopy(dense, 0, copy, 0, x.size());
        return copy;
    }
}
