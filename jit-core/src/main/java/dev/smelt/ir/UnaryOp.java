// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

/// Elementwise unary operators. Each constant's comment is its scalar definition; [#apply] is that
/// definition computed in double, which the reference interpreter rounds once to the result dtype.
public enum UnaryOp {
    NEG,        // -x
    ABS,        // |x|
    EXP,        // eˣ
    EXPM1,      // eˣ - 1, accurate near 0
    LOG,        // ln x (NaN below 0, -inf at ±0)
    LOG1P,      // ln(1 + x), accurate near 0
    SQRT,       // √x
    RSQRT,      // 1 / √x
    RECIPROCAL, // 1 / x
    SQUARE,     // x · x
    SIN,        // sin x
    COS,        // cos x
    TANH,       // tanh x
    SIGMOID,    // 1 / (1 + e⁻ˣ)
    RELU,       // x > 0 ? x : 0; NaN stays NaN, -0 gives +0
    GELU_TANH,  // x/2 · (1 + tanh(√(2/π)·(x + 0.044715x³)))
    GELU_ERF,   // x/2 · erfc(-x/√2) = x/2 · (1 + erf(x/√2))
    SILU,       // x · sigmoid(x)
    SOFTPLUS,   // x > 20 ? x : ln(1 + eˣ), PyTorch's threshold
    SIGN,       // -1, 0 or 1 (+0 for ±0); NaN stays NaN, as NumPy (PyTorch ≤ 2.12 gives 0)
    STOP_GRADIENT; // x, through which autograd passes no gradient (JAX's stop_gradient, PyTorch's detach)

    private static final double SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);

    /// Whether the operator is defined on integers; the others take floating-point operands only.
    public boolean acceptsIntegers() {
        return switch (this) {
            case NEG, ABS, SQUARE, RELU, SIGN, STOP_GRADIENT -> true;
            case EXP, EXPM1, LOG, LOG1P, SQRT, RSQRT, RECIPROCAL, SIN, COS, TANH, SIGMOID, GELU_TANH,
                 GELU_ERF, SILU, SOFTPLUS -> false;
        };
    }

    public double apply(double x) {
        return switch (this) {
            case NEG -> -x;
            case ABS -> Math.abs(x);
            case EXP -> Math.exp(x);
            case EXPM1 -> Math.expm1(x);
            case LOG -> Math.log(x);
            case LOG1P -> Math.log1p(x);
            case SQRT -> Math.sqrt(x);
            case RSQRT -> 1 / Math.sqrt(x);
            case RECIPROCAL -> 1 / x;
            case SQUARE -> x * x;
            case SIN -> Math.sin(x);
            case COS -> Math.cos(x);
            case TANH -> Math.tanh(x);
            case SIGMOID -> 1 / (1 + Math.exp(-x));
            case RELU -> x > 0 || Double.isNaN(x) ? x : 0.0;
            case GELU_TANH -> 0.5 * x * (1 + Math.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)));
            case GELU_ERF -> 0.5 * x * Erf.erfc(-x / Math.sqrt(2));
            case SILU -> x / (1 + Math.exp(-x));
            case SOFTPLUS -> x > 20 ? x : Math.log1p(Math.exp(x));
            case SIGN -> x > 0 ? 1 : x < 0 ? -1 : x == 0 ? 0.0 : x;
            case STOP_GRADIENT -> x;
        };
    }

    /// The operator on `int`, wrapping on overflow like Java; only for [#acceptsIntegers] operators.
    public int applyInt(int x) {
        return switch (this) {
            case NEG -> -x;
            case ABS -> Math.abs(x);
            case SQUARE -> x * x;
            case RELU -> Math.max(x, 0);
            case SIGN -> Integer.signum(x);
            case STOP_GRADIENT -> x;
            case EXP, EXPM1, LOG, LOG1P, SQRT, RSQRT, RECIPROCAL, SIN, COS, TANH, SIGMOID, GELU_TANH,
                 GELU_ERF, SILU, SOFTPLUS -> throw new IllegalArgumentException(this + " is not defined on integers");
        };
    }

    /// The IR text name: `neg`, `gelu_tanh`, …
    @Override
    public String toString() { return name().toLowerCase(java.util.Locale.ROOT); }
}
