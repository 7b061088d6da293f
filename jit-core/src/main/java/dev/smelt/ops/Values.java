// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import dev.smelt.ir.SmeltException;
import dev.smelt.ir.Storage;
import dev.smelt.trace.Tracer;

/// Reading a concrete tensor's values back into Java. A traced tensor has no values: asking for
/// them is the data-dependent control flow a trace cannot record, and is refused with that reason.
public final class Values {
    private Values() {}

    public static double get(Value x, int... index) { return x.storage().get(position("get", x, index)); }

    /// Stores `value`, rounded to the dtype, in place: compiled functions that read `x` see it at
    /// their next call, as they see weights an optimizer updated.
    public static void set(Value x, double value, int... index) {
        Formats.requireWritable("set", x);
        int at = position("set", x, index);
        requireNotTracing("set", x);
        x.storage().set(at, value);
    }

    // Where element `index` of `x` lives in its storage.
    private static int position(String op, Value x, int[] index) {
        if (index == null) throw SmeltException.of(op, "the index is null");
        requireConcrete(op, x);
        if (index.length != x.rank())
            throw SmeltException.of(op, "index %s has %d entries but the tensor %s has %d axes", java.util.Arrays.toString(index), index.length, x.shape(), x.rank());
        int position = x.offset();
        for (int axis = 0; axis < index.length; axis++) {
            int size = x.shape().dim(axis), i = index[axis] < 0 ? index[axis] + size : index[axis];
            if (i < 0 || i >= size)
                throw SmeltException.of(op, "index %d is out of range for axis %d of %s", index[axis], axis, x.shape());
            position += i * x.strides()[axis];
        }
        return position;
    }

    public static double item(Value x) {
        requireConcrete("item", x);
        if (x.size() != 1) throw SmeltException.of("item", "needs a tensor with one element, not %s", x.shape());
        return Dispatch.dense(x).get(0);
    }

    public static float[] floats(Value x) {
        Storage dense = dense("toFloatArray", x);
        if (dense.dtype() == DType.F32) return dense.floats().clone();
        float[] values = new float[dense.size()];
        for (int i = 0; i < values.length; i++) values[i] = (float) dense.get(i);
        return values;
    }

    public static double[] doubles(Value x) {
        Storage dense = dense("toDoubleArray", x);
        double[] values = new double[dense.size()];
        for (int i = 0; i < values.length; i++) values[i] = dense.get(i);
        return values;
    }

    /// Only from `i32` or `bool`: truncating floats silently is how wrong answers start.
    public static int[] ints(Value x) {
        Storage dense = dense("toIntArray", x);
        if (dense.dtype().isFloating()) throw SmeltException.of("toIntArray", "the tensor is %s; convert it with .to(DType.I32) first", dense.dtype());
        int[] values = new int[dense.size()];
        for (int i = 0; i < values.length; i++) values[i] = (int) dense.get(i);
        return values;
    }

    public static boolean[] booleans(Value x) {
        Storage dense = dense("toBooleanArray", x);
        if (dense.dtype() != DType.BOOL) throw SmeltException.of("toBooleanArray", "the tensor is %s, not bool; compare it first (for example x.ne(0))", dense.dtype());
        boolean[] values = new boolean[dense.size()];
        for (int i = 0; i < values.length; i++) values[i] = dense.get(i) != 0;
        return values;
    }

    public static boolean allClose(Value a, Value b, double rtol, double atol, boolean equalNan) {
        Ops.nonNull("allClose", a, b);
        if (!(rtol >= 0) || !(atol >= 0)) // NaN too: it would silently make only equal values close
            throw SmeltException.of("allClose", "tolerances must be ≥ 0, got rtol %s and atol %s", rtol, atol);
        requireConcrete("allClose", a);
        requireConcrete("allClose", b);
        Shape shape = Builder.broadcastShapes("allClose", a.shape(), b.shape());
        // Not broadcastTo: inside a trace it would record, although both tensors are concrete.
        Storage left = Dispatch.dense(Views.expandConcrete(a, shape)), right = Dispatch.dense(Views.expandConcrete(b, shape));
        for (int i = 0; i < left.size(); i++)
            if (!close(left.get(i), right.get(i), rtol, atol, equalNan)) return false;
        return true;
    }

    private static boolean close(double a, double b, double rtol, double atol, boolean equalNan) {
        if (Double.isNaN(a) || Double.isNaN(b)) return equalNan && Double.isNaN(a) && Double.isNaN(b);
        if (a == b) return true; // also equal infinities
        // An infinite error is never close, even though rtol·|b| is infinite when b is (as torch.isclose).
        double error = Math.abs(a - b);
        return Double.isFinite(error) && error <= atol + rtol * Math.abs(b);
    }

    private static Storage dense(String op, Value x) {
        requireConcrete(op, x);
        return Dispatch.dense(x);
    }

    public static void requireConcrete(String op, Value x) {
        if (x == null) throw SmeltException.of(op, "argument 0 is null"); // as Ops.nonNull words it, without a varargs array per call
        if (x.isTraced())
            throw SmeltException.of(op, "cannot read the values of a traced tensor %s%s: a trace records operations, not data, so Java control flow cannot depend on tensor values; use Tensor.where for data-dependent choices", x.dtype(), x.shape());
    }

    /// Refuses to write into concrete `x` while a function is traced: the trace records operations,
    /// so the write would happen once, when tracing, and no compiled call would repeat it.
    public static void requireNotTracing(String op, Value x) {
        if (Tracer.CURRENT.isBound())
            throw SmeltException.of(op, "cannot write into the tensor %s%s while a function is traced: the write would happen once, when tracing, not at each call; return the new values and write them after the call (Compiled.applyUpdating writes them in place)", x.dtype(), x.shape());
    }

}
