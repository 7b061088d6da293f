// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.UnaryOp;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;

/// What vector kernels compute lane by lane, so that they give the bits of their scalar twins: the
/// transcendentals the kernels do not inline (`expm1`, `log1p`, every `f64` one, `pow`), whose Vector API forms (SVML on x86 once C2 compiles them, the JDK's Java code before)
/// differ from `Math`'s and from each other by an ulp here and there; `gelu_erf` and integer `pow`,
/// which have no lanewise form; the lanes of an inline `f32` transcendental past its polynomial's
/// range. Each spills the lanes to an array, applies the scalar definition, and reloads. Public only because the kernel
/// classes, hidden classes in `dev.smelt.runtime`, call it.
public final class Lanes {
    private Lanes() {}

    /// `(float) op.apply((double) x)` in each lane: the operator's definition, which is what a
    /// scalar kernel calls for the operators vector code does not inline ([JavaApi#function] and
    /// [Scalars] call the same `Math` methods and `UnaryOp.apply`).
    public static FloatVector apply(FloatVector x, UnaryOp op) {
        float[] lanes = x.toArray();
        for (int i = 0; i < lanes.length; i++) lanes[i] = (float) op.apply(lanes[i]);
        return FloatVector.fromArray(x.species(), lanes, 0);
    }

    public static DoubleVector apply(DoubleVector x, UnaryOp op) {
        double[] lanes = x.toArray();
        for (int i = 0; i < lanes.length; i++) lanes[i] = op.apply(lanes[i]);
        return DoubleVector.fromArray(x.species(), lanes, 0);
    }

    /// `result`, with `(float) op((double) x)` in each lane `inside` leaves out: the lanes past a
    /// polynomial's range (or NaN), of a rewritten `f32` transcendental (`dev.smelt.kernel.Expr.Fallback`).
    /// The mask may be of any species of x's lane count.
    public static FloatVector outside(FloatVector x, FloatVector result, VectorMask<?> inside, UnaryOp op) {
        float[] in = x.toArray(), out = result.toArray();
        boolean[] kept = inside.toArray();
        for (int i = 0; i < in.length; i++) if (!kept[i]) out[i] = (float) op.apply(in[i]);
        return FloatVector.fromArray(x.species(), out, 0);
    }

    /// C's `pow` in each lane, as [Scalars#pow].
    public static FloatVector pow(FloatVector a, FloatVector b) {
        float[] lanes = a.toArray(), exponents = b.toArray();
        for (int i = 0; i < lanes.length; i++) lanes[i] = (float) Scalars.pow(lanes[i], exponents[i]);
        return FloatVector.fromArray(a.species(), lanes, 0);
    }

    public static DoubleVector pow(DoubleVector a, DoubleVector b) {
        double[] lanes = a.toArray(), exponents = b.toArray();
        for (int i = 0; i < lanes.length; i++) lanes[i] = Scalars.pow(lanes[i], exponents[i]);
        return DoubleVector.fromArray(a.species(), lanes, 0);
    }

    public static IntVector pow(IntVector a, IntVector b) {
        int[] lanes = a.toArray(), exponents = b.toArray();
        for (int i = 0; i < lanes.length; i++) lanes[i] = BinaryOp.POW.applyInt(lanes[i], exponents[i]);
        return IntVector.fromArray(a.species(), lanes, 0);
    }
}
