// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.kernel.KernelFunction;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/// When a small kernel becomes tiered: not before [SmallKernel#HOT_CALLS] calls, however slow
/// they are, nor while the calls after them have taken less than its budget; then every call goes
/// to the tiered function.
class SmallKernelTest {
    private static KernelFunction counting(AtomicInteger calls, String tier) {
        return new KernelFunction() {
            @Override
            public void run(Object[] buffers, int start, int end) {
                calls.incrementAndGet();
            }

            @Override
            public String tier() { return tier; }
        };
    }

    @Test
    void aKernelCalledFewTimesNeverMakesItsVectorVariant() {
        var scalarCalls = new AtomicInteger();
        var made = new AtomicInteger();
        var small = new SmallKernel(counting(scalarCalls, "scalar"), () -> {
            made.incrementAndGet();
            return counting(new AtomicInteger(), "vector");
        }, 0);
        for (int call = 1; call < SmallKernel.HOT_CALLS; call++) small.run(new Object[0], 0, 1);
        assertEquals(0, made.get());
        assertEquals(SmallKernel.HOT_CALLS - 1, scalarCalls.get());
        assertTrue(small.tier().startsWith("scalar (small kernel; a vector variant is tried once it has run 256 times, then"), small.tier());
    }

    @Test
    void aHotKernelGoesToItsTieredFunction() {
        var scalarCalls = new AtomicInteger();
        var tieredCalls = new AtomicInteger();
        var made = new AtomicInteger();
        var small = new SmallKernel(counting(scalarCalls, "scalar"), () -> {
            made.incrementAndGet();
            return counting(tieredCalls, "vector");
        }, 0);
        for (int call = 0; call < SmallKernel.HOT_CALLS + 100; call++) small.run(new Object[0], 0, 1);
        int hot = (SmallKernel.HOT_CALLS / SmallKernel.SAMPLE + 1) * SmallKernel.SAMPLE; // the first call timed
        assertEquals(1, made.get(), "the tiered function is asked for once");
        assertEquals(hot, scalarCalls.get(), "the call that made it hot ran scalar, every later one tiered");
        assertEquals(SmallKernel.HOT_CALLS + 100 - hot, tieredCalls.get());
        assertEquals("vector (a small kernel, run often)", small.tier());
    }

    @Test
    void aKernelThatTakesLessThanItsBudgetStaysScalar() {
        var made = new AtomicInteger();
        var small = new SmallKernel(counting(new AtomicInteger(), "scalar"), () -> {
            made.incrementAndGet();
            return counting(new AtomicInteger(), "vector");
        }, Long.MAX_VALUE);
        for (int call = 0; call < 100 * SmallKernel.HOT_CALLS; call++) small.run(new Object[0], 0, 1);
        assertEquals(0, made.get());
    }
}
