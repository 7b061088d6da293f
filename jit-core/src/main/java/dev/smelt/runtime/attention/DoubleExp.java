// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.attention;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorSpecies;

/// The vector `exp` of f64 attention's blocks (`DoubleBlocks`, generated from [FloatBlocks]; [FloatExp]
/// is f32's).
final class DoubleExp {
    private DoubleExp() {}

    private static final VectorSpecies<Double> F = DoubleVector.SPECIES_PREFERRED;

    /// `Math.exp` lane by lane: the Vector API's `EXP` is SVML's once C2 has compiled the caller and
    /// the JDK's before, so its last bits could change between calls.
    static DoubleVector exp(DoubleVector x) {
        double[] lanes = x.toArray();
        for (int i = 0; i < lanes.length; i++) lanes[i] = Math.exp(lanes[i]);
        return DoubleVector.fromArray(F, lanes, 0);
    }
}
