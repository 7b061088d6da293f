// SPDX-License-Identifier: Apache-2.0
package dev.smelt.testing;

import static dev.smelt.testing.ErrorGraph.*;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Node;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import java.util.List;

/// One error rule per op for [GraphTolerance]: `e(op(x)) = max|op'| over [x−e, x+e] · e(x) + own rounding`.
final class Bounds {
    private Bounds() {}

    static Node ofUnary(Node.Unary u, Node ex) {
        if (u.dtype() == DType.I32) return exactUnless(ex);
        Node x = f64(u.x());
        Node derivative = switch (u.op()) {
            case NEG, ABS, RELU, SIN, COS, TANH, SOFTPLUS -> constant(1, x.shape());  // |f'| ≤ 1
            case SIGMOID -> constant(0.25, x.shape());                                 // σ' ≤ ¼
            case GELU_TANH, GELU_ERF -> constant(1.13, x.shape());                     // |gelu'| ≤ 1.129
            case SILU -> constant(1.1, x.shape());                                     // |silu'| ≤ 1.0998
            case EXP, EXPM1 -> unary(UnaryOp.EXP, add(x, ex));                         // (eˣ)' = eˣ
            case LOG -> inverseAbove(sub(x, ex), 1);                                   // 1/x
            case LOG1P -> inverseAbove(sub(add(x, constant(1, x.shape())), ex), 1);    // 1/(1+x)
            case SQRT -> inverseAbove(unary(UnaryOp.SQRT, sub(x, ex)), 0.5);          // 1/(2√x)
            case RSQRT, RECIPROCAL -> null;                                            // below: (e/low)·(…)
            case SQUARE -> scale(add(abs(x), ex), 2);                                  // 2x
            case SIGN -> constant(0, x.shape());
            case STOP_GRADIENT -> constant(1, x.shape());                              // the identity
        };
        Node propagated = noUnderflow(switch (u.op()) {
            case RSQRT -> overLow(ex, sub(x, ex), scale(unary(UnaryOp.RSQRT, sub(x, ex)), 0.5)); // x^-1.5 / 2 = (1/x)·(x^-½ / 2)
            case RECIPROCAL -> overLow(ex, sub(abs(x), ex), div(constant(1, x.shape()), sub(abs(x), ex))); // 1/x² = (1/x)·(1/x)
            default -> times(derivative, ex);
        }, ex, u.dtype());
        if (u.op() == UnaryOp.SIGN) propagated = unstableIf(both(positive(ex), within(abs(x), ex)), zero(x.shape()));
        Node rounding = add(GraphTolerance.local(u, GraphTolerance.localUlps(u.op())), GraphTolerance.floor(u, Tolerance.of(u.op(), u.dtype())));
        Node nan = either(certainNaN(x, ex), belowDomain(u.op(), x, ex));
        return where(nan, zero(x.shape()), finite(add(propagated, rounding)));
    }

    /// NaN in both implementations: a NaN whose bound is finite (the check demands NaN of both).
    private static Node certainNaN(Node x, Node ex) {
        return both(compare(BinaryOp.NE, x, x), compare(BinaryOp.LT, ex, constant(INF, ex.shape())));
    }

    /// Where every value within error lies below the op's domain, so the result is NaN everywhere
    /// (`rsqrt(-2)`; -0 is in the domain: `sqrt(-0)` is -0, `log(-0)` is -∞).
    private static Node belowDomain(UnaryOp op, Node x, Node ex) {
        Shape shape = x.shape();
        Node high = add(x, ex);
        return switch (op) {
            case SQRT, RSQRT, LOG -> compare(BinaryOp.LT, high, zero(shape));
            case LOG1P -> compare(BinaryOp.LT, high, constant(-1, shape));
            default -> bool(false, shape);
        };
    }

    // factor / low where low > 0, else unbounded.
    private static Node inverseAbove(Node low, double factor) {
        Shape shape = low.shape();
        return where(compare(BinaryOp.GT, low, zero(shape)), div(constant(factor, shape), low), constant(INF, shape));
    }

    // (e / low)·factor where low > 0, else unbounded, and 0 for an exact operand (`1 / 0` is ∞
    // everywhere): a derivative like x^-1.5 formed on its own overflows past x ≈ 1e205 (or
    // underflows), and the bound came out 0 (seed 131142: rsqrt of exp(489) = 2.7e212, whose
    // exponent carried the matmul's error, held to its own rounding).
    private static Node overLow(Node e, Node low, Node factor) {
        Shape shape = low.shape();
        return where(positive(e), where(compare(BinaryOp.GT, low, zero(shape)), mul(div(e, low), factor), constant(INF, shape)), zero(shape));
    }

