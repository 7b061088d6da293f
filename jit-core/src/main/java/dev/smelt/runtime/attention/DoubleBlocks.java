// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.attention;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/// The block arithmetic of f64 attention, on the Vector API: small products accumulated along a
/// row of the result (the scores of a block of keys, a row of the output), and the row operations
/// of the online softmax. The twin of `FloatBlocks` (f32), types replaced.
final class DoubleBlocks {
    private DoubleBlocks() {}

    private static final VectorSpecies<Double> F = DoubleVector.SPECIES_PREFERRED;
    private static final int L = F.length();

    /// `c[r, 0:cols] (+)= Σ_i a[r, i] · b[i, 0:cols]` for `r < rows`, `i < inner`, where `a[r, i]`
    /// is at `a[aOff + r·aRow + i·aCol]` (so a transposed `a` is only other strides), the rows of
    /// `b` and `c` are contiguous at strides `bRow` and `cRow`. Four vectors of a row of `c` at a
    /// time, each a chain of FMAs over `i`: one broadcast of `a` feeds four.
    static void product(double[] a, int aOff, int aRow, int aCol, double[] b, int bOff, int bRow, double[] c, int cOff, int cRow,
                        int rows, int inner, int cols, boolean accumulate) {
        for (int r = 0; r < rows; r++) {
            int ar = aOff + r * aRow, cr = cOff + r * cRow, col = 0;
            for (; col + 4 * L <= cols; col += 4 * L) {
                int at = cr + col;
                DoubleVector c0 = start(c, at, accumulate), c1 = start(c, at + L, accumulate), c2 = start(c, at + 2 * L, accumulate), c3 = start(c, at + 3 * L, accumulate);
                for (int i = 0, bi = bOff + col; i < inner; i++, bi += bRow) {
                    var x = DoubleVector.broadcast(F, a[ar + i * aCol]);
                    c0 = DoubleVector.fromArray(F, b, bi).fma(x, c0);
                    c1 = DoubleVector.fromArray(F, b, bi + L).fma(x, c1);
                    c2 = DoubleVector.fromArray(F, b, bi + 2 * L).fma(x, c2);
                    c3 = DoubleVector.fromArray(F, b, bi + 3 * L).fma(x, c3);
                }
                c0.intoArray(c, at);
                c1.intoArray(c, at + L);
                c2.intoArray(c, at + 2 * L);
                c3.intoArray(c, at + 3 * L);
            }
            for (; col + L <= cols; col += L) {
                DoubleVector c0 = start(c, cr + col, accumulate);
                for (int i = 0, bi = bOff + col; i < inner; i++, bi += bRow) c0 = DoubleVector.fromArray(F, b, bi).fma(DoubleVector.broadcast(F, a[ar + i * aCol]), c0);
                c0.intoArray(c, cr + col);
            }
            for (; col < cols; col++) {
                double sum = accumulate ? c[cr + col] : 0;
                for (int i = 0; i < inner; i++) sum = Math.fma(a[ar + i * aCol], b[bOff + i * bRow + col], sum);
                c[cr + col] = sum;
            }
        }
    }

    private static DoubleVector start(double[] c, int at, boolean accumulate) { return accumulate ? DoubleVector.fromArray(F, c, at) : DoubleVector.zero(F); }

    /// `x[i] *= factor` for `i < count`, `count` a multiple of the lane count or not.
    static void scale(double[] x, int from, int count, double factor) {
        int i = 0;
        for (; i + L <= count; i += L) DoubleVector.fromArray(F, x, from + i).mul(factor).intoArray(x, from + i);
        for (; i < count; i++) x[from + i] *= factor;
    }

    /// The largest of `x[from…from+count)`, NaN if one is NaN (as the unfused `max` reduction).
    static double max(double[] x, int from, int count) {
        var best = DoubleVector.broadcast(F, Double.NEGATIVE_INFINITY);
        int i = 0;
        for (; i + L <= count; i += L) best = best.max(DoubleVector.fromArray(F, x, from + i));
        double max = best.reduceLanes(VectorOperators.MAX);
        for (; i < count; i++) max = Math.max(max, x[from + i]);
        return max;
    }

    /// `x[i] = exp(x[i] - shift)`, returning their sum.
    static double exp(double[] x, int from, int count, double shift) {
        var sum = DoubleVector.zero(F);
        int i = 0;
        for (; i + L <= count; i += L) {
            var e = DoubleVector.fromArray(F, x, from + i).sub(shift).lanewise(VectorOperators.EXP);
            e.intoArray(x, from + i);
            sum = sum.add(e);
        }
        double total = sum.reduceLanes(VectorOperators.ADD);
        for (; i < count; i++) total += x[from + i] = Math.exp(x[from + i] - shift);
        return total;
    }

    /// `ds[i] = p[i] · (ds[i] - rowDot) · scale`: the scores' gradient, scaled for q's and k's.
    static void scoreGradient(double[] p, double[] ds, int from, int count, double rowDot, double scale) {
        int i = 0;
        for (; i + L <= count; i += L) {
            var dp = DoubleVector.fromArray(F, ds, from + i).sub(rowDot);
            DoubleVector.fromArray(F, p, from + i).mul(dp).mul(scale).intoArray(ds, from + i);
        }
        for (; i < count; i++) ds[from + i] = p[from + i] * (ds[from + i] - rowDot) * scale;
    }

    /// `Σ x[xOff + i] · y[yOff + i]` for `i < count`.
    static double dot(double[] x, int xOff, double[] y, int yOff, int count) {
        var sum = DoubleVector.zero(F);
        int i = 0;
        for (; i + L <= count; i += L) sum = DoubleVector.fromArray(F, x, xOff + i).fma(DoubleVector.fromArray(F, y, yOff + i), sum);
        double total = sum.reduceLanes(VectorOperators.ADD);
        for (; i < count; i++) total += x[xOff + i] * y[yOff + i];
        return total;
    }

    /// `packed[i·width + c] = source[from + c·features + i]` for `c < count`, zero for `count ≤ c < width`:
    /// a block of keys (or values) transposed, so that a row of scores is a product along `c`.
    static void transpose(double[] source, int from, int features, int count, int width, double[] packed) {
        for (int i = 0; i < features; i++) {
            int row = i * width;
            for (int c = 0; c < count; c++) packed[row + c] = source[from + c * features + i];
            java.util.Arrays.fill(packed, row + count, row + width, 0);
        }
    }
}
