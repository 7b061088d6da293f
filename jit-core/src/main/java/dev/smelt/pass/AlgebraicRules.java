// SPDX-License-Identifier: Apache-2.0
package dev.smelt.pass;

import static dev.smelt.pass.ConstantFolding.isConstant;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Node;
import dev.smelt.ir.Node.Binary;
import dev.smelt.ir.Node.Cast;
import dev.smelt.ir.Node.Concat;
import dev.smelt.ir.Node.Constant;
import dev.smelt.ir.Node.Reduce;
import dev.smelt.ir.Node.Unary;
import dev.smelt.ir.Node.Where;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.UnaryOp;
import java.util.List;
import java.util.TreeSet;

/// Algebraic identities that hold bit for bit under the reference interpreter's semantics: IEEE
/// arithmetic on every value (NaN, ±∞, -0, subnormals) and wrapping `i32`. Operands of a binary
/// node already have equal shapes (a broadcast is an explicit `expand`), so `x * 1 -> x` never
/// changes a shape. Rules that hold only for integers say so; many familiar ones do not hold in
/// IEEE arithmetic and are deliberately absent:
/// - `x + 0 -> x`: `-0.0 + 0.0 = +0.0`; only `x + (-0.0)` and `x - 0.0` are exact;
/// - `x * 0 -> 0`, `x - x -> 0`, `x == x -> true`: false for NaN and ±∞;
/// - `0 - x -> -x`: `0.0 - 0.0 = +0.0` but `-(0.0) = -0.0` (yet `-0.0 - x = -x` is exact);
/// - `pow(x, 2) -> x·x`: `Math.pow` promises 1 ulp, not `x·x` exactly;
/// - `sum(sum(x))` over floats: reassociating a sum changes its rounding.
/// NaN payloads are not preserved and not part of the contract: a NaN stays a NaN.
public final class AlgebraicRules {
    private AlgebraicRules() {}

    /// `n` simplified by one rule, or `n` itself when none applies.
    public static Node rewrite(Node n) {
        return switch (n) {
            case Binary b -> binary(b);
            case Unary u -> unary(u);
            case Where(var _, var x, var y, var _, var _) when x == y -> x;                    // where(c, x, x) -> x
            case Cast(var x, var _, var dtype) when x.dtype() == dtype -> x;                    // (T) x -> x for x of type T
            case Cast(Cast(var x, var _, var middle), var _, var dtype) when widens(x.dtype(), middle) ->
                    x.dtype() == dtype ? x : new Cast(x, dtype);                                // (T)(U) x -> (T) x when U holds every x
            case Reduce r -> reduce(r);
            case Concat c when c.parts().size() == 1 -> c.parts().getFirst();                      // concat(x) -> x
            default -> n;
        };
    }

    private static Node binary(Binary n) {
        Node x = n.left(), y = n.right();
        boolean integer = n.left().dtype() == DType.I32;
        return switch (n.op()) {
            case MUL -> isConstant(y, 1) ? x : isConstant(x, 1) ? y                              // x·1 -> x, 1·x -> x
                    : isConstant(y, -1) ? neg(x) : isConstant(x, -1) ? neg(y)                    // x·(-1) -> -x (IEEE: a sign flip)
                    : integer && (isConstant(y, 0) || isConstant(x, 0)) ? zero(n) : n;           // i32: x·0 -> 0
            case ADD -> isConstant(y, -0.0) ? x : isConstant(x, -0.0) ? y                        // x + (-0.0) -> x, also for x = ±0
                    : integer && isConstant(y, 0) ? x : integer && isConstant(x, 0) ? y : n;     // i32: x + 0 -> x
            case SUB -> isConstant(y, 0) ? x                                                     // x - 0.0 -> x (= x + (-0.0))
                    : isConstant(x, -0.0) || integer && isConstant(x, 0) ? neg(y)                // -0.0 - x -> -x; i32: 0 - x -> -x
                    : integer && x == y ? zero(n) : n;                                           // i32: x - x -> 0
            case DIV -> isConstant(y, 1) ? x : isConstant(y, -1) ? neg(x) : n;                   // x/1 -> x, x/(-1) -> -x
            case POW -> isConstant(y, 1) ? x                                                     // pow(x, 1) -> x (NaN stays NaN)
                    : isConstant(y, 0) || isConstant(y, -0.0) || isConstant(x, 1) ? one(n) : n;  // pow(x, ±0) -> 1, pow(1, y) -> 1 (C's pow)
            case MAXIMUM, MINIMUM -> x == y ? x : n;                                             // max(x, x) -> x
            case EQ, LE, GE -> !x.dtype().isFloating() && x == y ? one(n) : n;                   // integers: x == x -> true (NaN ≠ NaN)
            case NE, LT, GT -> !x.dtype().isFloating() && x == y ? zero(n) : n;                  // integers: x < x -> false
        };
    }

    private static Node unary(Unary n) {
        if (n.op() == UnaryOp.STOP_GRADIENT) return n.x();                                      // autograd has run: stop_gradient(x) -> x
        if (!(n.x() instanceof Unary(var inner, var x, var _, var _))) return n;
        return switch (n.op()) {
            case NEG -> inner == UnaryOp.NEG ? x : n;                                            // -(-x) -> x (i32 wraps both ways)
            case ABS -> inner == UnaryOp.ABS || inner == UnaryOp.NEG ? new Unary(UnaryOp.ABS, x) : n; // |±|x|| -> |x|
            case RELU, SIGN -> inner == n.op() ? n.x() : n;                                      // relu(relu x) -> relu x, sign∘sign = sign
            default -> n;
        };
    }

    /// Reductions over axes of size 1 fold one element each; nested max/min merge their axes.
    private static Node reduce(Reduce r) {
        ReduceOp op = r.op();
        boolean exactAssociative = op == ReduceOp.MAX || op == ReduceOp.MIN || r.dtype() == DType.I32 && !op.isArg();
        if (r.axes().stream().allMatch(axis -> r.x().shape().dim(axis) == 1)) {
            if (op.isArg()) return zero(r);                                                      // argmax over one element -> 0
            if (op != ReduceOp.SUM || r.dtype() == DType.I32) return r.x();                      // max(x) -> x; not 0.0 + (-0.0) = +0.0
        }
        if (exactAssociative && r.x() instanceof Reduce inner && inner.op() == op) {             // max(max(x, A), B) -> max(x, A ∪ B)
            var axes = new TreeSet<>(inner.axes());
            axes.addAll(r.axes());
            return new Reduce(op, inner.x(), List.copyOf(axes));
        }
        return r;
    }

    /// Whether converting `from` to `to` keeps every value exactly, so a later cast sees `x` itself.
    private static boolean widens(DType from, DType to) {
        return from == to || from == DType.BOOL || to == DType.F64 && (from == DType.I32 || from == DType.F32);
    }

    private static Node neg(Node x) { return new Unary(UnaryOp.NEG, x); }

    private static Node zero(Node n) { return new Constant(0, n.shape(), n.dtype()); }

    private static Node one(Node n) { return new Constant(1, n.shape(), n.dtype()); }
}
