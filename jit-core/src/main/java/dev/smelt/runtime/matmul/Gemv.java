// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import dev.smelt.ir.DType;
import dev.smelt.ir.PackedMatrix;
import dev.smelt.kernel.MatMulKernel;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/// A matrix-vector product `y[m, n] = Σ_k x[m, k] · W[n, k]` for a few rows of x and W's rows
/// contiguous along K (`x @ W.t()`, llama2.c's `[out, in]` weights): each weight is streamed once
/// from memory, in place, with no packing (a weight read once per call gains nothing from a copy).
/// One row of W at a time, read front to back, with four accumulators over consecutive vectors:
/// ```
/// for (n = first; n < last; n++) for (m = 0; m < M; m++) {
///     FloatVector s0 = zero, s1 = zero, s2 = zero, s3 = zero;
///     for (k = 0; k + 4L <= K; k += 4L) {
///         s0 = FloatVector.fromArray(F, W, n·ldw + k).fma(FloatVector.fromArray(F, x, m·lda + k), s0);
///         … s1, s2, s3 from k + L, k + 2L, k + 3L
///     }
///     s0 = fma(…, s0) for each whole vector left;
///     y[m, n] = lanes of (s0 + s1) + (s2 + s3) summed in a fixed tree, then Math.fma(W[n, k], x[m, k], ·) for the last K % L
/// }
/// ```
/// For M > 1 the row of W is read from memory for the first row of x and from L1 for the others.
/// Reading one row at a time keeps the stream sequential, which the prefetchers follow: four rows
/// side by side, each with one accumulator, streamed 7.3 GB/s from memory at 768×768 against 12.5
/// for this loop (bf16 5.3 against 10.5, int8 3.9 against 5.7; interleaved runs in one JVM, load
/// 5–7, 2026-11-26). Every output is computed by the same steps, so a value never depends on how
/// the columns were split between threads. Lanes are summed in a fixed tree (not `reduceLanes`, whose order may
/// differ between the interpreted and compiled Vector API).
///
/// An f32 W whose rows start off a 64-byte boundary (a Java array's elements start 16 bytes into
/// one) would have every 64-byte load straddle two cache lines; when [HeapLayout] knows where the
/// array lies and a row is at least [#JOINED_DEPTH] long, each vector of the row is instead joined
/// from the two aligned vectors around it by one permute, so W streams in whole lines and the sums
/// are those of the loads they replace. x is copied onto line boundaries for every W (a few KB a
/// call), so that its loads, one beside each of W's, stay in one line.
///
/// A fresh JVM's rows run [GemvScalar]'s scalar twins, which give the same bits, until the vector
/// code, run on the warm-up thread ([GemvWarmUp]) and on one row in 64, is faster than them (C2
/// has compiled it).
///
/// A [PackedMatrix] W is dequantised in registers: bf16 lanes widened and shifted into `f32`
/// bits; int8 lanes widened to `f32`, each group of 32 summed against x, then scaled once
/// (`s = fma(Σ_group q·x, scale, s)`, groups in four chains), the last, shorter group of a row in
/// scalar code.
final class Gemv {
    private Gemv() {}

    /// At most this many rows of x take the GEMV; more go to the packed matmul. GemvRowsBench (f32
    /// W 768×768 from memory, one thread, medians, load 4.5–6.8, 2026-11-26): GEMV 183, 156, 356,
    /// 556, 677 µs at M = 1, 2, 4, 6, 8 against packed 917, 541, 533, 554, 606. `-Dsmelt.gemvRows`
    /// sets it for that benchmark, which measures both paths at each M; nothing else should.
    static final int MAX_ROWS = dev.smelt.ir.Settings.integer("smelt.gemvRows", 4, 0);

    /// What explain() adds about the heap's pages: a weight in the Java heap streams from 4 KB pages
    /// at about 60% of the read bandwidth, the hardware prefetchers stopping at each page, and from
    /// 2 MB pages at 90% or more (README, Language models). Empty when the JVM does not say.
    static final String PAGES = pages();

