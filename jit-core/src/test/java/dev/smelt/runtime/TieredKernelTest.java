// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.codegen.KernelEmitter;
import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelFunction;
import java.lang.ref.WeakReference;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/// The tiering policy with stand-in variants: a lost comparison is tried again after a back-off
/// (the vector variant is slow until "C2" compiles it, here its 2,000th call), a waiting warm-up
/// holds its inputs weakly, and a forced tier never warms up.
class TieredKernelTest {
    private static final Shape SPACE = new Shape(List.of(64, 64));
    private static final Kernel COPY = new Kernel(SPACE, 0, List.of(new Kernel.Input(DType.F32, 4096, IndexMap.contiguous(SPACE))), List.of(),
            List.of(new Kernel.Output(new Expr.Load(0, DType.F32), 4096, IndexMap.contiguous(SPACE), false)));

    /// A copy of rows [start, end) that takes about `micros` per call.
    private static KernelFunction copy(java.util.function.IntSupplier micros) {
        return (buffers, start, end) -> {
            long until = System.nanoTime() + micros.getAsInt() * 1_000L;
            System.arraycopy(buffers[0], start * 64, buffers[1], start * 64, (end - start) * 64);
            while (System.nanoTime() < until) Thread.onSpinWait();
        };
    }

    @Test
    void aLostComparisonIsTriedAgainUntilTheVectorVariantTakesOver() throws InterruptedException {
        var vectorCalls = new AtomicInteger();
        // boxed, the stand-in is 6× slower: more than TieredKernel.COMPILED, so its losses are no verdict
        var tiered = new TieredKernel(COPY, copy(() -> 10), () -> copy(() -> vectorCalls.incrementAndGet() < 2_000 ? 60 : 1),
                "auto", 20_000_000L, 30_000_000L);
        float[] in = new float[4096], out = new float[4096];
        in[4095] = 7;
        boolean sawBackOff = false;
        // Rounds of 30 ms, back-offs from 20 ms doubling: on a quiet machine the vector variant takes
        // over within a second or two; in the shared test JVM, with C2 still compiling earlier
        // tests' kernels, a clean-clone CI run lost nine rounds (the tenth 10 s later) and 20 s ran out.
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!tiered.tier().equals("vector") && System.nanoTime() < deadline) {
            tiered.run(new Object[] {in, out}, 0, 64);
            sawBackOff |= tiered.tier().contains("trying again");
            Thread.sleep(1);
        }
        assertEquals("vector", tiered.tier());
        assertTrue(sawBackOff, "the first rounds, while the vector variant was slow, should have been lost");
        tiered.run(new Object[] {in, out}, 0, 64);
        assertEquals(7, out[4095]);
    }

    /// Cold until its first call, which the executor then keeps on the caller's thread.
    @Test
    void aTieredKernelIsColdUntilItsFirstCall() {
        var tiered = new TieredKernel(COPY, copy(() -> 0), () -> copy(() -> 0), "scalar", 20_000_000L, 30_000_000L);
        assertTrue(tiered.cold());
        tiered.run(new Object[] {new float[4096], new float[4096]}, 0, 64);
        assertFalse(tiered.cold());
    }

    /// A round lost while the JIT finished other compilations (the candidate may wait behind them in
    /// C2's queue) keeps the first back-off; one lost with the JIT idle counts towards the next.
    @Test
    void aRoundLostWhileTheJitIsBusyIsNotCounted() throws InterruptedException {
        var clock = new AtomicInteger();
        for (boolean busy : new boolean[] {true, false}) {
            var tiered = new TieredKernel(COPY, copy(() -> 1), () -> copy(() -> 50), "auto", 1_000_000L, 5_000_000L,
                    () -> busy ? clock.incrementAndGet() : 0);
            float[] in = new float[4096], out = new float[4096];
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!tiered.tier().contains("trying again") && System.nanoTime() < deadline) {
                tiered.run(new Object[] {in, out}, 0, 64);
                Thread.sleep(1);
            }
            assertEquals(busy, tiered.tier().contains("the JIT still compiling"), tiered.tier());
        }
    }

    /// A round the vector variant lost once compiled (within [TieredKernel#COMPILED] of the scalar
    /// time) counts towards the next back-off even while the JIT is busy: C2's queue is no reason.
    @Test
    void aRoundLostByCompiledCodeIsCountedWhileTheJitIsBusy() throws InterruptedException {
        var clock = new AtomicInteger();
        var tiered = new TieredKernel(COPY, copy(() -> 20), () -> copy(() -> 40), "auto", 1_000_000L, 30_000_000_000L, clock::incrementAndGet);
        float[] in = new float[4096], out = new float[4096];
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!tiered.tier().contains("trying again") && System.nanoTime() < deadline) {
            tiered.run(new Object[] {in, out}, 0, 64);
            Thread.sleep(1);
        }
        // and the round of 30 s ended after a few batches: the warming thread is free again at once
        assertTrue(tiered.tier().startsWith("scalar (the vector variant, compiled, was slower: "), tiered.tier());
        assertTrue(System.nanoTime() - deadline < 0, "the round ended at the verdict, not after 30 s");
    }

    /// No warm-up starts while a matmul tile warms up; one starts on a call after it ended.
    @Test
    void noWarmUpStartsWhileATileWarmsUp() throws InterruptedException {
        var vectorLoads = new AtomicInteger();
        var tiered = new TieredKernel(COPY, copy(() -> 0), () -> { vectorLoads.incrementAndGet(); return copy(() -> 0); }, "auto", 1_000_000L, 5_000_000L);
        float[] in = new float[4096], out = new float[4096];
        WarmUpOrder.tileStarted();
        try {
            for (int call = 0; call < 20; call++) tiered.run(new Object[] {in, out}, 0, 64);
            Thread.sleep(50);
            assertEquals(0, vectorLoads.get(), "a kernel warm-up started beside the tile's");
        } finally {
            WarmUpOrder.tileEnded();
        }
        long deadline = System.nanoTime() + 60_000_000_000L; // a real tile of the shared test JVM may be warming up too
        while (!tiered.tier().equals("vector") && System.nanoTime() < deadline) {
            tiered.run(new Object[] {in, out}, 0, 64);
            Thread.sleep(1);
        }
        assertEquals("vector", tiered.tier());
    }

    /// Warm-ups waiting for the warming thread keep no array alive that the program dropped.
    @Test
    void aWaitingWarmUpHoldsItsInputsWeakly() throws InterruptedException {
        var busy = new CountDownLatch(1);
        var blocker = new TieredKernel(COPY, copy(() -> 0), () -> { await(busy); return copy(() -> 0); }, "auto", 1_000_000_000L, 1_000_000L);
        float[] held = new float[4096]; // the blocking warm-up's input, alive until it has run
        blocker.run(new Object[] {held, new float[4096]}, 0, 64); // a kernel's first call starts no warm-up; its second does
        blocker.run(new Object[] {held, new float[4096]}, 0, 64);
        var waiting = new TieredKernel(COPY, copy(() -> 0), () -> copy(() -> 0), "auto", 1_000_000_000L, 1_000_000L);
        float[] input = new float[4096];
        var dropped = new WeakReference<>(input);
        waiting.run(new Object[] {input, new float[4096]}, 0, 64);
        waiting.run(new Object[] {input, new float[4096]}, 0, 64);
        input = null;
        for (int i = 0; i < 50 && dropped.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        busy.countDown();
        assertNull(dropped.get(), "a queued warm-up kept its input alive");
        assertEquals(4096, held.length);
    }

    /// New large kernels, one after another, each on a fresh 4 MB input the program then drops: the
    /// warm-ups must not keep the inputs (400 of them ran a 1 GB heap out of memory before).
    @Test
    void manyNewLargeKernelsKeepNoInputAlive() {
        var runtime = Runtime.getRuntime();
        long heap = 0;
        for (int k = 0; k < 80; k++) {
            var x = dev.smelt.Tensor.randn(new dev.smelt.Generator(k), 1 << 20);
            double c = 1 + k * 1e-3; // a new constant: a new kernel, with a warm-up of its own
            var compiled = dev.smelt.Jit.compile((dev.smelt.Tensor t) -> t.mul(c).sin().add(c));
            compiled.apply(x);
            compiled.apply(x); // the second call starts the warm-up
            if (k == 79) {
                System.gc();
                heap = runtime.totalMemory() - runtime.freeMemory();
            }
        }
        assertTrue(heap < 160L << 20, "heap after GC %d MB after 80 kernels on 4 MB inputs".formatted(heap >> 20));
    }

    /// A warm-up call runs about [TieredKernel#WARM_UP_ELEMENTS] elements, but at least the vector of
    /// rows a column reduction's vector loops need (its lanes are rows), however long its rows are,
    /// and never more rows than the call had.
    @Test
    void aColumnReductionWarmsUpOnAtLeastAVectorOfRows() {
        for (int length : new int[] {100, 4096, 100_000}) {
            var columnSum = columnSum(length);
            int lanes = KernelEmitter.vectorRows(columnSum);
            assertTrue(lanes > 1, "a column sum of 64 rows runs a vector of rows at once: " + lanes);
            assertEquals(Math.min(64, Math.max(lanes, TieredKernel.WARM_UP_ELEMENTS / length)), TieredKernel.warmUpRows(columnSum, 64), "rows of " + length);
            assertEquals(3, TieredKernel.warmUpRows(columnSum, 3));
            var rowSum = rowSum(length);
            assertEquals(1, KernelEmitter.vectorRows(rowSum));
            assertEquals(Math.min(64, Math.max(1, TieredKernel.WARM_UP_ELEMENTS / length)), TieredKernel.warmUpRows(rowSum, 64), "rows of " + length);
        }
    }

    /// With the calls on no rows that follow each timed one, the warm-up's calls of a vector class
    /// average at most [TieredKernel#BACK_EDGES_PER_CALL] loop iterations (unless that would take
    /// more than [TieredKernel#IDLE_CALLS]), and no more idle calls are made than that needs: C2 then compiles the whole `run` once, before any of its loops
    /// alone (`TierUpTime` lists the compilations).
    @Test
    void warmUpCallsOfTheVectorClassAverageFewBackEdges() {
        for (int length : new int[] {1, 100, 1024, 4096, 100_000})
            for (Kernel kernel : new Kernel[] {rowSum(length), columnSum(length), COPY}) {
                int rows = TieredKernel.warmUpRows(kernel, 64), idle = TieredKernel.idleCalls(kernel, rows);
                long edges = KernelEmitter.backEdges(kernel, rows);
                assertTrue(edges <= (1L + idle) * TieredKernel.BACK_EDGES_PER_CALL || idle == TieredKernel.IDLE_CALLS,
                        "%d back edges over %d calls, rows of %d".formatted(edges, 1 + idle, length));
                assertTrue((long) idle * TieredKernel.BACK_EDGES_PER_CALL < edges, "%d idle calls for %d back edges".formatted(idle, edges));
            }
        assertTrue(TieredKernel.idleCalls(rowSum(4096), 1) > 0, "one row of 4,096 is more back edges than one call should make");
    }

    private static Kernel rowSum(int length) {
        var space = new Shape(List.of(64, length));
        return new Kernel(space, 1, List.of(new Kernel.Input(DType.F32, 64 * length, IndexMap.contiguous(space))),
                List.of(new Kernel.Reduction(ReduceOp.SUM, new Expr.Load(0, DType.F32))),
                List.of(new Kernel.Output(new Expr.Accumulated(0, DType.F32), 64, new IndexMap(0, List.of(1, 0)), true)));
    }

    private static Kernel columnSum(int length) {
        var space = new Shape(List.of(64, length));
        return new Kernel(space, 1, List.of(new Kernel.Input(DType.F32, 64 * length, new IndexMap(0, List.of(1, 64)))),
                List.of(new Kernel.Reduction(ReduceOp.SUM, new Expr.Load(0, DType.F32))),
                List.of(new Kernel.Output(new Expr.Accumulated(0, DType.F32), 64, new IndexMap(0, List.of(1, 0)), true)));
    }

    @Test
    void aForcedTierNeverWarmsUp() {
        var vectorLoads = new AtomicInteger();
        var scalar = new TieredKernel(COPY, copy(() -> 0), () -> { vectorLoads.incrementAndGet(); return copy(() -> 0); }, "scalar", 1, 1);
        float[] out = new float[4096];
        for (int i = 0; i < 100; i++) scalar.run(new Object[] {new float[4096], out}, 0, 64);
        assertEquals(0, vectorLoads.get());
        assertTrue(scalar.tier().contains("forced"), scalar.tier());
        var vector = new TieredKernel(COPY, copy(() -> 0), () -> { vectorLoads.incrementAndGet(); return copy(() -> 0); }, "vector", 1, 1);
        assertEquals(1, vectorLoads.get());
        assertTrue(vector.tier().startsWith("vector"), vector.tier());
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
