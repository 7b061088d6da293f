// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.UnaryOp;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;

/// What vector kernels compute lane by lane, so that they give the bits of their scalar twins: the
/// transcendentals the kernels do not inline (`log`, `tanh`, `expm1`, `log1p`, every `f64` one,
/// `pow`), whose Vector API forms (SVML on x86 once C2 compiles them, the JDK's Java code before)
/// differ from `Math`'s and from each other by an ulp here and there; `gelu_erf` and integer `pow`,
/// which have no lanewise form; the lanes of an inline `f32` transcendental past its polynomial's
/// range. Each spills the
/// lanes to an array, applies the scalar definition, and reloads. Public only because the kernel
/// classes, hidden classes in `dev.smelt.runtime`, call it.
public final class Lanes {
    private Lanes() {}

    /// `(float) op((double) x)` in each lane, as a scalar kernel computes `op` ([JavaApi#function]).
    public static FloatVector apply(FloatVector x, UnaryOp op) {
        float[] lanes = x.toArray();
        for (int i = 0; i < lanes.length; i++) lanes[i] = (float) math(op, lanes[i]);
        return FloatVector.fromArray(x.species(), lanes, 0);
    }

    public static DoubleVector apply(DoubleVector x, UnaryOp op) {
        double[] lanes = x.toArray();
        for (int i = 0; i < lanes.length; i++) lanes[i] = math(op, lanes[i]);
        return DoubleVector.fromArray(x.species(), lanes, 0);
    }

    private static double math(UnaryOp op, double x) {
        return switch (op) {
            case EXP -> Math.exp(x);
            case EXPM1 -> Math.expm1(x);
            case LOG -> Math.log(x);
            case LOG1P -> Math.log1p(x);
            case SIN -> Math.sin(x);
            case COS -> Math.cos(x);
            case TANH -> Math.tanh(x);
            case NEG, ABS, SQRT, RSQRT, RECIPROCAL, SQUARE, RELU, SIGMOID, GELU_TANH, GELU_ERF, SILU, SOFTPLUS, SIGN ->
                    throw new IllegalArgumentException(op + " is not one call");
        };
    }

    /// `result`, with `(float) op((double) x)` in each lane where `|x| > limit` or x is NaN: where an
    /// inline `f32` `exp`, `sin` or `cos` leaves its polynomial's range, as [InlineMath] does.
    public static FloatVector pastLimit(FloatVector x, FloatVector result, UnaryOp op, float limit) {
        float[] in = x.toArray(), out = result.toArray();
        for (int i = 0; i < in.length; i++) if (!(Math.abs(in[i]) <= limit)) out[i] = (float) math(op, in[i]);
        return FloatVector.fromArray(x.species(), out, 0);
    }

    /// `result`, with `(float) op((double) x)` in each lane `inside` leaves out.
    public static FloatVector outside(FloatVector x, FloatVector result, VectorMask<Float> inside, UnaryOp op) {
        float[] in = x.toArray(), out = result.toArray();
        boolean[] kept = inside.toArray();
        for (int i = 0; i < in.length; i++) if (!kept[i]) out[i] = (float) math(op, in[i]);
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
