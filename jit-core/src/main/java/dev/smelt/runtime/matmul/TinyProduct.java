// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import dev.smelt.ir.DType;
import java.util.List;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/// The product of a tiny matmul without packing: rows of C as vectors, four rows at a time, each
/// step of K one vector of B's row against A's four values broadcast. For one chunk of columns, as
/// Java:
/// ```
/// for (m = 0; m + 4 <= M; m += 4) {
///     FloatVector c0 = zero, …, c3 = zero;
///     for (p = 0; p < K; p++) {
///         FloatVector bp = FloatVector.fromArray(SPECIES, B, b + p·ldb + j);
///         c0 = FloatVector.broadcast(SPECIES, A[a + m·outer + p·inner]).fma(bp, c0);  … c3 from row m + 3
///     }
///     c0.intoArray(C, c + m·ldc + j); … c3
/// }
/// ```
/// then the last rows one at a time. A is read in place through its strides, and so is B when its
/// rows are contiguous; a transposed B is first copied into a `K × N` block (K·N values, no more
/// than the product reads anyway). The last chunk of columns, fewer than a vector, runs the same
/// loops with masked loads and stores ([#tail]), so nothing is padded, zero-filled or copied
/// through an edge tile; whole chunks stay unmasked, as masks cost an 8³ product a quarter of its
/// time.
///
/// Vectors are 256 bits whatever the machine prefers: at N = 8 a 512-bit vector left half its
/// lanes masked off, and its masked loads near the end of B took the Vector API's checked path.
/// MatMulBench.Tiny (AMD EPYC AVX-512, 2026-11-22): 8³ `kernelOnly` 0.064 → 0.045 µs; 32³ went
/// from 1.48 to 1.73 µs per call, still 12× the naive loop. Through packing, an 8×8×8 product
/// packed both operands, ran the 12×32 register tile into a scratch edge tile and copied an 8×8
/// corner out: about 0.3 µs.
final class TinyProduct {
    static final VectorSpecies<Float> F32 = FloatVector.SPECIES_256;
    static final VectorSpecies<Double> F64 = DoubleVector.SPECIES_256;
    /// Rows of C computed together: four accumulators and one vector of B per step.
    static final int ROWS = 4;
    private static volatile Object sink;

    private TinyProduct() {}

    /// `C[c + m·ldc + j] = Σ_p A[a + m·left.outer + p·left.inner] · B[b + p·right.outer + (first + j)·right.inner]`
    /// for `m < rows`, `j < last - first`, `p < depth`. `scratch` is asked for the thread's
    /// buffers only when B must be copied (a lookup costs an 8×8×8 product a tenth of its time).
    static void run(float[] a, int aAt, Operand left, float[] b, int bAt, Operand right, float[] c, int cAt, int ldc,
                    int rows, int depth, int first, int last, ThreadLocal<Scratch> scratch) {
        int count = last - first, from = bAt + first * right.inner(), ldb = right.outer();
        if (right.inner() != 1) {
            float[] packed = (float[]) scratch.get().packedRight(DType.F32, depth * count);
            for (int p = 0; p < depth; p++)
                for (int j = 0; j < count; j++) packed[p * count + j] = b[from + p * ldb + j * right.inner()];
            b = packed;
            from = 0;
            ldb = count;
        }
        product(a, aAt, left.outer(), left.inner(), b, from, ldb, c, cAt, ldc, rows, depth, count);
    }

    private static void product(float[] a, int aAt, int outer, int inner, float[] b, int bAt, int ldb,
                                float[] c, int cAt, int ldc, int rows, int depth, int count) {
        int whole = count - count % F32.length();
        for (int j = 0; j < whole; j += F32.length()) {
            int m = 0;
            for (; m + ROWS <= rows; m += ROWS) {
                var c0 = FloatVector.zero(F32);
                var c1 = c0;
                var c2 = c0;
                var c3 = c0;
                for (int p = 0, ai = aAt + m * outer, bi = bAt + j; p < depth; p++, ai += inner, bi += ldb) {
                    var bp = FloatVector.fromArray(F32, b, bi);
                    c0 = FloatVector.broadcast(F32, a[ai]).fma(bp, c0);
                    c1 = FloatVector.broadcast(F32, a[ai + outer]).fma(bp, c1);
                    c2 = FloatVector.broadcast(F32, a[ai + 2 * outer]).fma(bp, c2);
                    c3 = FloatVector.broadcast(F32, a[ai + 3 * outer]).fma(bp, c3);
                }
                int at = cAt + m * ldc + j;
                c0.intoArray(c, at);
                c1.intoArray(c, at + ldc);
                c2.intoArray(c, at + 2 * ldc);
                c3.intoArray(c, at + 3 * ldc);
            }
            for (; m < rows; m++) {
                var c0 = FloatVector.zero(F32);
                for (int p = 0, ai = aAt + m * outer, bi = bAt + j; p < depth; p++, ai += inner, bi += ldb)
                    c0 = FloatVector.broadcast(F32, a[ai]).fma(FloatVector.fromArray(F32, b, bi), c0);
                c0.intoArray(c, cAt + m * ldc + j);
            }
        }
        if (whole < count) tail(a, aAt, outer, inner, b, bAt + whole, ldb, c, cAt + whole, ldc, rows, depth, F32.indexInRange(whole, count));
    }

