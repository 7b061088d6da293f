// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import dev.smelt.codegen.MicroKernel;
import dev.smelt.codegen.MicroKernelShape;
import dev.smelt.ir.DType;

/// The micro-kernel in plain Java, for the same packed layout as the generated one: fast from the
/// first call (no Vector API boxing before C2), so it runs while the vector tile warms up. Three
/// rows by four columns at a time in twelve local sums: an FMA takes four cycles and two issue per
/// cycle, so fewer independent chains leave the FMA units idle (four chains ran at half the speed),
/// and 12 sums plus 3 values of A and one of B fit the 16 registers of AVX2. Each sum is the vector
/// tile's chain of FMAs from 0 over the block's steps of K, then added to C: the same bits, so a
/// product does not change when the vector tile takes over.
record ScalarTile(MicroKernelShape shape) implements MicroKernel {
    @Override
    public void run(Object a, int aOffset, Object b, int bOffset, int depth, Object c, int cOffset, int ldc, boolean accumulate) {
        if (shape.dtype() == DType.F32) run((float[]) a, aOffset, (float[]) b, bOffset, depth, (float[]) c, cOffset, ldc, accumulate);
        else run((double[]) a, aOffset, (double[]) b, bOffset, depth, (double[]) c, cOffset, ldc, accumulate);
    }

    private void run(float[] a, int aOffset, float[] b, int bOffset, int depth, float[] c, int cOffset, int ldc, boolean accumulate) {
        int rows = shape.rows(), columns = shape.columns(), r = 0;
        for (; r + 3 <= rows; r += 3) {
            int j = 0;
            for (; j + 4 <= columns; j += 4) block(a, aOffset + r, b, bOffset + j, depth, rows, columns, c, cOffset + r * ldc + j, ldc, accumulate);
            for (; j < columns; j++) for (int i = r; i < r + 3; i++) single(a, aOffset + i, b, bOffset + j, depth, rows, columns, c, cOffset + i * ldc + j, accumulate);
        }
        for (; r < rows; r++) for (int j = 0; j < columns; j++) single(a, aOffset + r, b, bOffset + j, depth, rows, columns, c, cOffset + r * ldc + j, accumulate);
    }

    // Rows at, at+1, at+2 of A against columns bAt..bAt+3 of B, into C from cAt.
    private static void block(float[] a, int aAt, float[] b, int bAt, int depth, int rows, int columns, float[] c, int cAt, int ldc, boolean accumulate) {
        float s00 = 0, s01 = 0, s02 = 0, s03 = 0, s10 = 0, s11 = 0, s12 = 0, s13 = 0, s20 = 0, s21 = 0, s22 = 0, s23 = 0;
        for (int p = 0, ai = aAt, bi = bAt; p < depth; p++, ai += rows, bi += columns) {
            float x0 = a[ai], x1 = a[ai + 1], x2 = a[ai + 2];
            float y0 = b[bi], y1 = b[bi + 1], y2 = b[bi + 2], y3 = b[bi + 3];
            s00 = Math.fma(x0, y0, s00); s01 = Math.fma(x0, y1, s01); s02 = Math.fma(x0, y2, s02); s03 = Math.fma(x0, y3, s03);
            s10 = Math.fma(x1, y0, s10); s11 = Math.fma(x1, y1, s11); s12 = Math.fma(x1, y2, s12); s13 = Math.fma(x1, y3, s13);
            s20 = Math.fma(x2, y0, s20); s21 = Math.fma(x2, y1, s21); s22 = Math.fma(x2, y2, s22); s23 = Math.fma(x2, y3, s23);
        }
        store(c, cAt, s00, s01, s02, s03, accumulate);
        store(c, cAt + ldc, s10, s11, s12, s13, accumulate);
        store(c, cAt + 2 * ldc, s20, s21, s22, s23, accumulate);
    }

