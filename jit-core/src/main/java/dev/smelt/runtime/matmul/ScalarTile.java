// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import dev.smelt.codegen.MicroKernel;
import dev.smelt.codegen.MicroKernelShape;
import dev.smelt.ir.DType;

/// The micro-kernel in plain Java, for the same packed layout as the generated one: fast from the
/// first call (no Vector API boxing before C2), so it runs while the vector tile warms up.
record ScalarTile(MicroKernelShape shape) implements MicroKernel {
    @Override
    public void run(Object a, int aOffset, Object b, int bOffset, int depth, Object c, int cOffset, int ldc, boolean accumulate) {
        if (shape.dtype() == DType.F32) run((float[]) a, aOffset, (float[]) b, bOffset, depth, (float[]) c, cOffset, ldc, accumulate);
        else run((double[]) a, aOffset, (double[]) b, bOffset, depth, (double[]) c, cOffset, ldc, accumulate);
    }

    private void run(float[] a, int aOffset, float[] b, int bOffset, int depth, float[] c, int cOffset, int ldc, boolean accumulate) {
        int rows = shape.rows(), columns = shape.columns();
        for (int r = 0; r < rows; r++) {
            int row = cOffset + r * ldc;
            if (!accumulate) java.util.Arrays.fill(c, row, row + columns, 0f);
            for (int p = 0; p < depth; p++) {
                float x = a[aOffset + p * rows + r];
                int from = bOffset + p * columns;
                for (int j = 0; j < columns; j++) c[row + j] += x * b[from + j];
            }
        }
    }

    private void run(double[] a, int aOffset, double[] b, int bOffset, int depth, double[] c, int cOffset, int ldc, boolean accumulate) {
        int rows = shape.rows(), columns = shape.columns();
        for (int r = 0; r < rows; r++) {
            int row = cOffset + r * ldc;
            if (!accumulate) java.util.Arrays.fill(c, row, row + columns, 0d);
            for (int p = 0; p < depth; p++) {
                double x = a[aOffset + p * rows + r];
                int from = bOffset + p * columns;
                for (int j = 0; j < columns; j++) c[row + j] += x * b[from + j];
            }
        }
    }
}
