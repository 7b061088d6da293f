// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

/// Elementwise binary operators. Each constant's comment is its scalar definition. Comparisons
/// produce `bool`; the others produce their operands' dtype.
public enum BinaryOp {
    ADD,     // a + b
    SUB,     // a - b
    MUL,     // a · b
    DIV,     // a / b (true division; integer operands are cast to a float first)
    POW,     // C's pow, as PyTorch: pow(x, ±0) = 1 and pow(1, y) = 1 even for NaN, pow(-1, ±inf) = 1
    MAXIMUM, // Math.max(a, b): NaN wins, -0 < +0
    MINIMUM, // Math.min(a, b): NaN wins, -0 < +0
    EQ,      // a == b (NaN == NaN is false)
    NE,      // a != b
    LT,      // a < b
    LE,      // a <= b
    GT,      // a > b
    GE;      // a >= b

    public boolean isComparison() {
        return switch (this) {
            case EQ, NE, LT, LE, GT, GE -> true;
            case ADD, SUB, MUL, DIV, POW, MAXIMUM, MINIMUM -> false;
        };
    }

    /// Whether the operator is defined on integers without a cast to float first.
    public boolean acceptsIntegers() { return this != DIV; }

    public double apply(double a, double b) {
        return switch (this) {
            case ADD -> a + b;
            case SUB -> a - b;
            case MUL -> a * b;
            case DIV -> a / b;
            case POW -> a == 1 || a == -1 && Double.isInfinite(b) ? 1 : Math.pow(a, b); // Java gives NaN for these
            case MAXIMUM -> Math.max(a, b);
            case MINIMUM -> Math.min(a, b);
            case EQ -> a == b ? 1 : 0;
            case NE -> a != b ? 1 : 0;
            case LT -> a < b ? 1 : 0;
            case LE -> a <= b ? 1 : 0;
            case GT -> a > b ? 1 : 0;
            case GE -> a >= b ? 1 : 0;
        };
    }

    /// The operator on `int`, wrapping on overflow like Java. `pow` with a negative exponent
    /// truncates toward zero (PyTorch raises instead; we cannot, inside a kernel).
    public int applyInt(int a, int b) {
        return switch (this) {
            case ADD -> a + b;
            case SUB -> a - b;
            case MUL -> a * b;
            case DIV -> throw new IllegalArgumentException("div is not defined on integers");
            case POW -> intPow(a, b);
            case MAXIMUM -> Math.max(a, b);
            case MINIMUM -> Math.min(a, b);
            case EQ, NE, LT, LE, GT, GE -> (int) apply(a, b);
        };
    }

    private static int intPow(int base, int exponent) {
        if (exponent < 0) return base == 1 ? 1 : base == -1 ? (exponent % 2 == 0 ? 1 : -1) : 0;
        int result = 1;
        for (int bits = exponent, square = base; bits != 0; bits >>>= 1, square *= square)
            if ((bits & 1) != 0) result *= square;
        return result;
    }

    /// The IR text name: `add`, `maximum`, `eq`, …
    @Override
    public String toString() { return name().toLowerCase(java.util.Locale.ROOT); }
}
