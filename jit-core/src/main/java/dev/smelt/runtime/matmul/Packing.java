// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import java.util.Arrays;

/// Copies blocks of the operands into the order the micro-kernel reads them, reading each operand
/// in place through its strides (a transposed operand is just other strides). Packed A is
/// micro-panels of `tileRows` rows, each `[p][r]`; packed B micro-panels of `tileColumns`
/// columns, each `[p][j]`. Rows and columns past the edge are zero, so edge tiles run the same
/// micro-kernel.
///
/// The loops follow the operand's unit stride: along the panels' width, one sweep over the whole
/// block per step of K (sweeping each panel separately reads 12 floats every 4 KiB at 1024³,
/// which cost a transposed A a quarter of its speed through cache-set conflicts); along K, one
/// sweep over the steps per row or column.
final class Packing {
    private Packing() {}

    /// Rows `[row, row + rows)` and steps `[step, step + depth)` of A, from `a[base + i·outer + p·inner]`.
    static void left(float[] a, int base, Operand op, int row, int rows, int step, int depth, int tileRows, float[] packed) {
        gather(a, base + row * op.outer() + step * op.inner(), op.outer(), op.inner(), rows, tileRows, depth, packed);
    }

    /// Steps `[step, step + depth)` and columns `[column, column + columns)` of B, from `b[base + p·outer + j·inner]`.
    static void right(float[] b, int base, Operand op, int step, int depth, int column, int columns, int tileColumns, float[] packed) {
        gather(b, base + step * op.outer() + column * op.inner(), op.inner(), op.outer(), columns, tileColumns, depth, packed);
    }

    static void left(double[] a, int base, Operand op, int row, int rows, int step, int depth, int tileRows, double[] packed) {
        gather(a, base + row * op.outer() + step * op.inner(), op.outer(), op.inner(), rows, tileRows, depth, packed);
    }

    static void right(double[] b, int base, Operand op, int step, int depth, int column, int columns, int tileColumns, double[] packed) {
        gather(b, base + step * op.outer() + column * op.inner(), op.inner(), op.outer(), columns, tileColumns, depth, packed);
    }

    /// `packed[(i / width)·width·depth + p·width + i % width] = source[start + i·across + p·along]`
    /// for `i < count`, `p < depth`; the last panel's missing lanes are 0.
    private static void gather(float[] source, int start, int across, int along, int count, int width, int depth, float[] packed) {
        int panels = (count + width - 1) / width;
        if (count % width != 0) Arrays.fill(packed, (panels - 1) * width * depth, panels * width * depth, 0f);
        if (across == 1 || along != 1) {
            for (int p = 0; p < depth; p++) {
                int from = start + p * along;
                for (int panel = 0; panel < panels; panel++) {
                    int to = panel * width * depth + p * width, first = panel * width, valid = Math.min(width, count - first);
                    for (int x = 0; x < valid; x++) packed[to + x] = source[from + (first + x) * across];
                }
            }
        } else {
            for (int i = 0; i < count; i++) {
                int from = start + i * across, to = i / width * width * depth + i % width;
                for (int p = 0; p < depth; p++) packed[to + p * width] = source[from + p];
            }
        }
    }

    private static void gather(double[] source, int start, int across, int along, int count, int width, int depth, double[] packed) {
        int panels = (count + width - 1) / width;
        if (count % width != 0) Arrays.fill(packed, (panels - 1) * width * depth, panels * width * depth, 0d);
        if (across == 1 || along != 1) {
            for (int p = 0; p < depth; p++) {
                int from = start + p * along;
                for (int panel = 0; panel < panels; panel++) {
                    int to = panel * width * depth + p * width, first = panel * width, valid = Math.min(width, count - first);
                    for (int x = 0; x < valid; x++) packed[to + x] = source[from + (first + x) * across];
                }
            }
        } else {
            for (int i = 0; i < count; i++) {
                int from = start + i * across, to = i / width * width * depth + i % width;
                for (int p = 0; p < depth; p++) packed[to + p * width] = source[from + p];
            }
        }
    }
}
