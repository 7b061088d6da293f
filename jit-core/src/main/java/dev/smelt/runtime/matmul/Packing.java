// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

/// Copies blocks of the operands into the order the micro-kernel reads them, reading each operand
/// in place through its strides (a transposed operand is just other strides). Packed A is
/// micro-panels of `tileRows` rows, each `[p][r]`; packed B micro-panels of `tileColumns`
/// columns, each `[p][j]`. Rows and columns past the edge are zero, so edge tiles run the same
/// micro-kernel. The loop order follows the operand's unit stride, so reads stay sequential.
final class Packing {
    private Packing() {}

    /// Rows `[row, row + rows)` and steps `[step, step + depth)` of A, from `a[base + i·outer + p·inner]`.
    static void left(float[] a, int base, Operand op, int row, int rows, int step, int depth, int tileRows, float[] packed) {
        int panels = (rows + tileRows - 1) / tileRows;
        for (int panel = 0; panel < panels; panel++) {
            int to = panel * tileRows * depth, valid = Math.min(tileRows, rows - panel * tileRows);
            int start = base + (row + panel * tileRows) * op.outer() + step * op.inner();
            gather(a, start, op.outer(), op.inner(), valid, tileRows, depth, packed, to);
        }
    }

    /// Steps `[step, step + depth)` and columns `[column, column + columns)` of B, from `b[base + p·outer + j·inner]`.
    static void right(float[] b, int base, Operand op, int step, int depth, int column, int columns, int tileColumns, float[] packed) {
        int panels = (columns + tileColumns - 1) / tileColumns;
        for (int panel = 0; panel < panels; panel++) {
            int to = panel * tileColumns * depth, valid = Math.min(tileColumns, columns - panel * tileColumns);
            int start = base + step * op.outer() + (column + panel * tileColumns) * op.inner();
            gather(b, start, op.inner(), op.outer(), valid, tileColumns, depth, packed, to);
        }
    }

    /// `packed[to + p·width + x] = source[start + x·across + p·along]` for `x < valid`, 0 up to `width`.
    private static void gather(float[] source, int start, int across, int along, int valid, int width, int depth, float[] packed, int to) {
        if (valid < width) java.util.Arrays.fill(packed, to, to + depth * width, 0f);
        if (across == 1 || along != 1) {
            for (int p = 0; p < depth; p++) {
                int from = start + p * along, row = to + p * width;
                for (int x = 0; x < valid; x++) packed[row + x] = source[from + x * across];
            }
        } else {
            for (int x = 0; x < valid; x++) {
                int from = start + x * across;
                for (int p = 0; p < depth; p++) packed[to + p * width + x] = source[from + p];
            }
        }
    }

    static void left(double[] a, int base, Operand op, int row, int rows, int step, int depth, int tileRows, double[] packed) {
        int panels = (rows + tileRows - 1) / tileRows;
        for (int panel = 0; panel < panels; panel++) {
            int to = panel * tileRows * depth, valid = Math.min(tileRows, rows - panel * tileRows);
            int start = base + (row + panel * tileRows) * op.outer() + step * op.inner();
            gather(a, start, op.outer(), op.inner(), valid, tileRows, depth, packed, to);
        }
    }

    static void right(double[] b, int base, Operand op, int step, int depth, int column, int columns, int tileColumns, double[] packed) {
        int panels = (columns + tileColumns - 1) / tileColumns;
        for (int panel = 0; panel < panels; panel++) {
            int to = panel * tileColumns * depth, valid = Math.min(tileColumns, columns - panel * tileColumns);
            int start = base + step * op.outer() + (column + panel * tileColumns) * op.inner();
            gather(b, start, op.inner(), op.outer(), valid, tileColumns, depth, packed, to);
        }
    }

    private static void gather(double[] source, int start, int across, int along, int valid, int width, int depth, double[] packed, int to) {
        if (valid < width) java.util.Arrays.fill(packed, to, to + depth * width, 0d);
        if (across == 1 || along != 1) {
            for (int p = 0; p < depth; p++) {
                int from = start + p * along, row = to + p * width;
                for (int x = 0; x < valid; x++) packed[row + x] = source[from + x * across];
            }
        } else {
            for (int x = 0; x < valid; x++) {
                int from = start + x * across;
                for (int p = 0; p < depth; p++) packed[to + p * width + x] = source[from + p];
            }
        }
    }
}
