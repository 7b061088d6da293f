// SPDX-License-Identifier: Apache-2.0
package dev.smelt.testing;

import static dev.smelt.testing.ErrorGraph.*;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import java.util.IdentityHashMap;
import java.util.Map;

/// How far compiled results may be from the reference, derived from the ops (running error
/// analysis), never a blanket 1e-3.
///
/// For each node we build an f64 node `e` bounding `|computed − exact|` elementwise for *either*
/// implementation, so `|compiled − reference| ≤ 2e`. Errors propagate through each op's derivative
/// bound over `[x−e, x+e]`, plus the op's own rounding: `LOCAL_ULPS[op]` ulps of the result.
/// Reductions add `n·ε·Σ|x|` (the reassociation bound) and matmuls `K·ε·Σ|a||b|`. Where a result
/// may legitimately differ in kind — a comparison within error, an int cast near a boundary, a
/// result near overflow — the bound is +inf and the element is not compared. The error graph is
/// itself evaluated by the reference interpreter, so views and reductions index exactly as the
/// values do.
public final class GraphTolerance {
    private GraphTolerance() {}

    /// Ulps of the result each implementation may be off for one op: basic arithmetic rounds
    /// once (½ ulp); transcendental vector ops are bounded by the measured figure in
    /// `codegen/VectorUlps` (rounded up); composites add the roundings of their parts.
    static double localUlps(UnaryOp op) {
        return switch (op) {
            case NEG, ABS, RELU, SIGN, STOP_GRADIENT -> 0;
            case SQUARE, SQRT, RECIPROCAL -> 0.5;
            case RSQRT -> 1.5;
            case EXP, EXPM1, LOG, LOG1P, SIN, COS, TANH -> 4;
            case SIGMOID, SILU, SOFTPLUS, GELU_TANH, GELU_ERF -> 12;
        };
    }

    /// The graph with the same inputs whose outputs are the original outputs' error bounds (f64).
    public static Graph bounds(Graph graph) {
        Map<Node, Node> errors = new IdentityHashMap<>();
        for (Node node : graph.nodes()) errors.put(node, checked(node, bound(node, errors), errors));
        return new Graph(graph.inputs(), graph.outputs().stream().map(errors::get).toList());
    }

    private static Node bound(Node node, Map<Node, Node> e) {
        return switch (node) {
            case Node.Input in -> zero(in.shape());
            case Node.Constant c -> zero(c.shape());
            case Node.Iota iota -> zero(iota.shape());
            case Node.Random r -> zero(r.shape()); // every evaluation computes the same bits
            case Node.Unary u -> Bounds.ofUnary(u, e.get(u.x()));
            case Node.Binary b -> Bounds.ofBinary(b, e.get(b.left()), e.get(b.right()));
            case Node.Where w -> unstableIf(positive(e.get(w.condition())), where(w.condition(), e.get(w.ifTrue()), e.get(w.ifFalse())));
            case Node.Cast c -> Bounds.ofCast(c, e.get(c.x()));
            case Node.IndexCheck c -> e.get(c.x());                                            // the indices themselves
            case Node.Reduce r -> Bounds.ofReduce(r, e.get(r.x()));
            case Node.MatMul m -> Bounds.ofMatMul(m, e.get(m.a()), e.get(m.b()));
            case Node.Reshape r -> new Node.Reshape(e.get(r.x()), r.shape());
            case Node.Permute p -> new Node.Permute(e.get(p.x()), p.order());
            case Node.Expand x -> new Node.Expand(e.get(x.x()), x.shape());
            case Node.Slice s -> new Node.Slice(e.get(s.x()), s.axis(), s.start(), s.stop(), s.step());
            case Node.Concat c -> new Node.Concat(c.parts().stream().map(e::get).toList(), c.axis());
            case Node.Gather g -> unstableIf(positive(e.get(g.index())), new Node.Gather(e.get(g.x()), g.axis(), g.index()));
            case Node.Scatter s -> unstableIf(anyPositive(e.get(s.index()), s.shape()), Bounds.ofScatter(s, e.get(s.x()), e.get(s.src())));
            case Node.SliceUpdate u -> new Node.SliceUpdate(e.get(u.x()), u.axis(), u.start(), e.get(u.value()));
            case Node.ArgSort s -> Bounds.sortedBy(s, e.get(s.x()));
            case Node.Attention a -> expanded(dev.smelt.ir.AttentionMath.expand(a), e);  // attention's bound is its unfused ops'
        };
    }

