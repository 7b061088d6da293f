// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.attention;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/// Blocks of keys or values transposed for attention's products ([FloatBlocks]): a block's rows
/// become its columns, so that a row of scores is a product along the keys. The build writes the
/// f64 twin, `DoubleTranspose`, from `FloatTranspose.java` by replacing the element type's names
/// (jit-core's pom): edit `FloatTranspose.java` only.
final class FloatTranspose {
    private FloatTranspose() {}

    private static final int L = FloatVector.SPECIES_PREFERRED.length();

    /// `packed[at + i·width + c] = source[from + c·step + i]` for `i < features`, `c < count`, zero for
    /// `count ≤ c < width`: a block of keys (or values) transposed, so that a row of scores is a
    /// product along `c`. Tiles of 8 keys × 8 features are transposed in registers ([#eight]), the
    /// rest value by value.
    static void transpose(float[] source, int from, int step, int features, int count, int width, float[] packed, int at) {
        int c = 0;
        if (BY_EIGHT)
            for (; c + 8 <= count; c += 8) {
                int i = 0;
                for (; i + 8 <= features; i += 8) eight(source, from + c * step + i, step, packed, at + i * width + c, width);
                for (; i < features; i++)
                    for (int x = c; x < c + 8; x++) packed[at + i * width + x] = source[from + x * step + i];
            }
        for (int i = 0; i < features; i++) {
            int row = at + i * width;
            for (int x = c; x < count; x++) packed[row + x] = source[from + x * step + i];
            java.util.Arrays.fill(packed, row + count, row + width, 0f);
        }
    }

    // Eight-lane vectors for [#eight], used where the machine's vectors hold eight lanes or more.
    private static final VectorSpecies<Float> EIGHT = VectorSpecies.of(float.class, VectorShape.forBitSize(8 * Float.SIZE));
    private static final boolean BY_EIGHT = L >= 8;
    // LOW_h[j] picks lane j of the first vector when bit h of j is clear, else lane j - h of the
    // second (index j - h + 8); HIGH_h picks lane j + h of the first, or lane j of the second.
    private static final FloatVector LOW4 = butterfly(4, false), HIGH4 = butterfly(4, true), LOW2 = butterfly(2, false), HIGH2 = butterfly(2, true),
            LOW1 = butterfly(1, false), HIGH1 = butterfly(1, true);

    private static FloatVector butterfly(int h, boolean high) {
        float[] index = new float[8];
        for (int j = 0; j < 8; j++) index[j] = (j & h) == 0 ? (high ? j + h : j) : (high ? j + 8 : j - h + 8);
        return FloatVector.fromArray(EIGHT, index, 0);
    }

    // 8 rows of 8 values `step` apart from `from`, written as 8 columns of rows `width` apart at `to`:
    // three butterfly stages of two-vector `selectFrom` (a `vpermi2ps` each on AVX-512), stage h
    // pairing rows i and i + h (i & h == 0) and swapping bit h of lane and row, as
    // `runtime.matmul.PanelTranspose` packs a matmul's panels.
    private static void eight(float[] source, int from, int step, float[] packed, int to, int width) {
        var r0 = FloatVector.fromArray(EIGHT, source, from);
        var r1 = FloatVector.fromArray(EIGHT, source, from + step);
        var r2 = FloatVector.fromArray(EIGHT, source, from + 2 * step);
        var r3 = FloatVector.fromArray(EIGHT, source, from + 3 * step);
        var r4 = FloatVector.fromArray(EIGHT, source, from + 4 * step);
        var r5 = FloatVector.fromArray(EIGHT, source, from + 5 * step);
        var r6 = FloatVector.fromArray(EIGHT, source, from + 6 * step);
        var r7 = FloatVector.fromArray(EIGHT, source, from + 7 * step);
        var s0 = LOW4.selectFrom(r0, r4); var s4 = HIGH4.selectFrom(r0, r4);
        var s1 = LOW4.selectFrom(r1, r5); var s5 = HIGH4.selectFrom(r1, r5);
        var s2 = LOW4.selectFrom(r2, r6); var s6 = HIGH4.selectFrom(r2, r6);
        var s3 = LOW4.selectFrom(r3, r7); var s7 = HIGH4.selectFrom(r3, r7);
        r0 = LOW2.selectFrom(s0, s2); r2 = HIGH2.selectFrom(s0, s2);
        r1 = LOW2.selectFrom(s1, s3); r3 = HIGH2.selectFrom(s1, s3);
        r4 = LOW2.selectFrom(s4, s6); r6 = HIGH2.selectFrom(s4, s6);
        r5 = LOW2.selectFrom(s5, s7); r7 = HIGH2.selectFrom(s5, s7);
        LOW1.selectFrom(r0, r1).intoArray(packed, to);
        HIGH1.selectFrom(r0, r1).intoArray(packed, to + width);
        LOW1.selectFrom(r2, r3).intoArray(packed, to + 2 * width);
        HIGH1.selectFrom(r2, r3).intoArray(packed, to + 3 * width);
        LOW1.selectFrom(r4, r5).intoArray(packed, to + 4 * width);
        HIGH1.selectFrom(r4, r5).intoArray(packed, to + 5 * width);
        LOW1.selectFrom(r6, r7).intoArray(packed, to + 6 * width);
        HIGH1.selectFrom(r6, r7).intoArray(packed, to + 7 * width);
    }
}
