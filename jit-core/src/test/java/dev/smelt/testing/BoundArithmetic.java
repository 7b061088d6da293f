// SPDX-License-Identifier: Apache-2.0
package dev.smelt.testing;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.UnaryOp;
import java.util.List;

/// The operators on [Bound]s. Exact operands give the interpreter's exact result, widened by the
/// operator's [Tolerance] if it is approximate. Intervals go through each operator's monotone
/// pieces (the image of [lo, hi] under `exp` is [exp lo, exp hi]); rounding is monotone too, so an
/// exactly rounded operator needs no widening. Hard cases give [Bound#any].
final class BoundArithmetic {
    private BoundArithmetic() {}

    private static final double GELU_ARGMIN = -0.75179, SILU_ARGMIN = -1.27846;

    static Bound unary(UnaryOp op, DType dtype, Bound x) {
        if (dtype == DType.I32) return x.exact() ? Bound.exact(op.applyInt((int) x.lo())) : Bound.any(dtype);
        var tolerance = Tolerance.of(op, dtype);
        if (x.exact()) {
            double value = dtype.round(op.apply(x.lo()));
            if (tolerance.isExact()) return Bound.exact(value);
            return Double.isNaN(value) ? Bound.NAN : widen(dtype, value, value, false, tolerance);
        }
        if (x.isNaNOnly()) return Bound.NAN;                      // every unary operator keeps NaN
        double[] image = image(op, dtype, x.low(), x.high());
        return image == null ? Bound.any(dtype) : widen(dtype, image[0], image[1], x.nan(), tolerance);
    }

    /// The hull of `op` over [lo, hi], or null when it holds a NaN or a pole.
    private static double[] image(UnaryOp op, DType dtype, double lo, double hi) {
        double a = f(op, dtype, lo), b = f(op, dtype, hi);
        if (Double.isNaN(a) || Double.isNaN(b)) return null;
        return switch (op) {
            case EXP, EXPM1, LOG, LOG1P, SQRT, TANH, SIGMOID, RELU, SIGN, STOP_GRADIENT -> new double[] {a, b};
            case SOFTPLUS -> new double[] {a, lo <= 20 && hi >= 20 ? Math.max(b, f(op, dtype, 20)) : b};  // steps down at the threshold
            case NEG -> new double[] {b, a};
            case RECIPROCAL, RSQRT -> lo <= 0 && hi >= 0 || op == UnaryOp.RSQRT && lo <= 0 ? null : new double[] {b, a};
            case ABS, SQUARE -> lo >= 0 ? new double[] {a, b} : hi <= 0 ? new double[] {b, a} : new double[] {0, Math.max(a, b)};
            case SIN, COS -> periodic(op, dtype, lo, hi);
            case GELU_TANH, GELU_ERF -> unimodal(op, dtype, lo, hi, GELU_ARGMIN);
            case SILU -> unimodal(op, dtype, lo, hi, SILU_ARGMIN);
        };
    }

    // |sin x - sin m| <= |x - m|: within half the width of the middle's value
    private static double[] periodic(UnaryOp op, DType dtype, double lo, double hi) {
        double half = (hi - lo) / 2, middle = op.apply(lo + half);
        if (!(half < 1)) return new double[] {-1, 1};
        return new double[] {Tolerance.step(dtype, Math.max(-1, middle - half), -1), Tolerance.step(dtype, Math.min(1, middle + half), 1)};
    }

    // falls to its minimum at `argmin`, then rises
    private static double[] unimodal(UnaryOp op, DType dtype, double lo, double hi, double argmin) {
        double a = f(op, dtype, lo), b = f(op, dtype, hi);
        if (lo < argmin && hi > argmin) return new double[] {f(op, dtype, argmin) - 1e-6, Math.max(a, b)};
        return new double[] {Math.min(a, b), Math.max(a, b)};
    }

    private static double f(UnaryOp op, DType dtype, double x) { return dtype.round(op.apply(x)); }

