// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.UnaryOp;

/// What vector kernels compute lane by lane, so that they give the bits of their scalar twins: the
/// transcendentals the kernels do not inline (`expm1`, `log1p`, every `f64` one, `pow`), whose Vector API forms (SVML on x86 once C2 compiles them, the JDK's Java code before)
/// differ from `Math`'s and from each other by an ulp here and there; `gelu_erf` and integer `pow`,
/// which have no lanewise form; the lanes of an inline `f32` transcendental past its polynomial's
/// range. The kernel spills the lanes to arrays (`x.toArray()`), these apply the scalar definition
/// in place, and the kernel reloads the result (`FloatVector.fromArray`). They take and return
/// arrays, not vectors: a vector that a call returns is an object C2 knows nothing of, and where it
/// meets a computed vector (the result of an inline `exp` and its rare out-of-range fix-up), C2
/// must allocate the computed one too, on every iteration, whether the call runs or not. Public
/// only because the kernel classes, hidden classes in `dev.smelt.runtime`, call it.
public final class Lanes {
    private Lanes() {}

    /// `(float) op.apply((double) x)` in each lane: the operator's definition, which is what a
    /// scalar kernel calls for the operators vector code does not inline ([JavaApi#function] and
    /// [Scalars] call the same `Math` methods and `UnaryOp.apply`).
    public static float[] apply(float[] lanes, UnaryOp op) {
        for (int i = 0; i < lanes.length; i++) lanes[i] = (float) op.apply(lanes[i]);
        return lanes;
    }

    public static double[] apply(double[] lanes, UnaryOp op) {
        for (int i = 0; i < lanes.length; i++) lanes[i] = op.apply(lanes[i]);
        return lanes;
    }

    /// `result`, with `(float) op((double) x)` in each lane `inside` leaves out: the lanes past a
    /// polynomial's range (or NaN), of a rewritten `f32` transcendental (`dev.smelt.kernel.Expr.Fallback`).
    public static float[] outside(float[] x, float[] result, boolean[] inside, UnaryOp op) {
        for (int i = 0; i < x.length; i++) if (!inside[i]) result[i] = (float) op.apply(x[i]);
        return result;
    }

    /// C's `pow` in each lane, as [Scalars#pow].
    public static float[] pow(float[] lanes, float[] exponents) {
        for (int i = 0; i < lanes.length; i++) lanes[i] = (float) Scalars.pow(lanes[i], exponents[i]);
        return lanes;
    }

    public static double[] pow(double[] lanes, double[] exponents) {
        for (int i = 0; i < lanes.length; i++) lanes[i] = Scalars.pow(lanes[i], exponents[i]);
        return lanes;
    }

    public static int[] pow(int[] lanes, int[] exponents) {
        for (int i = 0; i < lanes.length; i++) lanes[i] = BinaryOp.POW.applyInt(lanes[i], exponents[i]);
        return lanes;
    }
}
