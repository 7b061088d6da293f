// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import dev.smelt.ir.DType;
import dev.smelt.runtime.Stopwatch;
import java.util.List;

/// Brings [TinyProduct] to C2 on the warm-up thread before any matmul takes it: Vector API code
/// that C1 compiled boxes every vector, 50–500× slower than C2's, and a method that C2 has not
/// compiled stays at C1 for as long as the program calls it too rarely.
final class TinyWarmUp {
    private static volatile Object sink; // timed results escape here, so C2 cannot drop the work

    private TinyWarmUp() {}

    /// The products the warm-up runs, `{rows, depth, columns, transposed}`: between them they take
    /// every path (eight-row blocks and their overlap, four- and one-row blocks, masked tails, one
    /// and two chunks of columns, both operands copied), so that C2 compiles each: a path left out
    /// is still C1's code when a program first takes it, and boxes its vectors for thousands of calls.
    private static final int[][] CASES = {{8, 8, 8, 0}, {13, 13, 13, 0}, {32, 32, 32, 0}, {5, 8, 12, 0}, {8, 16, 4, 1}};

    /// Runs the [#CASES] until each has taken less time than the plain triple loop of its shape, and
    /// 8³ less than half, so that C2 has compiled every path; false if that does not happen by
    /// `deadline` (System.nanoTime). A case that passed stays passed (C2's code does not get slower),
    /// so on a busy machine one preempted timing does not send every case round again.
    static boolean warmUp(DType dtype, long deadline) {
        var scratch = ThreadLocal.withInitial(Scratch::new);
        long[] loops = new long[CASES.length];
        for (int i = 0; i < CASES.length; i++) {
            int[] shape = CASES[i];
            loops[i] = Stopwatch.best(2000, call -> sink = naive(shape[0], shape[1], shape[2]));
        }
        loops[0] /= 2;
        boolean[] passed = new boolean[CASES.length];
        for (int calls = 500; System.nanoTime() < deadline; calls += 500) {
            long round = System.nanoTime();
            for (int call = 0; call < 500; call++)
                for (int[] shape : CASES) exercise(dtype, shape, scratch);
            if (allFaster(dtype, loops, passed, scratch)) return true;
            if (calls >= Stopwatch.CALLS_TO_COMPILE) Stopwatch.rest(round, deadline);
        }
        return false;
    }

    private static boolean allFaster(DType dtype, long[] loops, boolean[] passed, ThreadLocal<Scratch> scratch) {
        boolean all = true;
        for (int i = 0; i < CASES.length; i++) {
            int[] shape = CASES[i];
            passed[i] |= !passed[i] && Stopwatch.best(5, call -> sink = exercise(dtype, shape, scratch)) < loops[i];
            all &= passed[i];
        }
        return all;
    }

    // `{rows, depth, columns, transposed}`: with `transposed`, A is stored by columns and B by rows of
    // Bᵀ, so both are copied first.
    private static Object exercise(DType dtype, int[] shape, ThreadLocal<Scratch> scratch) {
        int rows = shape[0], depth = shape[1], columns = shape[2];
        boolean transposed = shape[3] != 0;
        var left = transposed ? new Operand(0, List.of(), 1, rows) : new Operand(0, List.of(), depth, 1);
        var right = transposed ? new Operand(0, List.of(), 1, depth) : new Operand(0, List.of(), columns, 1);
        if (dtype == DType.F32) {
            float[] c = new float[rows * columns];
            TinyProduct.run(new float[rows * depth], 0, left, new float[depth * columns], 0, right, c, 0, columns, rows, depth, 0, columns, scratch);
            return c;
        }
        double[] c = new double[rows * columns];
        DoubleTinyProduct.run(new double[rows * depth], 0, left, new double[depth * columns], 0, right, c, 0, columns, rows, depth, 0, columns, scratch);
        return c;
    }

    // The triple loop in f32, the yardstick of the warm-up.
    private static Object naive(int rows, int depth, int columns) {
        float[] a = new float[rows * depth], b = new float[depth * columns], c = new float[rows * columns];
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < columns; j++) {
                float sum = 0;
                for (int p = 0; p < depth; p++) sum += a[i * depth + p] * b[p * columns + j];
                c[i * columns + j] = sum;
            }
        return c;
    }
}