    static Node ofBinary(Node.Binary b, Node ea, Node eb) {
        Shape shape = b.shape();
        Node sum = add(ea, eb);
        if (b.op().isComparison()) {
            Node gap = abs(sub(f64(b.left()), f64(b.right())));
            return unstableIf(both(positive(sum), within(gap, sum)), zero(shape));
        }
        if (b.dtype() == DType.I32) return exactUnless(sum);
        Node a = abs(b.left()), c = abs(b.right());
        Node propagated = switch (b.op()) {
            case ADD, SUB -> sum;
            case MUL -> add(add(times(a, eb), times(c, ea)), times(ea, eb));
            case DIV -> quotient(a, c, ea, eb);
            case POW -> unstableIf(positive(sum), zero(shape));
            case MAXIMUM, MINIMUM -> max(ea, eb);
            case EQ, NE, LT, LE, GT, GE -> throw new IllegalStateException("comparisons are handled above");
        };
        propagated = noUnderflow(propagated, sum, b.dtype());
        Node rounding = GraphTolerance.local(b, ulps(b.op()));
        if (b.op() == BinaryOp.POW) return finite(add(propagated, add(rounding, GraphTolerance.floor(b, Tolerance.pow(b.dtype())))));
        // A NaN operand gives NaN from every op but `pow` (`pow(1, NaN)` is 1).
        Node nan = either(certainNaN(f64(b.left()), ea), certainNaN(f64(b.right()), eb));
        return where(nan, zero(shape), finite(add(propagated, rounding)));
    }

    /// Ulps of the result each implementation may be off for one arithmetic op: `pow` is computed
    /// as `exp(y·log x)` within 2, the rest round once.
    static double ulps(BinaryOp op) {
        return op == BinaryOp.POW ? 2 : op == BinaryOp.MAXIMUM || op == BinaryOp.MINIMUM ? 0 : 0.5;
    }

    // |a/c − (a±ea)/(c±ec)| ≤ (|a|·ec + |c|·ea) / (|c|·(|c| − ec)), unbounded when c may be 0.
    private static Node quotient(Node a, Node c, Node ea, Node ec) {
        Shape shape = a.shape();
        Node low = sub(c, ec);
        // (a/c)·(ec/low) + ea/low: forming c·low overflows for c past 1e154, and a·ec underflows
        // for a near the smallest normal (seed 306283: 5e-308 over a softmax held to an ulp)
        Node bound = add(times(div(a, c), div(ec, low)), div(ea, low));
        Node exact = compare(BinaryOp.EQ, add(ea, ec), zero(shape));
        return where(exact, zero(shape), where(compare(BinaryOp.GT, low, zero(shape)), bound, constant(INF, shape)));
    }

    static Node ofCast(Node.Cast c, Node ex) {
        DType from = c.x().dtype(), to = c.dtype();
        Shape shape = c.shape();
        if (to.isFloating() && !from.isFloating()) return intoFloat(c, ex);
        if (to.isFloating()) return finite(add(ex, GraphTolerance.local(c, from == DType.F32 && to == DType.F64 ? 0 : 0.5)));
        if (!from.isFloating()) return ex;
        Node x = f64(c.x());
        if (to == DType.BOOL) return unstableIf(both(positive(ex), within(abs(x), ex)), zero(shape));
        Node truncated = f64(new Node.Cast(c.x(), DType.I32));
        Node below = abs(sub(x, truncated)), above = sub(constant(1, shape), below);
        return unstableIf(both(positive(ex), within(new Node.Binary(BinaryOp.MINIMUM, below, above), ex)), zero(shape));
    }

    /// An `i32` or `bool` is exact in `f64`, and in `f32` up to 2^24 in magnitude (a mask cast to
    /// 0 and 1 was given a subnormal's rounding, within which `== 0` or `1 / x` may change).
    private static Node intoFloat(Node.Cast c, Node ex) {
        if (c.dtype() == DType.F64) return ex;
        Shape shape = c.shape();
        Node rounds = compare(BinaryOp.GT, abs(c.x()), constant(1 << 24, shape));
        return where(rounds, finite(add(ex, GraphTolerance.local(c, 0.5))), ex);
    }

    static Node ofReduce(Node.Reduce r, Node ex) {
        if (r.axes().isEmpty()) return r.op().isArg() ? exactUnless(ex) : ex;
        Node worst = reduce(ReduceOp.MAX, ex, r.axes());
        if (r.op().isArg()) return argument(r, ex, worst);
        if (r.dtype() == DType.I32) return exactUnless(worst);
        int count = 1;
        for (int axis : r.axes()) count *= r.x().shape().dim(axis);
        return finite(switch (r.op()) {
            case SUM -> {
                Node magnitudes = reduce(ReduceOp.SUM, abs(r.x()), r.axes());
                Node bound = add(add(reduce(ReduceOp.SUM, ex, r.axes()), scale(magnitudes, count * ulp(r.dtype()))), GraphTolerance.local(r, 0.5));
                yield unstableIf(partialSumsMayOverflow(magnitudes, r.dtype()), bound);
            }
            case PROD -> unstableIf(positive(worst), GraphTolerance.local(r, count));
            case MAX, MIN -> worst;
            case ARGMAX, ARGMIN -> throw new IllegalStateException("arg-reductions are handled above");
        });
    }

