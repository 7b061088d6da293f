// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Node;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.SmeltException;
import dev.smelt.ir.UnaryOp;
import java.util.List;

/// Reductions over axes. The IR's [Node.Reduce] keeps reduced axes with size 1; without keepDims a
/// reshape then drops them. Mean, variance and logsumexp are composites of sums and maxima.
public final class Reductions {
    private Reductions() {}

    public static Value reduce(ReduceOp op, Value x, int[] axes, boolean keepDims) {
        Ops.nonNull(op.toString(), x, axes);
        return Dispatch.apply(op.toString(), List.of(x), (b, in) -> reduce(b, op, in.getFirst(), Builder.axes(op.toString(), axes, x.rank()), keepDims));
    }

    /// `op` over `axes` of `x`. Sums and products of bool count in `i32`; max and min of bool stay bool.
    public static Node reduce(Builder b, ReduceOp op, Node x, List<Integer> axes, boolean keepDims) {
        requireElements(op.toString(), op, x.shape(), axes);
        Node operand = x.dtype() == DType.BOOL ? b.cast(x, DType.I32) : x;
        Node reduced = b.reduce(op, operand, axes);
        if (x.dtype() == DType.BOOL && (op == ReduceOp.MAX || op == ReduceOp.MIN)) reduced = b.cast(reduced, DType.BOOL);
        return keepDims ? reduced : b.reshape(reduced, Builder.drop(x.shape(), axes));
    }

    // PyTorch refuses max, min and the arg-reductions over nothing: there is no identity to return.
    private static void requireElements(String name, ReduceOp op, Shape shape, List<Integer> axes) {
        if (op == ReduceOp.SUM || op == ReduceOp.PROD) return;
        for (int axis : axes)
            if (shape.dim(axis) == 0) throw SmeltException.of(name, "cannot reduce axis %d of %s, which has no elements", axis, shape);
    }

    public static Value mean(Value x, int[] axes, boolean keepDims) {
        Ops.nonNull("mean", x, axes);
        return Dispatch.apply("mean", List.of(x), (b, in) -> mean(b, in.getFirst(), Builder.axes("mean", axes, x.rank()), keepDims));
    }

    /// Σx / n in a float dtype; NaN over no elements, as in PyTorch.
    public static Node mean(Builder b, Node x, List<Integer> axes, boolean keepDims) {
        Node sum = reduce(b, ReduceOp.SUM, b.toFloat(x), axes, keepDims);
        return b.binary(BinaryOp.DIV, sum, b.constant(count(x.shape(), axes), sum.shape(), sum.dtype()));
    }

    public static Value var(Value x, int[] axes, int correction, boolean keepDims) {
        Ops.nonNull("var", x, axes);
        if (correction < 0) throw SmeltException.of("var", "correction %d is negative", correction);
        return Dispatch.apply("var", List.of(x), (b, in) -> var(b, in.getFirst(), Builder.axes("var", axes, x.rank()), correction, keepDims));
    }

    /// Σ(x - mean)² / (n - correction), two-pass for accuracy, over [#centred] values.
    public static Node var(Builder b, Node x, List<Integer> axes, int correction, boolean keepDims) {
        return varOfCentred(b, centred(b, b.toFloat(x), axes), axes, correction, keepDims);
    }

    /// Σ centred² / (n - correction), n the elements `axes` hold.
    static Node varOfCentred(Builder b, Node centred, List<Integer> axes, int correction, boolean keepDims) {
        Node sum = reduce(b, ReduceOp.SUM, b.unary(UnaryOp.SQUARE, centred), axes, keepDims);
        double divisor = Math.max(0, count(centred.shape(), axes) - correction);
        return b.binary(BinaryOp.DIV, sum, b.constant(divisor, sum.shape(), sum.dtype()));
    }

    /// x - mean(x) over `axes`, as (x - p) - mean(x - p) with p the first element of each group
    /// (detached: the result does not depend on it). A sum in f32 of values far from 0 loses their
    /// spread: over 1031 values 1e6 + U(0, 1) the plain mean was off by 0.26 and var came out 0.15
    /// for 0.08, where PyTorch, accumulating in double, is exact; the deviations from p are small.
    static Node centred(Builder b, Node value, List<Integer> axes) {
        Node shifted = value;
        if (axes.stream().allMatch(axis -> value.shape().dim(axis) > 0)) {
            Node first = value;
            for (int axis : axes) first = b.slice(first, axis, 0, 1, 1);
            shifted = b.binary(BinaryOp.SUB, value, b.broadcast(b.unary(UnaryOp.STOP_GRADIENT, first), value.shape()));
        }
        return b.binary(BinaryOp.SUB, shifted, b.broadcast(mean(b, shifted, axes, true), value.shape()));
    }

    public static Value logsumexp(Value x, int[] axes, boolean keepDims) {
        Ops.nonNull("logsumexp", x, axes);
        return Dispatch.apply("logsumexp", List.of(x), (b, in) -> logsumexp(b, in.getFirst(), Builder.axes("logsumexp", axes, x.rank()), keepDims));
    }

    /// m + log Σ exp(x - m) with m the maximum, replaced by 0 where it is infinite (as PyTorch does),
    /// so all -inf gives -inf rather than NaN. Over no elements: log 0 = -inf.
    public static Node logsumexp(Builder b, Node x, List<Integer> axes, boolean keepDims) {
        Node value = b.toFloat(x);
        boolean empty = axes.stream().anyMatch(axis -> x.shape().dim(axis) == 0);
        Node max = empty ? b.constant(0, value.shape().reduced(axes), value.dtype()) : b.reduce(ReduceOp.MAX, value, axes);
        Node infinite = b.binary(BinaryOp.EQ, b.unary(UnaryOp.ABS, max), b.constant(Double.POSITIVE_INFINITY, max.shape(), max.dtype()));
        // a shift the result does not depend on: no gradient through it (Composites.shifted)
        Node shift = b.unary(UnaryOp.STOP_GRADIENT, b.where(infinite, b.constant(0, max.shape(), max.dtype()), max));
        Node exps = b.unary(UnaryOp.EXP, b.binary(BinaryOp.SUB, value, b.broadcast(shift, value.shape())));
        Node result = b.binary(BinaryOp.ADD, b.unary(UnaryOp.LOG, b.reduce(ReduceOp.SUM, exps, axes)), shift);
        return keepDims ? result : b.reshape(result, Builder.drop(x.shape(), axes));
    }

    public static Value arg(ReduceOp op, Value x, int axis, boolean keepDims) {
        Ops.nonNull(op.toString(), x);
        if (x.rank() == 0) {
            Builder.scalarAxis(op.toString(), axis);
            return argFlat(op, x);
        }
        return Dispatch.apply(op.toString(), List.of(x), (b, in) -> reduce(b, op, in.getFirst(), List.of(Builder.axis(op.toString(), axis, x.rank())), keepDims));
    }

    /// The index into the flattened tensor, as a 0-d `i32` (PyTorch's `argmax()` without a dim).
    public static Value argFlat(ReduceOp op, Value x) {
        Ops.nonNull(op.toString(), x);
        return Dispatch.apply(op.toString(), List.of(x), (b, in) -> reduce(b, op, b.reshape(in.getFirst(), Shape.of(x.size())), List.of(0), false));
    }

    static double count(Shape shape, List<Integer> axes) {
        double n = 1;
        for (int axis : axes) n *= shape.dim(axis);
        return n;
    }
}