    // The last columns, fewer than a vector: the same loops, masked.
    private static void tail(float[] a, int aAt, int outer, int inner, float[] b, int bAt, int ldb,
                             float[] c, int cAt, int ldc, int rows, int depth, VectorMask<Float> mask) {
        int m = 0;
        for (; m + ROWS <= rows; m += ROWS) {
            var c0 = FloatVector.zero(F32);
            var c1 = c0;
            var c2 = c0;
            var c3 = c0;
            for (int p = 0, ai = aAt + m * outer, bi = bAt; p < depth; p++, ai += inner, bi += ldb) {
                var bp = FloatVector.fromArray(F32, b, bi, mask);
                c0 = FloatVector.broadcast(F32, a[ai]).fma(bp, c0);
                c1 = FloatVector.broadcast(F32, a[ai + outer]).fma(bp, c1);
                c2 = FloatVector.broadcast(F32, a[ai + 2 * outer]).fma(bp, c2);
                c3 = FloatVector.broadcast(F32, a[ai + 3 * outer]).fma(bp, c3);
            }
            int at = cAt + m * ldc;
            c0.intoArray(c, at, mask);
            c1.intoArray(c, at + ldc, mask);
            c2.intoArray(c, at + 2 * ldc, mask);
            c3.intoArray(c, at + 3 * ldc, mask);
        }
        for (; m < rows; m++) {
            var c0 = FloatVector.zero(F32);
            for (int p = 0, ai = aAt + m * outer, bi = bAt; p < depth; p++, ai += inner, bi += ldb)
                c0 = FloatVector.broadcast(F32, a[ai]).fma(FloatVector.fromArray(F32, b, bi, mask), c0);
            c0.intoArray(c, cAt + m * ldc, mask);
        }
    }

    static void run(double[] a, int aAt, Operand left, double[] b, int bAt, Operand right, double[] c, int cAt, int ldc,
                    int rows, int depth, int first, int last, ThreadLocal<Scratch> scratch) {
        int count = last - first, from = bAt + first * right.inner(), ldb = right.outer();
        if (right.inner() != 1) {
            double[] packed = (double[]) scratch.get().packedRight(DType.F64, depth * count);
            for (int p = 0; p < depth; p++)
                for (int j = 0; j < count; j++) packed[p * count + j] = b[from + p * ldb + j * right.inner()];
            b = packed;
            from = 0;
            ldb = count;
        }
        product(a, aAt, left.outer(), left.inner(), b, from, ldb, c, cAt, ldc, rows, depth, count);
    }

    private static void product(double[] a, int aAt, int outer, int inner, double[] b, int bAt, int ldb,
                                double[] c, int cAt, int ldc, int rows, int depth, int count) {
        int whole = count - count % F64.length();
        for (int j = 0; j < whole; j += F64.length()) {
            int m = 0;
            for (; m + ROWS <= rows; m += ROWS) {
                var c0 = DoubleVector.zero(F64);
                var c1 = c0;
                var c2 = c0;
                var c3 = c0;
                for (int p = 0, ai = aAt + m * outer, bi = bAt + j; p < depth; p++, ai += inner, bi += ldb) {
                    var bp = DoubleVector.fromArray(F64, b, bi);
                    c0 = DoubleVector.broadcast(F64, a[ai]).fma(bp, c0);
                    c1 = DoubleVector.broadcast(F64, a[ai + outer]).fma(bp, c1);
                    c2 = DoubleVector.broadcast(F64, a[ai + 2 * outer]).fma(bp, c2);
                    c3 = DoubleVector.broadcast(F64, a[ai + 3 * outer]).fma(bp, c3);
                }
                int at = cAt + m * ldc + j;
                c0.intoArray(c, at);
                c1.intoArray(c, at + ldc);
                c2.intoArray(c, at + 2 * ldc);
                c3.intoArray(c, at + 3 * ldc);
            }
            for (; m < rows; m++) {
                var c0 = DoubleVector.zero(F64);
                for (int p = 0, ai = aAt + m * outer, bi = bAt + j; p < depth; p++, ai += inner, bi += ldb)
                    c0 = DoubleVector.broadcast(F64, a[ai]).fma(DoubleVector.fromArray(F64, b, bi), c0);
                c0.intoArray(c, cAt + m * ldc + j);
            }
        }
        if (whole < count) tail(a, aAt, outer, inner, b, bAt + whole, ldb, c, cAt + whole, ldc, rows, depth, F64.indexInRange(whole, count));
    }

