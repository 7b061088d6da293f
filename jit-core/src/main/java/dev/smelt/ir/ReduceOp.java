// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

/// Reduction operators over one or more axes. `argmax`/`argmin` reduce one axis to the `i32`
/// index of the first extreme element; a NaN counts as the extreme, as in PyTorch.
public enum ReduceOp {
    SUM,    // Σ x, from 0
    PROD,   // Π x, from 1
    MAX,    // max x, from -inf; NaN if any element is NaN
    MIN,    // min x, from +inf; NaN if any element is NaN
    ARGMAX, // index of the first maximum
    ARGMIN; // index of the first minimum

    public boolean isArg() { return this == ARGMAX || this == ARGMIN; }

    /// The value an empty reduction yields (PyTorch raises for an empty max/min; so do we, at trace time).
    public double identity() {
        return switch (this) {
            case SUM -> 0;
            case PROD -> 1;
            case MAX, ARGMAX -> Double.NEGATIVE_INFINITY;
            case MIN, ARGMIN -> Double.POSITIVE_INFINITY;
        };
    }

    /// Folds one more element into an accumulator (for SUM, PROD, MAX and MIN).
    public double combine(double accumulator, double x) {
        return switch (this) {
            case SUM -> accumulator + x;
            case PROD -> accumulator * x;
            case MAX -> Math.max(accumulator, x);
            case MIN -> Math.min(accumulator, x);
            case ARGMAX, ARGMIN -> throw new IllegalArgumentException(this + " keeps an index, not a value");
        };
    }

    /// [#combine] on `int`, wrapping like Java (as [BinaryOp#applyInt]); `(int) identity()` starts
    /// the fold, so an empty max is `Integer.MIN_VALUE`.
    public int combineInt(int accumulator, int x) {
        return switch (this) {
            case SUM -> accumulator + x;
            case PROD -> accumulator * x;
            case MAX -> Math.max(accumulator, x);
            case MIN -> Math.min(accumulator, x);
            case ARGMAX, ARGMIN -> throw new IllegalArgumentException(this + " keeps an index, not a value");
        };
    }

    /// Whether `candidate` replaces `best` in an arg-reduction (first occurrence wins ties).
    public boolean beats(double candidate, double best) {
        if (Double.isNaN(best)) return false;
        if (Double.isNaN(candidate)) return true;
        return this == ARGMAX ? candidate > best : candidate < best;
    }

    @Override
    public String toString() { return name().toLowerCase(java.util.Locale.ROOT); }
}
