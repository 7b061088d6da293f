// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import dev.smelt.ir.DType;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/// The product of a tiny matmul without packing: rows of C as vectors, eight rows at a time, each
/// step of K one vector of B's row against A's eight values broadcast. For one chunk of columns, as
/// Java:
/// ```
/// for (m = 0; m + 8 <= M; m += 8) {
///     FloatVector c0 = zero, …, c7 = zero;
///     for (p = 0; p < K; p++) {
///         FloatVector bp = FloatVector.fromArray(SPECIES, B, b + p·ldb + j);
///         c0 = FloatVector.broadcast(SPECIES, A[a + m·lda + p]).fma(bp, c0);  … c7 from row m + 7
///     }
///     c0.intoArray(C, c + m·ldc + j); … c7
/// }
/// ```
/// then, if M is not a multiple of eight, the last eight rows again (recomputing a few rows gives
/// the same bits and costs less than narrower blocks). Eight chains of FMAs cover the FMA's latency:
/// with four, an 8³ product took 49 ns instead of 30, and 32³ 2.15 µs instead of 1.12 (a harness
/// on this machine, 2026-11-22). Fewer than eight rows take four at a time,
/// then the last rows one at a time. A and B are read in place when their rows are contiguous; a
/// transposed operand is first copied into a row-major block (no more values than the product
/// reads anyway), so A's reads move by one per step of K and C2 hoists their bounds checks out of
/// the loop (8³: 33 → 29 ns). The last chunk of columns, fewer than a vector, runs the four-
/// and one-row loops with masked loads and stores ([#tail]), so nothing is padded, zero-filled or copied
/// through an edge tile; whole chunks stay unmasked, as masks cost an 8³ product a quarter of its
/// time.
///
/// Vectors are 256 bits whatever the machine prefers: at N = 8 a 512-bit vector left half its
/// lanes masked off, and its masked loads near the end of B took the Vector API's checked path.
/// MatMulBench.Tiny (AMD EPYC AVX-512, 2026-11-22), with four-row blocks: 8³ `kernelOnly` 0.064 →
/// 0.045 µs; 32³ went from 1.48 to 1.73 µs per call. With eight-row blocks: 0.036 and 1.10 µs. Through packing, an 8×8×8 product
/// packed both operands, ran the 12×32 register tile into a scratch edge tile and copied an 8×8
/// corner out: about 0.3 µs.
///
/// The build writes the f64 twin, `DoubleTinyProduct`, from `TinyProduct.java` by replacing the
/// element type's names (jit-core's pom), as the JDK generates its Vector API classes from
/// templates: edit `TinyProduct.java` only. One body over an element-type abstraction is no option:
/// C2 compiles it once for both types, and once f64 runs it too the species is no constant and every
/// vector is boxed (8³: 0.84 µs against 0.072 µs typed).
final class TinyProduct {
    static final VectorSpecies<Float> F32 = FloatVector.SPECIES_256;
    /// Rows of C computed together: four accumulators and one vector of B per step.
    static final int ROWS = 4;
    /// Rows of C computed together when there are at least as many: eight chains of FMAs.
    static final int EIGHT = 8;

    private TinyProduct() {}

    /// `C[c + m·ldc + j] = Σ_p A[a + m·left.outer + p·left.inner] · B[b + p·right.outer + (first + j)·right.inner]`
    /// for `m < rows`, `j < last - first`, `p < depth`. `scratch` is asked for the thread's
    /// buffers only when B must be copied (a lookup costs an 8×8×8 product a tenth of its time).
    static void run(float[] a, int aAt, Operand left, float[] b, int bAt, Operand right, float[] c, int cAt, int ldc,
                    int rows, int depth, int first, int last, ThreadLocal<Scratch> scratch) {
        if (left.inner() != 1 || right.inner() != 1) copied(a, aAt, left, b, bAt, right, c, cAt, ldc, rows, depth, first, last, scratch);
        else product(a, aAt, left.outer(), b, bAt + first, right.outer(), c, cAt, ldc, rows, depth, last - first);
    }

