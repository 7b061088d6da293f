// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

/// How far two results of the same computation may differ elementwise:
/// `|expected - actual| ≤ absolute + relative·|expected|`, and NaN only where the other is NaN.
/// Every benchmark checks its variants against each other and against the interpreter with one of
/// these before anything is timed, and fails its `@Setup` loudly if they disagree.
record Tolerance(double relative, double absolute) {
    /// Equal (±0 alike): `+ - *` and `max` are IEEE operations, and nothing contracts them to FMA.
    static final Tolerance EXACT = new Tolerance(0, 0);

    /// Elementwise chains through `sin`, `cos`, `exp`: the Vector API's versions may differ from
    /// `Math`'s by a few ulps, and a result that cancels to near zero (`sin·cos + x ≈ 0`) keeps the
    /// absolute error of its operands (a few ulps of |x|·|y| ≤ 25 for normal inputs), hence the floor.
    static final Tolerance ELEMENTWISE = new Tolerance(1e-5, 1e-5);

    /// Row reductions over 1024 elements: a compiled kernel may sum in f32 and in another order
    /// than the interpreter, which sums in double; the error grows with the row length.
    static final Tolerance ROW_REDUCTION = new Tolerance(1e-4, 1e-5);

    /// Throws, naming the first element outside the tolerance, unless the two arrays agree.
    void check(String what, float[] expected, float[] actual) {
        if (expected.length != actual.length)
            throw new AssertionError("%s: %d elements expected, got %d".formatted(what, expected.length, actual.length));
        for (int i = 0; i < expected.length; i++) {
            float e = expected[i], a = actual[i];
            boolean same = Float.isNaN(e) ? Float.isNaN(a) : Math.abs(e - a) <= absolute + relative * Math.abs(e);
            if (!same && Float.floatToIntBits(e) != Float.floatToIntBits(a))
                throw new AssertionError("%s: element %d is %s, expected %s (tolerance: relative %s, absolute %s)"
                        .formatted(what, i, a, e, relative, absolute));
        }
    }
}