    /// A scatter's errors land where its sources do; a floating scatterAdd also rounds once per
    /// source added, which the reference does in f64: as a sum's rule, each element's count of
    /// additions times an ulp times the magnitudes added there, unbounded where the partial sums
    /// may overflow. The order of the additions is the same everywhere (row-major).
    static Node ofScatter(Node.Scatter s, Node ex, Node esrc) {
        Node errors = new Node.Scatter(ex, s.axis(), s.index(), esrc, s.add());
        if (!s.add() || !s.dtype().isFloating()) return errors;
        Node magnitudes = new Node.Scatter(abs(s.x()), s.axis(), s.index(), abs(s.src()), true);
        Node count = new Node.Scatter(zero(s.shape()), s.axis(), s.index(), constant(1, s.src().shape()), true);
        Node bound = add(add(errors, mul(scale(count, ulp(s.dtype())), magnitudes)), GraphTolerance.local(s, 0.5));
        return finite(unstableIf(partialSumsMayOverflow(magnitudes, s.dtype()), bound));
    }

    // The index is certain unless another element lies within error of the extreme.
    private static Node argument(Node.Reduce r, Node ex, Node worst) {
        Node x = f64(r.x());
        Node extreme = reduce(r.op() == ReduceOp.ARGMAX ? ReduceOp.MAX : ReduceOp.MIN, x, r.axes());
        Node near = within(abs(sub(x, broadcast(extreme, x.shape()))), scale(broadcast(worst, x.shape()), 2));
        Node contenders = reduce(ReduceOp.SUM, f64(near), r.axes());
        return unstableIf(both(positive(worst), compare(BinaryOp.GT, contenders, constant(1, contenders.shape()))), zero(r.shape()));
    }

    static Node ofMatMul(Node.MatMul m, Node ea, Node eb) {
        Node a = abs(m.a()), b = abs(m.b());
        int k = m.a().shape().dim(m.a().shape().rank() - (m.transposeA() ? 2 : 1));
        Node propagated = add(add(product(m, a, eb), product(m, ea, b)), product(m, ea, eb));
        Node reassociation = scale(product(m, a, b), k * ulp(m.dtype()));
        // Each product may also underflow (fl(a·b) = a·b(1+δ) + η, |η| ≤ the smallest subnormal),
        // and an FMA, which rounds a·b + c once, keeps the sign of a product that underflows to 0.
        Node underflow = constant(k * tiny(m.dtype()), m.shape());
        Node bound = finite(add(add(add(propagated, reassociation), underflow), GraphTolerance.local(m, 0.5)));
        return unstableIf(partialSumsMayOverflow(product(m, a, b), m.dtype()), bound);
    }

    /// At least the dtype's smallest subnormal where the operands carry error: an error bound that
    /// underflows to 0 would demand the reference's exact bits, down to the sign of a zero result
    /// (seed 409131: `(x - mean)·rsqrt(var + ε)`, 0 against -1.5e-5 from a mean summed in lanes, times
    /// a subnormal weight: +0 and -0).
    private static Node noUnderflow(Node propagated, Node operandErrors, DType dtype) {
        if (!dtype.isFloating()) return propagated;
        return where(positive(operandErrors), max(propagated, constant(tiny(dtype), propagated.shape())), propagated);
    }

    private static double tiny(DType dtype) { return dtype == DType.F32 ? Float.MIN_VALUE : Double.MIN_VALUE; }

    private static Node product(Node.MatMul m, Node a, Node b) { return new Node.MatMul(a, b, m.transposeA(), m.transposeB()); }

    private static double ulp(DType dtype) { return dtype == DType.F32 ? Math.ulp(1f) : Math.ulp(1.0); }

    /// Integers and bools are exact, unless computed from something inexact.
    /// An argsort's indices: exact where no value of the line has an error, else anything (the order may flip).
    /// An argsort's row may differ only where two of its values may swap: values next to each other
    /// in sorted order whose gap is within their summed bounds (if two further apart overlapped,
    /// each neighbour between them would too), or that may be anything. Values that are exact
    /// sort the same everywhere, ties by position.
    static Node sortedBy(Node.ArgSort s, Node ex) {
        int axis = s.axis(), n = s.x().shape().dim(axis);
        if (n < 2) return zero(s.shape());
        Node order = new Node.ArgSort(s.x(), axis, false), sorted = f64(new Node.Gather(s.x(), axis, order)), errors = new Node.Gather(ex, axis, order);
        Node below = new Node.Slice(sorted, axis, 0, n - 1, 1), above = new Node.Slice(sorted, axis, 1, n, 1);
        Node sum = add(new Node.Slice(errors, axis, 0, n - 1, 1), new Node.Slice(errors, axis, 1, n, 1));
        Node gapNotClear = abs(sub(above, below)); // NaN where a NaN or ∞ - ∞ is involved
        Node mayMeet = new Node.Cast(both(positive(sum), within(gapNotClear, sum)), DType.F64);
        return exactUnless(new Node.Expand(reduce(ReduceOp.MAX, mayMeet, List.of(axis)), s.shape()));
    }

    private static Node exactUnless(Node e) { return unstableIf(positive(e), zero(e.shape())); }

    /// NaN bounds (from ∞·0 and the like) mean nothing is known: treat them as unbounded.
    private static Node finite(Node e) { return unstableIf(compare(BinaryOp.NE, e, e), e); }
}
