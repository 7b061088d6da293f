// SPDX-License-Identifier: Apache-2.0
package dev.smelt.testing;

import dev.smelt.ir.DType;
import dev.smelt.ir.UnaryOp;

/// How far a generated kernel (either variant: they give the same bits) may be from the
/// interpreter, per operator. Everything not listed here is exact: `+ - * /`, `sqrt`, `max`, `min`,
/// comparisons, `where`, casts, the integer operators, and the operators that kernels compute with
/// the interpreter's own scalar definition (`expm1`, `log1p`, `gelu_erf`, `pow`, and every `f64`
/// transcendental: `Math`, lane by lane in vector code).
///
/// **How the bounds were measured.** `VectorAccuracy.main` (test sources) runs each operator as a
/// one-operator vector kernel over 4096 points after 4000 warm-up calls, on 512 batches
/// of inputs: uniform on [-10, 10] and [-100, 100], magnitudes log-uniform over 2^-60 … 2^60 of
/// either sign, and NaN, ±0, ±∞, ±1, the float extremes, 20, 88.72, -87.3, 709.7; for `pow`,
/// exponents that are small integers or uniform on [-8, 8]. The error of an element is the number
/// of representable values between the kernel's result and the interpreter's ([#ulpDistance]).
/// Host: AMD EPYC with AVX-512, Temurin JDK 25, 2026. Each bound is the measured maximum plus one;
/// the measured maximum is in each line's comment.
///
/// A few operators also need an absolute floor, below which differences are accepted whatever
/// their ulp count: results that are subnormal in one and 0 in the other (`Float.MIN_NORMAL`), and
/// the two composites whose float form and the double reference part ways in a tail (see
/// [#of(UnaryOp, DType)]).
public final class Tolerance {
    private Tolerance() {}

    /// An error bound: within `ulps` representable values of the reference, or within `absolute` of it.
    public record Bound(long ulps, double absolute) {
        public static final Bound EXACT = new Bound(0, 0);

        public boolean isExact() { return ulps == 0 && absolute == 0; }

        /// Whether `actual` is within the bound of `expected` (NaN only matches NaN).
        public boolean accepts(DType dtype, double expected, double actual) {
            if (Double.isNaN(expected) || Double.isNaN(actual)) return Double.isNaN(expected) && Double.isNaN(actual);
            return ulpDistance(dtype, expected, actual) <= ulps || Math.abs(expected - actual) <= absolute;
        }
    }

    public static Bound of(UnaryOp op, DType dtype) {
        boolean f32 = dtype == DType.F32;
        double subnormal = f32 ? Float.MIN_NORMAL : Double.MIN_NORMAL;
        return switch (op) {
            case NEG, ABS, SQRT, RECIPROCAL, SQUARE, RELU, SIGN, GELU_ERF, EXPM1, LOG1P, STOP_GRADIENT -> Bound.EXACT;
            case EXP, SIN, COS, LOG, TANH -> f32 ? new Bound(3, subnormal) : Bound.EXACT;  // inline f32: exp, log, tanh 1; sin, cos 2
            case RSQRT -> new Bound(f32 ? 2 : 1, subnormal);                              // 1 / sqrt rounds twice in f32: 1; f64: 0
            case SIGMOID -> new Bound(f32 ? 3 : 5, subnormal);                            // measured 2, 4
            case SOFTPLUS -> new Bound(f32 ? 2 : 3, subnormal);                           // measured 1, 2
            // x / (1 + exp(-x)): for x in [-104, -88.7] float exp overflows, giving -0 where the
            // reference is about -2.6e-37. Measured 2, 4 ulps elsewhere.
            case SILU -> new Bound(f32 ? 3 : 5, f32 ? 3e-37 : subnormal);
            // x / (1 + exp(-2y)) in the vector form, x/2·(1 + tanh y) in the reference: below
            // x = -0.6 the rounding of y is amplified (by |2y|·σ(2y); the relative condition grows
            // as 0.2·|x|³ further out) and the reference itself cancels to 0 below -5.7; the two
            // differ by at most 4.5e-8 (f32, every float checked) and 2.0e-16 (f64) there.
            // Measured 2 ulps above -0.6.
            case GELU_TANH -> new Bound(3, f32 ? 0x1p-24 : 0x1p-52);
        };
    }

    /// `pow` on floats: C's, lane by lane, as the interpreter's.
    public static Bound pow(DType dtype) { return Bound.EXACT; }

    /// The unit roundoff of `dtype`: 2^-24 for `f32`, 2^-53 for `f64`.
    public static double unitRoundoff(DType dtype) { return dtype == DType.F32 ? 0x1p-24 : 0x1p-53; }

    /// The error a floating-point sum of `n` terms may have in any order of addition:
    /// |Σ̂ − Σ| ≤ γₙ·Σ|xᵢ| with γₙ = n·u / (1 − n·u) (Higham, *Accuracy and Stability of Numerical
    /// Algorithms*, §4.2). Generated sums add lanes in the dtype and in a different order than the
    /// interpreter, which adds in double; its own error is below this bound too.
    public static double sumError(DType dtype, int n, double sumOfMagnitudes) {
        double nu = n * unitRoundoff(dtype);
        return nu / (1 - nu) * sumOfMagnitudes;
    }

    /// The distance between two values of `dtype` in representable steps (`inf` is one step past
    /// the largest finite value; +0 and -0 are one apart). Not defined for NaN.
    public static long ulpDistance(DType dtype, double a, double b) {
        return dtype == DType.F32 ? Math.abs(ordered((float) a) - ordered((float) b)) : Math.abs(ordered(a) - ordered(b));
    }

    /// `x` moved `steps` representable values of `dtype` up (or down, for negative `steps`), stopping at ±∞.
    public static double step(DType dtype, double x, long steps) {
        if (Double.isNaN(x) || Double.isInfinite(x) && (x > 0) == (steps > 0)) return x;
        if (dtype == DType.F32) {
            long moved = Math.clamp(ordered((float) x) + steps, ordered(Float.NEGATIVE_INFINITY), ordered(Float.POSITIVE_INFINITY));
            return Float.intBitsToFloat((int) (moved >= 0 ? moved : (-moved - 1) | 0x80000000L));
        }
        long start = ordered(x), moved = start + steps;
        if (steps > 0 && moved < start || moved > ordered(Double.POSITIVE_INFINITY)) return Double.POSITIVE_INFINITY;
        if (steps < 0 && moved > start || moved < ordered(Double.NEGATIVE_INFINITY)) return Double.NEGATIVE_INFINITY;
        return Double.longBitsToDouble(moved >= 0 ? moved : (-moved - 1) | 0x8000000000000000L);
    }

    /// Float bit patterns mapped to a number line on which each step is one representable value.
    static long ordered(float x) {
        int bits = Float.floatToRawIntBits(x);
        return bits >= 0 ? bits : -(long) (bits & 0x7fffffff) - 1;
    }

    static long ordered(double x) {
        long bits = Double.doubleToRawLongBits(x);
        return bits >= 0 ? bits : -(bits & 0x7fffffffffffffffL) - 1;
    }
}
