// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

/// The error function, which `java.lang.Math` lacks. It is the reference for `gelu` (exact form), so
/// it favours accuracy over speed: within 2 ulps of erf and 2.5 ulps of erfc over the whole double
/// range (against 200-bit mpmath on a dense grid), given that `Math.exp` is within 1 ulp.
public final class Erf {
    private Erf() {}

    private static final double SQRT_PI = 1.772453850905516;               // √π, rounded
    private static final double SQRT_PI_LOW = -7.666586499825799e-17;      // √π - SQRT_PI
    private static final double TWO_OVER_SQRT_PI = 1.1283791670955126;
    private static final double TWO_OVER_SQRT_PI_MINUS_ONE = 0.1283791670955126; // 2/√π - 1, rounded once

    /// erf x = 2/√π ∫₀ˣ e^(-t²) dt.
    public static double erf(double x) {
        if (Double.isNaN(x)) return x;
        double z = Math.abs(x);
        double magnitude = z < 0.5 ? series(z) : 1 - erfcFromHalf(z);
        return Math.copySign(magnitude, x);
    }

    /// erfc x = 1 - erf x, without cancellation for large x.
    public static double erfc(double x) {
        if (Double.isNaN(x)) return x;
        return x < 0.5 ? 1 - erf(x) : erfcFromHalf(x);
    }

    // erf z = z + z·s with s = (2/√π - 1) + 2/√π · Σₙ₌₁ (-z²)ⁿ / (n!·(2n+1)), the Maclaurin series.
    // For z < 1/2 the terms shrink by z²/4 or faster, and adding the exact z last keeps the
    // rounding of 2/√π out of the leading term.
    private static double series(double z) {
        double power = 1, sum = 0;
        for (int n = 1; ; n++) {
            power *= -z * z / n;
            double term = power / (2 * n + 1);
            sum += term;
            if (Math.abs(term) < 1e-18) break;
        }
        return z + z * (TWO_OVER_SQRT_PI_MINUS_ONE + TWO_OVER_SQRT_PI * sum);
    }

    // erfc z = e^(-z²) / (√π·f) for z ≥ 1/2, with f the continued fraction below.
    // e^(-z²) = e^(-h²) · e^(-(z-h)(z+h)), where h is z with its low 27 bits cleared so that h² is
    // exact: a plain exp(-z²) would inherit the rounding of z², amplified by z² (hundreds of ulps
    // at z = 20). The product √π·f is carried with its rounding error, found by fma.
    private static double erfcFromHalf(double z) {
        if (z > 27.3) return 0; // erfc z < 2^-1075 from z = 27.2261 on, which rounds to 0
        double f = continuedFraction(z);
        double high = Double.longBitsToDouble(Double.doubleToRawLongBits(z) & -1L << 27);
        double product = SQRT_PI * f;
        double productError = (Math.fma(SQRT_PI, f, -product) + SQRT_PI_LOW * f) / product; // (√π·f - product) / product
        double quotient = Math.exp(-high * high) / product;
        return quotient + quotient * (Math.expm1(-(z - high) * (z + high)) - productError);
    }

    // f = z + (1/2)/(z + 1/(z + (3/2)/(z + …))), Laplace's continued fraction, evaluated from the
    // tail up, which damps rounding errors. 12 + 240/z² levels truncate it with a relative error
    // below 2^-60 for every z ≥ 1/2 (checked against mpmath in steps of 0.01 up to 28).
    private static double continuedFraction(double z) {
        int depth = 12 + (int) (240 / (z * z));
        double tail = 0;
        for (int n = depth; n >= 1; n--) tail = n / 2.0 / (z + tail);
        return z + tail;
    }
}