    private static String pages() {
        if (HeapLayout.HUGE_PAGES == null) return ""; // not HotSpot, or no jdk.management
        return HeapLayout.HUGE_PAGES ? "; the heap is on transparent huge pages"
                : "; the heap is on 4 KB pages: -XX:+UseTransparentHugePages lets W stream faster";
    }

    // 16 or 8 lanes, so that a group of 32 int8 weights is two or four vectors
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED.length() == 16 ? FloatVector.SPECIES_PREFERRED : FloatVector.SPECIES_256;
    static final int L = F.length();
    private static final VectorSpecies<Short> S = VectorSpecies.of(short.class, VectorShape.forBitSize(L * 16));
    private static final VectorSpecies<Byte> B = VectorSpecies.of(byte.class, VectorShape.forBitSize(L * 8));
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED.length() == L ? IntVector.SPECIES_PREFERRED : VectorSpecies.of(int.class, F.vectorShape());
    private static final int GROUP = PackedMatrix.GROUP;
    // Each row's lanes are summed in a fixed order, the same pairs in every tier: lane i takes lane
    // (i + h) mod L for h = L/2, L/4, … 1, one constant permute and one add each (a loop over h
    // stayed a loop in C2, building each step's shuffle and blending in zeros). In registers: an
    // array walk in the same order puts a store and dependent reloads between rows, and the stream
    // of W stalls on them. Written out in each row loop, not called: C2 stops inlining calls once a
    // method has parsed about 18,000 nodes (NodeCountInliningCutoff), which these loops' Vector API
    // code passes, and a vector handed to a call that is not inlined is boxed, an allocation per row.
    private static final VectorShuffle<Float> ROTATE_8 = VectorShuffle.iota(F, 8, 1, true), ROTATE_4 = VectorShuffle.iota(F, 4, 1, true),
            ROTATE_2 = VectorShuffle.iota(F, 2, 1, true), ROTATE_1 = VectorShuffle.iota(F, 1, 1, true);
    private static final VectorShuffle<Float>[] JOIN = joins(); // JOIN[skew]: lanes skew … skew + L - 1 of two vectors side by side
    private static final ThreadLocal<float[]> ROWS = ThreadLocal.withInitial(() -> new float[0]); // x copied when not contiguous along K
    private static final ThreadLocal<float[]> LINES = ThreadLocal.withInitial(() -> new float[0]); // x copied onto whole lines

    /// Whether `kernel` runs as a GEMV: an `f32` product of at most [#MAX_ROWS] rows whose right
    /// operand is W `[N, K]` with rows contiguous along K. (A left operand not contiguous along K
    /// is first copied: a few rows of K values.)
    static boolean applies(MatMulKernel kernel) {
        var right = Operand.right(kernel.inputs().get(kernel.right()).map());
        return kernel.dtype() == DType.F32 && kernel.rows() <= MAX_ROWS && kernel.depth() > 0 && (right.outer() == 1 || kernel.depth() == 1); // K = 1 may have any stride
    }

    /// Whether `kernel` reads its right operand as a whole `[N, K]` matrix laid out row-major,
    /// with no offset and no batch: then it may be a [PackedMatrix].
    static boolean readsWholeMatrix(MatMulKernel kernel) {
        var right = Operand.right(kernel.inputs().get(kernel.right()).map());
        return applies(kernel) && right.offset() == 0 && right.inner() == kernel.depth() && right.batchStrides().stream().allMatch(s -> s == 0)
                && kernel.inputs().get(kernel.right()).size() == kernel.columns() * kernel.depth();
    }