    private static Bound widen(DType dtype, double lo, double hi, boolean nan, Tolerance.Bound tolerance) {
        if (tolerance.isExact()) return Bound.range(lo, hi, nan);
        double low = Math.min(Tolerance.step(dtype, lo, -tolerance.ulps()), lo - tolerance.absolute());
        double high = Math.max(Tolerance.step(dtype, hi, tolerance.ulps()), hi + tolerance.absolute());
        return Bound.range(low, high, nan);
    }

    static Bound binary(BinaryOp op, DType operands, Bound a, Bound b) {
        if (op.isComparison()) return compare(op, operands, a, b);
        if (a.exact() && b.exact()) {
            if (operands == DType.I32) return Bound.exact(op.applyInt((int) a.lo(), (int) b.lo()));
            double value = operands.round(op.apply(a.lo(), b.lo()));
            if (op != BinaryOp.POW) return Bound.exact(value);
            return Double.isNaN(value) ? Bound.NAN : widen(operands, value, value, false, Tolerance.pow(operands));
        }
        if (operands == DType.I32) return Bound.any(operands);
        if ((a.isNaNOnly() || b.isNaNOnly()) && op != BinaryOp.POW) return Bound.NAN;   // NaN wins, in max and min too
        if (a.nan() || b.nan() || a.reachesInfinity() || b.reachesInfinity() || !a.hasNumbers() || !b.hasNumbers()) return Bound.any(operands);
        if (op == BinaryOp.DIV && b.low() <= 0 && b.high() >= 0) return Bound.any(operands);
        if (op == BinaryOp.POW && a.low() <= 0) return Bound.any(operands);
        double low = Double.POSITIVE_INFINITY, high = Double.NEGATIVE_INFINITY;
        for (double x : new double[] {a.low(), a.high()})
            for (double y : new double[] {b.low(), b.high()}) {
                double corner = operands.round(op.apply(x, y));
                if (Double.isNaN(corner)) return Bound.any(operands);
                low = Math.min(low, corner);
                high = Math.max(high, corner);
            }
        return op == BinaryOp.POW ? widen(operands, low, high, false, Tolerance.pow(operands)) : Bound.range(low, high, false);
    }

    private static Bound compare(BinaryOp op, DType operands, Bound a, Bound b) {
        if (a.exact() && b.exact()) return Bound.exact(op.apply(a.lo(), b.lo()));
        boolean canBeTrue = false, canBeFalse = false;
        if (a.nan() || b.nan()) {                                  // a NaN operand: only `ne` holds
            canBeTrue = op == BinaryOp.NE;
            canBeFalse = op != BinaryOp.NE;
        }
        if (a.hasNumbers() && b.hasNumbers()) {
            double al = a.low(), ah = a.high(), bl = b.low(), bh = b.high();
            boolean overlap = al <= bh && bl <= ah, single = al == ah && bl == bh && al == bl;
            switch (op) {
                case LT -> { canBeTrue |= al < bh; canBeFalse |= ah >= bl; }
                case LE -> { canBeTrue |= al <= bh; canBeFalse |= ah > bl; }
                case GT -> { canBeTrue |= ah > bl; canBeFalse |= al <= bh; }
                case GE -> { canBeTrue |= ah >= bl; canBeFalse |= al < bh; }
                case EQ -> { canBeTrue |= overlap; canBeFalse |= !single; }
                case NE -> { canBeTrue |= !single; canBeFalse |= overlap; }
                case ADD, SUB, MUL, DIV, POW, MAXIMUM, MINIMUM -> throw new IllegalArgumentException(op + " is no comparison");
            }
        }
        return Bound.bool(canBeTrue, canBeFalse);
    }

