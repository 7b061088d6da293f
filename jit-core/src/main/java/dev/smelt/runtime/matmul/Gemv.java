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
import jdk.incubator.vector.VectorSpecies;

/// A matrix-vector product `y[m, n] = Σ_k x[m, k] · W[n, k]` for a few rows of x and W's rows
/// contiguous along K (`x @ W.t()`, llama2.c's `[out, in]` weights): each weight is streamed once
/// from memory, in place, with no packing (a weight read once per call gains nothing from a copy).
/// Four rows of W at a time, each with its own accumulator, against one row of x:
/// ```
/// for (n = first; n < last; n += 4) for (m = 0; m < M; m++) {
///     FloatVector s0 = zero, s1 = zero, s2 = zero, s3 = zero;
///     for (k = 0; k + L <= K; k += L) {
///         FloatVector xv = FloatVector.fromArray(F, x, m·lda + k);
///         s0 = FloatVector.fromArray(F, W, n·ldw + k).fma(xv, s0);  … s3 from row n + 3
///     }
///     y[m, n] = lanes of s0 summed in a fixed tree, then Math.fma(W[n, k], x[m, k], ·) for the last K % L
/// }
/// ```
/// The four rows of W are read from memory for the first row of x and from cache for the others.
/// Leftover rows of W run the same steps one at a time, so a value never depends on how the
/// columns were split between threads. Lanes are summed through an array in a fixed order (not
/// `reduceLanes`, whose order may differ between the interpreted and compiled Vector API).
///
/// A [PackedMatrix] W is dequantised in registers: bf16 lanes widened and shifted into `f32`
/// bits; int8 lanes widened to `f32`, each group of 32 summed against x, then scaled once
/// (`s = fma(Σ_group q·x, scale, s)`), the last, shorter group of a row in scalar code.
final class Gemv {
    private Gemv() {}