    private static void store(float[] c, int at, float s0, float s1, float s2, float s3, boolean accumulate) {
        c[at] = accumulate ? c[at] + s0 : s0;
        c[at + 1] = accumulate ? c[at + 1] + s1 : s1;
        c[at + 2] = accumulate ? c[at + 2] + s2 : s2;
        c[at + 3] = accumulate ? c[at + 3] + s3 : s3;
    }

    private static void single(float[] a, int aAt, float[] b, int bAt, int depth, int rows, int columns, float[] c, int cAt, boolean accumulate) {
        float sum = 0;
        for (int p = 0; p < depth; p++) sum = Math.fma(a[aAt + p * rows], b[bAt + p * columns], sum);
        c[cAt] = accumulate ? c[cAt] + sum : sum;
    }

    private void run(double[] a, int aOffset, double[] b, int bOffset, int depth, double[] c, int cOffset, int ldc, boolean accumulate) {
        int rows = shape.rows(), columns = shape.columns(), r = 0;
        for (; r + 3 <= rows; r += 3) {
            int j = 0;
            for (; j + 4 <= columns; j += 4) block(a, aOffset + r, b, bOffset + j, depth, rows, columns, c, cOffset + r * ldc + j, ldc, accumulate);
            for (; j < columns; j++) for (int i = r; i < r + 3; i++) single(a, aOffset + i, b, bOffset + j, depth, rows, columns, c, cOffset + i * ldc + j, accumulate);
        }
        for (; r < rows; r++) for (int j = 0; j < columns; j++) single(a, aOffset + r, b, bOffset + j, depth, rows, columns, c, cOffset + r * ldc + j, accumulate);
    }

    private static void block(double[] a, int aAt, double[] b, int bAt, int depth, int rows, int columns, double[] c, int cAt, int ldc, boolean accumulate) {
        double s00 = 0, s01 = 0, s02 = 0, s03 = 0, s10 = 0, s11 = 0, s12 = 0, s13 = 0, s20 = 0, s21 = 0, s22 = 0, s23 = 0;
        for (int p = 0, ai = aAt, bi = bAt; p < depth; p++, ai += rows, bi += columns) {
            double x0 = a[ai], x1 = a[ai + 1], x2 = a[ai + 2];
            double y0 = b[bi], y1 = b[bi + 1], y2 = b[bi + 2], y3 = b[bi + 3];
            s00 = Math.fma(x0, y0, s00); s01 = Math.fma(x0, y1, s01); s02 = Math.fma(x0, y2, s02); s03 = Math.fma(x0, y3, s03);
            s10 = Math.fma(x1, y0, s10); s11 = Math.fma(x1, y1, s11); s12 = Math.fma(x1, y2, s12); s13 = Math.fma(x1, y3, s13);
            s20 = Math.fma(x2, y0, s20); s21 = Math.fma(x2, y1, s21); s22 = Math.fma(x2, y2, s22); s23 = Math.fma(x2, y3, s23);
        }
        store(c, cAt, s00, s01, s02, s03, accumulate);
        store(c, cAt + ldc, s10, s11, s12, s13, accumulate);
        store(c, cAt + 2 * ldc, s20, s21, s22, s23, accumulate);
    }

    private static void store(double[] c, int at, double s0, double s1, double s2, double s3, boolean accumulate) {
        c[at] = accumulate ? c[at] + s0 : s0;
        c[at + 1] = accumulate ? c[at + 1] + s1 : s1;
        c[at + 2] = accumulate ? c[at + 2] + s2 : s2;
        c[at + 3] = accumulate ? c[at + 3] + s3 : s3;
    }

    private static void single(double[] a, int aAt, double[] b, int bAt, int depth, int rows, int columns, double[] c, int cAt, boolean accumulate) {
        double sum = 0;
        for (int p = 0; p < depth; p++) sum = Math.fma(a[aAt + p * rows], b[bAt + p * columns], sum);
        c[cAt] = accumulate ? c[cAt] + sum : sum;
    }
}
