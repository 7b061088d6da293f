// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/// A compiled function reads a captured contiguous view (rows of a matrix, a weight kept in a
/// larger array) where it lies: its trace's input is the view's whole storage, sliced, not a
/// dense copy made on every call. Results equal the reference interpreter and eager code on
/// random views, calls read the storage afresh, and a call that updates the storage in place
/// still reads the values from before the call.
class CapturedViewsTest {
    private static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void randomViewsGiveTheInterpretersResults() {
        var random = new Random(39);
        var g = new Generator(39);
        for (int trial = 0; trial < 40; trial++) {
            int rows = 1 + random.nextInt(70), k = 1 + random.nextInt(40), n = 1 + random.nextInt(rows), first = random.nextInt(rows - n + 1);
            Tensor matrix = Tensor.randn(g, rows, k);
            Tensor w = matrix.slice(0, first, first + n);                       // rows of a matrix
            Tensor flat = Tensor.randn(g, n * k + 37);
            int at = random.nextInt(38);
            Tensor b = flat.slice(0, at, at + n * k).reshape(n, k);            // a window of a longer array, reshaped
            Tensor bias = matrix.slice(0, first, first + 1).reshape(k);        // one row: a view of size k
            Jit.FunctionN function = args -> List.of(args.get(0).matmul(w.t()).add(args.get(0).matmul(b.t())).relu(), args.get(0).add(bias).exp().sum(1));
            var traced = Jit.trace(function, List.of(Tensor.zeros(3, k)));
            var f = Jit.compile(function, 1);
            for (int m : new int[] {1, 3}) {
                Tensor x = Tensor.randn(g, m, k);
                var compiled = f.applyAll(x);
                var eager = List.of(x.matmul(w.t()).add(x.matmul(b.t())).relu(), x.add(bias).exp().sum(1));
                for (int o = 0; o < 2; o++) {
                    float[] expected = eager.get(o).toFloatArray(), actual = compiled.get(o).toFloatArray();
                    for (int i = 0; i < expected.length; i++)
                        assertEquals(expected[i], actual[i], 1e-4 * (1 + Math.abs(expected[i])) * k, "trial %d output %d element %d".formatted(trial, o, i));
                }
            }
            Tensor x = Tensor.randn(g, 3, k);
            var reference = traced.interpret(x);
            var compiled = f.applyAll(x);
            for (int o = 0; o < 2; o++) {
                float[] expected = reference.get(o).toFloatArray(), actual = compiled.get(o).toFloatArray();
                for (int i = 0; i < expected.length; i++) assertEquals(expected[i], actual[i], 1e-4 * (1 + Math.abs(expected[i])) * k);
            }
            for (var input : traced.graph().inputs().subList(1, traced.graph().inputs().size()))
                assertTrue(input.shape().count() == rows * k || input.shape().count() == n * k + 37, "captures are whole storages: " + traced.graph());
        }
    }

    @Test
    void aCallReadsTheStorageAsItIsThen() {
        Tensor matrix = Tensor.arange(12).to(dev.smelt.ir.DType.F32).reshape(4, 3);
        Tensor rows = matrix.slice(0, 1, 3);
        var f = Jit.compile((Tensor x) -> x.add(rows));
        assertArrayEquals(new float[] {3, 4, 5, 6, 7, 8}, f.apply(Tensor.zeros(2, 3)).toFloatArray());
        matrix.set(100f, 2, 0);
        assertArrayEquals(new float[] {3, 4, 5, 100, 7, 8}, f.apply(Tensor.zeros(2, 3)).toFloatArray());
    }

    @Test
    void aViewOfADonatedArgumentIsReadAsItWasBeforeTheCall() {
        var g = new Generator(7);
        for (int n : new int[] {5, 64, 3000}) {
            Tensor state = Tensor.randn(g, 4, n);
            Tensor firstRow = state.slice(0, 0, 1);
            // rows 1 to 3 of the result read row 0, which an update in place has written by then
            var f = Jit.compile((Tensor s) -> s.mul(2).add(firstRow));
            Tensor expected = state.mul(2).add(firstRow);
            f.applyUpdating(List.of(state), state);
            assertArrayEquals(expected.toFloatArray(), state.toFloatArray(), f.explain());
        }
    }

    @Test
    void aCapturedRowBlockIsNotCopiedOnEachCall() {
        Tensor weights = Tensor.randn(new Generator(3), 2049, 768);
        Tensor rows = weights.slice(0, 1, 2049);
        var f = Jit.compile((Tensor x) -> x.matmul(rows.t()));
        Tensor x = Tensor.randn(new Generator(4), 1, 768);
        long perCall = Long.MAX_VALUE, deadline = System.nanoTime() + 60_000_000_000L; // the first calls' tier switch copies rows once
        while (perCall >= 100_000 && System.nanoTime() < deadline) {
            for (int i = 0; i < 20; i++) f.apply(x);
            long before = THREADS.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 10; i++) f.apply(x);
            perCall = (THREADS.getCurrentThreadAllocatedBytes() - before) / 10;
        }
        assertTrue(perCall < 100_000, "bytes allocated per call: %d (the view is %d bytes)".formatted(perCall, 2048L * 768 * 4));
    }
}
