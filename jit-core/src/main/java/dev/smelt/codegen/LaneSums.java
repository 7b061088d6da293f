// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import java.util.Arrays;

/// The lanes of a sum, for scalar kernels that fold a sum as their vector twin does ([SumOrder]):
/// this thread's array of lanes, and the fixed order in which they end. Apart from [Lanes] because
/// scalar kernels call it, and resolving a method of a class with Vector API parameters loads the
/// Vector API, which a fresh JVM's first scalar kernel should not pay for. Public only because the
/// kernel classes, hidden classes in `dev.smelt.runtime`, call it.
public final class LaneSums {
    private LaneSums() {}

    private static final ThreadLocal<float[][]> FLOATS = ThreadLocal.withInitial(() -> new float[][] {new float[64]});
    private static final ThreadLocal<double[][]> DOUBLES = ThreadLocal.withInitial(() -> new double[][] {new double[64]});

    /// This thread's array number `place` of `length` floats for a scalar kernel's sum in lanes
    /// ([SumOrder]): a kernel's passes over a row run one after another and fill their arrays
    /// first, and each sum of a pass folds into its own (`place`: the sum's place in its pass), so a
    /// few arrays serve them all, and a call allocates nothing for them.
    public static float[] floats(int length, int place) {
        float[][] arrays = FLOATS.get();
        if (place >= arrays.length) FLOATS.set(arrays = Arrays.copyOf(arrays, place + 1));
        if (arrays[place] == null || arrays[place].length != length) arrays[place] = new float[length];
        return arrays[place];
    }

    public static double[] doubles(int length, int place) {
        double[][] arrays = DOUBLES.get();
        if (place >= arrays.length) DOUBLES.set(arrays = Arrays.copyOf(arrays, place + 1));
        if (arrays[place] == null || arrays[place].length != length) arrays[place] = new double[length];
        return arrays[place];
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
