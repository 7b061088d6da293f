// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Node;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import dev.smelt.trace.Tracer;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/// Records nodes into one tracer, with the API layer's shape rules: NumPy broadcasting, dtype
/// promotion and Python-style axes. Checks here throw [SmeltException] naming the user's op.
record Builder(Tracer tracer) {
    Node unary(UnaryOp op, Node x) { return tracer.record(new Node.Unary(op, x)); }

    Node binary(BinaryOp op, Node a, Node b) { return tracer.record(new Node.Binary(op, a, b)); }

    Node where(Node condition, Node a, Node b) { return tracer.record(new Node.Where(condition, a, b)); }

    Node constant(double value, Shape shape, DType dtype) { return tracer.record(new Node.Constant(value, shape, dtype)); }

    Node iota(Shape shape, int axis, DType dtype) { return tracer.record(new Node.Iota(axis, shape, dtype)); }

    Node reduce(ReduceOp op, Node x, List<Integer> axes) { return tracer.record(new Node.Reduce(op, x, axes)); }

    Node permute(Node x, List<Integer> order) { return tracer.record(new Node.Permute(x, order)); }

    Node slice(Node x, int axis, int start, int stop, int step) { return tracer.record(new Node.Slice(x, axis, start, stop, step)); }

    Node matmul(Node a, Node b) { return tracer.record(new Node.MatMul(a, b, false, false)); }

    Node concat(List<Node> parts, int axis) { return tracer.record(new Node.Concat(parts, axis)); }

    Node cast(Node x, DType dtype) { return x.dtype() == dtype ? x : tracer.record(new Node.Cast(x, dtype)); }

    Node reshape(Node x, Shape shape) { return x.shape().equals(shape) ? x : tracer.record(new Node.Reshape(x, shape)); }

    /// `x` broadcast to `shape`: leading axes of size 1 added, then size-1 axes expanded.
    Node broadcast(Node x, Shape shape) {
        if (x.shape().equals(shape)) return x;
        var padded = new ArrayList<Integer>();
        for (int i = x.shape().rank(); i < shape.rank(); i++) padded.add(1);
        padded.addAll(x.shape().dims());
        Node reshaped = reshape(x, new Shape(padded));
        return reshaped.shape().equals(shape) ? reshaped : tracer.record(new Node.Expand(reshaped, shape));
    }

    /// `x` converted to a float dtype if it is not one (int and bool become f32, as in PyTorch).
    Node toFloat(Node x) { return x.dtype().isFloating() ? x : cast(x, DType.F32); }

    /// The NumPy broadcast of two shapes: aligned at the last axis, each pair equal or one of them 1.
    static Shape broadcastShapes(String op, Shape a, Shape b) {
        int rank = Math.max(a.rank(), b.rank());
        var dims = new ArrayList<Integer>();
        for (int i = rank - 1; i >= 0; i--) {
            int da = dimFromEnd(a, rank - 1 - i), db = dimFromEnd(b, rank - 1 - i);
            if (da != db && da != 1 && db != 1)
                throw SmeltException.of(op, "cannot broadcast %s with %s (axis %d: %d vs %d); expected equal sizes or 1", a, b, i - rank, da, db);
            dims.addFirst(da == 1 ? db : da);
        }
        return new Shape(dims);
    }

    private static int dimFromEnd(Shape shape, int fromEnd) {
        int axis = shape.rank() - 1 - fromEnd;
        return axis >= 0 ? shape.dim(axis) : 1;
    }

    /// A Python-style axis (`-1` is the last) as an index in `[0, rank)`.
    static int axis(String op, int axis, int rank) {
        if (axis < -rank || axis >= rank)
            throw SmeltException.of(op, "axis %d is out of range for a tensor of rank %d; expected -%d..%d", axis, rank, rank, rank - 1);
        return axis < 0 ? axis + rank : axis;
    }

    /// Normalised, ascending, distinct axes; no axes means all of them.
    static List<Integer> axes(String op, int[] axes, int rank) {
        if (axes.length == 0) return java.util.stream.IntStream.range(0, rank).boxed().toList();
        var sorted = new TreeSet<Integer>();
        for (int axis : axes)
            if (!sorted.add(axis(op, axis, rank))) throw SmeltException.of(op, "axis %d is given twice in %s", axis, java.util.Arrays.toString(axes));
        return List.copyOf(sorted);
    }

    /// `shape` without the given axes.
    static Shape drop(Shape shape, List<Integer> axes) {
        var dims = new ArrayList<Integer>();
        for (int axis = 0; axis < shape.rank(); axis++)
            if (!axes.contains(axis)) dims.add(shape.dim(axis));
        return new Shape(dims);
    }
}