    // A transposed operand copied into a row-major block of the thread's scratch first.
    private static void copied(float[] a, int aAt, Operand left, float[] b, int bAt, Operand right, float[] c, int cAt, int ldc,
                               int rows, int depth, int first, int last, ThreadLocal<Scratch> scratch) {
        int count = last - first, from = bAt + first * right.inner(), ldb = right.outer(), lda = left.outer();
        var buffers = scratch.get();
        if (left.inner() != 1) {
            float[] packed = (float[]) buffers.packedLeft(DType.F32, rows * depth);
            for (int m = 0; m < rows; m++)
                for (int p = 0; p < depth; p++) packed[m * depth + p] = a[aAt + m * lda + p * left.inner()];
            a = packed;
            aAt = 0;
            lda = depth;
        }
        if (right.inner() != 1) {
            float[] packed = (float[]) buffers.packedRight(DType.F32, depth * count);
            for (int p = 0; p < depth; p++)
                for (int j = 0; j < count; j++) packed[p * count + j] = b[from + p * ldb + j * right.inner()];
            b = packed;
            from = 0;
            ldb = count;
        }
        product(a, aAt, lda, b, from, ldb, c, cAt, ldc, rows, depth, count);
    }

    // Small enough for C2 to inline into run, so that a call reaches the eight-row block through one call.
    private static void product(float[] a, int aAt, int lda, float[] b, int bAt, int ldb,
                                float[] c, int cAt, int ldc, int rows, int depth, int count) {
        int whole = count - count % F32.length();
        if (rows < EIGHT) narrow(a, aAt, lda, b, bAt, ldb, c, cAt, ldc, rows, depth, whole);
        else
            for (int j = 0; j < whole; j += F32.length()) {
                for (int m = 0; m + EIGHT <= rows; m += EIGHT) eight(a, aAt + m * lda, lda, b, bAt + j, ldb, c, cAt + m * ldc + j, ldc, depth);
                // The last rows again, overlapping rows already written: the same sums in the same order, so the same bits.
                if (rows % EIGHT != 0) eight(a, aAt + (rows - EIGHT) * lda, lda, b, bAt + j, ldb, c, cAt + (rows - EIGHT) * ldc + j, ldc, depth);
            }
        if (whole < count) tail(a, aAt, lda, b, bAt + whole, ldb, c, cAt + whole, ldc, rows, depth, count - whole);
    }

    // Fewer than eight rows, over the first `whole` columns: four rows at a time, then one.
    private static void narrow(float[] a, int aAt, int lda, float[] b, int bAt, int ldb,
                               float[] c, int cAt, int ldc, int rows, int depth, int whole) {
        for (int j = 0; j < whole; j += F32.length()) {
            int m = 0;
            for (; m + ROWS <= rows; m += ROWS) {
                int r0 = aAt + m * lda, r1 = r0 + lda, r2 = r1 + lda, r3 = r2 + lda;
                var c0 = FloatVector.zero(F32);
                var c1 = c0;
                var c2 = c0;
                var c3 = c0;
                for (int p = 0; p < depth; p++) {
                    var bp = FloatVector.fromArray(F32, b, bAt + j + p * ldb);
                    c0 = FloatVector.broadcast(F32, a[r0 + p]).fma(bp, c0);
                    c1 = FloatVector.broadcast(F32, a[r1 + p]).fma(bp, c1);
                    c2 = FloatVector.broadcast(F32, a[r2 + p]).fma(bp, c2);
                    c3 = FloatVector.broadcast(F32, a[r3 + p]).fma(bp, c3);
                }
                int at = cAt + m * ldc + j;
                c0.intoArray(c, at);
                c1.intoArray(c, at + ldc);
                c2.intoArray(c, at + 2 * ldc);
                c3.intoArray(c, at + 3 * ldc);
            }
            for (; m < rows; m++) {
                int r0 = aAt + m * lda;
                var c0 = FloatVector.zero(F32);
                for (int p = 0; p < depth; p++) c0 = FloatVector.broadcast(F32, a[r0 + p]).fma(FloatVector.fromArray(F32, b, bAt + j + p * ldb), c0);
                c0.intoArray(c, cAt + m * ldc + j);
            }
        }
    }

