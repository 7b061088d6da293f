// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.attention;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/// The block arithmetic of f32 attention, on the Vector API: small products accumulated along a
/// row of the result (the scores of a block of keys, a row of the output), and the row operations
/// of the online softmax. The build writes the f64 twin, `DoubleBlocks`, from `FloatBlocks.java` by
/// replacing the element type's names (jit-core's pom): edit `FloatBlocks.java` only.
final class FloatBlocks {
    private FloatBlocks() {}

    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final int L = F.length();

    /// What a product over a block on a causal mask's diagonal may skip, `diagonal` being the
    /// diagonal's offset in the block: nothing (`NONE`); row r's columns past `r + diagonal`
    /// (`COLUMNS`: scores the mask overwrites, left as they were); row r's terms `i > r + diagonal`
    /// (`INNER_UP_TO`) or `i < r + diagonal` (`INNER_FROM`), where `a` is zero (probabilities past the
    /// diagonal, transposed or not). Rows go four at a time, so a few skippable ones are computed.
    enum Causal { NONE, COLUMNS, INNER_UP_TO, INNER_FROM }

    /// `c[r, 0:cols] (+)= Σ_i a[r, i] · b[i, 0:cols]` for `r < rows`, `i < inner`, where `a[r, i]`
    /// is at `a[aOff + r·aRow + i·aCol]` (so a transposed `a` is only other strides), the rows of
    /// `b` and `c` are contiguous at strides `bRow` and `cRow`. Blocks of four rows by four vectors
    /// of `c` are sixteen chains of FMAs over `i`, each load of `b` feeding four rows; the rows
    /// and columns left over go one row at a time.
    static void product(float[] a, int aOff, int aRow, int aCol, float[] b, int bOff, int bRow, float[] c, int cOff, int cRow,
                        int rows, int inner, int cols, boolean accumulate) {
        product(a, aOff, aRow, aCol, b, bOff, bRow, c, cOff, cRow, rows, inner, cols, accumulate, Causal.NONE, 0);
    }

    /// [#product(float[], int, int, int, float[], int, int, float[], int, int, int, int, int, boolean)]
    /// skipping what `causal` says past the diagonal at `diagonal`.
    static void product(float[] a, int aOff, int aRow, int aCol, float[] b, int bOff, int bRow, float[] c, int cOff, int cRow,
                        int rows, int inner, int cols, boolean accumulate, Causal causal, int diagonal) {
        int wide = cols / (4 * L) * (4 * L), r = 0;
        for (; r + 4 <= rows && wide > 0; r += 4) {
            int from = causal == Causal.INNER_FROM ? Math.clamp(r + diagonal, 0, inner) : 0;
            int to = causal == Causal.INNER_UP_TO ? Math.clamp(r + 4 + diagonal, 0, inner) : inner;
            int width = causal == Causal.COLUMNS ? Math.min(wide, Math.max(0, r + 4 + diagonal + 2 * L - 1) / (2 * L) * (2 * L)) : wide;
            int ar = aOff + r * aRow + from * aCol, bi = bOff + from * bRow, at = cOff + r * cRow, col = 0;
            for (; col + 4 * L <= width; col += 4 * L) block(a, ar, aRow, aCol, b, bi + col, bRow, c, at + col, cRow, to - from, accumulate);
            if (col < width) half(a, ar, aRow, aCol, b, bi + col, bRow, c, at + col, cRow, to - from, accumulate);
        }
        rows(a, aOff, aRow, aCol, b, bOff, bRow, c, cOff, cRow, 0, r, wide, inner, cols, accumulate);
        rows(a, aOff, aRow, aCol, b, bOff, bRow, c, cOff, cRow, r, rows, 0, inner, cols, accumulate);
    }

