// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/// [Packing]'s copy of a micro-panel whose lanes are contiguous in the operand (B read row by row,
/// or a transposed A): each step of K copies `valid` values as the machine's vectors, then 8- and
/// 4-lane ones (f32), and the last few one by one, `packed[to + p·width + x] = source[from + p·along + x]`. No masks:
/// a 12-lane panel of a transposed A copied with masked 16-lane loads and stores made `xᵀ @ w`
/// 11% slower than `x @ w` at 1024³. As Java, for a 32-column panel of B:
/// ```
/// for (p = 0; p < depth; p++, from += along, to += 32) {
///     FloatVector.fromArray(SPECIES, source, from).intoArray(packed, to);          // 16 lanes
///     FloatVector.fromArray(SPECIES, source, from + 16).intoArray(packed, to + 16);
/// }
/// ```
/// A scalar loop of a panel's 12 or 32 values runs at 0.4–0.7 ns per value on the AVX-512 host
/// (C2 does not vectorise loops that short), `System.arraycopy` at 0.16 for 32 values but 1.2 for
/// 12; this runs at 0.13–0.2, which is a fifth of a 128×784·784×512 product's time saved
/// (PackVariants harness, 2026-11-22). Vector API code runs boxed until C2 compiles it, so
/// packing switches to it only once [Packing#warmUp] has seen it compiled.
final class PanelCopy {
    // The machine's vectors, then the narrower ones down to 128 bits for what is left of a panel.
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED, F8 = FloatVector.SPECIES_256, F4 = FloatVector.SPECIES_128;
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED, D4 = DoubleVector.SPECIES_256, D2 = DoubleVector.SPECIES_128;

    private PanelCopy() {}

    static void run(float[] source, int from, int along, float[] packed, int to, int width, int valid, int depth) {
        int whole = valid - valid % F.length(), left = valid - whole;
        int eight = F.length() > 8 ? left & 8 : 0, four = F.length() > 4 ? (left - eight) & 4 : 0, rest = left - eight - four;
        for (int p = 0; p < depth; p++, from += along, to += width) {
            int x = 0;
            for (; x < whole; x += F.length()) FloatVector.fromArray(F, source, from + x).intoArray(packed, to + x);
            if (eight != 0) { FloatVector.fromArray(F8, source, from + x).intoArray(packed, to + x); x += 8; }
            if (four != 0) { FloatVector.fromArray(F4, source, from + x).intoArray(packed, to + x); x += 4; }
            for (int r = 0; r < rest; r++, x++) packed[to + x] = source[from + x];
        }
    }

    static void run(double[] source, int from, int along, double[] packed, int to, int width, int valid, int depth) {
        int whole = valid - valid % D.length(), left = valid - whole;
        int four = D.length() > 4 ? left & 4 : 0, two = D.length() > 2 ? (left - four) & 2 : 0, rest = left - four - two;
        for (int p = 0; p < depth; p++, from += along, to += width) {
            int x = 0;
            for (; x < whole; x += D.length()) DoubleVector.fromArray(D, source, from + x).intoArray(packed, to + x);
            if (four != 0) { DoubleVector.fromArray(D4, source, from + x).intoArray(packed, to + x); x += 4; }
            if (two != 0) { DoubleVector.fromArray(D2, source, from + x).intoArray(packed, to + x); x += 2; }
            for (int r = 0; r < rest; r++, x++) packed[to + x] = source[from + x];
        }
    }
}