    /// `c[cAt + m·ldc + n] = Σ_k a[aAt + m·left.outer + k·left.inner] · W[n, k]` for `m < rows` and
    /// `first ≤ n < last`, W a `float[]` (row n at `bAt + n·ldb`) or, when `bAt` is 0 and `ldb` is
    /// K, a [PackedMatrix].
    static void run(float[] a, int aAt, Operand left, Object w, int bAt, int ldb, float[] c, int cAt, int ldc, int rows, int depth, int first, int last) {
        if (left.inner() == 1) {
            run(a, aAt, left.outer(), w, bAt, ldb, c, cAt, ldc, rows, depth, first, last);
            return;
        }
        float[] x = ROWS.get();
        if (x.length < rows * depth) ROWS.set(x = new float[rows * depth]);
        for (int m = 0; m < rows; m++)
            for (int k = 0; k < depth; k++) x[m * depth + k] = a[aAt + m * left.outer() + k * left.inner()];
        run(x, 0, depth, w, bAt, ldb, c, cAt, ldc, rows, depth, first, last);
    }

    /// [#run(float\[\], int, Operand, Object, int, int, float\[\], int, int, int, int, int, int)] for rows of x contiguous along K, `lda` apart.
    static void run(float[] a, int aAt, int lda, Object w, int bAt, int ldb, float[] c, int cAt, int ldc, int rows, int depth, int first, int last) {
        var tier = GemvScalar.tier(w);
        if (tier.vector()) vector(a, aAt, lda, w, bAt, ldb, c, cAt, ldc, rows, depth, first, last);
        else cold(tier, a, aAt, lda, w, bAt, ldb, c, cAt, ldc, rows, depth, first, last);
    }

    /// Rows first … last - 1 in vector code, whatever the tier.
    static void vector(float[] a, int aAt, int lda, Object w, int bAt, int ldb, float[] c, int cAt, int ldc, int rows, int depth, int first, int last) {
        float[] x = onLines(a, aAt, lda, rows, depth);
        if (x != null) { // an int8 row is bound by its loads more than by memory, and x's straddling ones took two slots each
            aAt = start(x);
            lda = stride(depth);
            a = x;
        }
        switch (w) {
            case float[] f -> f32Rows(a, aAt, lda, f, bAt, ldb, c, cAt, ldc, rows, depth, first, last);
            case PackedMatrix p when p.format() == PackedMatrix.Format.BF16 -> bf16(a, aAt, lda, p.halves(), c, cAt, ldc, rows, depth, first, last);
            case PackedMatrix p -> q8(a, aAt, lda, p, c, cAt, ldc, rows, depth, first, last);
            default -> throw new IllegalArgumentException("not a matrix: " + w.getClass().getSimpleName());
        }
    }

    // x's rows copied onto whole vectors of LINES, stride(depth) apart from start(LINES): loads of
    // them then stay in one cache line each, where a Java array's vectors straddle two (its
    // elements start 16 bytes past a line). Null when HeapLayout does not know where LINES lies.
    private static float[] onLines(float[] a, int aAt, int lda, int rows, int depth) {
        int stride = stride(depth);
        float[] x = LINES.get();
        if (x.length < rows * stride + L) LINES.set(x = HeapLayout.lineArray(rows * stride + L));
        if (HeapLayout.lineOffset(x) < 0) return null;
        for (int m = 0, start = start(x); m < rows; m++) System.arraycopy(a, aAt + m * lda, x, start + m * stride, depth);
        return x;
    }

    private static int stride(int depth) { return (depth + L - 1) / L * L; }

    // The first element of `x` on a vector boundary.
    private static int start(float[] x) { return (L - HeapLayout.lineOffset(x) / Float.BYTES % L) % L; }

    // A fresh JVM's rows: GemvScalar's, the vector code's on a sampled row (timed against the
    // scalar row), while the warm-up thread drives the vector code to C2 (GemvWarmUp). No rows of
    // x, no work: the sampled row's timing would read x's first row.
    static void cold(GemvScalar.Tier tier, float[] a, int aAt, int lda, Object w, int bAt, int ldb, float[] c, int cAt, int ldc, int rows, int depth, int first, int last) {
        if (rows == 0) return;
        tier.warmUp(w, bAt, ldb, depth, first, last);
        for (int n = first; n < last; n++) {
            if (GemvScalar.sampled(n)) {
                long start = System.nanoTime();
                vector(a, aAt, lda, w, bAt, ldb, c, cAt, ldc, rows, depth, n, n + 1);
                long vector = System.nanoTime();
                GemvScalar.row(a, aAt, w, bAt, ldb, n, depth);
                tier.compare((vector - start) / rows, System.nanoTime() - vector);
                continue;
            }
            for (int m = 0; m < rows; m++) c[cAt + m * ldc + n] = GemvScalar.row(a, aAt + m * lda, w, bAt, ldb, n, depth);
        }
        tier.count((last - first) * rows);
    }

