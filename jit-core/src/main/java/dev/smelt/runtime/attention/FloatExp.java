// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.attention;

import dev.smelt.kernel.Transcendentals;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/// The vector `exp` of f32 attention's blocks ([FloatBlocks]; [DoubleExp] is f64's).
final class FloatExp {
    private FloatExp() {}

    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final FloatVector E6 = FloatVector.broadcast(F, Transcendentals.E6), E5 = FloatVector.broadcast(F, Transcendentals.E5), E4 = FloatVector.broadcast(F, Transcendentals.E4),
            E3 = FloatVector.broadcast(F, Transcendentals.E3), E2 = FloatVector.broadcast(F, Transcendentals.E2), ONE = FloatVector.broadcast(F, 1),
            MINUS_LN2_HI = FloatVector.broadcast(F, -Transcendentals.LN2_HI), MINUS_LN2_LO = FloatVector.broadcast(F, -Transcendentals.LN2_LO);

    // At and below this, `(float) Math.exp` is 0: a lane of a
    // masked score (-inf), common in a causal block, need not go lane by lane.
    private static final float VANISHING = -104f;

    /// `exp` inline, as generated kernels compute it (`kernel.Transcendentals`, whose constants these
    /// are): SVML's is a call, around which C2 spills the live vectors. At or below -104 (masked
    /// scores' -inf among them), 0, which is what `Math.exp` rounds to in f32 there; otherwise past
    /// ±86.9 and for NaN, `Math.exp` lane by lane: the Vector API's `EXP` is SVML's once C2 has
    /// compiled the caller and the JDK's before, so its last bits could change between calls.
    /// Written out, not emitted from the rewrite's tree: that tree becomes code only through
    /// codegen's emitters, inside a generated kernel class, so hand-written code could reach it only
    /// through a class generated and loaded for this one method. `FloatBlocksExpTest` checks that
    /// these are the rewrite's bits.
    static FloatVector exp(FloatVector x) {
        var t = x.fma(Transcendentals.LOG2E, Transcendentals.SHIFT);
        var n = t.sub(Transcendentals.SHIFT);
        var r = n.fma(MINUS_LN2_LO, n.fma(MINUS_LN2_HI, x));
        var e = E6.fma(r, E5).fma(r, E4).fma(r, E3).fma(r, E2).fma(r, ONE).fma(r, ONE);
        e = e.reinterpretAsInts().add(t.reinterpretAsInts().lanewise(VectorOperators.LSHL, 23)).reinterpretAsFloats();
        var inRange = x.abs().compare(VectorOperators.LE, Transcendentals.LIMIT);
        if (inRange.allTrue()) return e;
        var vanishing = x.compare(VectorOperators.LE, VANISHING);
        if (inRange.or(vanishing).allTrue()) return e.blend(0f, vanishing);
        float[] lanes = x.toArray();
        for (int i = 0; i < lanes.length; i++) lanes[i] = (float) Math.exp(lanes[i]);
        return FloatVector.fromArray(F, lanes, 0).blend(e, inRange);
    }
}
