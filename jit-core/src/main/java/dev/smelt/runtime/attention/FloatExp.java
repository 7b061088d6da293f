// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.attention;

import dev.smelt.kernel.Transcendentals;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/// The vector `exp` of f32 attention's blocks ([FloatBlocks]; [DoubleExp] is f64's).
final class FloatExp {
    private FloatExp() {}

    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final FloatVector E6 = FloatVector.broadcast(F, Transcendentals.E6), E5 = FloatVector.broadcast(F, Transcendentals.E5), E4 = FloatVector.broadcast(F, Transcendentals.E4),
            E3 = FloatVector.broadcast(F, Transcendentals.E3), E2 = FloatVector.broadcast(F, Transcendentals.E2), ONE = FloatVector.broadcast(F, 1),
            MINUS_LN2_HI = FloatVector.broadcast(F, -Transcendentals.LN2_HI), MINUS_LN2_LO = FloatVector.broadcast(F, -Transcendentals.LN2_LO);

    private static final VectorSpecies<Integer> I = F.vectorShape().withLanes(int.class);
    private static final FloatVector UP = FloatVector.broadcast(F, Math.scalb(1f, Transcendentals.EXP_SCALE)),
            DOWN = FloatVector.broadcast(F, Math.scalb(1f, -Transcendentals.EXP_SCALE));
    private static final IntVector BIASED_DOWN = IntVector.broadcast(I, 127 - Transcendentals.EXP_SCALE);

    /// `exp` inline, as generated kernels compute it (`kernel.Transcendentals`, whose constants these
    /// are, which says why it has no branch): SVML's is a call, around which C2 spills the live
    /// vectors, and the Vector API's `EXP` is SVML's once C2 has compiled the caller and the JDK's
    /// before, so its last bits could change between calls. Masked scores' -inf give 0.
    /// Written out, not emitted from the rewrite's tree: that tree becomes code only through
    /// codegen's emitters, inside a generated kernel class, so hand-written code could reach it only
    /// through a class generated and loaded for this one method. `FloatBlocksExpTest` checks that
    /// these are the rewrite's bits.
    static FloatVector exp(FloatVector x) {
        var low = x.blend(Transcendentals.EXP_LOW, x.compare(VectorOperators.LT, Transcendentals.EXP_LOW));
        var c = low.blend(Transcendentals.EXP_HIGH, low.compare(VectorOperators.GT, Transcendentals.EXP_HIGH));
        var t = c.fma(Transcendentals.LOG2E, Transcendentals.SHIFT);
        var n = t.sub(Transcendentals.SHIFT);
        var r = n.fma(MINUS_LN2_LO, n.fma(MINUS_LN2_HI, c));
        var e = E6.fma(r, E5).fma(r, E4).fma(r, E3).fma(r, E2).fma(r, ONE).fma(r, ONE);
        var negative = c.compare(VectorOperators.LT, 0);
        var biased = BIASED_DOWN.blend(127 + Transcendentals.EXP_SCALE, negative.cast(I));
        FloatVector power = t.viewAsIntegralLanes().add(biased).lanewise(VectorOperators.LSHL, 23).viewAsFloatingLanes();
        return e.mul(power).mul(UP.blend(DOWN, negative));
    }
}
