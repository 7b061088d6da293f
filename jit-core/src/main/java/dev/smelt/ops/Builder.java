// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.IndexBounds;
import dev.smelt.ir.Node;
import dev.smelt.ir.Printer;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.SmeltException;
import dev.smelt.ir.UnaryOp;
import dev.smelt.trace.Tracer;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;

/// Records nodes into one tracer, with the API layer's shape rules: NumPy broadcasting, dtype
/// promotion and Python-style axes. Checks here throw [SmeltException] naming the user's op,
/// `operation`, which builds its nodes over `operands`.
public record Builder(Tracer tracer, String operation, List<Node> operands) {
    Node unary(UnaryOp op, Node x) { return record(new Node.Unary(op, x)); }

    Node binary(BinaryOp op, Node a, Node b) { return record(new Node.Binary(op, a, b)); }

    Node where(Node condition, Node a, Node b) { return record(new Node.Where(condition, a, b)); }

    Node constant(double value, Shape shape, DType dtype) { return record(new Node.Constant(value, shape, dtype)); }

    Node iota(Shape shape, int axis, DType dtype) { return record(new Node.Iota(axis, shape, dtype)); }

    Node reduce(ReduceOp op, Node x, List<Integer> axes) { return record(new Node.Reduce(op, x, axes)); }

    Node permute(Node x, List<Integer> order) { return record(new Node.Permute(x, order)); }

    Node slice(Node x, int axis, int start, int stop, int step) { return record(new Node.Slice(x, axis, start, stop, step)); }

    Node matmul(Node a, Node b) { return record(new Node.MatMul(a, b, false, false)); }

    Node concat(List<Node> parts, int axis) { return record(new Node.Concat(parts, axis)); }

    /// `x` itself, checked against `bounds` when the program runs ([Node.IndexCheck]).
    /// The stable sorting positions of each line along `axis` (see [Node.ArgSort]).
    Node argsort(Node x, int axis, boolean descending) { return record(new Node.ArgSort(x, axis, descending)); }

    /// `torch.gather` (see [Node.Gather]).
    Node gather(Node x, int axis, Node index) { return record(new Node.Gather(x, axis, index)); }

    /// `torch.scatter`, or `scatter_add` with `add` (see [Node.Scatter]).
    Node scatter(Node x, int axis, Node index, Node src, boolean add) { return record(new Node.Scatter(x, axis, index, src, add)); }

    /// `x` with a slice from `start` replaced by `value` (see [Node.SliceUpdate]).
    Node sliceUpdate(Node x, int axis, Node start, Node value) { return record(new Node.SliceUpdate(x, axis, start, value)); }

    Node indexCheck(Node x, IndexBounds bounds) { return record(new Node.IndexCheck(x, bounds)); }

    Node cast(Node x, DType dtype) { return x.dtype() == dtype ? x : record(new Node.Cast(x, dtype)); }

    // Checked before the node is made: Reshape asks its shape for an int size.
    Node reshape(Node x, Shape shape) { return x.shape().equals(shape) ? x : record(new Node.Reshape(x, requireSize(shape, x.dtype()))); }

    /// `x` broadcast to `shape`: leading axes of size 1 added, then size-1 axes expanded.
    Node broadcast(Node x, Shape shape) {
        if (x.shape().equals(shape)) return x;
        var padded = new ArrayList<Integer>();
        for (int i = x.shape().rank(); i < shape.rank(); i++) padded.add(1);
        padded.addAll(x.shape().dims());
        Node reshaped = reshape(x, new Shape(padded));
        return reshaped.shape().equals(shape) ? reshaped : record(new Node.Expand(reshaped, shape));
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
        if (count(dims) > Value.MAX_SIZE) throw tooLarge(op, dims, " (the broadcast of %s with %s)".formatted(a, b));
        return new Shape(dims);
    }

    private static int dimFromEnd(Shape shape, int fromEnd) {
        int axis = shape.rank() - 1 - fromEnd;
        return axis >= 0 ? shape.dim(axis) : 1;
    }

    /// A Python-style axis (`-1` is the last) as an index in `[0, rank)`.
    public static int axis(String op, int axis, int rank) {
        if (axis < -rank || axis >= rank)
            throw SmeltException.of(op, "axis %d is out of range for a tensor of rank %d; %s", axis, rank,
                    rank == 0 ? "a 0-d tensor has no axes" : "expected -%d..%d".formatted(rank, rank - 1));
        return axis < 0 ? axis + rank : axis;
    }

    /// Checks the axis given to an op on a 0-d tensor, which takes 0 or -1 as PyTorch's ops do (a
    /// scalar's axis is checked as a vector's) and reduces or sorts along none.
    static void scalarAxis(String op, int axis) {
        if (axis != 0 && axis != -1) throw SmeltException.of(op, "axis %d is out of range for a 0-d tensor; expected 0 or -1", axis);
    }

    /// Normalised, ascending, distinct axes; no axes means all of them. A 0-d tensor's axis
    /// ([#scalarAxis]) names no axis: PyTorch's `sum(0)` of a scalar is the scalar.
    static List<Integer> axes(String op, int[] axes, int rank) {
        if (axes.length == 0) return java.util.stream.IntStream.range(0, rank).boxed().toList();
        if (rank == 0) {
            for (int axis : axes) scalarAxis(op, axis);
            return List.of();
        }
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

    /// The number of elements of `dims`, exact up to [Tensor#MAX_SIZE] and some larger number
    /// beyond it: integer work only, and no product overflows (each factor is below 2^31).
    static long count(List<Integer> dims) {
        long count = 1;
        for (int dim : dims) {
            if (dim == 0) return 0;
            count = Math.min(count * dim, Value.MAX_SIZE + 1L);
        }
        return count;
    }

    /// The error for a tensor of `dims` beyond [Tensor#MAX_SIZE]; `context` says where it came from.
    static SmeltException tooLarge(String op, List<Integer> dims, String context) {
        var exact = dims.stream().map(BigInteger::valueOf).reduce(BigInteger.ONE, BigInteger::multiply);
        return SmeltException.of(op, "shape %s%s has %s elements; a tensor holds at most Tensor.MAX_SIZE = %d",
                dims.toString().replace(" ", ""), context, exact, Value.MAX_SIZE);
    }

    // Every node goes through here, eager or traced, so no op can make a tensor past the limit
    // (the broadcast operands of a matmul, linspace's steps, …) and fail later in the compiler.
    private Node record(Node node) {
        requireSize(node.shape(), node.dtype());
        return tracer.record(node);
    }

    private Shape requireSize(Shape shape, DType dtype) {
        if (shape.count() <= Value.MAX_SIZE) return shape;
        String from = operands.isEmpty() ? "" : " from " + operands.stream().map(Printer::type).collect(Collectors.joining(", "));
        throw tooLarge(operation, shape.dims(), " (a value of " + dtype + from + ")");
    }
}