    // Four rows by two vectors of c at `at`: the columns of a diagonal block's last half-width.
    private static void half(float[] a, int ar, int aRow, int aCol, float[] b, int bi, int bRow, float[] c, int at, int cRow, int inner, boolean accumulate) {
        int at1 = at + cRow, at2 = at1 + cRow, at3 = at2 + cRow;
        FloatVector c00 = start(c, at, accumulate), c01 = start(c, at + L, accumulate), c10 = start(c, at1, accumulate), c11 = start(c, at1 + L, accumulate);
        FloatVector c20 = start(c, at2, accumulate), c21 = start(c, at2 + L, accumulate), c30 = start(c, at3, accumulate), c31 = start(c, at3 + L, accumulate);
        int a1 = ar + aRow, a2 = a1 + aRow, a3 = a2 + aRow;
        for (int i = 0; i < inner; i++) {
            int bx = bi + i * bRow, ax = i * aCol;
            var b0 = FloatVector.fromArray(F, b, bx);
            var b1 = FloatVector.fromArray(F, b, bx + L);
            var x = FloatVector.broadcast(F, a[ar + ax]);
            c00 = b0.fma(x, c00); c01 = b1.fma(x, c01);
            x = FloatVector.broadcast(F, a[a1 + ax]);
            c10 = b0.fma(x, c10); c11 = b1.fma(x, c11);
            x = FloatVector.broadcast(F, a[a2 + ax]);
            c20 = b0.fma(x, c20); c21 = b1.fma(x, c21);
            x = FloatVector.broadcast(F, a[a3 + ax]);
            c30 = b0.fma(x, c30); c31 = b1.fma(x, c31);
        }
        c00.intoArray(c, at); c01.intoArray(c, at + L); c10.intoArray(c, at1); c11.intoArray(c, at1 + L);
        c20.intoArray(c, at2); c21.intoArray(c, at2 + L); c30.intoArray(c, at3); c31.intoArray(c, at3 + L);
    }

    // Four rows by four vectors of c at `at`, rows `cRow` apart.
    private static void block(float[] a, int ar, int aRow, int aCol, float[] b, int bi, int bRow, float[] c, int at, int cRow, int inner, boolean accumulate) {
        int at1 = at + cRow, at2 = at1 + cRow, at3 = at2 + cRow;
        FloatVector c00 = start(c, at, accumulate), c01 = start(c, at + L, accumulate), c02 = start(c, at + 2 * L, accumulate), c03 = start(c, at + 3 * L, accumulate);
        FloatVector c10 = start(c, at1, accumulate), c11 = start(c, at1 + L, accumulate), c12 = start(c, at1 + 2 * L, accumulate), c13 = start(c, at1 + 3 * L, accumulate);
        FloatVector c20 = start(c, at2, accumulate), c21 = start(c, at2 + L, accumulate), c22 = start(c, at2 + 2 * L, accumulate), c23 = start(c, at2 + 3 * L, accumulate);
        FloatVector c30 = start(c, at3, accumulate), c31 = start(c, at3 + L, accumulate), c32 = start(c, at3 + 2 * L, accumulate), c33 = start(c, at3 + 3 * L, accumulate);
        int a1 = ar + aRow, a2 = a1 + aRow, a3 = a2 + aRow;
        for (int i = 0; i < inner; i++) {                       // addresses as i·stride: C2 hoists their bounds checks (64³ in L1: 89 → 100 GFLOP/s)
            int bx = bi + i * bRow, ax = i * aCol;
            var b0 = FloatVector.fromArray(F, b, bx);
            var b1 = FloatVector.fromArray(F, b, bx + L);
            var b2 = FloatVector.fromArray(F, b, bx + 2 * L);
            var b3 = FloatVector.fromArray(F, b, bx + 3 * L);
            var x = FloatVector.broadcast(F, a[ar + ax]);
            c00 = b0.fma(x, c00); c01 = b1.fma(x, c01); c02 = b2.fma(x, c02); c03 = b3.fma(x, c03);
            x = FloatVector.broadcast(F, a[a1 + ax]);
            c10 = b0.fma(x, c10); c11 = b1.fma(x, c11); c12 = b2.fma(x, c12); c13 = b3.fma(x, c13);
            x = FloatVector.broadcast(F, a[a2 + ax]);
            c20 = b0.fma(x, c20); c21 = b1.fma(x, c21); c22 = b2.fma(x, c22); c23 = b3.fma(x, c23);
            x = FloatVector.broadcast(F, a[a3 + ax]);
            c30 = b0.fma(x, c30); c31 = b1.fma(x, c31); c32 = b2.fma(x, c32); c33 = b3.fma(x, c33);
        }
        c00.intoArray(c, at); c01.intoArray(c, at + L); c02.intoArray(c, at + 2 * L); c03.intoArray(c, at + 3 * L);
        c10.intoArray(c, at1); c11.intoArray(c, at1 + L); c12.intoArray(c, at1 + 2 * L); c13.intoArray(c, at1 + 3 * L);
        c20.intoArray(c, at2); c21.intoArray(c, at2 + L); c22.intoArray(c, at2 + 2 * L); c23.intoArray(c, at2 + 3 * L);
        c30.intoArray(c, at3); c31.intoArray(c, at3 + L); c32.intoArray(c, at3 + 2 * L); c33.intoArray(c, at3 + 3 * L);
    }

