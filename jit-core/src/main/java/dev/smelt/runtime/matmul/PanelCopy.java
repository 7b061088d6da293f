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

    /// Every panel of a block: `packed[(i / width)·width·depth + p·width + i % width] =
    /// source[start + i + p·along]` for `i < count`, `p < depth`. One sweep along the block per
    /// step of K: sweeping each panel separately reads 12 floats every 4 KiB at 1024³, which lost
    /// a transposed A a quarter of its speed to cache-set conflicts.
    static void run(float[] source, int start, int along, int count, int width, int depth, float[] packed) {
        int panels = count / width, last = count - panels * width;
        for (int p = 0; p < depth; p++) {
            int from = start + p * along, to = p * width;
            for (int panel = 0; panel < panels; panel++, from += width, to += width * depth) copy(source, from, packed, to, width);
            if (last > 0) copy(source, from, packed, to, last);
        }
    }

    static void run(double[] source, int start, int along, int count, int width, int depth, double[] packed) {
        int panels = count / width, last = count - panels * width;
        for (int p = 0; p < depth; p++) {
            int from = start + p * along, to = p * width;
            for (int panel = 0; panel < panels; panel++, from += width, to += width * depth) copy(source, from, packed, to, width);
            if (last > 0) copy(source, from, packed, to, last);
        }
    }

    // packed[to + x] = source[from + x] for x < count
    private static void copy(float[] source, int from, float[] packed, int to, int count) {
        int x = 0;
        for (; x + F.length() <= count; x += F.length()) FloatVector.fromArray(F, source, from + x).intoArray(packed, to + x);
        if (F.length() > 8 && x + 8 <= count) { FloatVector.fromArray(F8, source, from + x).intoArray(packed, to + x); x += 8; }
        if (F.length() > 4 && x + 4 <= count) { FloatVector.fromArray(F4, source, from + x).intoArray(packed, to + x); x += 4; }
        for (; x < count; x++) packed[to + x] = source[from + x];
    }

    private static void copy(double[] source, int from, double[] packed, int to, int count) {
        int x = 0;
        for (; x + D.length() <= count; x += D.length()) DoubleVector.fromArray(D, source, from + x).intoArray(packed, to + x);
        if (D.length() > 4 && x + 4 <= count) { DoubleVector.fromArray(D4, source, from + x).intoArray(packed, to + x); x += 4; }
        if (D.length() > 2 && x + 2 <= count) { DoubleVector.fromArray(D2, source, from + x).intoArray(packed, to + x); x += 2; }
        for (; x < count; x++) packed[to + x] = source[from + x];
    }
}
