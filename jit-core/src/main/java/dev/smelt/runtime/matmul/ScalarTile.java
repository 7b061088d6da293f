// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import dev.smelt.codegen.MicroKernel;
import dev.smelt.codegen.MicroKernelShape;
import dev.smelt.ir.DType;

/// The micro-kernel in plain Java, for the same packed layout as the generated one: fast from the
/// first call (no Vector API boxing before C2), so it runs while the vector tile warms up. Four
/// columns at a time in four local sums: four independent chains of adds, about three times the
/// speed of adding each product into C in memory. Each sum is the vector tile's chain of FMAs from
/// 0 over the block's steps of K, then added to C: the same bits, so a product does not change when
/// the vector tile takes over.
record ScalarTile(MicroKernelShape shape) implements MicroKernel {
    @Override
    public void run(Object a, int aOffset, Object b, int bOffset, int depth, Object c, int cOffset, int ldc, boolean accumulate) {
        if (shape.dtype() == DType.F32) run((float[]) a, aOffset, (float[]) b, bOffset, depth, (float[]) c, cOffset, ldc, accumulate);
        else run((double[]) a, aOffset, (double[]) b, bOffset, depth, (double[]) c, cOffset, ldc, accumulate);
    }

    private void run(float[] a, int aOffset, float[] b, int bOffset, int depth, float[] c, int cOffset, int ldc, boolean accumulate) {
        int rows = shape.rows(), columns = shape.columns();
        for (int r = 0; r < rows; r++) {
            int row = cOffset + r * ldc, j = 0;
            for (; j + 4 <= columns; j += 4) {
                float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
                for (int p = 0, ai = aOffset + r, bi = bOffset + j; p < depth; p++, ai += rows, bi += columns) {
                    float x = a[ai];
                    s0 = Math.fma(x, b[bi], s0);
                    s1 = Math.fma(x, b[bi + 1], s1);
                    s2 = Math.fma(x, b[bi + 2], s2);
                    s3 = Math.fma(x, b[bi + 3], s3);
                }
                c[row + j] = accumulate ? c[row + j] + s0 : s0;
                c[row + j + 1] = accumulate ? c[row + j + 1] + s1 : s1;
                c[row + j + 2] = accumulate ? c[row + j + 2] + s2 : s2;
                c[row + j + 3] = accumulate ? c[row + j + 3] + s3 : s3;
            }
            for (; j < columns; j++) {
                float sum = 0;
                for (int p = 0; p < depth; p++) sum = Math.fma(a[aOffset + p * rows + r], b[bOffset + p * columns + j], sum);
                c[row + j] = accumulate ? c[row + j] + sum : sum;
            }
        }
    }

    private void run(double[] a, int aOffset, double[] b, int bOffset, int depth, double[] c, int cOffset, int ldc, boolean accumulate) {
        int rows = shape.rows(), columns = shape.columns();
        for (int r = 0; r < rows; r++) {
            int row = cOffset + r * ldc, j = 0;
            for (; j + 4 <= columns; j += 4) {
                double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
                for (int p = 0, ai = aOffset + r, bi = bOffset + j; p < depth; p++, ai += rows, bi += columns) {
                    double x = a[ai];
                    s0 = Math.fma(x, b[bi], s0);
                    s1 = Math.fma(x, b[bi + 1], s1);
                    s2 = Math.fma(x, b[bi + 2], s2);
                    s3 = Math.fma(x, b[bi + 3], s3);
                }
                c[row + j] = accumulate ? c[row + j] + s0 : s0;
                c[row + j + 1] = accumulate ? c[row + j + 1] + s1 : s1;
                c[row + j + 2] = accumulate ? c[row + j + 2] + s2 : s2;
                c[row + j + 3] = accumulate ? c[row + j + 3] + s3 : s3;
            }
            for (; j < columns; j++) {
                double sum = 0;
                for (int p = 0; p < depth; p++) sum = Math.fma(a[aOffset + p * rows + r], b[bOffset + p * columns + j], sum);
                c[row + j] = accumulate ? c[row + j] + sum : sum;
            }
        }
    }
}