    // Rows `from…to` of c, columns `first…cols`: four vectors at a time, then one, then lane by lane.
    private static void rows(float[] a, int aOff, int aRow, int aCol, float[] b, int bOff, int bRow, float[] c, int cOff, int cRow,
                             int from, int to, int first, int inner, int cols, boolean accumulate) {
        for (int r = from; r < to; r++) {
            int ar = aOff + r * aRow, cr = cOff + r * cRow, col = first;
            for (; col + 4 * L <= cols; col += 4 * L) {
                int at = cr + col;
                FloatVector c0 = start(c, at, accumulate), c1 = start(c, at + L, accumulate), c2 = start(c, at + 2 * L, accumulate), c3 = start(c, at + 3 * L, accumulate);
                for (int i = 0; i < inner; i++) {
                    int bi = bOff + col + i * bRow;
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
                for (int i = 0; i < inner; i++) c0 = FloatVector.fromArray(F, b, bOff + col + i * bRow).fma(FloatVector.broadcast(F, a[ar + i * aCol]), c0);
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
        float max = best.reduceLanes(VectorOperators.MAX);      // the same in any order
        for (; i < count; i++) max = Math.max(max, x[from + i]);
        return max;
    }

    /// `x[i] = exp(x[i]·factor - shift)` for `i < count`, a multiple of the lane count, and
    /// `sums[at…at+L) = sums[at…at+L)·correction + Σ` of their vectors: a row's running sum kept
    /// lane by lane, summed across lanes once at the end ([#lanes]). The product is rounded before
    /// the shift, as scores scaled in a pass of their own would be.
    static void expAdd(float[] x, int from, int count, float factor, float shift, float[] sums, int at, float correction) {
        var sum = FloatVector.fromArray(F, sums, at).mul(correction);
        for (int i = 0; i < count; i += L) {
            var e = FloatExp.exp(FloatVector.fromArray(F, x, from + i).mul(factor).sub(shift));
            e.intoArray(x, from + i);
            sum = e.add(sum); // the fresh vector as the receiver (see codegen.VectorFolds)
        }
        sum.intoArray(sums, at);
    }

    /// The lanes at `sums[at…at+L)` summed, in [#sum]'s fixed order.
    static float lanes(float[] sums, int at) { return sum(FloatVector.fromArray(F, sums, at)); }

    /// The lane count: how many of [#expAdd]'s sums one row keeps.
    static int laneCount() { return L; }

    /// `p[i] = exp(s[i]·factor - shift)`, the scores `s` at `p` becoming probabilities (the
    /// product rounded first, as in [#expAdd]), then `ds[i] = p[i] · (ds[i] - rowDot) · scale`: the
    /// scores' gradient from that of the probabilities at `ds`, scaled for q's and k's. One pass:
    /// each vector of probabilities is used as it is made.
    static void scoreGradient(float[] p, float[] ds, int from, int count, float factor, float shift, float rowDot, float scale) {
        int i = 0;
        for (; i + L <= count; i += L) {
            var probability = FloatExp.exp(FloatVector.fromArray(F, p, from + i).mul(factor).sub(shift));
            probability.intoArray(p, from + i);
            probability.mul(FloatVector.fromArray(F, ds, from + i).sub(rowDot)).mul(scale).intoArray(ds, from + i);
        }
        for (; i < count; i++) {
            float probability = (float) Math.exp(p[from + i] * factor - shift);
            p[from + i] = probability;
            ds[from + i] = probability * (ds[from + i] - rowDot) * scale;
        }
    }

    /// `Σ x[xOff + i] · y[yOff + i]` for `i < count`, four chains of vectors.
    static float dot(float[] x, int xOff, float[] y, int yOff, int count) {
        FloatVector s0 = FloatVector.zero(F), s1 = s0, s2 = s0, s3 = s0;
        int i = 0;
        for (; i + 4 * L <= count; i += 4 * L) {
            s0 = FloatVector.fromArray(F, x, xOff + i).fma(FloatVector.fromArray(F, y, yOff + i), s0);
            s1 = FloatVector.fromArray(F, x, xOff + i + L).fma(FloatVector.fromArray(F, y, yOff + i + L), s1);
            s2 = FloatVector.fromArray(F, x, xOff + i + 2 * L).fma(FloatVector.fromArray(F, y, yOff + i + 2 * L), s2);
            s3 = FloatVector.fromArray(F, x, xOff + i + 3 * L).fma(FloatVector.fromArray(F, y, yOff + i + 3 * L), s3);
        }
        for (; i + L <= count; i += L) s0 = FloatVector.fromArray(F, x, xOff + i).fma(FloatVector.fromArray(F, y, yOff + i), s0);
        float total = sum(s0.add(s1).add(s2.add(s3)));
        for (; i < count; i++) total = Math.fma(x[xOff + i], y[yOff + i], total);
        return total;
    }

    /// `scores[at + c] = Σ_i q[qAt + c·qRow + i] · k[kAt + c·kRow + i]` for `c < count`: one query's
    /// scores against keys read in place (`qRow` 0), or the dot products of two matrices' rows (the
    /// backward's `rowsum(dO ∘ O)`), row by row, each as [#dot] sums it. When `depth` is whole vectors,
    /// L keys at a time: each key's products summed lane by lane as in dot, into `lanes` (L·L values),
    /// then the L keys' lanes summed together in [#sum]'s tree ([#sums]): the same additions, so the
    /// same bits, without a chain of scalar adds per key (most of a decode step's scores).
    static void dots(float[] q, int qAt, int qRow, float[] k, int kAt, int kRow, int depth, int count, float[] scores, int at, float[] lanes) {
        int c = 0;
        if (depth % L == 0 && depth > 0 && qRow == 0 && depth <= 4 * L) c = queryDots(q, qAt, k, kAt, kRow, depth, count, scores, at, lanes);
        else if (depth % L == 0)
            for (; c + L <= count; c += L) {
                for (int j = 0; j < L; j++) {
                    int query = qAt + (c + j) * qRow, key = kAt + (c + j) * kRow, i = 0;
                    FloatVector s0 = FloatVector.zero(F), s1 = s0, s2 = s0, s3 = s0;
                    for (; i + 4 * L <= depth; i += 4 * L) {
                        s0 = FloatVector.fromArray(F, q, query + i).fma(FloatVector.fromArray(F, k, key + i), s0);
                        s1 = FloatVector.fromArray(F, q, query + i + L).fma(FloatVector.fromArray(F, k, key + i + L), s1);
                        s2 = FloatVector.fromArray(F, q, query + i + 2 * L).fma(FloatVector.fromArray(F, k, key + i + 2 * L), s2);
                        s3 = FloatVector.fromArray(F, q, query + i + 3 * L).fma(FloatVector.fromArray(F, k, key + i + 3 * L), s3);
                    }
                    for (; i < depth; i += L) s0 = FloatVector.fromArray(F, q, query + i).fma(FloatVector.fromArray(F, k, key + i), s0);
                    s0.add(s1).add(s2.add(s3)).intoArray(lanes, j * L);
                }
                sums(lanes).intoArray(scores, at + c);
            }
        for (; c < count; c++) scores[at + c] = dot(q, qAt + c * qRow, k, kAt + c * kRow, depth);
    }

    // dots for one query of at most four vectors, held in registers across the keys: reloaded per
    // key, they cost a quarter of a decode step's scores (C2 cannot hoist them past the stores
    // to `lanes`, which might be the same array). The same operations as dots' loops, so the same
    // bits: four vectors are the 4·L loop's one pass, fewer its remainder loop on s0. Returns the
    // keys done, a multiple of L.
    private static int queryDots(float[] q, int qAt, float[] k, int kAt, int kRow, int depth, int count, float[] scores, int at, float[] lanes) {
        FloatVector zero = FloatVector.zero(F), q0 = FloatVector.fromArray(F, q, qAt);
        FloatVector q1 = depth > L ? FloatVector.fromArray(F, q, qAt + L) : zero, q2 = depth > 2 * L ? FloatVector.fromArray(F, q, qAt + 2 * L) : zero,
                q3 = depth > 3 * L ? FloatVector.fromArray(F, q, qAt + 3 * L) : zero;
        int c = 0;
        for (; c + L <= count; c += L) {
            for (int j = 0; j < L; j++) {
                int key = kAt + (c + j) * kRow;
                FloatVector s0 = q0.fma(FloatVector.fromArray(F, k, key), zero), s1 = zero, s2 = zero, s3 = zero;
                if (depth == 4 * L) {
                    s1 = q1.fma(FloatVector.fromArray(F, k, key + L), zero);
                    s2 = q2.fma(FloatVector.fromArray(F, k, key + 2 * L), zero);
                    s3 = q3.fma(FloatVector.fromArray(F, k, key + 3 * L), zero);
                } else {
                    if (depth > L) s0 = q1.fma(FloatVector.fromArray(F, k, key + L), s0);
                    if (depth > 2 * L) s0 = q2.fma(FloatVector.fromArray(F, k, key + 2 * L), s0);
                }
                s0.add(s1).add(s2.add(s3)).intoArray(lanes, j * L);
            }
            sums(lanes).intoArray(scores, at + c);
        }
        return c;
    }

    // Lane j: the sum of lanes[j·L … j·L + L) in sum's tree. Rows j and j + 1 are paired into one
    // vector (lanes i and i + L/2 of each added, each row in one half), pairs of those into one (lanes
    // i and i + L/4 of each half), and so on: two permutes and an add per pair of vectors.
    private static FloatVector sums(float[] lanes) {
        for (int level = 0, count = L; count > 1; level++, count /= 2)
            for (int j = 0; j < count / 2; j++) {
                FloatVector first = FloatVector.fromArray(F, lanes, 2 * j * L), second = FloatVector.fromArray(F, lanes, (2 * j + 1) * L);
                first.rearrange(LOW[level], second).add(first.rearrange(HIGH[level], second)).intoArray(lanes, j * L);
            }
        return FloatVector.fromArray(F, lanes, 0);
    }

    // Shuffles for first.rearrange(·, second) at each level of sums' tree (h = L/2 lanes at level 0,
    // then L/4, …): both hold blocks of 2h lanes, one row's each; LOW takes the first h lanes of each
    // block, HIGH the last h, the first vector's blocks then the second's: LOW + HIGH is blocks of h.
    // An index of L or more, partially wrapped to a negative one, takes from the second. Shuffles,
    // not index vectors for `selectFrom`: an index vector read from an array is of a class C2 does
    // not know, and it runs selectFrom's Java fallback.
    private static final VectorShuffle<Float>[] LOW = pairs(0), HIGH = pairs(1);

    @SuppressWarnings("unchecked")
    private static VectorShuffle<Float>[] pairs(int high) {
        var pairs = new VectorShuffle[Integer.numberOfTrailingZeros(L)];
        for (int level = 0; level < pairs.length; level++) {
            int h = L >> (level + 1);
            int[] indexes = new int[L];
            for (int lane = 0; lane < L; lane++) {
                int within = lane % (L / 2);
                indexes[lane] = lane / (L / 2) * L + within / h * 2 * h + within % h + high * h;
            }
            pairs[level] = VectorShuffle.fromArray(F, indexes, 0);
        }
        return pairs;
    }

    // The lanes of `s` summed in a fixed tree (lane i takes lane i + half, half = L/2 … 1), the same
    // pairs in every tier: `reduceLanes`' order may differ between the interpreter and C2. Each
    // level adds the vector turned by half its live lanes ([#HALVES]); lanes past half take
    // wrapped values that no later level reads. Not by `slice`, which C2 left as a call (a tenth of
    // a forward's profile), nor through `toArray`, whose array C2 kept (80 bytes a sum). The levels
    // are written out under tests of the constant L (up to 64 lanes, the widest float vector), not a
    // loop: in a loop `s` would be a loop-carried receiver, whose class C2 does not know while it
    // parses (see codegen.VectorFolds).
    private static float sum(FloatVector s) {
        if (L >= 2) s = s.add(s.rearrange(HALVES[0]));
        if (L >= 4) s = s.add(s.rearrange(HALVES[1]));
        if (L >= 8) s = s.add(s.rearrange(HALVES[2]));
        if (L >= 16) s = s.add(s.rearrange(HALVES[3]));
        if (L >= 32) s = s.add(s.rearrange(HALVES[4]));
        if (L >= 64) s = s.add(s.rearrange(HALVES[5]));
        return s.lane(0);
    }

    // HALVES[level] moves lane i + h to lane i (h = L/2 at level 0, then L/4, … 1), wrapping.
    private static final VectorShuffle<Float>[] HALVES = halves();

    @SuppressWarnings("unchecked")
    private static VectorShuffle<Float>[] halves() {
        var halves = new VectorShuffle[Integer.numberOfTrailingZeros(L)];
        for (int level = 0; level < halves.length; level++) {
            int h = L >> (level + 1);
            int[] indexes = new int[L];
            for (int lane = 0; lane < L; lane++) indexes[lane] = (lane + h) % L;
            halves[level] = VectorShuffle.fromArray(F, indexes, 0);
        }
        return halves;
    }

    /// `y[yOff + i] = x[xOff + i] · factor` for `i < count`.
    static void scaleInto(float[] x, int xOff, float[] y, int yOff, int count, float factor) {
        int i = 0;
        for (; i + L <= count; i += L) FloatVector.fromArray(F, x, xOff + i).mul(factor).intoArray(y, yOff + i);
        for (; i < count; i++) y[yOff + i] = x[xOff + i] * factor;
    }
}
