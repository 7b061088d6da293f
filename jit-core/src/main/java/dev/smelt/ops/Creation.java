// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Distribution;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import dev.smelt.ir.SmeltException;
import dev.smelt.ir.Storage;
import dev.smelt.trace.Tracer;
import java.util.Arrays;
import java.util.List;

/// Tensor factories. `full`, `arange` and `linspace` are graph nodes, so inside a trace they are
/// constants the compiler can fold; random tensors are graph nodes too, drawn afresh on each call;
/// arrays are concrete data, captured as inputs.
public final class Creation {
    private Creation() {}

    public static Value full(DType dtype, double value, int... dims) {
        Shape shape = shape("full", dims);
        if (dtype == null) throw SmeltException.of("full", "dtype is null");
        return Dispatch.apply("full", List.of(), (b, in) -> b.constant(value, shape, dtype));
    }

    /// `start + i·step` for `i < ⌈(end - start) / step⌉`, in `i32`.
    public static Value arange(int start, int end, int step) {
        long count = count("arange", start, end, step);
        return Dispatch.apply("arange", List.of(), (b, in) -> affine(b, Shape.of((int) count), DType.I32, start, step, DType.I32));
    }

    /// The same in `f32`, computed in double and rounded once, as PyTorch does.
    public static Value arange(double start, double end, double step) {
        long count = count("arange", start, end, step);
        return Dispatch.apply("arange", List.of(), (b, in) -> b.cast(affine(b, Shape.of((int) count), DType.F64, start, step, DType.F64), DType.F32));
    }

    private static long count(String op, double start, double end, double step) {
        if (!Double.isFinite(start) || !Double.isFinite(end) || !Double.isFinite(step) || step == 0 || (end - start) * step < 0)
            throw SmeltException.of(op, "cannot step from %s to %s by %s; expected finite bounds and a non-zero step towards the end", start, end, step);
        double count = Math.ceil((end - start) / step);
        if (count > Value.MAX_SIZE) throw SmeltException.of(op, "from %s to %s by %s gives %.0f elements; a tensor holds at most Tensor.MAX_SIZE = %d", start, end, step, count, Value.MAX_SIZE);
        return (long) count;
    }

    // start + iota · step
    private static Node affine(Builder b, Shape shape, DType iotaType, double start, double step, DType dtype) {
        Node scaled = b.binary(BinaryOp.MUL, b.iota(shape, 0, iotaType), b.constant(step, shape, dtype));
        return b.binary(BinaryOp.ADD, scaled, b.constant(start, shape, dtype));
    }

    /// PyTorch's symmetric form: the first half counts up from `start`, the second down from `end`,
    /// so both end points are exact.
    public static Value linspace(double start, double end, int steps) {
        if (steps < 0 || steps > Value.MAX_SIZE || !Double.isFinite(start) || !Double.isFinite(end))
            throw SmeltException.of("linspace", "needs finite bounds and 0 ≤ steps ≤ Tensor.MAX_SIZE = %d, got %s, %s, %d", Value.MAX_SIZE, start, end, steps);
        double step = steps > 1 ? (end - start) / (steps - 1) : 0;
        Shape shape = Shape.of(steps);
        return Dispatch.apply("linspace", List.of(), (b, in) -> {
            Node index = b.iota(shape, 0, DType.F64);
            Node up = affine(b, shape, DType.F64, start, step, DType.F64);
            Node fromEnd = b.binary(BinaryOp.SUB, b.constant(steps - 1, shape, DType.F64), index);
            Node down = b.binary(BinaryOp.SUB, b.constant(end, shape, DType.F64), b.binary(BinaryOp.MUL, fromEnd, b.constant(step, shape, DType.F64)));
            // At least one element counts up, so a single step is the start, as in PyTorch and NumPy.
            Node firstHalf = b.binary(BinaryOp.LT, index, b.constant(Math.max(1, steps / 2), shape, DType.F64));
            return b.cast(b.where(firstHalf, up, down), DType.F32);
        });
    }

    public static Value of(Storage storage, int... dims) {
        Shape shape = dims != null && dims.length == 0 ? Shape.of(storage.size()) : shape("of", dims);
        if (shape.size() != storage.size())
            throw SmeltException.of("of", "%d values cannot fill shape %s (%d elements)", storage.size(), shape, shape.size());
        return Value.dense(storage, shape);
    }

    /// `data` itself, checked before [Tensor#of] copies it.
    public static <T> T data(T data) {
        if (data == null) throw SmeltException.of("of", "data is null");
        return data;
    }

    public static Storage bools(boolean[] data) {
        byte[] bytes = new byte[data.length];
        for (int i = 0; i < data.length; i++) bytes[i] = (byte) (data[i] ? 1 : 0);
        return Storage.wrapBool(bytes);
    }

    /// Eagerly, the next draws of `generator`. Inside a trace, a [Node.Random] whose key is a
    /// capture the compiled function fills in for each call ([Traced#callCaptures]), starting after
    /// the draws this trace took from `generator` before; but a generator the function made itself
    /// is made afresh by every eager call, which then draws the same values, so its key is a
    /// constant capture and the generator advances now, as eagerly.
    public static Value random(RandomStream generator, Distribution distribution, DType dtype, int... dims) {
        String op = distribution.toString();
        Ops.nonNull(op, generator, dtype);
        if (!dtype.isFloating()) throw SmeltException.of(op, "needs a float dtype, not %s", dtype);
        Shape shape = shape(op, dims);
        if (Tracer.CURRENT.isBound()) {
            Tracer tracer = Tracer.CURRENT.get();
            long draws = distribution.draws(shape.size());
            Object source = tracer.isMadeHere(generator) ? generator.key(generator.advance(draws)) : new Draw(generator, drawnBefore(tracer, generator), draws);
            Node key = tracer.capture(source, Shape.of(2), DType.I32);
            return new Value(tracer.record(new Node.Random(distribution, key, shape, dtype)), tracer);
        }
        Storage storage = Storage.allocate(dtype, shape.size());
        double[] values = generator.sample(distribution, shape.size(), dtype);
        for (int i = 0; i < values.length; i++) storage.set(i, values[i]);
        return Value.dense(storage, shape);
    }

    /// What a trace captures for a random tensor: [Jit#trace] turns it into a [Traced.Draw].
    public record Draw(RandomStream stream, long offset, long count) {}

    /// The draws this trace has taken from `generator` so far.
    private static long drawnBefore(Tracer tracer, RandomStream generator) {
        long drawn = 0;
        for (Object source : tracer.sources())
            if (source instanceof Draw draw && draw.stream() == generator) drawn += draw.count();
        return drawn;
    }

    static Shape shape(String op, int... dims) {
        if (dims == null) throw SmeltException.of(op, "shape is null");
        for (int dim : dims)
            if (dim < 0) throw SmeltException.of(op, "shape %s has a negative size", Arrays.toString(dims));
        List<Integer> list = Arrays.stream(dims).boxed().toList();
        if (Builder.count(list) > Value.MAX_SIZE) throw Builder.tooLarge(op, list, "");
        try {
            return new Shape(list);
        } catch (ArithmeticException overflow) { // a size 0 after sizes whose product passes 2^63
            throw SmeltException.of(op, "shape %s has 0 elements, but the product of its leading sizes overflows a long", list);
        }
    }
}