    // The last columns, fewer than a vector: the same loops, masked.
    private static void tail(double[] a, int aAt, int outer, int inner, double[] b, int bAt, int ldb,
                             double[] c, int cAt, int ldc, int rows, int depth, VectorMask<Double> mask) {
        int m = 0;
        for (; m + ROWS <= rows; m += ROWS) {
            var c0 = DoubleVector.zero(F64);
            var c1 = c0;
            var c2 = c0;
            var c3 = c0;
            for (int p = 0, ai = aAt + m * outer, bi = bAt; p < depth; p++, ai += inner, bi += ldb) {
                var bp = DoubleVector.fromArray(F64, b, bi, mask);
                c0 = DoubleVector.broadcast(F64, a[ai]).fma(bp, c0);
                c1 = DoubleVector.broadcast(F64, a[ai + outer]).fma(bp, c1);
                c2 = DoubleVector.broadcast(F64, a[ai + 2 * outer]).fma(bp, c2);
                c3 = DoubleVector.broadcast(F64, a[ai + 3 * outer]).fma(bp, c3);
            }
            int at = cAt + m * ldc;
            c0.intoArray(c, at, mask);
            c1.intoArray(c, at + ldc, mask);
            c2.intoArray(c, at + 2 * ldc, mask);
            c3.intoArray(c, at + 3 * ldc, mask);
        }
        for (; m < rows; m++) {
            var c0 = DoubleVector.zero(F64);
            for (int p = 0, ai = aAt + m * outer, bi = bAt; p < depth; p++, ai += inner, bi += ldb)
                c0 = DoubleVector.broadcast(F64, a[ai]).fma(DoubleVector.fromArray(F64, b, bi, mask), c0);
            c0.intoArray(c, cAt + m * ldc, mask);
        }
    }

    /// Runs the product on 8³, 13³ and 32³ (masked tails, one and two chunks of columns) until
    /// an 8³ call takes less than half the time of the plain triple loop, so that C2 has compiled
    /// it; false if that does not happen by `deadline` (System.nanoTime).
    static boolean warmUp(DType dtype, long deadline) {
        var scratch = ThreadLocal.withInitial(Scratch::new);
        long loop = Long.MAX_VALUE;
        for (int call = 0; call < 2000; call++) loop = Math.min(loop, time(TinyProduct::naive));
        while (System.nanoTime() < deadline) {
            for (int call = 0; call < 500; call++)
                for (int n : new int[] {8, 13, 32}) exercise(dtype, n, scratch);
            long best = Long.MAX_VALUE;
            for (int call = 0; call < 5; call++) best = Math.min(best, time(() -> exercise(dtype, 8, scratch)));
            if (2 * best < loop) return true;
        }
        return false;
    }

    private static Object exercise(DType dtype, int n, ThreadLocal<Scratch> scratch) {
        var operand = new Operand(0, List.of(), n, 1);
        if (dtype == DType.F32) {
            float[] c = new float[n * n];
            run(new float[n * n], 0, operand, new float[n * n], 0, operand, c, 0, n, n, n, 0, n, scratch);
            return c;
        }
        double[] c = new double[n * n];
        run(new double[n * n], 0, operand, new double[n * n], 0, operand, c, 0, n, n, n, 0, n, scratch);
        return c;
    }

    // The 8³ triple loop in f32, the yardstick of the warm-up.
    private static Object naive() {
        float[] a = new float[64], b = new float[64], c = new float[64];
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 8; j++) {
                float sum = 0;
                for (int p = 0; p < 8; p++) sum += a[i * 8 + p] * b[p * 8 + j];
                c[i * 8 + j] = sum;
            }
        return c;
    }

    private static long time(java.util.function.Supplier<Object> call) {
        long start = System.nanoTime();
        sink = call.get(); // escapes, so C2 cannot drop the work
        return System.nanoTime() - start;
    }

    private static int roundUp(int value, int multiple) { return (value + multiple - 1) / multiple * multiple; }
}
