// SPDX-License-Identifier: Apache-2.0
package dev.smelt.testing;

import dev.smelt.ir.DType;

/// A set of values of one dtype that a correct kernel may produce: the single value `lo` when
/// `exact` (compared bit for bit, so NaN must be NaN and -0 must be -0), otherwise the interval
/// [lo, hi] (empty when lo > hi), plus NaN when `nan`.
public record Bound(double lo, double hi, boolean nan, boolean exact) {
    /// Only NaN.
    public static final Bound NAN = new Bound(Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, true, false);

    public static Bound exact(double value) { return new Bound(value, value, Double.isNaN(value), true); }

    public static Bound range(double lo, double hi, boolean nan) { return new Bound(lo, hi, nan, false); }

    /// Anything of `dtype`.
    public static Bound any(DType dtype) {
        return switch (dtype) {
            case BOOL -> range(0, 1, false);
            case I32 -> range(Integer.MIN_VALUE, Integer.MAX_VALUE, false);
            case F32, F64 -> range(Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY, true);
        };
    }

    /// `true`, `false`, or either.
    public static Bound bool(boolean canBeTrue, boolean canBeFalse) {
        return canBeTrue && canBeFalse ? range(0, 1, false) : exact(canBeTrue ? 1 : 0);
    }

    /// The smallest non-NaN value (+∞ when there is none).
    public double low() { return Double.isNaN(lo) ? Double.POSITIVE_INFINITY : lo; }

    /// The largest non-NaN value (-∞ when there is none).
    public double high() { return Double.isNaN(hi) ? Double.NEGATIVE_INFINITY : hi; }

    public boolean isNaNOnly() { return nan && low() > high(); }

    public boolean hasNumbers() { return low() <= high(); }

    /// Whether an infinity is among the values.
    public boolean reachesInfinity() { return hasNumbers() && (Double.isInfinite(low()) || Double.isInfinite(high())); }

    public boolean contains(DType dtype, double value) {
        if (exact) return sameBits(dtype, lo, value);
        if (Double.isNaN(value)) return nan;
        return lo <= value && value <= hi;
    }

    /// Equality as the dtype stores values: NaN equals NaN, -0 differs from +0.
    public static boolean sameBits(DType dtype, double a, double b) {
        return switch (dtype) {
            case F32 -> Float.floatToIntBits((float) a) == Float.floatToIntBits((float) b);
            case F64 -> Double.doubleToLongBits(a) == Double.doubleToLongBits(b);
            case I32, BOOL -> a == b;
        };
    }

    /// The smallest set holding both.
    public static Bound hull(DType dtype, Bound a, Bound b) {
        if (a.exact && b.exact && sameBits(dtype, a.lo, b.lo)) return a;
        return range(Math.min(a.low(), b.low()), Math.max(a.high(), b.high()), a.nan || b.nan);
    }

    @Override
    public String toString() {
        if (exact) return "exactly " + lo;
        return (hasNumbers() ? "[" + lo + ", " + hi + "]" : "{}") + (nan ? " or NaN" : "");
    }
}