    // Rows first … last - 1 of an f32 W, in vector code.
    private static void f32Rows(float[] a, int aAt, int lda, float[] f, int bAt, int ldb, float[] c, int cAt, int ldc, int rows, int depth, int first, int last) {
        int line = HeapLayout.lineOffset(f);
        for (int n = first; n < last; n++) {
            int w0 = bAt + n * ldb, skew = line < 0 ? 0 : (line / Float.BYTES + w0) % L; // W[n, 0] lies skew lanes past a vector boundary (0: unknown, loaded as it lies)
            for (int m = 0; m < rows; m++) c[cAt + m * ldc + n] = f32(a, aAt + m * lda, f, w0, depth, skew);
        }
    }

    // Rows shorter than this load W as it lies: on rows of 288 (stories15M's classifier) the joins
    // cost more than the split loads they replace; on rows of 512 and more they gain.
    static final int JOINED_DEPTH = 512;

    // A row's sum, each vector of W loaded as is, or, when W[w0] lies `skew` lanes past a vector
    // boundary, the main loop's vectors joined from aligned loads (joined): the same vectors, so the
    // same sum. The two loops are methods of their own: in one method C2 compiled both slower than
    // either alone.
    private static float f32(float[] a, int x, float[] w, int w0, int depth, int skew) {
        if (depth >= JOINED_DEPTH && skew != 0 && w0 >= skew && w0 - skew + depth + L <= w.length) return joined(a, x, w, w0, depth, skew); // the aligned vectors around the row lie in W
        FloatVector s0 = FloatVector.zero(F), s1 = s0, s2 = s0, s3 = s0;
        int k = 0;
        for (; k + 4 * L <= depth; k += 4 * L) {
            s0 = FloatVector.fromArray(F, w, w0 + k).fma(FloatVector.fromArray(F, a, x + k), s0);
            s1 = FloatVector.fromArray(F, w, w0 + k + L).fma(FloatVector.fromArray(F, a, x + k + L), s1);
            s2 = FloatVector.fromArray(F, w, w0 + k + 2 * L).fma(FloatVector.fromArray(F, a, x + k + 2 * L), s2);
            s3 = FloatVector.fromArray(F, w, w0 + k + 3 * L).fma(FloatVector.fromArray(F, a, x + k + 3 * L), s3);
        }
        for (; k + L <= depth; k += L) s0 = FloatVector.fromArray(F, w, w0 + k).fma(FloatVector.fromArray(F, a, x + k), s0);
        s0 = s0.add(s1).add(s2.add(s3)); // the lanes' tree, written out (see ROTATE_8)
        if (L == 16) s0 = s0.add(s0.rearrange(ROTATE_8));
        s0 = s0.add(s0.rearrange(ROTATE_4));
        s0 = s0.add(s0.rearrange(ROTATE_2));
        float s = s0.add(s0.rearrange(ROTATE_1)).lane(0);
        for (; k < depth; k++) s = Math.fma(w[w0 + k], a[x + k], s);
        return s;
    }

