// SPDX-License-Identifier: Apache-2.0
package dev.smelt.autograd;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Interner;
import dev.smelt.ir.Node;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import java.util.ArrayList;
import java.util.List;

/// Builds the nodes of backward and update graphs, with the shorthands vjp rules read as maths.
///
/// Nodes are hash-consed as the tracer does: a node equal to one already built (or to one of the
/// forward graph's) is that instance, so a rule that needs `exp(x)` again gets the forward's node,
/// and equal subexpressions of different rules are computed once. Binary shorthands broadcast a
/// rank-0 operand (a runtime scalar such as the learning rate) to the other's shape.
public final class Nodes {
    private final Interner interned;

    /// A builder that knows `graph`'s nodes, so equal backward nodes reuse them.
    public Nodes(Graph graph) {
        this.interned = new Interner(graph);
    }

    /// `node`, or the equal node built before it.
    public Node intern(Node node) { return interned.intern(node); }

    /// `value` (rounded to `dtype`) filling `shape`.
    public Node constant(double value, Shape shape, DType dtype) { return intern(new Node.Constant(value, shape, dtype)); }

    /// `value` with `like`'s shape and dtype.
    public Node constant(double value, Node like) { return constant(value, like.shape(), like.dtype()); }

    /// `op(x)`.
    public Node unary(UnaryOp op, Node x) { return intern(new Node.Unary(op, x)); }

    /// `op(a, b)` of equal shapes, or with a rank-0 operand broadcast; `1·x` is `x`.
    public Node binary(BinaryOp op, Node a, Node b) {
        if (a.shape().rank() == 0 && b.shape().rank() > 0) a = broadcast(a, b.shape());
        if (b.shape().rank() == 0 && a.shape().rank() > 0) b = broadcast(b, a.shape());
        if (op == BinaryOp.MUL && isOne(a)) return b;                              // 1·x -> x (exact, NaN and -0 too)
        if (op == BinaryOp.MUL && isOne(b)) return a;                              // x·1 -> x
        return intern(new Node.Binary(op, a, b));
    }

    // The seed ∂L/∂L = 1 reaches most rules through a sum's expand: multiplying by it is a pass wasted.
    private static boolean isOne(Node x) { return x instanceof Node.Constant c && c.value() == 1; }

    /// `a + b`.
    public Node add(Node a, Node b) { return binary(BinaryOp.ADD, a, b); }
    /// `a - b`.
    public Node sub(Node a, Node b) { return binary(BinaryOp.SUB, a, b); }
    /// `a · b`.
    public Node mul(Node a, Node b) { return binary(BinaryOp.MUL, a, b); }
    /// `a / b`.
    public Node div(Node a, Node b) { return binary(BinaryOp.DIV, a, b); }
    /// `-x`.
    public Node neg(Node x) { return unary(UnaryOp.NEG, x); }
    /// `√x`.
    public Node sqrt(Node x) { return unary(UnaryOp.SQRT, x); }
    /// `x²`.
    public Node square(Node x) { return unary(UnaryOp.SQUARE, x); }

    /// `c · x` for a Java constant `c`.
    public Node scale(double c, Node x) { return mul(constant(c, x), x); }

    /// `condition ? ifTrue : ifFalse`, elementwise over equal shapes.
    public Node where(Node condition, Node ifTrue, Node ifFalse) { return intern(new Node.Where(condition, ifTrue, ifFalse)); }

    /// `x` converted to `dtype`; `x` itself when it has it.
    public Node cast(Node x, DType dtype) { return x.dtype() == dtype ? x : intern(new Node.Cast(x, dtype)); }

    /// Σ over `axes`, keeping them with size 1; `x` itself over no axes.
    public Node sum(Node x, List<Integer> axes) { return axes.isEmpty() ? x : intern(new Node.Reduce(ReduceOp.SUM, x, axes)); }

    /// `op` over `axes`, keeping them with size 1.
    public Node reduce(ReduceOp op, Node x, List<Integer> axes) { return intern(new Node.Reduce(op, x, axes)); }

    /// A view; of a constant, the constant in the new shape.
    public Node reshape(Node x, Shape shape) {
        if (x.shape().equals(shape)) return x;
        return x instanceof Node.Constant c ? constant(c.value(), shape, c.dtype()) : intern(new Node.Reshape(x, shape));
    }

    /// `x`'s size-1 axes repeated to `shape` (same rank); of a constant, the constant in the new shape.
    public Node expand(Node x, Shape shape) {
        if (x.shape().equals(shape)) return x;
        return x instanceof Node.Constant c ? constant(c.value(), shape, c.dtype()) : intern(new Node.Expand(x, shape));
    }

    /// `x` broadcast to `shape`: leading size-1 axes added, then size-1 axes expanded.
    public Node broadcast(Node x, Shape shape) {
        var dims = new ArrayList<Integer>();
        for (int axis = x.shape().rank(); axis < shape.rank(); axis++) dims.add(1);
        dims.addAll(x.shape().dims());
        return expand(reshape(x, new Shape(dims)), shape);
    }

    /// A permutation; `(a·b)ᵀ` over the two matrix axes becomes `bᵀ·aᵀ`, a matmul with its
    /// operands swapped and transpose flags flipped, so no transpose is ever materialised.
    public Node permute(Node x, List<Integer> order) {
        if (isIdentity(order)) return x;
        if (x instanceof Node.MatMul m && swapsMatrixAxes(order)) return matmul(m.b(), m.a(), !m.transposeB(), !m.transposeA());
        return intern(new Node.Permute(x, order));
    }

    /// Elements `start, start+step, …` below `stop` of `axis`; `x` itself for the whole axis.
    public Node slice(Node x, int axis, int start, int stop, int step) {
        if (start == 0 && stop == x.shape().dim(axis) && step == 1) return x;
        return intern(new Node.Slice(x, axis, start, stop, step));
    }

    /// `parts` joined along `axis`; a single part is itself.
    public Node concat(List<Node> parts, int axis) { return parts.size() == 1 ? parts.getFirst() : intern(new Node.Concat(parts, axis)); }

    /// `op(a)·op(b)`; an operand that is a permute swapping the matrix axes is read through a
    /// transpose flag instead.
    public Node matmul(Node a, Node b, boolean transposeA, boolean transposeB) {
        if (a instanceof Node.Permute p && swapsMatrixAxes(p.order())) return matmul(p.x(), b, !transposeA, transposeB);
        if (b instanceof Node.Permute p && swapsMatrixAxes(p.order())) return matmul(a, p.x(), transposeA, !transposeB);
        return intern(new Node.MatMul(a, b, transposeA, transposeB));
    }

    private static boolean isIdentity(List<Integer> order) {
        for (int axis = 0; axis < order.size(); axis++)
            if (order.get(axis) != axis) return false;
        return true;
    }

    static boolean swapsMatrixAxes(List<Integer> order) {
        int rank = order.size();
        if (rank < 2 || order.get(rank - 2) != rank - 1 || order.get(rank - 1) != rank - 2) return false;
        return isIdentity(order.subList(0, rank - 2));
    }
}
