// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.attention;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/// Reads every cache line of a head's key and value rows before its scores are computed, folding
/// what it loads into an `int` so that the JIT keeps the loads. A decode step reads each head's
/// cache rows as two short streams of a few KB, on which the prefetchers barely start: read as the
/// arithmetic needs them, each line is waited for. The streams are read side by side, a vector of
/// each in turn, and a vector and an xor a line (not a scalar load and its conversion), so that
/// many lines are in flight; from [#SPLIT] elements on, each stream as its two halves, four streams
/// in all, which the prefetchers run further ahead together than two. The build writes the f64 twin, `DoubleTouch`, from this file:
/// edit `FloatTouch.java` only.
final class FloatTouch {
    private FloatTouch() {}

    private static final VectorSpecies<Float> LANES = FloatVector.SPECIES_PREFERRED;
    private static final int LINE = LANES.length(); // a cache line's elements on AVX-512, half of them on AVX2

    /// Keys `0…count` of the rows at `k[kFrom + key·kStep…]`, `kWidth` long, and of those at
    /// `v[vFrom + key·vStep…]`, `vWidth` long.
    static int rows(float[] k, int kFrom, int kStep, int kWidth, float[] v, int vFrom, int vStep, int vWidth, int count) {
        if (kStep == kWidth && vStep == vWidth) return streams(k, kFrom, count * kWidth, v, vFrom, count * vWidth);
        int folded = 0;
        for (int key = 0; key < count; key++) folded ^= pair(k, kFrom + key * kStep, kWidth, v, vFrom + key * vStep, vWidth);
        return folded;
    }

    /// Elements of each of the key and value streams from which they are read as two halves each.
    static final int SPLIT = 2048;

    // `kLength` contiguous elements from `kFrom` and `vLength` from `vFrom`: as two streams, or as
    // each one's two halves.
    private static int streams(float[] k, int kFrom, int kLength, float[] v, int vFrom, int vLength) {
        if (Math.min(kLength, vLength) < SPLIT) return pair(k, kFrom, kLength, v, vFrom, vLength);
        int kHalf = kLength / 2, vHalf = vLength / 2, both = Math.min(kHalf, vHalf) / LINE * LINE;
        IntVector folded = FloatVector.zero(LANES).reinterpretAsInts();
        for (int i = 0; i < both; i += LINE)
            folded = folded.lanewise(VectorOperators.XOR, FloatVector.fromArray(LANES, k, kFrom + i).reinterpretAsInts())
                    .lanewise(VectorOperators.XOR, FloatVector.fromArray(LANES, v, vFrom + i).reinterpretAsInts())
                    .lanewise(VectorOperators.XOR, FloatVector.fromArray(LANES, k, kFrom + kHalf + i).reinterpretAsInts())
                    .lanewise(VectorOperators.XOR, FloatVector.fromArray(LANES, v, vFrom + vHalf + i).reinterpretAsInts());
        return folded.reduceLanes(VectorOperators.XOR) ^ one(k, kFrom + both, kHalf - both) ^ one(v, vFrom + both, vHalf - both)
                ^ one(k, kFrom + kHalf + both, kLength - kHalf - both) ^ one(v, vFrom + vHalf + both, vLength - vHalf - both);
    }

    // `kLength` contiguous elements from `kFrom` and `vLength` from `vFrom`, side by side while both
    // last. The vectors stay in this method: passed to or returned from another, C2 may box them.
    private static int pair(float[] k, int kFrom, int kLength, float[] v, int vFrom, int vLength) {
        int both = Math.min(kLength, vLength) / LINE * LINE;
        IntVector folded = FloatVector.zero(LANES).reinterpretAsInts();
        for (int i = 0; i < both; i += LINE)
            folded = folded.lanewise(VectorOperators.XOR, FloatVector.fromArray(LANES, k, kFrom + i).reinterpretAsInts())
                    .lanewise(VectorOperators.XOR, FloatVector.fromArray(LANES, v, vFrom + i).reinterpretAsInts());
        return folded.reduceLanes(VectorOperators.XOR) ^ one(k, kFrom + both, kLength - both) ^ one(v, vFrom + both, vLength - both);
    }

    // `length` contiguous elements from `from`: vectors LINE apart, the last ending at the last
    // element (a vector that straddles two lines loads both); one by one when fewer than a vector.
    private static int one(float[] x, int from, int length) {
        if (length < LINE) {
            int folded = 0;
            for (int i = from; i < from + length; i++) folded ^= Math.getExponent(x[i]);
            return folded;
        }
        IntVector folded = FloatVector.fromArray(LANES, x, from + length - LINE).reinterpretAsInts();
        for (int i = from, last = from + length - LINE; i < last; i += LINE) folded = folded.lanewise(VectorOperators.XOR, FloatVector.fromArray(LANES, x, i).reinterpretAsInts());
        return folded.reduceLanes(VectorOperators.XOR);
    }
}
