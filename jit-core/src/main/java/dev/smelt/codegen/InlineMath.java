// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static dev.smelt.kernel.Transcendentals.E2;
import static dev.smelt.kernel.Transcendentals.E3;
import static dev.smelt.kernel.Transcendentals.E4;
import static dev.smelt.kernel.Transcendentals.E5;
import static dev.smelt.kernel.Transcendentals.E6;
import static dev.smelt.kernel.Transcendentals.LN2_HI;
import static dev.smelt.kernel.Transcendentals.LN2_LO;
import static dev.smelt.kernel.Transcendentals.LOG2E;
import static dev.smelt.kernel.Transcendentals.SHIFT;

/// The `f32` `log` and `tanh` that vector kernels compute in Java ([LaneMath]), one value at a
/// time: the same constants and the same operations in the same order, so a scalar kernel computes
/// the bits its vector twin does (`Math.fma` rounds once, as `FloatVector.fma` does). A tiered
/// kernel can then switch variants without its results changing. (`exp`, `sin` and `cos` are
/// `kernel.Transcendentals`' rewrites instead, which both variants emit.) Public only because the
/// kernel classes, hidden classes in `dev.smelt.runtime`, call it.
public final class InlineMath {
    private InlineMath() {}

    static final float[] POLYNOMIAL = {E6, E5, E4, E3, E2, 1, 1};

    static final float SQRT_HALF = 0.70710678118654752440f, LN2_HI_LOG = 0.693359375f, LN2_LO_LOG = -2.12194440e-4f;
    /// `log(1 + x) = x - x²/2 + x³·p(x)` on `1 + x` in [√½, √2), p of degree 8, highest power first:
    /// Cephes' `logf` coefficients.
    static final float[] LOG_POLYNOMIAL = {7.0376836292e-2f, -1.1514610310e-1f, 1.1676998740e-1f, -1.2420140846e-1f, 1.4249322787e-1f,
            -1.6668057665e-1f, 2.0000714765e-1f, -2.4999993993e-1f, 3.3333331174e-1f};

    /// `log` of a normal positive float as Cephes' `logf` computes it: `x = m·2^e` with m in
    /// [√½, √2), then a polynomial in `m - 1` and `e·ln 2` in two parts. Zero, negative, subnormal,
    /// infinite and NaN arguments take `Math.log`.
    public static float log(float x) {
        if (!(x >= Float.MIN_NORMAL && x < Float.POSITIVE_INFINITY)) return (float) Math.log(x);
        int bits = Float.floatToRawIntBits(x);
        int e = (bits >>> 23) - 126;
        float m = Float.intBitsToFloat(bits & 0x007fffff | 0x3f000000);
        if (m < SQRT_HALF) {
            e -= 1;
            m = m + m;
        }
        m = m - 1;
        float z = m * m;
        float y = LOG_POLYNOMIAL[0];
        for (int k = 1; k < LOG_POLYNOMIAL.length; k++) y = Math.fma(y, m, LOG_POLYNOMIAL[k]);
        y = y * m * z;
        float fe = e;
        y = Math.fma(fe, LN2_LO_LOG, y);
        y = Math.fma(z, -0.5f, y);
        return Math.fma(fe, LN2_HI_LOG, m + y);
    }

    static final float TANH_SMALL = 0x1p-12f, TANH_POLYNOMIAL_END = 0.625f, TANH_LIMIT = 9;
    /// `tanh x = x + x³·p(x²)` for |x| < 0.625, p of degree 4, highest power first: Cephes' `tanhf`.
    static final float[] TANH_POLYNOMIAL = {-5.70498872745e-3f, 2.06390887954e-2f, -5.37397155531e-2f, 1.33314422036e-1f, -3.33332819422e-1f};

    /// `tanh` as Cephes' `tanhf`: x itself below 2^-12 (so ±0 keep their sign), the polynomial below
    /// 0.625, `1 - 2 / (exp(2|x|) + 1)` with x's sign up to 9; past it, and for NaN, `Math.tanh`.
    public static float tanh(float x) {
        float z = Math.abs(x);
        if (!(z <= TANH_LIMIT)) return (float) Math.tanh(x);
        if (z < TANH_SMALL) return x;
        if (z >= TANH_POLYNOMIAL_END) {
            float t = 1 - 2 / (exp(z + z) + 1);
            return Float.intBitsToFloat(Float.floatToRawIntBits(t) | Float.floatToRawIntBits(x) & Integer.MIN_VALUE);
        }
        float s = x * x;
        float p = TANH_POLYNOMIAL[0];
        for (int k = 1; k < TANH_POLYNOMIAL.length; k++) p = Math.fma(p, s, TANH_POLYNOMIAL[k]);
        return Math.fma(p * s, x, x);
    }

    // Transcendentals' exp steps for tanh's |x| ≤ 9 (inside their range), POLYNOMIAL written out:
    // the elements of a static final array are no constants to the JIT
    private static float exp(float x) {
        float t = Math.fma(x, LOG2E, SHIFT);
        float n = t - SHIFT;
        float r = Math.fma(n, -LN2_LO, Math.fma(n, -LN2_HI, x));
        float e = Math.fma(Math.fma(Math.fma(Math.fma(Math.fma(Math.fma(E6, r, E5), r, E4), r, E3), r, E2), r, 1), r, 1);
        return Float.intBitsToFloat(Float.floatToRawIntBits(e) + (Float.floatToRawIntBits(t) << 23));
    }
}
