// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import java.util.Arrays;

/// Copies blocks of the operands into the order the micro-kernel reads them, reading each operand
/// in place through its strides (a transposed operand is just other strides). Packed A is
/// micro-panels of `tileRows` rows, each `[p][r]`; packed B micro-panels of `tileColumns`
/// columns, each `[p][j]`. Rows and columns past the edge are zero, so edge tiles run the same
/// micro-kernel.
///
/// Three loops, by which way the operand's unit stride runs:
/// - along a panel's width (B row by row, a transposed A): each step of K is one contiguous run,
///   copied by [PanelCopy] once `vector` (it is warm), else value by value;
/// - along K (A row by row, a transposed B): each lane of a panel reads a contiguous run of steps,
///   written four steps at a time (0.51 against 0.64–0.73 ns per value for one at a time, at
///   128×784 on the AVX-512 host, 2026-11-22);
/// - neither: one sweep over the whole block per step of K (sweeping each panel separately reads
///   12 floats every 4 KiB at 1024³, which cost a transposed A a quarter of its speed through
///   cache-set conflicts).
final class Packing {
    private Packing() {}

    /// Rows `[row, row + rows)` and steps `[step, step + depth)` of A, from `a[base + i·outer + p·inner]`.
    static void left(float[] a, int base, Operand op, int row, int rows, int step, int depth, int tileRows, float[] packed, boolean vector) {
        gather(a, base + row * op.outer() + step * op.inner(), op.outer(), op.inner(), rows, tileRows, depth, packed, vector);
    }

    /// Steps `[step, step + depth)` and columns `[column, column + columns)` of B, from `b[base + p·outer + j·inner]`.
    static void right(float[] b, int base, Operand op, int step, int depth, int column, int columns, int tileColumns, float[] packed, boolean vector) {
        gather(b, base + step * op.outer() + column * op.inner(), op.inner(), op.outer(), columns, tileColumns, depth, packed, vector);
    }

    static void left(double[] a, int base, Operand op, int row, int rows, int step, int depth, int tileRows, double[] packed, boolean vector) {
        gather(a, base + row * op.outer() + step * op.inner(), op.outer(), op.inner(), rows, tileRows, depth, packed, vector);
    }

    static void right(double[] b, int base, Operand op, int step, int depth, int column, int columns, int tileColumns, double[] packed, boolean vector) {
        gather(b, base + step * op.outer() + column * op.inner(), op.inner(), op.outer(), columns, tileColumns, depth, packed, vector);
    }

    /// `packed[(i / width)·width·depth + p·width + i % width] = source[start + i·across + p·along]`
    /// for `i < count`, `p < depth`; the last panel's missing lanes are 0.
    private static void gather(float[] source, int start, int across, int along, int count, int width, int depth, float[] packed, boolean vector) {
        int panels = (count + width - 1) / width;
        if (count % width != 0) Arrays.fill(packed, (panels - 1) * width * depth, panels * width * depth, 0f);
        if (across == 1) {
            for (int panel = 0; panel < panels; panel++) {
                int first = panel * width, valid = Math.min(width, count - first), from = start + first, to = panel * width * depth;
                if (vector) PanelCopy.run(source, from, along, packed, to, width, valid, depth);
                else for (int p = 0; p < depth; p++, from += along, to += width)
                    for (int x = 0; x < valid; x++) packed[to + x] = source[from + x];
            }
        } else if (along == 1) {
            for (int panel = 0; panel < panels; panel++) {
                int first = panel * width, valid = Math.min(width, count - first), to = panel * width * depth, p = 0;
                for (; p + 4 <= depth; p += 4, to += 4 * width)
                    for (int x = 0, from = start + first * across + p; x < valid; x++, from += across) {
                        float v0 = source[from], v1 = source[from + 1], v2 = source[from + 2], v3 = source[from + 3];
                        packed[to + x] = v0;
                        packed[to + width + x] = v1;
                        packed[to + 2 * width + x] = v2;
                        packed[to + 3 * width + x] = v3;
                    }
                for (; p < depth; p++, to += width)
                    for (int x = 0, from = start + first * across + p; x < valid; x++, from += across) packed[to + x] = source[from];
            }
        } else {
            for (int p = 0; p < depth; p++) {
                int from = start + p * along;
                for (int panel = 0; panel < panels; panel++) {
                    int to = panel * width * depth + p * width, first = panel * width, valid = Math.min(width, count - first);
                    for (int x = 0; x < valid; x++) packed[to + x] = source[from + (first + x) * across];
                }
            }
        }
    }

    private static void gather(double[] source, int start, int across, int along, int count, int width, int depth, double[] packed, boolean vector) {
        int panels = (count + width - 1) / width;
        if (count % width != 0) Arrays.fill(packed, (panels - 1) * width * depth, panels * width * depth, 0d);
        if (across == 1) {
            for (int panel = 0; panel < panels; panel++) {
                int first = panel * width, valid = Math.min(width, count - first), from = start + first, to = panel * width * depth;
                if (vector) PanelCopy.run(source, from, along, packed, to, width, valid, depth);
                else for (int p = 0; p < depth; p++, from += along, to += width)
                    for (int x = 0; x < valid; x++) packed[to + x] = source[from + x];
            }
        } else if (along == 1) {
            for (int panel = 0; panel < panels; panel++) {
                int first = panel * width, valid = Math.min(width, count - first), to = panel * width * depth, p = 0;
                for (; p + 4 <= depth; p += 4, to += 4 * width)
                    for (int x = 0, from = start + first * across + p; x < valid; x++, from += across) {
                        double v0 = source[from], v1 = source[from + 1], v2 = source[from + 2], v3 = source[from + 3];
                        packed[to + x] = v0;
                        packed[to + width + x] = v1;
                        packed[to + 2 * width + x] = v2;
                        packed[to + 3 * width + x] = v3;
                    }
                for (; p < depth; p++, to += width)
                    for (int x = 0, from = start + first * across + p; x < valid; x++, from += across) packed[to + x] = source[from];
            }
        } else {
            for (int p = 0; p < depth; p++) {
                int from = start + p * along;
                for (int panel = 0; panel < panels; panel++) {
                    int to = panel * width * depth + p * width, first = panel * width, valid = Math.min(width, count - first);
                    for (int x = 0; x < valid; x++) packed[to + x] = source[from + (first + x) * across];
                }
            }
        }
    }
}
