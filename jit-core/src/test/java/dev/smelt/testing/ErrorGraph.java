// SPDX-License-Identifier: Apache-2.0
package dev.smelt.testing;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Node;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import java.util.List;

/// Builders for the error graph of [GraphTolerance]: f64 nodes over values of any dtype.
final class ErrorGraph {
    private ErrorGraph() {}

    static final double INF = Double.POSITIVE_INFINITY;

    static Node f64(Node x) { return x.dtype() == DType.F64 ? x : new Node.Cast(x, DType.F64); }

    static Node constant(double value, Shape shape) { return new Node.Constant(value, shape, DType.F64); }

    static Node zero(Shape shape) { return constant(0, shape); }

    static Node add(Node a, Node b) { return new Node.Binary(BinaryOp.ADD, a, b); }

    static Node sub(Node a, Node b) { return new Node.Binary(BinaryOp.SUB, a, b); }

    static Node mul(Node a, Node b) { return new Node.Binary(BinaryOp.MUL, a, b); }

    static Node div(Node a, Node b) { return new Node.Binary(BinaryOp.DIV, a, b); }

    static Node max(Node a, Node b) { return new Node.Binary(BinaryOp.MAXIMUM, a, b); }

    static Node abs(Node x) { return new Node.Unary(UnaryOp.ABS, f64(x)); }

    static Node unary(UnaryOp op, Node x) { return new Node.Unary(op, x); }

    static Node scale(Node x, double factor) { return mul(x, constant(factor, x.shape())); }

    static Node compare(BinaryOp op, Node a, Node b) { return new Node.Binary(op, a, b); }

    static Node where(Node condition, Node a, Node b) { return new Node.Where(condition, a, b); }

    /// `condition ? inf : x`: the element cannot be bounded and is not compared.
    static Node unstableIf(Node condition, Node x) { return where(condition, constant(INF, x.shape()), x); }

    static Node bool(boolean value, Shape shape) { return new Node.Constant(value ? 1 : 0, shape, DType.BOOL); }

    static Node both(Node a, Node b) { return where(a, b, bool(false, a.shape())); }

    static Node either(Node a, Node b) { return where(a, bool(true, a.shape()), b); }

    static Node not(Node a) { return where(a, bool(false, a.shape()), bool(true, a.shape())); }

    static Node positive(Node e) { return compare(BinaryOp.GT, e, zero(e.shape())); }

    /// `distance ≤ error`, and true wherever `error` is unbounded: a value with unbounded error may
    /// be anything in another evaluation order, NaN or ±∞ included, so even a NaN distance is
    /// within it (f64 `MAX·(-53) + MAX·2.4` is NaN by plain adds and -∞ with an FMA).
    static Node within(Node distance, Node error) {
        Shape shape = error.shape();
        Node unbounded = compare(BinaryOp.EQ, error, constant(INF, shape));
        return where(unbounded, bool(true, shape), compare(BinaryOp.LE, distance, error));
    }

    /// Where a sum whose terms have magnitudes summing to `magnitudes` may overflow on the way in
    /// `dtype` (the reference adds in double): an order that meets +∞ before -∞ gives +∞ or NaN
    /// where the exact sum is finite or -∞.
    static Node partialSumsMayOverflow(Node magnitudes, DType dtype) {
        double largest = dtype == DType.F32 ? Float.MAX_VALUE : Double.MAX_VALUE;
        return compare(BinaryOp.GT, magnitudes, constant(largest, magnitudes.shape()));
    }

    /// `d·e`, but 0 where `e` is 0 even if the derivative bound `d` is infinite or NaN.
    static Node times(Node derivative, Node e) {
        return where(positive(e), mul(derivative, e), zero(e.shape()));
    }

    static Node reduce(ReduceOp op, Node x, List<Integer> axes) { return new Node.Reduce(op, x, axes); }

    static Node broadcast(Node x, Shape shape) { return x.shape().equals(shape) ? x : new Node.Expand(x, shape); }
}