    // Eight rows of C from A's rows at `aAt` and one vector of columns of B at `bAt`: eight independent
    // chains of FMAs, enough to cover the FMA latency that four left exposed. A's reads move by one
    // per step, so C2 hoists their bounds checks out of the loop.
    private static void eight(float[] a, int aAt, int lda, float[] b, int bAt, int ldb, float[] c, int cAt, int ldc, int depth) {
        int r0 = aAt, r1 = r0 + lda, r2 = r1 + lda, r3 = r2 + lda, r4 = r3 + lda, r5 = r4 + lda, r6 = r5 + lda, r7 = r6 + lda;
        var c0 = FloatVector.zero(F32);
        var c1 = c0;
        var c2 = c0;
        var c3 = c0;
        var c4 = c0;
        var c5 = c0;
        var c6 = c0;
        var c7 = c0;
        for (int p = 0; p < depth; p++) {
            var bp = FloatVector.fromArray(F32, b, bAt + p * ldb);
            c0 = FloatVector.broadcast(F32, a[r0 + p]).fma(bp, c0);
            c1 = FloatVector.broadcast(F32, a[r1 + p]).fma(bp, c1);
            c2 = FloatVector.broadcast(F32, a[r2 + p]).fma(bp, c2);
            c3 = FloatVector.broadcast(F32, a[r3 + p]).fma(bp, c3);
            c4 = FloatVector.broadcast(F32, a[r4 + p]).fma(bp, c4);
            c5 = FloatVector.broadcast(F32, a[r5 + p]).fma(bp, c5);
            c6 = FloatVector.broadcast(F32, a[r6 + p]).fma(bp, c6);
            c7 = FloatVector.broadcast(F32, a[r7 + p]).fma(bp, c7);
        }
        c0.intoArray(c, cAt);
        c1.intoArray(c, cAt + ldc);
        c2.intoArray(c, cAt + 2 * ldc);
        c3.intoArray(c, cAt + 3 * ldc);
        c4.intoArray(c, cAt + 4 * ldc);
        c5.intoArray(c, cAt + 5 * ldc);
        c6.intoArray(c, cAt + 6 * ldc);
        c7.intoArray(c, cAt + 7 * ldc);
    }

    // The last columns, fewer than a vector: four rows and then one at a time, masked.
    private static void tail(float[] a, int aAt, int lda, float[] b, int bAt, int ldb,
                             float[] c, int cAt, int ldc, int rows, int depth, int width) {
        var mask = F32.indexInRange(0, width); // made here, not by the caller: passed in, C2 boxed it on every call
        int m = 0;
        for (; m + ROWS <= rows; m += ROWS) {
            int r0 = aAt + m * lda, r1 = r0 + lda, r2 = r1 + lda, r3 = r2 + lda;
            var c0 = FloatVector.zero(F32);
            var c1 = c0;
            var c2 = c0;
            var c3 = c0;
            for (int p = 0; p < depth; p++) {
                var bp = FloatVector.fromArray(F32, b, bAt + p * ldb, mask);
                c0 = FloatVector.broadcast(F32, a[r0 + p]).fma(bp, c0);
                c1 = FloatVector.broadcast(F32, a[r1 + p]).fma(bp, c1);
                c2 = FloatVector.broadcast(F32, a[r2 + p]).fma(bp, c2);
                c3 = FloatVector.broadcast(F32, a[r3 + p]).fma(bp, c3);
            }
            int at = cAt + m * ldc;
            c0.intoArray(c, at, mask);
            c1.intoArray(c, at + ldc, mask);
            c2.intoArray(c, at + 2 * ldc, mask);
            c3.intoArray(c, at + 3 * ldc, mask);
        }
        for (; m < rows; m++) {
            int r0 = aAt + m * lda;
            var c0 = FloatVector.zero(F32);
            for (int p = 0; p < depth; p++) c0 = FloatVector.broadcast(F32, a[r0 + p]).fma(FloatVector.fromArray(F32, b, bAt + p * ldb, mask), c0);
            c0.intoArray(c, cAt + m * ldc, mask);
        }
    }
}