    // The bound of `node`, a node of an attention's expansion over operands `e` bounds already.
    private static Node expanded(Node node, Map<Node, Node> e) {
        Node known = e.get(node);
        if (known != null) return known;
        node.inputs().forEach(operand -> expanded(operand, e));
        Node error = checked(node, bound(node, e), e);
        e.put(node, error);
        return error;
    }

    /// True everywhere in `shape` when any index may differ (an argsort or argmax within error):
    /// another index may write any element of a scatter's result.
    private static Node anyPositive(Node e, Shape shape) {
        if (e.shape().count() == 0) return bool(false, shape);
        return broadcast(positive(reduce(ReduceOp.MAX, e, java.util.stream.IntStream.range(0, e.shape().rank()).boxed().toList())), shape);
    }

    /// `error`, unbounded near overflow ([#withinRange]) where `node` computes its values. An
    /// argument or constant is exact, ±∞ included, and a node that only moves or selects values
    /// has its operands' bounds, already checked: an exact ∞ stays exact (a `where` against
    /// `eq(x, ∞)` compares every element, seed 1319). So does the ∞ of an elementwise op on exact
    /// operands where the exact result decides it ([#fromExact]).
    private static Node checked(Node node, Node error, Map<Node, Node> e) {
        return switch (node) {
            case Node.Input _, Node.Constant _, Node.Iota _, Node.Reshape _, Node.Permute _, Node.Expand _, Node.Slice _, Node.Concat _,
                 Node.Gather _, Node.Where _, Node.SliceUpdate _ -> error;
            case Node.Unary u -> where(positive(e.get(u.x())), withinRange(u, error), fromExact(u, error, localUlps(u.op())));
            case Node.Binary b when b.op() == BinaryOp.MAXIMUM || b.op() == BinaryOp.MINIMUM -> error;  // selects, as a where
            case Node.Binary b when !b.op().isComparison() -> {
                Node ea = e.get(b.left()), eb = e.get(b.right());
                Node inexact = both(positive(add(ea, eb)), not(sharedSpecial(b, ea, eb)));
                yield where(inexact, withinRange(b, error), fromExact(b, error, Bounds.ulps(b.op())));
            }
            case Node.Cast c -> where(positive(e.get(c.x())), withinRange(c, error), fromExact(c, error, 0.5));
            default -> withinRange(node, error);
        };
    }

    /// Where an add or subtract meets an ∞ or NaN that both implementations share (its bound is
    /// finite) and an operand whose kind is certain too: the result is that ∞ or NaN everywhere.
    private static Node sharedSpecial(Node.Binary b, Node ea, Node eb) {
        Shape shape = b.shape();
        if (b.op() != BinaryOp.ADD && b.op() != BinaryOp.SUB) return bool(false, shape);
        Node special = either(not(finite(b.left())), not(finite(b.right())));
        return both(special, both(finite(ea), finite(eb)));
    }

    private static Node finite(Node x) { return compare(BinaryOp.LT, abs(x), constant(INF, x.shape())); } // false for ±∞ and NaN

