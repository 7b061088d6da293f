// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

/// Matmuls too small for packing to pay (an 8×8×8 product is 512 multiply-adds, about what
/// packing and blocking cost): `C[m, n] = Σ_p A[m, p]·B[p, n]` straight from the operands. The
/// loop order `m, p, n` adds into a row of C, independent adds that C2 vectorises when B's rows are
/// contiguous, instead of a dot product's chain of dependent adds.
final class SmallMatMul {
    private SmallMatMul() {}

    static void multiply(float[] a, int aBase, Operand left, float[] b, int bBase, Operand right, float[] c, int cBase,
                         int rows, int columns, int depth, int first, int last) {
        for (int m = 0; m < rows; m++) {
            int row = cBase + m * columns, aRow = aBase + m * left.outer();
            java.util.Arrays.fill(c, row + first, row + last, 0f);
            for (int p = 0; p < depth; p++) {
                float x = a[aRow + p * left.inner()];
                int from = bBase + p * right.outer(), step = right.inner();
                if (step == 1) for (int n = first; n < last; n++) c[row + n] += x * b[from + n];
                else for (int n = first; n < last; n++) c[row + n] += x * b[from + n * step];
            }
        }
    }

    static void multiply(double[] a, int aBase, Operand left, double[] b, int bBase, Operand right, double[] c, int cBase,
                         int rows, int columns, int depth, int first, int last) {
        for (int m = 0; m < rows; m++) {
            int row = cBase + m * columns, aRow = aBase + m * left.outer();
            java.util.Arrays.fill(c, row + first, row + last, 0d);
            for (int p = 0; p < depth; p++) {
                double x = a[aRow + p * left.inner()];
                int from = bBase + p * right.outer(), step = right.inner();
                if (step == 1) for (int n = first; n < last; n++) c[row + n] += x * b[from + n];
                else for (int n = first; n < last; n++) c[row + n] += x * b[from + n * step];
            }
        }
    }
}