    static Bound cast(DType from, DType to, Bound x) {
        if (x.exact()) return Bound.exact(to.round(x.lo()));
        if (from == to) return x;
        if (to == DType.BOOL) return Bound.bool(x.nan() || x.hasNumbers() && (x.low() < 0 || x.high() > 0), x.hasNumbers() && x.low() <= 0 && x.high() >= 0);
        if (!x.hasNumbers()) return to == DType.I32 ? Bound.exact(0) : Bound.NAN;
        double low = to.round(x.low()), high = to.round(x.high());                   // Java's casts are monotone
        if (to == DType.I32 && x.nan()) return Bound.range(Math.min(low, 0), Math.max(high, 0), false);  // (int) NaN == 0
        return Bound.range(low, high, x.nan());
    }

    /// A reduction over a row of bounds. Sums of floats reassociate in vector lanes (error
    /// [Tolerance#sumError]); `max`/`min` are exact in any order; products of floats and integer
    /// folds run in the interpreter's order; arg-reductions of inexact values may pick any index.
    static Bound reduce(ReduceOp op, DType dtype, List<Bound> values) {
        boolean exact = values.stream().allMatch(Bound::exact);
        boolean floatSum = op == ReduceOp.SUM && dtype.isFloating();
        if (exact && !floatSum) return Bound.exact(KernelBounds.exactFold(op, dtype, values));
        if (exact) return exactSum(dtype, values);
        if (op.isArg()) return Bound.range(0, Math.max(values.size() - 1, 0), false);
        if (!dtype.isFloating() || op == ReduceOp.PROD) return Bound.any(dtype);
        if (values.stream().anyMatch(Bound::isNaNOnly)) return Bound.NAN;
        boolean nan = values.stream().anyMatch(Bound::nan);
        var numbers = values.stream().filter(Bound::hasNumbers).toList();
        if (op == ReduceOp.MAX || op == ReduceOp.MIN) {
            boolean max = op == ReduceOp.MAX;
            double low = numbers.stream().mapToDouble(Bound::low).reduce(max ? Math::max : Math::min).orElse(op.identity());
            double high = numbers.stream().mapToDouble(Bound::high).reduce(max ? Math::max : Math::min).orElse(op.identity());
            return Bound.range(low, high, nan);
        }
        if (numbers.stream().anyMatch(Bound::reachesInfinity)) return Bound.any(dtype);
        double low = numbers.stream().mapToDouble(Bound::low).sum(), high = numbers.stream().mapToDouble(Bound::high).sum();
        double magnitude = numbers.stream().mapToDouble(v -> Math.max(Math.abs(v.low()), Math.abs(v.high()))).sum();
        return sumRange(dtype, values.size(), low, high, magnitude, nan);
    }

    private static Bound exactSum(DType dtype, List<Bound> values) {
        double reference = KernelBounds.exactFold(ReduceOp.SUM, dtype, values);
        if (Double.isNaN(reference)) return Bound.NAN;              // a NaN term, or +∞ and -∞: NaN in any order
        double magnitude = values.stream().mapToDouble(Bound::lo).filter(Double::isFinite).map(Math::abs).sum();
        if (Double.isInfinite(reference) && values.stream().anyMatch(v -> Double.isInfinite(v.lo())) && !overflows(dtype, magnitude))
            return Bound.exact(reference);                          // an infinite term wins
        return sumRange(dtype, values.size(), reference, reference, magnitude, false);
    }

    // [low, high] ± twice γₙ·Σ|x| (the kernel's order, and the double arithmetic of this bound), ± one ulp of rounding
    private static Bound sumRange(DType dtype, int n, double low, double high, double magnitude, boolean nan) {
        if (overflows(dtype, magnitude) || Double.isInfinite(low) || Double.isInfinite(high)) return Bound.any(dtype);
        double error = 2 * Tolerance.sumError(dtype, n, magnitude);
        return Bound.range(Tolerance.step(dtype, low - error, -1), Tolerance.step(dtype, high + error, 1), nan);
    }

    // Partial sums in the dtype may overflow where the double reference does not.
    private static boolean overflows(DType dtype, double magnitude) {
        return !(magnitude < (dtype == DType.F32 ? Float.MAX_VALUE : Double.MAX_VALUE) / 2);
    }
}
