// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

import java.util.HashSet;
import java.util.List;

/// Invariant checks for node constructors and shallow hashing. Failures here are compiler bugs or
/// hand-written IR errors; the API layer reports user errors with better context first.
final class Check {
    private Check() {}

    static void that(boolean condition, String format, Object... args) {
        if (!condition) throw new IllegalArgumentException(format.formatted(args));
    }

    static <T> void same(T a, T b, Object op) {
        that(a.equals(b), "%s: operands differ, %s vs %s", op, a, b);
    }

    static void axis(int axis, Shape shape) {
        that(axis >= 0 && axis < shape.rank(), "axis %d out of range for %s", axis, shape);
    }

    static void axes(List<Integer> axes, Shape shape) {
        for (int i = 0; i < axes.size(); i++) {
            axis(axes.get(i), shape);
            that(i == 0 || axes.get(i) > axes.get(i - 1), "axes %s must be ascending and distinct", axes);
        }
    }

    static void permutation(List<Integer> order, int rank) {
        that(order.size() == rank && new HashSet<>(order).size() == rank && order.stream().allMatch(a -> a >= 0 && a < rank),
                "%s is not a permutation of %d axes", order, rank);
    }

    static void expandable(Shape from, Shape to) {
        that(from.rank() == to.rank(), "expand from %s to %s changes the rank", from, to);
        for (int axis = 0; axis < from.rank(); axis++)
            that(from.dim(axis) == to.dim(axis) || from.dim(axis) == 1, "expand from %s to %s: axis %d has size %d, not 1", from, to, axis, from.dim(axis));
    }

    static boolean identical(List<Node> a, List<Node> b) {
        if (a.size() != b.size()) return false;
        for (int i = 0; i < a.size(); i++)
            if (a.get(i) != b.get(i)) return false;
        return true;
    }

    /// Hash of attributes and operands, taking operands by identity (see [Node]).
    static int hash(Object... parts) {
        int hash = 17;
        for (Object part : parts) hash = 31 * hash + (part instanceof Node ? System.identityHashCode(part) : part.hashCode());
        return hash;
    }

    /// The inferred type when none was given, else the given one, which must equal it.
    static <T> T inferred(T given, T inferred, Object op) {
        that(given == null || given.equals(inferred), "%s: declared type %s differs from the inferred %s", op, given, inferred);
        return inferred;
    }

    /// An `i32` index of `x`'s rank, no larger than `x` on the axes other than `axis` (gather, scatter).
    static void indexed(String op, Shape x, int axis, Node index) {
        that(index.dtype() == DType.I32, "%s needs an i32 index, not %s", op, index.dtype());
        that(index.shape().rank() == x.rank(), "%s needs an index of rank %d, not %s", op, x.rank(), index.shape());
        for (int d = 0; d < x.rank(); d++)
            that(d == axis || index.shape().dim(d) <= x.dim(d), "%s index %s is larger than %s off axis %d", op, index.shape(), x, axis);
    }

    static void matmul(Node a, Node b, boolean transposeA, boolean transposeB) {
        int rank = a.shape().rank();
        that(rank >= 2 && rank == b.shape().rank(), "matmul needs operands of equal rank ≥ 2, not %s and %s", a.shape(), b.shape());
        same(a.dtype(), b.dtype(), "matmul");
        that(a.dtype().isFloating(), "matmul needs float operands, not %s", a.dtype());
        that(a.shape().dims().subList(0, rank - 2).equals(b.shape().dims().subList(0, rank - 2)), "matmul batch dimensions differ: %s and %s", a.shape(), b.shape());
        int k = a.shape().dim(rank - (transposeA ? 2 : 1)), kb = b.shape().dim(rank - (transposeB ? 1 : 2));
        that(k == kb, "matmul contracts K=%d with K=%d (%s · %s)", k, kb, a.shape(), b.shape());
    }

    static void concat(List<Node> parts, int axis) {
        that(!parts.isEmpty(), "concat needs at least one part");
        axis(axis, parts.getFirst().shape());
        for (var part : parts) {
            same(part.shape().with(axis, 0), parts.getFirst().shape().with(axis, 0), "concat");
            same(part.dtype(), parts.getFirst().dtype(), "concat");
        }
    }

    static List<Integer> identities(List<Node> nodes) {
        return nodes.stream().map(System::identityHashCode).toList();
    }

    /// `add(f32[2,3], f32[2,3]) : f32[2,3]`: one level only, since records' own `toString` would
    /// print the whole DAG below the node, exponentially when operands are shared.
    static String describe(Node node, Object op) {
        var operands = node.inputs().stream().map(Printer::type).collect(java.util.stream.Collectors.joining(", "));
        return op + "(" + operands + ") : " + Printer.type(node);
    }
}
