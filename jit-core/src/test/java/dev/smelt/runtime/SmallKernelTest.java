// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.kernel.KernelFunction;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
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
        var small = new SmallKernel(counting(scalarCalls, "scalar"), held -> {
            made.incrementAndGet();
            return counting(new AtomicInteger(), "vector");
        }, 0, 0);
        for (int call = 1; call < SmallKernel.HOT_CALLS; call++) small.run(new Object[0], 0, 1);
        assertEquals(0, made.get());
        assertEquals(SmallKernel.HOT_CALLS - 1, scalarCalls.get());
        assertTrue(small.tier().startsWith("scalar (small kernel; a vector variant is tried once it has run 256 times, then"), small.tier());
    }

    /// The hot call only queues the promotion: the tiered function is made on the warming thread,
    /// and calls run scalar code until it is there.
    @Test
    void aHotKernelGoesToItsTieredFunctionMadeOnTheWarmingThread() throws InterruptedException {
        var scalarCalls = new AtomicInteger();
        var tieredCalls = new AtomicInteger();
        var made = new AtomicInteger();
        var caller = Thread.currentThread();
        var madeOn = new AtomicReference<Thread>();
        var small = new SmallKernel(counting(scalarCalls, "scalar"), held -> {
            made.incrementAndGet();
            madeOn.set(Thread.currentThread());
            return counting(tieredCalls, "vector");
        }, 0, 0);
        long deadline = System.nanoTime() + 60_000_000_000L; // the warming thread may be busy with other tests' kernels
        while (!small.tier().startsWith("vector") && System.nanoTime() < deadline) {
            small.run(new Object[0], 0, 1);
            if (scalarCalls.get() > SmallKernel.HOT_CALLS) Thread.sleep(1);
        }
        assertEquals("vector (a small kernel, run often)", small.tier());
        assertEquals(0, tieredCalls.get(), "no call reached the tiered function before it was published");
        for (int call = 0; call < 100; call++) small.run(new Object[0], 0, 1);
        assertEquals(1, made.get(), "the tiered function is made once");
        assertEquals(100, tieredCalls.get(), "every call after the promotion goes to the tiered function");
        assertNotSame(caller, madeOn.get());
        assertEquals("smelt-kernel-warm-up", madeOn.get().getName());
    }

    /// Threads splitting a kernel's rows call it at once: one of them queues the promotion.
    @Test
    void threadsCallingAHotKernelMakeItsTieredFunctionOnce() throws InterruptedException {
        var made = new AtomicInteger();
        var small = new SmallKernel(counting(new AtomicInteger(), "scalar"), held -> {
            made.incrementAndGet();
            return counting(new AtomicInteger(), "vector");
        }, 0, 0);
        var threads = new ArrayList<Thread>();
        for (int t = 0; t < 4; t++) threads.add(Thread.ofPlatform().start(() -> {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!small.tier().startsWith("vector") && System.nanoTime() < deadline) small.run(new Object[0], 0, 1);
        }));
        for (Thread thread : threads) thread.join();
        assertEquals("vector (a small kernel, run often)", small.tier());
        assertEquals(1, made.get());
    }

    /// A vector variant that cannot be made (a class that fails to load) leaves the kernel on its
    /// scalar code, says so, and is not tried again.
    @Test
    void aFailedPromotionStaysScalarAndSaysWhy() throws InterruptedException {
        var scalarCalls = new AtomicInteger();
        var made = new AtomicInteger();
        var small = new SmallKernel(counting(scalarCalls, "scalar"), held -> {
            made.incrementAndGet();
            throw new IllegalStateException("no vector class");
        }, 0, 0);
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!small.tier().contains("failed") && System.nanoTime() < deadline) {
            small.run(new Object[0], 0, 1);
            if (scalarCalls.get() > SmallKernel.HOT_CALLS) Thread.sleep(1);
        }
        assertEquals("scalar (small kernel; its vector variant failed: java.lang.IllegalStateException: no vector class)", small.tier());
        int before = scalarCalls.get();
        for (int call = 0; call < 10 * SmallKernel.HOT_CALLS; call++) small.run(new Object[0], 0, 1);
        assertEquals(before + 10 * SmallKernel.HOT_CALLS, scalarCalls.get());
        assertEquals(1, made.get());
    }

    @Test
    void aKernelThatTakesLessThanItsBudgetStaysScalar() {
        var made = new AtomicInteger();
        var small = new SmallKernel(counting(new AtomicInteger(), "scalar"), held -> {
            made.incrementAndGet();
            return counting(new AtomicInteger(), "vector");
        }, 0, Long.MAX_VALUE);
        for (int call = 0; call < 100 * SmallKernel.HOT_CALLS; call++) small.run(new Object[0], 0, 1);
        assertEquals(0, made.get());
    }
}