    /// At most this many rows of x take the GEMV; more go to the packed matmul.
    static final int MAX_ROWS = 4;

    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED.length() >= 8 ? FloatVector.SPECIES_PREFERRED : FloatVector.SPECIES_256;
    private static final int L = F.length();
    private static final VectorSpecies<Short> S = VectorSpecies.of(short.class, VectorShape.forBitSize(L * 16));
    private static final VectorSpecies<Byte> B = VectorSpecies.of(byte.class, VectorShape.forBitSize(L * 8));
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED.length() == L ? IntVector.SPECIES_PREFERRED : VectorSpecies.of(int.class, F.vectorShape());
    private static final int GROUP = PackedMatrix.GROUP;
    private static final ThreadLocal<float[]> LANES = ThreadLocal.withInitial(() -> new float[L]);
    private static final ThreadLocal<float[]> ROWS = ThreadLocal.withInitial(() -> new float[0]); // x copied when not contiguous along K

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
        float[] lanes = LANES.get();
        int n = first;
        for (; n + 4 <= last; n += 4)
            for (int m = 0; m < rows; m++) {
                int x = aAt + m * lda, y = cAt + m * ldc + n;
                switch (w) {
                    case float[] f -> four(a, x, f, bAt + n * ldb, ldb, depth, c, y, lanes);
                    case PackedMatrix p when p.format() == PackedMatrix.Format.BF16 -> fourBf16(a, x, p.halves(), n * depth, depth, c, y, lanes);
                    case PackedMatrix p -> fourQ8(a, x, p, n, depth, c, y, lanes);
                    default -> throw new IllegalArgumentException("not a matrix: " + w.getClass().getSimpleName());
                }
            }
        for (; n < last; n++)
            for (int m = 0; m < rows; m++) {
                int x = aAt + m * lda, y = cAt + m * ldc + n;
                c[y] = switch (w) {
                    case float[] f -> one(a, x, f, bAt + n * ldb, depth, lanes);
                    case PackedMatrix p when p.format() == PackedMatrix.Format.BF16 -> oneBf16(a, x, p.halves(), n * depth, depth, lanes);
                    case PackedMatrix p -> oneQ8(a, x, p, n, depth, lanes);
                    default -> throw new IllegalArgumentException("not a matrix: " + w.getClass().getSimpleName());
                };
            }
    }

    private static void four(float[] a, int x, float[] w, int w0, int ldw, int depth, float[] c, int y, float[] lanes) {
        int w1 = w0 + ldw, w2 = w1 + ldw, w3 = w2 + ldw, k = 0;
        FloatVector s0 = FloatVector.zero(F), s1 = s0, s2 = s0, s3 = s0;
        for (int bound = F.loopBound(depth); k < bound; k += L) {
            FloatVector xv = FloatVector.fromArray(F, a, x + k);
            s0 = FloatVector.fromArray(F, w, w0 + k).fma(xv, s0);
            s1 = FloatVector.fromArray(F, w, w1 + k).fma(xv, s1);
            s2 = FloatVector.fromArray(F, w, w2 + k).fma(xv, s2);
            s3 = FloatVector.fromArray(F, w, w3 + k).fma(xv, s3);
        }
        c[y] = tail(sum(s0, lanes), a, x, w, w0, k, depth);
        c[y + 1] = tail(sum(s1, lanes), a, x, w, w1, k, depth);
        c[y + 2] = tail(sum(s2, lanes), a, x, w, w2, k, depth);
        c[y + 3] = tail(sum(s3, lanes), a, x, w, w3, k, depth);
    }

    private static float one(float[] a, int x, float[] w, int w0, int depth, float[] lanes) {
        int k = 0;
        FloatVector s0 = FloatVector.zero(F);
        for (int bound = F.loopBound(depth); k < bound; k += L) s0 = FloatVector.fromArray(F, w, w0 + k).fma(FloatVector.fromArray(F, a, x + k), s0);
        return tail(sum(s0, lanes), a, x, w, w0, k, depth);
    }

    private static float tail(float s, float[] a, int x, float[] w, int w0, int k, int depth) {
        for (; k < depth; k++) s = Math.fma(w[w0 + k], a[x + k], s);
        return s;
    }

    private static void fourBf16(float[] a, int x, short[] w, int w0, int depth, float[] c, int y, float[] lanes) {
        int w1 = w0 + depth, w2 = w1 + depth, w3 = w2 + depth, k = 0;
        FloatVector s0 = FloatVector.zero(F), s1 = s0, s2 = s0, s3 = s0;
        for (int bound = F.loopBound(depth); k < bound; k += L) {
            FloatVector xv = FloatVector.fromArray(F, a, x + k);
            s0 = bf16(w, w0 + k).fma(xv, s0);
            s1 = bf16(w, w1 + k).fma(xv, s1);
            s2 = bf16(w, w2 + k).fma(xv, s2);
            s3 = bf16(w, w3 + k).fma(xv, s3);
        }
        c[y] = tailBf16(sum(s0, lanes), a, x, w, w0, k, depth);
        c[y + 1] = tailBf16(sum(s1, lanes), a, x, w, w1, k, depth);
        c[y + 2] = tailBf16(sum(s2, lanes), a, x, w, w2, k, depth);
        c[y + 3] = tailBf16(sum(s3, lanes), a, x, w, w3, k, depth);
    }

    private static float oneBf16(float[] a, int x, short[] w, int w0, int depth, float[] lanes) {
        int k = 0;
        FloatVector s0 = FloatVector.zero(F);
        for (int bound = F.loopBound(depth); k < bound; k += L) s0 = bf16(w, w0 + k).fma(FloatVector.fromArray(F, a, x + k), s0);
        return tailBf16(sum(s0, lanes), a, x, w, w0, k, depth);
    }

    // L bf16 values widened to f32: sign-extended to int, shifted into the upper half.
    private static FloatVector bf16(short[] w, int at) {
        return (FloatVector) ShortVector.fromArray(S, w, at).convertShape(VectorOperators.S2I, I, 0)
                .lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
    }

    private static float tailBf16(float s, float[] a, int x, short[] w, int w0, int k, int depth) {
        for (; k < depth; k++) s = Math.fma(PackedMatrix.fromBf16(w[w0 + k]), a[x + k], s);
        return s;
    }

    private static void fourQ8(float[] a, int x, PackedMatrix p, int n, int depth, float[] c, int y, float[] lanes) {
        byte[] q = p.quants();
        float[] scales = p.scales();
        int groups = PackedMatrix.groups(depth), whole = depth / GROUP;
        int w0 = n * depth, w1 = w0 + depth, w2 = w1 + depth, w3 = w2 + depth;
        int g0 = n * groups, g1 = g0 + groups, g2 = g1 + groups, g3 = g2 + groups;
        FloatVector s0 = FloatVector.zero(F), s1 = s0, s2 = s0, s3 = s0;
        for (int g = 0; g < whole; g++) {
            FloatVector t0 = FloatVector.zero(F), t1 = t0, t2 = t0, t3 = t0;
            for (int k = g * GROUP; k < (g + 1) * GROUP; k += L) {
                FloatVector xv = FloatVector.fromArray(F, a, x + k);
                t0 = int8(q, w0 + k).fma(xv, t0);
                t1 = int8(q, w1 + k).fma(xv, t1);
                t2 = int8(q, w2 + k).fma(xv, t2);
                t3 = int8(q, w3 + k).fma(xv, t3);
            }
            s0 = t0.fma(FloatVector.broadcast(F, scales[g0 + g]), s0);
            s1 = t1.fma(FloatVector.broadcast(F, scales[g1 + g]), s1);
            s2 = t2.fma(FloatVector.broadcast(F, scales[g2 + g]), s2);
            s3 = t3.fma(FloatVector.broadcast(F, scales[g3 + g]), s3);
        }
        c[y] = tailQ8(sum(s0, lanes), a, x, q, w0, scales, g0, whole, depth);
        c[y + 1] = tailQ8(sum(s1, lanes), a, x, q, w1, scales, g1, whole, depth);
        c[y + 2] = tailQ8(sum(s2, lanes), a, x, q, w2, scales, g2, whole, depth);
        c[y + 3] = tailQ8(sum(s3, lanes), a, x, q, w3, scales, g3, whole, depth);
    }

    private static float oneQ8(float[] a, int x, PackedMatrix p, int n, int depth, float[] lanes) {
        byte[] q = p.quants();
        float[] scales = p.scales();
        int whole = depth / GROUP, w0 = n * depth, g0 = n * PackedMatrix.groups(depth);
        FloatVector s0 = FloatVector.zero(F);
        for (int g = 0; g < whole; g++) {
            FloatVector t0 = FloatVector.zero(F);
            for (int k = g * GROUP; k < (g + 1) * GROUP; k += L) t0 = int8(q, w0 + k).fma(FloatVector.fromArray(F, a, x + k), t0);
            s0 = t0.fma(FloatVector.broadcast(F, scales[g0 + g]), s0);
        }
        return tailQ8(sum(s0, lanes), a, x, q, w0, scales, g0, whole, depth);
    }

    // L int8 values widened to f32.
    private static FloatVector int8(byte[] q, int at) {
        return (FloatVector) ByteVector.fromArray(B, q, at).convertShape(VectorOperators.B2F, F, 0);
    }

    // The row's last group when K is not a multiple of 32, in scalar code.
    private static float tailQ8(float s, float[] a, int x, byte[] q, int w0, float[] scales, int g0, int whole, int depth) {
        if (whole * GROUP == depth) return s;
        float t = 0;
        for (int k = whole * GROUP; k < depth; k++) t = Math.fma(q[w0 + k], a[x + k], t);
        return Math.fma(t, scales[g0 + whole], s);
    }

    // The lanes of `s` summed in a fixed order: lane i takes lane i + half for half = L/2, L/4, … 1.
    private static float sum(FloatVector s, float[] lanes) {
        s.intoArray(lanes, 0);
        for (int half = L / 2; half > 0; half /= 2)
            for (int i = 0; i < half; i++) lanes[i] += lanes[i + half];
        return lanes[0];
    }
}
