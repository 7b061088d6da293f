// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.ir.PackedMatrix;
import java.lang.management.ManagementFactory;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/// Once C2 has compiled the GEMV rows, a call allocates nothing: a vector handed to a method C2
/// did not inline is boxed, and the row loops are large enough for C2 to stop inlining (a row's
/// lane sum, when it was a method, cost an allocation per row: 13% of a stories15M decode). The
/// rows run both of a decode's shapes, K = 288 (int8: a group left over after whole fours) and
/// K = 768, so that C2 compiles every path of the loops, as in a model, not only the taken ones.
class GemvAllocationTest {
    private static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"F32", "BF16", "INT8"})
    void compiledRowsAllocateNothing(String format) {
        var random = new Random(format.hashCode());
        Object narrow = weights(format, 160, 288, random), wide = weights(format, 96, 768, random);
        float[] x = new float[768], y = new float[160];
        for (int i = 0; i < x.length; i++) x[i] = (float) random.nextGaussian();
        long allocated = Long.MAX_VALUE, deadline = System.nanoTime() + 120_000_000_000L; // C2 may queue behind other tests' compiles
        while (allocated > 0 && System.nanoTime() < deadline) {
            calls(x, narrow, wide, y, 200);
            long before = THREADS.getCurrentThreadAllocatedBytes();
            calls(x, narrow, wide, y, 50);
            allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        }
        assertEquals(0, allocated, format + ": bytes allocated by 100 GEMV calls after warm-up");
    }

    private static void calls(float[] x, Object narrow, Object wide, float[] y, int count) {
        for (int i = 0; i < count; i++) {
            Gemv.vector(x, 0, 288, narrow, 0, 288, y, 0, 160, 1, 288, 0, 160);
            Gemv.vector(x, 0, 768, wide, 0, 768, y, 0, 96, 1, 768, 0, 96);
        }
    }

    private static Object weights(String format, int n, int k, Random random) {
        float[] w = new float[n * k];
        for (int i = 0; i < w.length; i++) w[i] = (float) random.nextGaussian();
        return switch (format) {
            case "F32" -> w;
            case "BF16" -> PackedMatrix.bf16(w, n, k);
            default -> PackedMatrix.q8(w, n, k);
        };
    }
}
