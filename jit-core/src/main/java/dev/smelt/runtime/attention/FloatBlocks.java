// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.attention;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/// The block arithmetic of f32 attention, on the Vector API: small products accumulated along a
/// row of the result (the scores of a block of keys, a row of the output), and the row operations
/// of the online softmax. `DoubleBlocks` is this file for f64.
final class FloatBlocks {
    private FloatBlocks() {}

    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final int L = F.length();

    /// `c[r, 0:cols] (+)= Σ_i a[r, i] · b[i, 0:cols]` for `r < rows`, `i < inner`, where `a[r, i]`
    /// is at `a[aOff + r·aRow + i·aCol]` (so a transposed `a` is only other strides), the rows of
    /// `b` and `c` are contiguous at strides `bRow` and `cRow`. Four vectors of a row of `c` at a
    /// time, each a chain of FMAs over `i`: one broadcast of `a` feeds four.
    static void product(float[] a, int aOff, int aRow, int aCol, float[] b, int bOff, int bRow, float[] c, int cOff, int cRow,
                        int rows, int inner, int cols, boolean accumulate) {
        for (int r = 0; r < rows; r++) {
            int ar = aOff + r * aRow, cr = cOff + r * cRow, col = 0;
            for (; col + 4 * L <= cols; col += 4 * L) {
                int at = cr + col;
                FloatVector c0 = start(c, at, accumulate), c1 = start(c, at + L, accumulate), c2 = start(c, at + 2 * L, accumulate), c3 = start(c, at + 3 * L, accumulate);
                for (int i = 0, bi = bOff + col; i < inner; i++, bi += bRow) {
                    var x = FloatVector.broadcast(F, a[ar + i * aCol]);
                    c0 = FloatVector.fromArray(F, b, bi).fma(x, c0);
                    c1 = FloatVector.fromArray(F, b, bi + L).fma(x, c1);
                    c2 = FloatVector.fromArray(F, b, bi + 2 * L).fma(x, c2);
                    c3 = FloatVector.fromArray(F, b, bi + 3 * L).fma(x, c3);
                }
                c0.intoArray(c, at);
                c1.intoArray(c, at + L);
                c2.intoArray(c, at + 2 * L);
                c3.intoArray(c, at + 3 * L);
            }
            for (; col + L <= cols; col += L) {
                FloatVector c0 = start(c, cr + col, accumulate);
                for (int i = 0, bi = bOff + col; i < inner; i++, bi += bRow) c0 = FloatVector.fromArray(F, b, bi).fma(FloatVector.broadcast(F, a[ar + i * aCol]), c0);
                c0.intoArray(c, cr + col);
            }
            for (; col < cols; col++) {
                float sum = accumulate ? c[cr + col] : 0;
                for (int i = 0; i < inner; i++) sum = Math.fma(a[ar + i * aCol], b[bOff + i * bRow + col], sum);
                c[cr + col] = sum;
            }
        }
    }

    private static FloatVector start(float[] c, int at, boolean accumulate) { return accumulate ? FloatVector.fromArray(F, c, at) : FloatVector.zero(F); }

    /// `x[i] *= factor` for `i < count`, `count` a multiple of the lane count or not.
    static void scale(float[] x, int from, int count, float factor) {
        int i = 0;
        for (; i + L <= count; i += L) FloatVector.fromArray(F, x, from + i).mul(factor).intoArray(x, from + i);
        for (; i < count; i++) x[from + i] *= factor;
    }

    /// The largest of `x[from…from+count)`, NaN if one is NaN (as the unfused `max` reduction).
    static float max(float[] x, int from, int count) {
        var best = FloatVector.broadcast(F, Float.NEGATIVE_INFINITY);
        int i = 0;
        for (; i + L <= count; i += L) best = best.max(FloatVector.fromArray(F, x, from + i));
        float max = best.reduceLanes(VectorOperators.MAX);
        for (; i < count; i++) max = Math.max(max, x[from + i]);
        return max;
    }

    /// `x[i] = exp(x[i] - shift)`, returning their sum.
    static float exp(float[] x, int from, int count, float shift) {
        var sum = FloatVector.zero(F);
        int i = 0;
        for (; i + L <= count; i += L) {
            var e = FloatVector.fromArray(F, x, from + i).sub(shift).lanewise(VectorOperators.EXP);
            e.intoArray(x, from + i);
            sum = sum.add(e);
        }
        float total = sum.reduceLanes(VectorOperators.ADD);
        for (; i < count; i++) total += x[from + i] = (float) Math.exp(x[from + i] - shift);
        return total;
    }

    /// `ds[i] = p[i] · (ds[i] - rowDot) · scale`: the scores' gradient, scaled for q's and k's.
    static void scoreGradient(float[] p, float[] ds, int from, int count, float rowDot, float scale) {
        int i = 0;
        for (; i + L <= count; i += L) {
            var dp = FloatVector.fromArray(F, ds, from + i).sub(rowDot);
            FloatVector.fromArray(F, p, from + i).mul(dp).mul(scale).intoArray(ds, from + i);
        }
        for (; i < count; i++) ds[from + i] = p[from + i] * (ds[from + i] - rowDot) * scale;
    }

    /// `Σ x[xOff + i] · y[yOff + i]` for `i < count`.
    static float dot(float[] x, int xOff, float[] y, int yOff, int count) {
        var sum = FloatVector.zero(F);
        int i = 0;
        for (; i + L <= count; i += L) sum = FloatVector.fromArray(F, x, xOff + i).fma(FloatVector.fromArray(F, y, yOff + i), sum);
        float total = sum.reduceLanes(VectorOperators.ADD);
        for (; i < count; i++) total += x[xOff + i] * y[yOff + i];
        return total;
    }

    /// `packed[i·width + c] = source[from + c·features + i]` for `c < count`, zero for `count ≤ c < width`:
    /// a block of keys (or values) transposed, so that a row of scores is a product along `c`.
    static void transpose(float[] source, int from, int features, int count, int width, float[] packed) {
        for (int i = 0; i < features; i++) {
            int row = i * width;
            for (int c = 0; c < count; c++) packed[row + c] = source[from + c * features + i];
            java.util.Arrays.fill(packed, row + count, row + width, 0f);
        }
    }
}
