// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/// [Packing]'s copy of a micro-panel whose lanes are contiguous in the operand (B read row by row,
/// or a transposed A): each step of K copies `valid` values as whole vectors and one masked tail,
/// `packed[to + p·width + x] = source[from + p·along + x]`. As Java, for a 32-column panel of B
/// with 16 lanes:
/// ```
/// for (p = 0; p < depth; p++, from += along, to += 32) {
///     FloatVector.fromArray(SPECIES, source, from).intoArray(packed, to);
///     FloatVector.fromArray(SPECIES, source, from + 16).intoArray(packed, to + 16);
/// }
/// ```
/// A scalar loop of a panel's 12 or 32 values runs at 0.4–0.7 ns per value on the AVX-512 host
/// (C2 does not vectorise loops that short), `System.arraycopy` at 0.16 for 32 values but 1.2 for
/// 12; this runs at 0.13–0.2, which is a fifth of a 128×784·784×512 product's time saved
/// (PackVariants harness, 2026-11-22). Vector API code runs boxed until C2 compiles it, so
/// packing switches to it only once [Packing#warmUp] has seen it compiled.
final class PanelCopy {
    static final VectorSpecies<Float> F32 = FloatVector.SPECIES_PREFERRED;
    static final VectorSpecies<Double> F64 = DoubleVector.SPECIES_PREFERRED;

    private PanelCopy() {}

    static void run(float[] source, int from, int along, float[] packed, int to, int width, int valid, int depth) {
        int whole = valid - valid % F32.length();
        VectorMask<Float> tail = F32.indexInRange(whole, valid);
        for (int p = 0; p < depth; p++, from += along, to += width) {
            for (int x = 0; x < whole; x += F32.length()) FloatVector.fromArray(F32, source, from + x).intoArray(packed, to + x);
            if (whole < valid) FloatVector.fromArray(F32, source, from + whole, tail).intoArray(packed, to + whole, tail);
        }
    }

    static void run(double[] source, int from, int along, double[] packed, int to, int width, int valid, int depth) {
        int whole = valid - valid % F64.length();
        VectorMask<Double> tail = F64.indexInRange(whole, valid);
        for (int p = 0; p < depth; p++, from += along, to += width) {
            for (int x = 0; x < whole; x += F64.length()) DoubleVector.fromArray(F64, source, from + x).intoArray(packed, to + x);
            if (whole < valid) DoubleVector.fromArray(F64, source, from + whole, tail).intoArray(packed, to + whole, tail);
        }
    }

}
