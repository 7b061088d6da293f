// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/// [Packing]'s f32 micro-panel whose steps of K are contiguous in the operand (A read row by row,
/// a transposed B such as the `x @ wᵀ` of a linear layer): each lane of the panel is one row of
/// the operand, so packing transposes. Blocks of 8 lanes × 8 steps are loaded as eight 8-lane
/// vectors (one per lane) and transposed in registers by three butterfly stages of two-vector
/// `selectFrom` (one `vpermi2ps` each with AVX-512), then stored as eight vectors (one per step);
/// a lane count left over of 4 to 7 takes 4 × 4 blocks the same way, the rest goes value by
/// value. For one 8 × 8 block, as Java:
/// ```
/// FloatVector r0 = FloatVector.fromArray(S8, source, from), …, r7 = …(from + 7·across);
/// // stage h (4, 2, 1) pairs r_i with r_{i+h}, i & h == 0, swapping bit h of lane and row:
/// //   r_i = LOW_h.selectFrom(r_i, r_{i+h});  r_{i+h} = HIGH_h.selectFrom(r_i, r_{i+h})
/// r0.intoArray(packed, to); …; r7.intoArray(packed, to + 7·width);
/// ```
/// 32-lane panels of B pack at 0.26 ns per value against 0.48 value by value, 12-lane panels of A
/// at 0.40 against 0.50 (PackVariants harness, AMD EPYC AVX-512, 2026-11-22). Vectors live in
/// locals only: in an array they would be boxed, 40 times slower. f64 panels are packed value by
/// value.
final class PanelTranspose {
    private static final VectorSpecies<Float> S8 = FloatVector.SPECIES_256, S4 = FloatVector.SPECIES_128;
    // LOW_h[j] picks lane j from the first vector when bit h of j is clear, else lane j - h of the
    // second (index j - h + lanes); HIGH_h picks lane j + h of the first, or lane j of the second.
    private static final FloatVector LOW8_4 = low(S8, 4), HIGH8_4 = high(S8, 4), LOW8_2 = low(S8, 2), HIGH8_2 = high(S8, 2),
            LOW8_1 = low(S8, 1), HIGH8_1 = high(S8, 1), LOW4_2 = low(S4, 2), HIGH4_2 = high(S4, 2), LOW4_1 = low(S4, 1), HIGH4_1 = high(S4, 1);

    private PanelTranspose() {}

    /// `packed[to + p·width + x] = source[from + x·across + p]` for `x < valid`, `p < depth`.
    static void run(float[] source, int from, int across, float[] packed, int to, int width, int valid, int depth) {
        int x = 0;
        for (; x + 8 <= valid; x += 8) {
            int p = 0, row = from + x * across;
            for (; p + 8 <= depth; p += 8) block8(source, row + p, across, packed, to + p * width + x, width);
            rest(source, row, across, packed, to + x, width, 8, p, depth);
        }
        if (x + 4 <= valid) {
            int p = 0, row = from + x * across;
            for (; p + 4 <= depth; p += 4) block4(source, row + p, across, packed, to + p * width + x, width);
            rest(source, row, across, packed, to + x, width, 4, p, depth);
            x += 4;
        }
        rest(source, from + x * across, across, packed, to + x, width, valid - x, 0, depth);
    }

    // Lanes [0, lanes) of steps [step, depth), value by value.
    private static void rest(float[] source, int from, int across, float[] packed, int to, int width, int lanes, int step, int depth) {
        for (int p = step; p < depth; p++)
            for (int x = 0; x < lanes; x++) packed[to + p * width + x] = source[from + x * across + p];
    }

