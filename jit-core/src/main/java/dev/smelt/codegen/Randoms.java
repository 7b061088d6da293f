// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import dev.smelt.ir.DType;
import dev.smelt.ir.Distribution;
import dev.smelt.ir.Node;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorSpecies;

/// What kernels call for an `Expr.Random`: element `position` of the stream whose key's halves are
/// `high` and `low`, by [Distribution#sample], the definition the interpreter and the eager
/// generator use, so every variant gives their bits. The vector forms spill the positions to an
/// array and sample lane by lane, as [Lanes] does. Public only because the kernel classes, hidden
/// classes in `dev.smelt.runtime`, call it.
public final class Randoms {
    private Randoms() {}

    public static float uniform(int position, int high, int low) { return (float) sample(Distribution.UNIFORM, position, high, low, DType.F32); }

    public static double uniformDouble(int position, int high, int low) { return sample(Distribution.UNIFORM, position, high, low, DType.F64); }

    public static float normal(int position, int high, int low) { return (float) sample(Distribution.NORMAL, position, high, low, DType.F32); }

    public static double normalDouble(int position, int high, int low) { return sample(Distribution.NORMAL, position, high, low, DType.F64); }

    public static FloatVector uniform(VectorSpecies<Float> species, IntVector positions, int high, int low) {
        return floats(species, positions, high, low, Distribution.UNIFORM);
    }

    public static DoubleVector uniformDouble(VectorSpecies<Double> species, IntVector positions, int high, int low) {
        return doubles(species, positions, high, low, Distribution.UNIFORM);
    }

    public static FloatVector normal(VectorSpecies<Float> species, IntVector positions, int high, int low) {
        return floats(species, positions, high, low, Distribution.NORMAL);
    }

    public static DoubleVector normalDouble(VectorSpecies<Double> species, IntVector positions, int high, int low) {
        return doubles(species, positions, high, low, Distribution.NORMAL);
    }

    private static FloatVector floats(VectorSpecies<Float> species, IntVector positions, int high, int low, Distribution distribution) {
        int[] lanes = positions.toArray();
        float[] values = new float[lanes.length];
        for (int i = 0; i < lanes.length; i++) values[i] = (float) sample(distribution, lanes[i], high, low, DType.F32);
        return FloatVector.fromArray(species, values, 0);
    }

    private static DoubleVector doubles(VectorSpecies<Double> species, IntVector positions, int high, int low, Distribution distribution) {
        int[] lanes = positions.toArray();
        double[] values = new double[lanes.length];
        for (int i = 0; i < lanes.length; i++) values[i] = sample(distribution, lanes[i], high, low, DType.F64);
        return DoubleVector.fromArray(species, values, 0);
    }

    private static double sample(Distribution distribution, int position, int high, int low, DType dtype) {
        return distribution.sample(Node.Random.key(high, low), position, dtype);
    }
}
