// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

import java.util.List;
import java.util.Objects;

/// A node of the graph IR: an operator, its operands, a shape and a dtype. Immutable.
///
/// Equality is shallow: same operator and attributes over *identical* operand nodes. The tracer
/// hash-conses as it records, so equal subgraphs are one instance and shallow equality is structural
/// equality at constant cost. (Records' generated deep `hashCode` is exponential on a DAG that
/// shares operands, such as `x = x * x` repeated; for the same reason a node derives its shape and
/// dtype once, through [TypeCache].) The constructors enforce each operator's typing
/// rule; the API layer has already broadcast shapes and cast dtypes, and reports user errors.
public sealed interface Node {
    Shape shape();

    DType dtype();

    /// The operands, in order.
    List<Node> inputs();

    /// Graph input number `slot`.
    record Input(int slot, Shape shape, DType dtype) implements Node {
        public List<Node> inputs() { return List.of(); }
    }

    /// `value` in every element.
    record Constant(double value, Shape shape, DType dtype) implements Node {
        public Constant { value = dtype.round(value); }
        public List<Node> inputs() { return List.of(); }
    }

    /// Each element's index along `axis` (XLA's iota): one-hot masks and position ids without an input.
    record Iota(Shape shape, int axis, DType dtype) implements Node {
        public Iota { Check.axis(axis, shape); }
        public List<Node> inputs() { return List.of(); }
    }

    /// `op(x)`, elementwise.
    record Unary(UnaryOp op, Node x) implements Node {
        public Unary { Check.that(x.dtype().isFloating() || op.acceptsIntegers() && x.dtype() == DType.I32, "%s needs a float operand, not %s", op, x.dtype()); }
        public Shape shape() { return TypeCache.shape(this, () -> x.shape()); }
        public DType dtype() { return TypeCache.dtype(this, () -> x.dtype()); }
        public List<Node> inputs() { return List.of(x); }
        public boolean equals(Object o) { return o instanceof Unary u && op == u.op && x == u.x; }
        public int hashCode() { return Check.hash(op, x); }
    }

    /// `op(left, right)`, elementwise over equal shapes and dtypes.
    record Binary(BinaryOp op, Node left, Node right) implements Node {
        public Binary {
            Check.same(left.shape(), right.shape(), op);
            Check.same(left.dtype(), right.dtype(), op);
            Check.that(left.dtype().isFloating() || op.acceptsIntegers() && left.dtype() != DType.BOOL || op.isComparison(), "%s is not defined on %s", op, left.dtype());
        }
        public Shape shape() { return TypeCache.shape(this, () -> left.shape()); }
        public DType dtype() { return TypeCache.dtype(this, () -> op.isComparison() ? DType.BOOL : left.dtype()); }
        public List<Node> inputs() { return List.of(left, right); }
        public boolean equals(Object o) { return o instanceof Binary b && op == b.op && left == b.left && right == b.right; }
        public int hashCode() { return Check.hash(op, left, right); }
    }

    /// `condition ? ifTrue : ifFalse`, elementwise; the condition is `bool`.
    record Where(Node condition, Node ifTrue, Node ifFalse) implements Node {
        public Where {
            Check.that(condition.dtype() == DType.BOOL, "where needs a bool condition, not %s", condition.dtype());
            Check.same(condition.shape(), ifTrue.shape(), "where");
            Check.same(ifTrue.shape(), ifFalse.shape(), "where");
            Check.same(ifTrue.dtype(), ifFalse.dtype(), "where");
        }
        public Shape shape() { return TypeCache.shape(this, () -> ifTrue.shape()); }
        public DType dtype() { return TypeCache.dtype(this, () -> ifTrue.dtype()); }
        public List<Node> inputs() { return List.of(condition, ifTrue, ifFalse); }
        public boolean equals(Object o) { return o instanceof Where w && condition == w.condition && ifTrue == w.ifTrue && ifFalse == w.ifFalse; }
        public int hashCode() { return Check.hash("where", condition, ifTrue, ifFalse); }
    }

    /// `x` converted to `dtype`: float to int truncates toward zero and saturates, anything to bool is `x != 0`.
    record Cast(Node x, DType dtype) implements Node {
        public Shape shape() { return TypeCache.shape(this, () -> x.shape()); }
        public List<Node> inputs() { return List.of(x); }
        public boolean equals(Object o) { return o instanceof Cast c && dtype == c.dtype && x == c.x; }
        public int hashCode() { return Check.hash(dtype, x); }
    }

    /// `op` over `axes` (ascending, distinct), keeping each reduced axis with size 1.
    record Reduce(ReduceOp op, Node x, List<Integer> axes) implements Node {
        public Reduce {
            axes = List.copyOf(axes);
            Check.axes(axes, x.shape());
            Check.that(!op.isArg() || axes.size() == 1, "%s reduces exactly one axis, not %s", op, axes);
            Check.that(x.dtype() != DType.BOOL, "%s needs a numeric operand, not bool", op);
        }
        public Shape shape() { return TypeCache.shape(this, () -> x.shape().reduced(axes)); }
        public DType dtype() { return TypeCache.dtype(this, () -> op.isArg() ? DType.I32 : x.dtype()); }
        public List<Node> inputs() { return List.of(x); }
        public boolean equals(Object o) { return o instanceof Reduce r && op == r.op && axes.equals(r.axes) && x == r.x; }
        public int hashCode() { return Check.hash(op, axes, x); }
    }

