// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.UnaryOp;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;

/// Lane-by-lane fallbacks that vector kernels call for the operators the Vector API has no lanewise
/// form of: each spills the lanes to an array, applies the scalar definition, and reloads. Exact,
/// but slow; only `gelu_erf` and integer `pow` use them. Public only because the kernel classes,
/// hidden classes in `dev.smelt.runtime`, call it.
public final class Lanes {
    private Lanes() {}

    public static FloatVector geluErf(FloatVector x) {
        float[] lanes = x.toArray();
        for (int i = 0; i < lanes.length; i++) lanes[i] = (float) UnaryOp.GELU_ERF.apply(lanes[i]);
        return FloatVector.fromArray(x.species(), lanes, 0);
    }

    public static DoubleVector geluErf(DoubleVector x) {
        double[] lanes = x.toArray();
        for (int i = 0; i < lanes.length; i++) lanes[i] = UnaryOp.GELU_ERF.apply(lanes[i]);
        return DoubleVector.fromArray(x.species(), lanes, 0);
    }

    public static IntVector pow(IntVector a, IntVector b) {
        int[] lanes = a.toArray(), exponents = b.toArray();
        for (int i = 0; i < lanes.length; i++) lanes[i] = BinaryOp.POW.applyInt(lanes[i], exponents[i]);
        return IntVector.fromArray(a.species(), lanes, 0);
    }
}