    private static void block8(float[] source, int from, int across, float[] packed, int to, int width) {
        var r0 = FloatVector.fromArray(S8, source, from);
        var r1 = FloatVector.fromArray(S8, source, from + across);
        var r2 = FloatVector.fromArray(S8, source, from + 2 * across);
        var r3 = FloatVector.fromArray(S8, source, from + 3 * across);
        var r4 = FloatVector.fromArray(S8, source, from + 4 * across);
        var r5 = FloatVector.fromArray(S8, source, from + 5 * across);
        var r6 = FloatVector.fromArray(S8, source, from + 6 * across);
        var r7 = FloatVector.fromArray(S8, source, from + 7 * across);
        // h = 4: (0,4) (1,5) (2,6) (3,7)
        var s0 = LOW8_4.selectFrom(r0, r4); var s4 = HIGH8_4.selectFrom(r0, r4);
        var s1 = LOW8_4.selectFrom(r1, r5); var s5 = HIGH8_4.selectFrom(r1, r5);
        var s2 = LOW8_4.selectFrom(r2, r6); var s6 = HIGH8_4.selectFrom(r2, r6);
        var s3 = LOW8_4.selectFrom(r3, r7); var s7 = HIGH8_4.selectFrom(r3, r7);
        // h = 2: (0,2) (1,3) (4,6) (5,7)
        r0 = LOW8_2.selectFrom(s0, s2); r2 = HIGH8_2.selectFrom(s0, s2);
        r1 = LOW8_2.selectFrom(s1, s3); r3 = HIGH8_2.selectFrom(s1, s3);
        r4 = LOW8_2.selectFrom(s4, s6); r6 = HIGH8_2.selectFrom(s4, s6);
        r5 = LOW8_2.selectFrom(s5, s7); r7 = HIGH8_2.selectFrom(s5, s7);
        // h = 1: (0,1) (2,3) (4,5) (6,7), stored as steps 0…7
        LOW8_1.selectFrom(r0, r1).intoArray(packed, to);
        HIGH8_1.selectFrom(r0, r1).intoArray(packed, to + width);
        LOW8_1.selectFrom(r2, r3).intoArray(packed, to + 2 * width);
        HIGH8_1.selectFrom(r2, r3).intoArray(packed, to + 3 * width);
        LOW8_1.selectFrom(r4, r5).intoArray(packed, to + 4 * width);
        HIGH8_1.selectFrom(r4, r5).intoArray(packed, to + 5 * width);
        LOW8_1.selectFrom(r6, r7).intoArray(packed, to + 6 * width);
        HIGH8_1.selectFrom(r6, r7).intoArray(packed, to + 7 * width);
    }

    private static void block4(float[] source, int from, int across, float[] packed, int to, int width) {
        var r0 = FloatVector.fromArray(S4, source, from);
        var r1 = FloatVector.fromArray(S4, source, from + across);
        var r2 = FloatVector.fromArray(S4, source, from + 2 * across);
        var r3 = FloatVector.fromArray(S4, source, from + 3 * across);
        var s0 = LOW4_2.selectFrom(r0, r2); var s2 = HIGH4_2.selectFrom(r0, r2);
        var s1 = LOW4_2.selectFrom(r1, r3); var s3 = HIGH4_2.selectFrom(r1, r3);
        LOW4_1.selectFrom(s0, s1).intoArray(packed, to);
        HIGH4_1.selectFrom(s0, s1).intoArray(packed, to + width);
        LOW4_1.selectFrom(s2, s3).intoArray(packed, to + 2 * width);
        HIGH4_1.selectFrom(s2, s3).intoArray(packed, to + 3 * width);
    }

    private static FloatVector low(VectorSpecies<Float> species, int h) {
        float[] index = new float[species.length()];
        for (int j = 0; j < index.length; j++) index[j] = (j & h) == 0 ? j : j - h + index.length;
        return FloatVector.fromArray(species, index, 0);
    }

    private static FloatVector high(VectorSpecies<Float> species, int h) {
        float[] index = new float[species.length()];
        for (int j = 0; j < index.length; j++) index[j] = (j & h) == 0 ? j + h : j + index.length;
        return FloatVector.fromArray(species, index, 0);
    }
}