    /// Batched `a · b` over `[batch…, M, K] · [batch…, K, N]` with equal batch dimensions. A transpose
    /// flag means that operand is stored as `[batch…, K, M]` (or `[batch…, N, K]`) and read transposed.
    record MatMul(Node a, Node b, boolean transposeA, boolean transposeB) implements Node {
        public MatMul {
            Check.that(a.shape().rank() >= 2 && a.shape().rank() == b.shape().rank(), "matmul needs operands of equal rank ≥ 2, not %s and %s", a.shape(), b.shape());
            Check.same(a.dtype(), b.dtype(), "matmul");
            Check.that(a.dtype().isFloating(), "matmul needs float operands, not %s", a.dtype());
            int rank = a.shape().rank();
            Check.that(a.shape().dims().subList(0, rank - 2).equals(b.shape().dims().subList(0, rank - 2)), "matmul batch dimensions differ: %s and %s", a.shape(), b.shape());
            int k = a.shape().dim(rank - (transposeA ? 2 : 1)), kb = b.shape().dim(rank - (transposeB ? 1 : 2));
            Check.that(k == kb, "matmul contracts K=%d with K=%d (%s · %s)", k, kb, a.shape(), b.shape());
        }
        public Shape shape() { return TypeCache.shape(this, this::inferShape); }
        private Shape inferShape() {
            int rank = a.shape().rank();
            int m = a.shape().dim(rank - (transposeA ? 1 : 2)), n = b.shape().dim(rank - (transposeB ? 2 : 1));
            return a.shape().with(rank - 2, m).with(rank - 1, n);
        }
        public DType dtype() { return TypeCache.dtype(this, () -> a.dtype()); }
        public List<Node> inputs() { return List.of(a, b); }
        public boolean equals(Object o) { return o instanceof MatMul m && a == m.a && b == m.b && transposeA == m.transposeA && transposeB == m.transposeB; }
        public int hashCode() { return Check.hash(transposeA, transposeB, a, b); }
    }

    /// `x`'s elements in row-major order, laid out as `shape` (same element count). A view.
    record Reshape(Node x, Shape shape) implements Node {
        public Reshape { Check.that(x.shape().size() == shape.size(), "reshape from %s to %s changes the element count", x.shape(), shape); }
        public DType dtype() { return TypeCache.dtype(this, () -> x.dtype()); }
        public List<Node> inputs() { return List.of(x); }
        public boolean equals(Object o) { return o instanceof Reshape r && shape.equals(r.shape) && x == r.x; }
        public int hashCode() { return Check.hash(shape, x); }
    }

    /// Output axis `i` is input axis `order.get(i)`. A view.
    record Permute(Node x, List<Integer> order) implements Node {
        public Permute { order = List.copyOf(order); Check.permutation(order, x.shape().rank()); }
        public Shape shape() { return TypeCache.shape(this, () -> new Shape(order.stream().map(x.shape().dims()::get).toList())); }
        public DType dtype() { return TypeCache.dtype(this, () -> x.dtype()); }
        public List<Node> inputs() { return List.of(x); }
        public boolean equals(Object o) { return o instanceof Permute p && order.equals(p.order) && x == p.x; }
        public int hashCode() { return Check.hash(order, x); }
    }

    /// `x` repeated along its size-1 axes to `shape` (same rank). A view with stride 0.
    record Expand(Node x, Shape shape) implements Node {
        public Expand { Check.expandable(x.shape(), shape); }
        public DType dtype() { return TypeCache.dtype(this, () -> x.dtype()); }
        public List<Node> inputs() { return List.of(x); }
        public boolean equals(Object o) { return o instanceof Expand e && shape.equals(e.shape) && x == e.x; }
        public int hashCode() { return Check.hash(shape, x); }
    }

    /// Elements `start, start+step, …` (below `stop`) of `axis`; `0 ≤ start ≤ stop ≤ dim`, `step ≥ 1`. A view.
    record Slice(Node x, int axis, int start, int stop, int step) implements Node {
        public Slice {
            Check.axis(axis, x.shape());
            Check.that(0 <= start && start <= stop && stop <= x.shape().dim(axis) && step >= 1, "slice %d:%d:%d out of range for axis %d of %s", start, stop, step, axis, x.shape());
        }
        public Shape shape() { return TypeCache.shape(this, () -> x.shape().with(axis, (stop - start + step - 1) / step)); }
        public DType dtype() { return TypeCache.dtype(this, () -> x.dtype()); }
        public List<Node> inputs() { return List.of(x); }
        public boolean equals(Object o) { return o instanceof Slice s && axis == s.axis && start == s.start && stop == s.stop && step == s.step && x == s.x; }
        public int hashCode() { return Check.hash(axis, start, stop, step, x); }
    }

    /// `parts` joined along `axis`; all other dimensions and the dtype agree.
    record Concat(List<Node> parts, int axis) implements Node {
        public Concat {
            parts = List.copyOf(parts);
            Check.that(!parts.isEmpty(), "concat needs at least one part");
            Check.axis(axis, parts.getFirst().shape());
            for (var part : parts) {
                Check.same(part.shape().with(axis, 0), parts.getFirst().shape().with(axis, 0), "concat");
                Check.same(part.dtype(), parts.getFirst().dtype(), "concat");
            }
        }
        public Shape shape() { return TypeCache.shape(this, () -> parts.getFirst().shape().with(axis, parts.stream().mapToInt(p -> p.shape().dim(axis)).sum())); }
        public DType dtype() { return TypeCache.dtype(this, () -> parts.getFirst().dtype()); }
        public List<Node> inputs() { return parts; }
        public boolean equals(Object o) { return o instanceof Concat c && axis == c.axis && Check.identical(parts, c.parts); }
        public int hashCode() { return Check.hash(axis, parts.stream().map(System::identityHashCode).toList()); }
    }
}