    // f32's row sum from aligned loads: vector j is lanes skew … skew + L - 1 of the aligned vectors j and j + 1.
    private static float joined(float[] a, int x, float[] w, int w0, int depth, int skew) {
        FloatVector s0 = FloatVector.zero(F), s1 = s0, s2 = s0, s3 = s0;
        int k = 0;
        var join = JOIN[skew];
        int at = w0 - skew;
        FloatVector next = FloatVector.fromArray(F, w, at);
        for (; k + 4 * L <= depth; k += 4 * L) {
            FloatVector v1 = FloatVector.fromArray(F, w, at + k + L), v2 = FloatVector.fromArray(F, w, at + k + 2 * L),
                    v3 = FloatVector.fromArray(F, w, at + k + 3 * L), v4 = FloatVector.fromArray(F, w, at + k + 4 * L);
            s0 = next.rearrange(join, v1).fma(FloatVector.fromArray(F, a, x + k), s0);
            s1 = v1.rearrange(join, v2).fma(FloatVector.fromArray(F, a, x + k + L), s1);
            s2 = v2.rearrange(join, v3).fma(FloatVector.fromArray(F, a, x + k + 2 * L), s2);
            s3 = v3.rearrange(join, v4).fma(FloatVector.fromArray(F, a, x + k + 3 * L), s3);
            next = v4;
        }
        for (; k + L <= depth; k += L) s0 = FloatVector.fromArray(F, w, w0 + k).fma(FloatVector.fromArray(F, a, x + k), s0);
        s0 = s0.add(s1).add(s2.add(s3)); // the lanes' tree, written out (see ROTATE_8)
        if (L == 16) s0 = s0.add(s0.rearrange(ROTATE_8));
        s0 = s0.add(s0.rearrange(ROTATE_4));
        s0 = s0.add(s0.rearrange(ROTATE_2));
        float s = s0.add(s0.rearrange(ROTATE_1)).lane(0);
        for (; k < depth; k++) s = Math.fma(w[w0 + k], a[x + k], s);
        return s;
    }

    // Rows first … last - 1 of a bf16 W, the loop over rows here as in q8.
    private static void bf16(float[] a, int aAt, int lda, short[] w, float[] c, int cAt, int ldc, int rows, int depth, int first, int last) {
        for (int n = first; n < last; n++)
            for (int m = 0; m < rows; m++) {
                int x = aAt + m * lda, w0 = n * depth, k = 0;
                FloatVector s0 = FloatVector.zero(F), s1 = s0, s2 = s0, s3 = s0;
                for (int bound = depth - 4 * L; k <= bound; k += 4 * L) {
                    s0 = widen(w, w0 + k).fma(FloatVector.fromArray(F, a, x + k), s0);
                    s1 = widen(w, w0 + k + L).fma(FloatVector.fromArray(F, a, x + k + L), s1);
                    s2 = widen(w, w0 + k + 2 * L).fma(FloatVector.fromArray(F, a, x + k + 2 * L), s2);
                    s3 = widen(w, w0 + k + 3 * L).fma(FloatVector.fromArray(F, a, x + k + 3 * L), s3);
                }
                for (int bound = F.loopBound(depth); k < bound; k += L) s0 = widen(w, w0 + k).fma(FloatVector.fromArray(F, a, x + k), s0);
                s0 = s0.add(s1).add(s2.add(s3)); // the lanes' tree, written out (see ROTATE_8)
                if (L == 16) s0 = s0.add(s0.rearrange(ROTATE_8));
                s0 = s0.add(s0.rearrange(ROTATE_4));
                s0 = s0.add(s0.rearrange(ROTATE_2));
                float s = s0.add(s0.rearrange(ROTATE_1)).lane(0);
                for (; k < depth; k++) s = Math.fma(PackedMatrix.fromBf16(w[w0 + k]), a[x + k], s);
                c[cAt + m * ldc + n] = s;
            }
    }

    // L bf16 values widened to f32: sign-extended to int, shifted into the upper half. The shift is
    // IntVector's final lanewise(op, int), as FloatExp's is, not the Vector interface's, which C2
    // reaches through type profiles: once, compiling bf16 in a test run beside two busy threads, it
    // inlined the shift with a float element type and the JVM stopped ("fatal error: LSHIFT:
    // float", vectorSupport.cpp).
    private static FloatVector widen(short[] w, int at) {
        var ints = (IntVector) ShortVector.fromArray(S, w, at).convertShape(VectorOperators.S2I, I, 0);
        return ints.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
    }

