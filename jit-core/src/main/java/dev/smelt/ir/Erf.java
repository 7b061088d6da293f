// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

/// The error function, which `java.lang.Math` lacks. Accurate to a few ulps in double: it is the
/// reference for `gelu` (exact form), so it favours accuracy over speed.
public final class Erf {
    private Erf() {}

    private static final double TWO_OVER_SQRT_PI = 2 / Math.sqrt(Math.PI);

    /// erf x = 2/√π ∫₀ˣ e^(-t²) dt.
    public static double erf(double x) {
        if (Double.isNaN(x)) return x;
        double z = Math.abs(x);
        double magnitude = z < 0.5 ? series(z) : 1 - continuedFraction(z);
        return Math.copySign(magnitude, x);
    }

    /// erfc x = 1 - erf x, without cancellation for large x.
    public static double erfc(double x) {
        if (Double.isNaN(x)) return x;
        if (x < 0.5) return 1 - erf(x);
        return continuedFraction(x);
    }

    // erf z = 2/√π · e^(-z²) · Σₙ 2ⁿ z^(2n+1) / (1·3·…·(2n+1)); every term is positive, so no cancellation.
    private static double series(double z) {
        double term = z, sum = z;
        for (int n = 1; term > 1e-17 * sum; n++) {
            term *= 2 * z * z / (2 * n + 1);
            sum += term;
        }
        return TWO_OVER_SQRT_PI * Math.exp(-z * z) * sum;
    }

    // erfc z = e^(-z²)/√π · 1/(z + (1/2)/(z + 1/(z + (3/2)/(z + …)))), by the modified Lentz method.
    private static double continuedFraction(double z) {
        if (z > 27) return 0; // e^(-729) underflows double
        double tiny = 1e-300, f = z, c = z, d = 0;
        for (int n = 1; n < 10_000; n++) {
            double a = n / 2.0;
            d = z + a * d;
            d = 1 / (Math.abs(d) < tiny ? tiny : d);
            c = z + a / c;
            if (Math.abs(c) < tiny) c = tiny;
            double delta = c * d;
            f *= delta;
            if (Math.abs(delta - 1) < 1e-16) break;
        }
        return Math.exp(-z * z) / Math.sqrt(Math.PI) / f;
    }
}
