// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

/// The lanes of a sum, for scalar kernels that fold a sum as their vector twin does ([SumOrder]):
/// this thread's array of lanes, and the fixed order in which they end. Apart from [Lanes] because
/// scalar kernels call it, and resolving a method of a class with Vector API parameters loads the
/// Vector API, which a fresh JVM's first scalar kernel should not pay for. Public only because the
/// kernel classes, hidden classes in `dev.smelt.runtime`, call it.
public final class LaneSums {
    private LaneSums() {}

    private static final ThreadLocal<float[]> FLOATS = ThreadLocal.withInitial(() -> new float[64]);
    private static final ThreadLocal<double[]> DOUBLES = ThreadLocal.withInitial(() -> new double[64]);

    /// This thread's array of `length` floats for a scalar kernel's sum in lanes ([SumOrder]): a
    /// kernel's reductions run one after another and fill it first, so one array serves them all,
    /// and a call allocates nothing for it.
    public static float[] floats(int length) {
        float[] lanes = FLOATS.get();
        if (lanes.length != length) FLOATS.set(lanes = new float[length]);
        return lanes;
    }

    public static double[] doubles(int length) {
        double[] lanes = DOUBLES.get();
        if (lanes.length != length) DOUBLES.set(lanes = new double[length]);
        return lanes;
    }

    /// A reduction's two chains of lanes, stored one after the other in `lanes`, added lane by lane,
    /// then halved until one is left: lane i takes lane `i + half` for half = n/2, n/4, … 1, so
    /// `((a0 + b0) + (a8 + b8)) + …` for n = 16 lanes. Scalar code folds into the places vector code
    /// would, then calls this; vector code does the same with shuffles (`VectorFolds.sumLanes`).
    /// Overwrites `lanes`.
    public static float sum(float[] lanes) {
        for (int half = lanes.length / 2; half > 0; half /= 2)
            for (int i = 0; i < half; i++) lanes[i] = lanes[i] + lanes[i + half];
        return lanes[0];
    }

    public static double sum(double[] lanes) {
        for (int half = lanes.length / 2; half > 0; half /= 2)
            for (int i = 0; i < half; i++) lanes[i] = lanes[i] + lanes[i + half];
        return lanes[0];
    }
}
