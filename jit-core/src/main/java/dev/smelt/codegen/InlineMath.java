// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

/// The `f32` `exp`, `sin` and `cos` that vector kernels compute inline ([VectorMath] emits them
/// lanewise), and the composites built on them, one value at a time: the same constants and the
/// same operations in the same order, so a scalar kernel computes the bits its vector twin does
/// (`Math.fma` rounds once, as `FloatVector.fma` does). A tiered kernel can then switch variants
/// without its results changing. Past the polynomials' ranges, and for NaN, both take
/// `(float) Math.exp((double) x)`, lane by lane. Public only because the kernel classes, hidden
/// classes in `dev.smelt.runtime`, call it.
public final class InlineMath {
    private InlineMath() {}

    public static final float LOG2E = 1.44269504f, SHIFT = 0x1.8p23f, LN2_HI = 0.693145751953125f, LN2_LO = 1.428606765330187e-06f;
    /// `1 + r + r²·p(r)` in Horner form, highest power first: p of degree 4 fitted (minimax, by linear
    /// programming) to the relative error of e^r on |r| ≤ 0.3467, which it keeps below 0.06 · 2^-24
    /// before rounding. Cephes' `expf` has p of degree 5, one FMA more: on every float of the range
    /// both are within 1 ulp of `StrictMath.exp` (99.55% and 99.53% correctly rounded), and the FMA
    /// fewer took softmax over [4096, 1024] from 1.73 to 1.65 ms into a tensor (a harness, one thread).
    public static final float E6 = 0.0013814484f, E5 = 0.008368736f, E4 = 0.041668393f, E3 = 0.16666521f, E2 = 0.49999994f;
    static final float[] POLYNOMIAL = {E6, E5, E4, E3, E2, 1, 1};
    /// Below it in magnitude, n is in [-125, 125] and `e^r · 2^n` a normal float, so the exponent add is exact.
    public static final float LIMIT = 86.9f;

    static final float INV_PI = 0.318309886183790671538f;
    /// π as three floats (sleef's `PI_A2f`, `PI_B2f`, `PI_C2f`): the first has 15 significant bits,
    /// so n·PI_A is exact for |n| < 2^9 and the first reduction step loses nothing below |x| = 125.
    static final float PI_A = 3.1414794921875f, PI_B = 0.00011315941810607910156f, PI_C = 1.9841872589410058936e-09f;
    static final float[] PI_PARTS = {PI_A, PI_B, PI_C};
    /// `sin r = r + r³·s(r²)`, s of degree 3 fitted (minimax, by linear programming) to the relative
    /// error on |r| ≤ π/2, which it keeps below 0.11 · 2^-24 before rounding; highest power first.
    static final float S9 = 2.6053612600662746e-06f, S7 = -0.0001980941742658615f, S5 = 0.008333063684403896f, S3 = -0.16666659712791443f;
    static final float[] SINE = {S9, S7, S5, S3};
    static final float TRIG_LIMIT = 125;

    static final float SQRT_2_OVER_PI = (float) Math.sqrt(2 / Math.PI), GELU_CUBIC = 0.044715f;

    public static float exp(float x) {
        if (!(Math.abs(x) <= LIMIT)) return (float) Math.exp(x);
        float t = Math.fma(x, LOG2E, SHIFT);
        float n = t - SHIFT;
        float r = Math.fma(n, -LN2_LO, Math.fma(n, -LN2_HI, x));
        // POLYNOMIAL in Horner form, written out: the elements of a static final array are no constants to the JIT
        float e = Math.fma(Math.fma(Math.fma(Math.fma(Math.fma(Math.fma(E6, r, E5), r, E4), r, E3), r, E2), r, 1), r, 1);
        return Float.intBitsToFloat(Float.floatToRawIntBits(e) + (Float.floatToRawIntBits(t) << 23));
    }

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

    public static float sin(float x) {
        if (!(Math.abs(x) <= TRIG_LIMIT)) return (float) Math.sin(x);
        float t = Math.fma(x, INV_PI, SHIFT);
        float q = t - SHIFT;
        return sinOfReduced(x, q, Float.floatToRawIntBits(t) << 31, 1);
    }

    public static float cos(float x) {
        if (!(Math.abs(x) <= TRIG_LIMIT)) return (float) Math.cos(x);
        float t = Math.fma(x, INV_PI, -0.5f) + SHIFT;
        float q = Math.fma(t - SHIFT, 2, 1);
        return sinOfReduced(x, q, Float.floatToRawIntBits(t) << 31 ^ Integer.MIN_VALUE, 0.5f);
    }

    // sin(x - q·π·part), its sign flipped by the multiple's parity bit; PI_PARTS and SINE written out
    private static float sinOfReduced(float x, float q, int parity, float part) {
        float r = Math.fma(q, -PI_A * part, x);                    // exact products: part is 1 or 1/2
        r = Math.fma(q, -PI_B * part, r);
        r = Math.fma(q, -PI_C * part, r);
        float r2 = r * r;
        float s = Math.fma(Math.fma(Math.fma(S9, r2, S7), r2, S5), r2, S3);
        s = Math.fma(s, r2 * r, r);
        int sign = (Float.floatToRawIntBits(r) ^ parity) & Integer.MIN_VALUE;
        return Float.intBitsToFloat(Float.floatToRawIntBits(Math.abs(s)) ^ sign);
    }

    /// `1 / (exp(-x) + 1)`, as the vector kernel's `sigmoid`.
    public static float sigmoid(float x) { return 1 / (exp(-x) + 1); }

    public static double sigmoid(double x) { return 1 / (Math.exp(-x) + 1); }

    /// `x / (exp(-x) + 1)`.
    public static float silu(float x) { return x / (exp(-x) + 1); }

    public static double silu(double x) { return x / (Math.exp(-x) + 1); }

    /// `x / (exp(-2y) + 1)`, `y = √(2/π)·(x + 0.044715·x³)`: `x/2·(1 + tanh y)` without the
    /// cancellation of `1 + tanh y` for negative x.
    public static float geluTanh(float x) {
        float cubic = GELU_CUBIC * x * x * x;
        return x / (exp(SQRT_2_OVER_PI * (x + cubic) * -2f) + 1);
    }

    public static double geluTanh(double x) {
        double cubic = 0.044715 * x * x * x;
        return x / (Math.exp(Math.sqrt(2 / Math.PI) * (x + cubic) * -2) + 1);
    }

    /// `x > 20 ? x : log1p(exp(x))`, PyTorch's threshold.
    public static float softplus(float x) { return x > 20 ? x : (float) Math.log1p(exp(x)); }

    public static double softplus(double x) { return x > 20 ? x : Math.log1p(Math.exp(x)); }
}
