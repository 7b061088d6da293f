// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import dev.smelt.ir.DType;
import dev.smelt.runtime.Stopwatch;
import java.util.Arrays;
import java.util.List;

/// Copies blocks of the operands into the order the micro-kernel reads them, reading each operand
/// in place through its strides (a transposed operand is just other strides). Packed A is
/// micro-panels of `tileRows` rows, each `[p][r]`; packed B micro-panels of `tileColumns`
/// columns, each `[p][j]`. Rows and columns past the edge are zero, so edge tiles run the same
/// micro-kernel.
///
/// Two loops, by which way the operand's unit stride runs:
/// - along K (A row by row, a transposed B): each lane of a panel reads a contiguous run of steps,
///   so packing transposes: f32 blocks in registers by [PanelTranspose] once `vector` (it is
///   warm), else four steps at a time (0.51 against 0.64–0.73 ns per value for one at a time, at
///   128×784 on the AVX-512 host, 2026-11-22);
/// - otherwise (B row by row, a transposed A, other strides): one sweep over the whole block per
///   step of K, as sweeping each panel separately reads 12 floats every 4 KiB at 1024³, which cost
///   a transposed A a quarter of its speed through cache-set conflicts; where the block's lanes
///   are contiguous, [PanelCopy] copies them as vectors once `vector`.
final class Packing {
    private Packing() {}

    /// Packs panels of a tile's width, lanes contiguous and (f32) steps contiguous, with vectors
    /// until each kind packs faster than value by value, so that C2 has compiled [PanelCopy] and
    /// [PanelTranspose] (boxed, they are many times slower); false if that does not happen by
    /// `deadline` (System.nanoTime).
    static boolean warmUp(DType dtype, int width, long deadline) {
        int depth = 64, columns = 3 * width - 1; // two whole panels and one short one
        var rows = new Operand(0, List.of(), columns, 1);
        var transposed = new Operand(0, List.of(), 1, depth);
        Object source = dtype == DType.F32 ? new float[depth * columns] : new double[depth * columns];
        Object packed = dtype == DType.F32 ? new float[depth * 3 * width] : new double[depth * 3 * width];
        long copy = Stopwatch.best(2000, call -> pack(source, rows, depth, columns, width, packed, false));
        long transpose = Stopwatch.best(2000, call -> pack(source, transposed, depth, columns, width, packed, false));
        for (int calls = 500; System.nanoTime() < deadline; calls += 500) {
            long round = System.nanoTime();
            long vectorCopy = Stopwatch.best(500, call -> pack(source, rows, depth, columns, width, packed, true));
            long vectorTranspose = Stopwatch.best(500, call -> pack(source, transposed, depth, columns, width, packed, true));
            // f64 panels whose steps are contiguous pack value by value either way
            if (vectorCopy < copy && (vectorTranspose < transpose || dtype == DType.F64)) return true;
            if (calls >= Stopwatch.CALLS_TO_COMPILE) Stopwatch.rest(round, deadline);
        }
        return false;
    }

    private static void pack(Object source, Operand operand, int depth, int columns, int width, Object packed, boolean vector) {
        if (source instanceof float[] f) right(f, 0, operand, 0, depth, 0, columns, width, (float[]) packed, vector);
        else right((double[]) source, 0, operand, 0, depth, 0, columns, width, (double[]) packed, vector);
    }

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
        if (across == 1 && vector) {
            PanelCopy.run(source, start, along, count, width, depth, packed);
        } else if (across == 1 || along != 1) {
            for (int p = 0; p < depth; p++) {
                int from = start + p * along;
                for (int panel = 0; panel < panels; panel++) {
                    int to = panel * width * depth + p * width, first = panel * width, valid = Math.min(width, count - first);
                    for (int x = 0; x < valid; x++) packed[to + x] = source[from + (first + x) * across];
                }
            }
        } else { // along == 1: each lane's steps are contiguous
            for (int panel = 0; panel < panels; panel++) {
                int first = panel * width, valid = Math.min(width, count - first), to = panel * width * depth, p = 0;
                if (vector) {
                    PanelTranspose.run(source, start + first * across, across, packed, to, width, valid, depth);
                    continue;
                }
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
        }
    }

    private static void gather(double[] source, int start, int across, int along, int count, int width, int depth, double[] packed, boolean vector) {
        int panels = (count + width - 1) / width;
        if (count % width != 0) Arrays.fill(packed, (panels - 1) * width * depth, panels * width * depth, 0d);
        if (across == 1 && vector) {
            PanelCopy.run(source, start, along, count, width, depth, packed);
        } else if (across == 1 || along != 1) {
            for (int p = 0; p < depth; p++) {
                int from = start + p * along;
                for (int panel = 0; panel < panels; panel++) {
                    int to = panel * width * depth + p * width, first = panel * width, valid = Math.min(width, count - first);
                    for (int x = 0; x < valid; x++) packed[to + x] = source[from + (first + x) * across];
                }
            }
        } else { // along == 1: each lane's steps are contiguous
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
        }
    }
}
