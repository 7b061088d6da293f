// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import dev.smelt.ir.DType;
import dev.smelt.ir.Distribution;
import dev.smelt.ir.Node;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/// What kernels call for an `Expr.Random`: element `position` of the stream whose key's halves are
/// `high` and `low`, by [Distribution#sample], the definition the interpreter and the eager
/// generator use, so every variant gives their bits. The uniform vector forms hash lane-wise on
/// `LongVector`s; the normal ones spill the positions to an array and sample lane by lane with
/// `StrictMath`, as [Lanes] does. Public only because the kernel classes, hidden
/// classes in `dev.smelt.runtime`, call it.
public final class Randoms {
    private Randoms() {}

    public static float uniform(int position, int high, int low) { return (float) sample(Distribution.UNIFORM, position, high, low, DType.F32); }

    public static double uniformDouble(int position, int high, int low) { return sample(Distribution.UNIFORM, position, high, low, DType.F64); }

    public static float normal(int position, int high, int low) { return (float) sample(Distribution.NORMAL, position, high, low, DType.F32); }

    public static double normalDouble(int position, int high, int low) { return sample(Distribution.NORMAL, position, high, low, DType.F64); }

    /// SplitMix64 lane-wise on a `LongVector` of as many lanes (kernels that draw have at most as
    /// many lanes as the machine's widest vector holds longs, see [VectorPlan]), else lane by lane.
    public static FloatVector uniform(VectorSpecies<Float> species, IntVector positions, int high, int low) {
        var longs = longs(species.length());
        if (longs == null) return floats(species, positions, high, low, Distribution.UNIFORM);
        var top = hash(longs, positions, high, low).lanewise(VectorOperators.LSHR, 64 - 24);
        return ((FloatVector) top.convertShape(VectorOperators.L2F, species, 0)).mul(0x1.0p-24f); // exact: 24 bits
    }

    public static DoubleVector uniformDouble(VectorSpecies<Double> species, IntVector positions, int high, int low) {
        var longs = longs(species.length());
        if (longs == null) return doubles(species, positions, high, low, Distribution.UNIFORM);
        var top = hash(longs, positions, high, low).lanewise(VectorOperators.LSHR, 64 - 53);
        return ((DoubleVector) top.convertShape(VectorOperators.L2D, species, 0)).mul(0x1.0p-53); // exact: 53 bits
    }

    /// `Distribution.bits(key, position)` in each lane.
    private static LongVector hash(VectorSpecies<Long> longs, IntVector positions, int high, int low) {
        var z = ((LongVector) positions.convertShape(VectorOperators.I2L, longs, 0)).mul(Distribution.GAMMA).add(Node.Random.key(high, low));
        z = z.lanewise(VectorOperators.XOR, z.lanewise(VectorOperators.LSHR, 30)).mul(Distribution.MIX_1);
        z = z.lanewise(VectorOperators.XOR, z.lanewise(VectorOperators.LSHR, 27)).mul(Distribution.MIX_2);
        return z.lanewise(VectorOperators.XOR, z.lanewise(VectorOperators.LSHR, 31));
    }

    /// The species of `lanes` longs, or null beyond the machine's widest vector. A switch over
    /// constants, so that C2 folds it where the kernel's species is a constant.
    private static VectorSpecies<Long> longs(int lanes) {
        var species = switch (lanes) {
            case 1 -> LongVector.SPECIES_64;
            case 2 -> LongVector.SPECIES_128;
            case 4 -> LongVector.SPECIES_256;
            case 8 -> LongVector.SPECIES_512;
            default -> null;
        };
        return species != null && species.vectorBitSize() <= LongVector.SPECIES_MAX.vectorBitSize() ? species : null;
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
