// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static jdk.incubator.vector.VectorOperators.AND;
import static jdk.incubator.vector.VectorOperators.GE;
import static jdk.incubator.vector.VectorOperators.I2F;
import static jdk.incubator.vector.VectorOperators.LE;
import static jdk.incubator.vector.VectorOperators.LSHL;
import static jdk.incubator.vector.VectorOperators.LSHR;
import static jdk.incubator.vector.VectorOperators.LT;
import static jdk.incubator.vector.VectorOperators.OR;
import static jdk.incubator.vector.VectorOperators.SUB;

import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Transcendentals;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;

/// `f32` `log` and `tanh` on vectors, in Java rather than emitted bytecode: each line is the lanewise
/// form of the same line of its scalar twin in [InlineMath], so both give the same bits. Vector
/// kernels call them; C2 inlines them into the kernel's loop, where an SVML call would make it
/// spill every live vector register. Lanes outside a polynomial's range take the scalar
/// definition, lane by lane ([Lanes#pastLimit]). Public only because the kernel classes, hidden
/// classes in `dev.smelt.runtime`, call it.
public final class LaneMath {
    private LaneMath() {}

    public static FloatVector log(FloatVector x) {
        IntVector bits = x.reinterpretAsInts();
        IntVector e = bits.lanewise(LSHR, 23).sub(126);
        FloatVector m = bits.lanewise(AND, 0x007fffff).lanewise(OR, 0x3f000000).reinterpretAsFloats();
        VectorMask<Float> below = m.compare(LT, InlineMath.SQRT_HALF);
        e = e.lanewise(SUB, 1, below.cast(e.species()));
        m = m.add(m, below).sub(1);
        FloatVector z = m.mul(m);
        FloatVector y = FloatVector.broadcast(x.species(), InlineMath.LOG_POLYNOMIAL[0]);
        for (int k = 1; k < InlineMath.LOG_POLYNOMIAL.length; k++) y = y.fma(m, FloatVector.broadcast(x.species(), InlineMath.LOG_POLYNOMIAL[k]));
        y = y.mul(m).mul(z);
        FloatVector fe = (FloatVector) e.convert(I2F, 0);
        y = fe.fma(FloatVector.broadcast(x.species(), InlineMath.LN2_LO_LOG), y);
        y = z.fma(FloatVector.broadcast(x.species(), -0.5f), y);
        FloatVector result = fe.fma(FloatVector.broadcast(x.species(), InlineMath.LN2_HI_LOG), m.add(y));
        VectorMask<Float> normal = x.compare(GE, Float.MIN_NORMAL).and(x.compare(LT, Float.POSITIVE_INFINITY));
        return normal.allTrue() ? result : Lanes.outside(x, result, normal, UnaryOp.LOG);
    }

    public static FloatVector tanh(FloatVector x) {
        FloatVector z = x.abs();
        FloatVector t = FloatVector.broadcast(x.species(), 1).sub(FloatVector.broadcast(x.species(), 2).div(exp(z.add(z)).add(1)));
        t = t.reinterpretAsInts().lanewise(OR, x.reinterpretAsInts().lanewise(AND, Integer.MIN_VALUE)).reinterpretAsFloats();
        FloatVector s = x.mul(x);
        FloatVector p = FloatVector.broadcast(x.species(), InlineMath.TANH_POLYNOMIAL[0]);
        for (int k = 1; k < InlineMath.TANH_POLYNOMIAL.length; k++) p = p.fma(s, FloatVector.broadcast(x.species(), InlineMath.TANH_POLYNOMIAL[k]));
        FloatVector result = p.mul(s).fma(x, x).blend(t, z.compare(GE, InlineMath.TANH_POLYNOMIAL_END)).blend(x, z.compare(LT, InlineMath.TANH_SMALL));
        VectorMask<Float> inRange = z.compare(LE, InlineMath.TANH_LIMIT);
        return inRange.allTrue() ? result : Lanes.outside(x, result, inRange, UnaryOp.TANH);
    }

    // Transcendentals' exp steps, for tanh's |x| ≤ 9 (inside exp's range), as InlineMath's
    private static FloatVector exp(FloatVector x) {
        var species = x.species();
        FloatVector t = x.fma(Transcendentals.LOG2E, Transcendentals.SHIFT);
        FloatVector n = t.sub(Transcendentals.SHIFT);
        FloatVector r = n.fma(FloatVector.broadcast(species, -Transcendentals.LN2_LO), n.fma(FloatVector.broadcast(species, -Transcendentals.LN2_HI), x));
        FloatVector e = FloatVector.broadcast(species, InlineMath.POLYNOMIAL[0]);
        for (int k = 1; k < InlineMath.POLYNOMIAL.length; k++) e = e.fma(r, FloatVector.broadcast(species, InlineMath.POLYNOMIAL[k]));
        return e.reinterpretAsInts().add(t.reinterpretAsInts().lanewise(LSHL, 23)).reinterpretAsFloats();
    }
}