    /// The bound of an elementwise op on exact operands. One that rounds once, correctly, gives
    /// the same bits everywhere, ∞ included (`1 / 0`, a product past `Float.MAX_VALUE`). Another
    /// (`exp`, `pow`) may overflow in one implementation and not in the other only where its exact
    /// result lies within its ulps of the largest float; an `f32` op's exact result is taken as the
    /// same op in `f64`, and its poles (`log(0)`, `pow(0, -1)`) are ∞ there too.
    private static Node fromExact(Node node, Node error, double ulps) {
        if (ulps <= 0.5) return error;
        if (node.dtype() != DType.F32) return withinRange(node, error);
        Node wide = switch (node) {
            case Node.Unary u -> new Node.Unary(u.op(), f64(u.x()));
            case Node.Binary b -> new Node.Binary(b.op(), f64(b.left()), f64(b.right()));
            default -> throw new IllegalStateException("not elementwise: " + node);
        };
        Shape shape = node.shape();
        Node magnitude = abs(wide);
        Node decided = compare(BinaryOp.GT, magnitude, constant(Float.MAX_VALUE * (1 + (ulps + 1) * Math.ulp(1f)), shape));
        Node infinite = compare(BinaryOp.GE, abs(node), constant(INF, shape));
        return where(both(infinite, decided), error, withinRange(node, error));
    }

    /// Unbounded where the value's error reaches past its dtype's largest finite value: another
    /// valid evaluation may overflow there (an `f32` variance of equal values near 1e30 is 0 from
    /// an exact mean and ∞ from a mean a few ulps off, whose deviations square past `Float.MAX_VALUE`).
    static Node withinRange(Node value, Node error) {
        if (!value.dtype().isFloating()) return error;
        double largest = value.dtype() == DType.F32 ? Float.MAX_VALUE : Double.MAX_VALUE;
        Shape shape = value.shape();
        return unstableIf(compare(BinaryOp.GT, add(abs(value), error), constant(largest, shape)), error);
    }

    /// `k` ulps of `value` in its dtype, with a floor at the smallest normal's ulp; 0 for special
    /// results (both must then agree exactly); +inf within that error of overflow.
    static Node local(Node value, double k) {
        Shape shape = value.shape();
        if (k == 0 || !value.dtype().isFloating()) return zero(shape);
        boolean single = value.dtype() == DType.F32;
        double ulp = single ? Math.ulp(1f) : Math.ulp(1.0), floor = single ? Float.MIN_NORMAL : Double.MIN_NORMAL;
        double largest = single ? Float.MAX_VALUE : Double.MAX_VALUE;
        Node magnitude = abs(value);
        Node error = add(scale(magnitude, k * ulp), constant(k * ulp * floor, shape));
        Node special = compare(BinaryOp.GE, magnitude, constant(INF, shape));
        Node nan = compare(BinaryOp.NE, magnitude, magnitude);
        Node nearOverflow = compare(BinaryOp.GT, add(magnitude, error), constant(largest, shape));
        return where(special, zero(shape), where(nan, zero(shape), unstableIf(nearOverflow, error)));
    }

    /// The absolute floor [Tolerance] measured for the vector form of an op, where its result may be
    /// 0 against the reference's subnormal (`exp`, `sigmoid` and the like reach the subnormals through
    /// an overflowing intermediate): 0 where the result is ±∞ or NaN, which must match exactly.
    static Node floor(Node value, Tolerance.Bound bound) {
        Shape shape = value.shape();
        if (bound.absolute() == 0 || !value.dtype().isFloating()) return zero(shape);
        Node magnitude = abs(value);
        Node finite = compare(BinaryOp.LT, magnitude, constant(INF, shape));  // false for ∞ and NaN
        return where(finite, constant(bound.absolute(), shape), zero(shape));
    }

    /// Result of comparing compiled `actual` with `expected` under `bound`, or null when they agree.
    public static String mismatch(double expected, double actual, double bound) {
        if (Double.isNaN(bound) || bound == ErrorGraph.INF) return null;
        if (bound == 0 && Double.doubleToLongBits(expected) == Double.doubleToLongBits(actual)) return null;
        if (Double.isNaN(expected) || Double.isNaN(actual)) return Double.isNaN(expected) && Double.isNaN(actual) ? null : "NaN differs";
        if (Double.isInfinite(expected) || Double.isInfinite(actual)) return expected == actual ? null : "infinity differs";
        if (bound == 0) return expected == actual ? "sign of zero differs" : "exact result differs";
        return Math.abs(expected - actual) <= 2 * bound ? null : "off by %s, allowed %s".formatted(Math.abs(expected - actual), 2 * bound);
    }

}