    // Four chains of groups (group g feeds chain g % 4), each group's sum of q·x scaled once, so that
    // the conversions and products of four groups are in flight. The chains rotate through s0 … s3,
    // so the loop's body is one group, which C2 unrolls, and the method stays small (four groups
    // written out plus a loop for the rest parse to enough nodes that C2 stops inlining). The loop
    // over rows is here too, not in run around a call per row: an int8 row is bound by its
    // conversions and the row's fixed costs more than by memory, and the call was one of those costs.
    private static void q8(float[] a, int aAt, int lda, PackedMatrix p, float[] c, int cAt, int ldc, int rows, int depth, int first, int last) {
        byte[] q = p.quants();
        float[] scales = p.scales();
        int whole = depth / GROUP, groups = PackedMatrix.groups(depth);
        for (int n = first; n < last; n++)
            for (int m = 0; m < rows; m++) {
                int x = aAt + m * lda, w0 = n * depth, g0 = n * groups, g = 0;
                FloatVector s0 = FloatVector.zero(F), s1 = s0, s2 = s0, s3 = s0;
                for (; g < whole; g++) { // group g into chain g % 4, which s0 holds; then the chains rotate
                    FloatVector t = group(q, w0 + g * GROUP, a, x + g * GROUP).fma(FloatVector.broadcast(F, scales[g0 + g]), s0);
                    s0 = s1;
                    s1 = s2;
                    s2 = s3;
                    s3 = t;
                }
                // s_i holds chain (whole + i) % 4: (c0 + c1) + (c2 + c3) is (s0 + s1) + (s2 + s3) after an even count, (s0 + s3) + (s1 + s2) after an odd one
                if ((whole & 1) != 0) {
                    FloatVector t = s1;
                    s1 = s3;
                    s3 = s2;
                    s2 = t;
                }
                s0 = s0.add(s1).add(s2.add(s3)); // the lanes' tree, written out (see ROTATE_8)
                if (L == 16) s0 = s0.add(s0.rearrange(ROTATE_8));
                s0 = s0.add(s0.rearrange(ROTATE_4));
                s0 = s0.add(s0.rearrange(ROTATE_2));
                float s = s0.add(s0.rearrange(ROTATE_1)).lane(0);
                if (whole * GROUP < depth) { // the row's last group, shorter than 32, in scalar code
                    float t = 0;
                    for (int k = whole * GROUP; k < depth; k++) t = Math.fma(q[w0 + k], a[x + k], t);
                    s = Math.fma(t, scales[g0 + whole], s);
                }
                c[cAt + m * ldc + n] = s;
            }
    }

    // Σ q·x over one group of 32, lane-wise: GROUP / L products (2 or 4), written out so that the
    // loop over groups stays C2's innermost loop.
    private static FloatVector group(byte[] q, int at, float[] a, int x) {
        FloatVector t = widen(q, at + L).fma(FloatVector.fromArray(F, a, x + L), widen(q, at).mul(FloatVector.fromArray(F, a, x)));
        if (GROUP == 2 * L) return t;
        return widen(q, at + 3 * L).fma(FloatVector.fromArray(F, a, x + 3 * L), widen(q, at + 2 * L).fma(FloatVector.fromArray(F, a, x + 2 * L), t));
    }

    // L int8 values widened to f32.
    private static FloatVector widen(byte[] q, int at) {
        return (FloatVector) ByteVector.fromArray(B, q, at).convertShape(VectorOperators.B2F, F, 0);
    }

    // Vector j of a row that starts `skew` lanes past a boundary is lanes skew … skew + L - 1 of the
    // aligned vectors at w0 - skew + jL and w0 - skew + (j + 1)L: `first.rearrange(JOIN[skew], second)`
    // (a shuffle index of L or more, partially wrapped to a negative one, takes from the second).
    @SuppressWarnings("unchecked")
    private static VectorShuffle<Float>[] joins() {
        var joins = new VectorShuffle[L];
        for (int skew = 0; skew < L; skew++) joins[skew] = VectorShuffle.iota(F, skew, 1, false);
        return joins;
    }
}
