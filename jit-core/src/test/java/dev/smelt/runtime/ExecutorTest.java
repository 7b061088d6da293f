// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.AttentionPart;
import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.AttentionKernel;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelFunction;
import dev.smelt.kernel.KernelInterpreter;
import java.util.List;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/// Large kernels split their rows across threads; the result must not depend on the split.
class ExecutorTest {
    @Test
    void aLargePointwiseKernelSplitAcrossThreadsEqualsOneThread() {
        int n = 2 * Executor.PARALLEL_THRESHOLD + 3;
        assertSplitsAgree(sine(n), n, n);
    }

    @Test
    void aLargeRowKernelSplitsByRows() {
        int rows = 2 * Executor.PARALLEL_THRESHOLD / 517 + 1, columns = 517;
        var space = Shape.of(rows, columns);
        var input = new Kernel.Input(DType.F32, rows * columns, IndexMap.contiguous(space));
        var sum = new Kernel.Reduction(ReduceOp.SUM, new Expr.Load(0, DType.F32));
        var scaled = new Expr.Binary(BinaryOp.DIV, new Expr.Load(0, DType.F32), new Expr.Accumulated(0, DType.F32));
        var kernel = new Kernel(space, 1, List.of(input), List.of(sum), List.of(new Kernel.Output(scaled, rows * columns, IndexMap.contiguous(space), false)));
        assertSplitsAgree(kernel, rows * columns, rows * columns);
    }

    /// A decode step's attention (one query per head over a cache of keys) is mostly fixed work per
    /// block of keys, not multiply-adds: counted as such, stories15M's (6 heads, 256 keys, head
    /// size 48) splits while a worker is awake and stays on the caller while the workers are parked.
    @Test
    void aDecodeStepsAttentionSplitsOnlyWhileAWorkerIsAwake() {
        var kernel = new AttentionKernel(List.of(AttentionPart.OUTPUT), Shape.of(1, 6, 1, 256), 6, 48, 48, false, 1 / Math.sqrt(48), DType.F32, DType.BOOL, List.of(0, 0, 256, 1));
        assertTrue(kernel.work() >= Executor.AWAKE_THRESHOLD && kernel.work() < Executor.PARALLEL_THRESHOLD, "work " + kernel.work());
    }

    /// A kernel below the threshold that pays for waking a parked worker, but of at least
    /// AWAKE_THRESHOLD work, splits right after a large kernel (the worker spins) and runs on the
    /// caller alone, in one call, once the workers have parked. Up to 20 attempts each: other
    /// tests' warm-ups may hold the worker, and a pause longer than its spin parks it.
    @Test
    void aMidSizedKernelSplitsOnlyWhileAWorkerIsAwake() throws InterruptedException {
        int n = 4 * Executor.AWAKE_THRESHOLD + 3;
        var kernel = sine(n);
        var threads = ConcurrentHashMap.<String>newKeySet();
        var caller = Thread.currentThread();
        KernelFunction waiting = (buffers, start, end) -> { // the caller's chunk waits a while for the worker to take one
            threads.add(Thread.currentThread().getName());
            long until = System.nanoTime() + 200_000_000L;
            while (Thread.currentThread() == caller && threads.size() < 2 && System.nanoTime() < until) Thread.onSpinWait();
        };
        boolean split = false;
        for (int attempt = 0; attempt < 20 && !split; attempt++) {
            new Executor(2).run(waiting, new Object[0], sine(2 * Executor.PARALLEL_THRESHOLD)); // wakes the worker
            threads.clear();
            new Executor(2).run(waiting, new Object[0], kernel);
            split = threads.size() == 2;
        }
        if (!split) assumeTwoFreeCores();
        assertTrue(split, "right after a split kernel, the kernel should run on two threads: " + threads);

        var calls = new ArrayList<String>();
        KernelFunction recording = (buffers, start, end) -> {
            synchronized (calls) { calls.add(Thread.currentThread().getName() + " " + start + ".." + end); }
        };
        var alone = List.of(caller.getName() + " 0.." + n);
        for (int attempt = 0; attempt < 20 && !calls.equals(alone); attempt++) {
            long until = System.nanoTime() + 10_000_000_000L;
            while (Workers.awake(1) && System.nanoTime() < until) Thread.sleep(1 + Workers.SPIN_NANOS / 1_000_000);
            calls.clear();
            new Executor(2).run(recording, new Object[0], kernel);
        }
        assertEquals(alone, calls, "once the worker has parked");
    }

    /// A kernel below the threshold that splits because the worker is awake is cut in one piece per
    /// thread, contiguous, that together cover its rows once: each further piece would cost a claim
    /// passed between the cores. Up to 20 attempts, as above.
    @Test
    void aMidSizedKernelSplitsInOnePiecePerThread() {
        int n = 4 * Executor.AWAKE_THRESHOLD + 3;
        var caller = Thread.currentThread();
        var calls = new ArrayList<int[]>();
        var threads = ConcurrentHashMap.<String>newKeySet();
        KernelFunction waiting = (buffers, start, end) -> { // the caller's piece waits a while for the worker to take one
            threads.add(Thread.currentThread().getName());
            synchronized (calls) { calls.add(new int[] {start, end}); }
            long until = System.nanoTime() + 200_000_000L;
            while (Thread.currentThread() == caller && threads.size() < 2 && System.nanoTime() < until) Thread.onSpinWait();
        };
        for (int attempt = 0; attempt < 20 && threads.size() < 2; attempt++) {
            threads.clear();
            new Executor(2).run(waiting, new Object[0], sine(2 * Executor.PARALLEL_THRESHOLD)); // wakes the worker
            threads.clear();
            calls.clear();
            new Executor(2).run(waiting, new Object[0], sine(n));
        }
        if (threads.size() < 2) assumeTwoFreeCores();
        assertEquals(2, threads.size(), "right after a split kernel, the kernel should run on two threads");
        calls.sort(java.util.Comparator.comparingInt(call -> call[0]));
        assertEquals(2, calls.size(), "pieces");
        assertEquals(0, calls.get(0)[0]);
        assertEquals(calls.get(0)[1], calls.get(1)[0]);
        assertEquals(n, calls.get(1)[1]);
        assertEquals(0, calls.get(0)[1] % 64, "a piece ends on the granule");
    }

    /// The tests of a worker's spin window need this JVM to run two threads at once: with another
    /// process busy on one of two cores, the caller and a spinning worker take turns on the other,
    /// the worker's 400 µs pass while it waits for the core, and the tests measure the machine, not
    /// the executor (they failed so under a stress run at nice 10). So when one fails, two threads
    /// spin for 100 ms, and unless each got most of it in CPU time, the test is skipped instead.
    static void assumeTwoFreeCores() {
        var bean = java.lang.management.ManagementFactory.getThreadMXBean();
        long[] cpu = new long[2];
        Runnable spin = () -> {
            long until = System.nanoTime() + 100_000_000L;
            while (System.nanoTime() < until) Thread.onSpinWait();
        };
        var other = new Thread(() -> { spin.run(); cpu[1] = bean.getCurrentThreadCpuTime(); });
        long mine = bean.getCurrentThreadCpuTime();
        other.start();
        spin.run();
        cpu[0] = bean.getCurrentThreadCpuTime() - mine;
        try {
            other.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(cpu[0] > 70_000_000L && cpu[1] > 70_000_000L,
                "two threads did not run at once: %d and %d ms of CPU in 100 ms".formatted(cpu[0] / 1_000_000, cpu[1] / 1_000_000));
    }

    /// An interrupted worker parks again once idle: with its interrupt flag left set, every park
    /// returned at once, and the idle worker took a core for good.
    @Test
    void anInterruptedWorkerStillParks() throws InterruptedException {
        new Executor(2).run((buffers, start, end) -> {}, new Object[0], sine(2 * Executor.PARALLEL_THRESHOLD)); // starts the worker
        Thread worker = Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("smelt-worker-0")).findFirst().orElseThrow();
        worker.interrupt();
        Thread.sleep(50); // the interrupt wakes it; then it spins for SPIN_NANOS and parks
        for (long until = System.nanoTime() + 2_000_000_000L; worker.getState() != Thread.State.WAITING && System.nanoTime() < until; ) Thread.sleep(1);
        int parked = 0;
        for (int sample = 0; sample < 50; sample++, Thread.sleep(2)) if (worker.getState() == Thread.State.WAITING) parked++;
        assertTrue(parked >= 25, "the interrupted worker should be parked while idle, but was parked at %d of 50 samples".formatted(parked));
    }

    /// A mid-sized kernel that finds the worker parked soon after a split runs alone but wakes it,
    /// so that the kernels after it split again: a worker that parked while the caller was away
    /// stayed parked until the next large kernel. Up to 20 attempts, as above.
    @Test
    void aMidSizedKernelWakesAWorkerThatParkedSoonAfterASplit() {
        var caller = Thread.currentThread();
        var threads = ConcurrentHashMap.<String>newKeySet();
        KernelFunction waiting = (buffers, start, end) -> {
            threads.add(Thread.currentThread().getName());
            long until = System.nanoTime() + 200_000_000L;
            while (Thread.currentThread() == caller && threads.size() < 2 && System.nanoTime() < until) Thread.onSpinWait();
        };
        boolean woken = false;
        for (int attempt = 0; attempt < 20 && !woken; attempt++) {
            threads.clear();
            new Executor(2).run(waiting, new Object[0], sine(2 * Executor.PARALLEL_THRESHOLD)); // the split
            long until = System.nanoTime() + 2 * Workers.RECENT_NANOS;
            while (Workers.awake(1) && System.nanoTime() < until) Thread.onSpinWait();
            if (Workers.awake(1)) continue; // held by another test's split: try again
            var alone = new ArrayList<String>();
            new Executor(2).run((buffers, start, end) -> alone.add(Thread.currentThread().getName()), new Object[0], sine(4 * Executor.AWAKE_THRESHOLD));
            assertEquals(List.of(caller.getName()), alone, "a parked worker is not waited for");
            until = System.nanoTime() + 1_000_000_000L;
            while (!Workers.awake(1) && System.nanoTime() < until) Thread.onSpinWait();
            woken = Workers.awake(1);
        }
        if (!woken) assumeTwoFreeCores();
        assertTrue(woken, "the worker should be spinning again after the mid-sized kernel");
    }

    /// A kernel whose code has not run yet stays on the caller, even right after a split (the
    /// worker spinning): the other core is C2's while that code runs interpreted. A large one runs
    /// in pieces that cover its rows once, in order: COLD_PIECES of a granule, then doubling ones;
    /// a smaller one in one call.
    @Test
    void aColdKernelRunsOnTheCallerAloneInPiecesThatGrow() {
        var caller = Thread.currentThread();
        int n = 2 * Executor.PARALLEL_THRESHOLD + 5;
        var calls = new ArrayList<int[]>();
        var threads = ConcurrentHashMap.<String>newKeySet();
        KernelFunction cold = new KernelFunction() {
            @Override
            public void run(Object[] buffers, int start, int end) {
                threads.add(Thread.currentThread().getName());
                synchronized (calls) { calls.add(new int[] {start, end}); }
            }

            @Override
            public boolean cold() { return true; }
        };
        new Executor(2).run((buffers, start, end) -> {}, new Object[0], sine(n)); // wakes the worker
        new Executor(2).run(cold, new Object[0], sine(n));
        assertEquals(Set.of(caller.getName()), threads);
        int covered = 0;
        for (int p = 0; p < calls.size(); p++) {
            int[] call = calls.get(p);
            assertEquals(covered, call[0], "piece " + p + " starts where the last ended");
            int expected = p <= Executor.COLD_PIECES ? 64 : 64 << (p - Executor.COLD_PIECES);
            if (call[1] < n) assertEquals(expected, call[1] - call[0], "piece " + p);
            covered = call[1];
        }
        assertEquals(n, covered);

        calls.clear();
        new Executor(2).run((buffers, start, end) -> {}, new Object[0], sine(n)); // wakes the worker
        new Executor(2).run(cold, new Object[0], sine(4 * Executor.AWAKE_THRESHOLD));
        assertEquals(1, calls.size(), "a mid-sized cold kernel in one call");
        assertEquals(4 * Executor.AWAKE_THRESHOLD, calls.getFirst()[1]);
    }

    /// explain() says how many threads a program's kernels use and when they split.
    @Test
    void describeNamesTheThreadsAndTheThresholds() {
        assertTrue(new Executor(1).describe().startsWith("threads: 1 "), new Executor(1).describe());
        String three = new Executor(3).describe();
        assertTrue(three.startsWith("threads: 3 ") && three.contains("131,072") && three.contains("8,192"), three);
    }

    private static Kernel sine(int n) {
        var space = Shape.of(n);
        var input = new Kernel.Input(DType.F32, n, IndexMap.contiguous(space));
        var value = new Expr.Unary(UnaryOp.SIN, new Expr.Load(0, DType.F32));
        return new Kernel(space, 0, List.of(input), List.of(), List.of(new Kernel.Output(value, n, IndexMap.contiguous(space), false)));
    }

    private static void assertSplitsAgree(Kernel kernel, int inputSize, int outputSize) {
        float[] in = new float[inputSize];
        for (int i = 0; i < in.length; i++) in[i] = (float) Math.sin(i * 0.37) + 1;
        float[] alone = new float[outputSize], split = new float[outputSize];
        Set<String> threads = ConcurrentHashMap.newKeySet();
        KernelFunction interpreter = new KernelInterpreter(kernel);
        KernelFunction recording = (buffers, start, end) -> {
            threads.add(Thread.currentThread().getName());
            interpreter.run(buffers, start, end);
        };
        Executor.sequential().run(recording, new Object[] {in, alone}, kernel);
        assertEquals(1, threads.size());
        threads.clear();
        // the caller's first chunk waits for the worker to take one, which a slow start would otherwise leave to the caller
        var caller = Thread.currentThread();
        KernelFunction waiting = (buffers, start, end) -> {
            recording.run(buffers, start, end);
            long until = System.nanoTime() + 10_000_000_000L;
            while (Thread.currentThread() == caller && threads.size() < 2 && System.nanoTime() < until) Thread.onSpinWait();
        };
        new Executor(2).run(waiting, new Object[] {in, split}, kernel);
        assertEquals(2, threads.size(), "the kernel should run on two threads: " + threads);
        assertArrayEquals(alone, split);
    }

    /// A chunk that throws on a worker: the caller gets that exception, after every chunk ran.
    @Test
    void aWorkersExceptionReachesTheCallerOnceEveryChunkFinished() {
        var ran = new AtomicInteger();
        var boom = new IllegalStateException("chunk 3 fails");
        KernelFunction failing = (buffers, start, end) -> {
            ran.incrementAndGet();
            if (start == 3) throw boom;
        };
        var thrown = assertThrows(IllegalStateException.class, () -> new Executor(4, 0).run(failing, new Object[0], 4, 1, 1, 4));
        assertSame(boom, thrown);
        assertEquals(4, ran.get());
    }

    /// Many callers at once, each splitting into more chunks than there are idle workers: every
    /// call gets all its rows computed exactly once, and none waits for another's chunks.
    @Test
    void concurrentCallersShareTheWorkersWithoutLosingABlock() throws Exception {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            var pool = Executors.newFixedThreadPool(6);
            try {
                var calls = new ArrayList<Future<?>>();
                for (int c = 0; c < 6; c++)
                    calls.add(pool.submit(() -> {
                        var executor = new Executor(5, 0);
                        for (int call = 0; call < 2000; call++) {
                            int rows = 1 + call % 37;
                            int[] counts = new int[rows];
                            KernelFunction counting = (buffers, start, end) -> {
                                for (int r = start; r < end; r++) counts[r]++;
                            };
                            executor.run(counting, new Object[0], rows, 1, 1, 4);
                            for (int r = 0; r < rows; r++) assertEquals(1, counts[r], "row " + r + " of " + rows);
                        }
                        return null;
                    }));
                for (var call : calls) call.get();
            } finally {
                pool.shutdown();
            }
        });
    }

    /// A worker still inside another call's last chunk is handed the next split (the other
    /// call's chunks are all claimed) but cannot come: the caller runs every chunk and returns
    /// without waiting for it, every row computed once.
    @Test
    void aLateWorkersShareIsTakenByTheCaller() throws Exception {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            var release = new java.util.concurrent.CountDownLatch(1);
            var holding = new java.util.concurrent.CountDownLatch(1);
            var executor = new Executor(2, 0);
            var other = Thread.ofPlatform().start(() -> executor.run((buffers, start, end) -> {
                boolean worker = Thread.currentThread().getName().startsWith("smelt-worker");
                if (worker) holding.countDown();
                try { // the other caller's own chunk waits until the worker has one, so that it does get one
                    (worker ? release : holding).await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, new Object[0], 8, 1, 1, 4));
            holding.await(); // the worker is inside the other call's chunk and stays there
            int rows = 1000;
            int[] counts = new int[rows];
            Set<String> threads = ConcurrentHashMap.newKeySet();
            executor.run((buffers, start, end) -> {
                threads.add(Thread.currentThread().getName());
                for (int r = start; r < end; r++) counts[r]++;
            }, new Object[0], rows, 1, 1, 4);
            for (int r = 0; r < rows; r++) assertEquals(1, counts[r], "row " + r);
            assertEquals(Set.of(Thread.currentThread().getName()), threads);
            release.countDown();
            other.join();
        });
    }

    /// The chunks' boundaries fall on the kernel's granule, so a row group that vector code
    /// computes as one is never cut between two chunks.
    @Test
    void chunksStartOnTheGranule() {
        for (int rows : new int[] {2, 63, 64, 65, 130, 1000, 4097}) {
            var starts = ConcurrentHashMap.<Integer>newKeySet();
            int[] counts = new int[rows];
            new Executor(2, 0).run((buffers, start, end) -> {
                starts.add(start);
                for (int r = start; r < end; r++) counts[r]++;
            }, new Object[0], rows, 1, 64, 4);
            for (int start : starts) assertEquals(0, start % 64, rows + " rows: a chunk starts at " + start);
            for (int r = 0; r < rows; r++) assertEquals(1, counts[r], rows + " rows: row " + r);
        }
    }

    /// A kernel cut into one chunk per thread (a packed matmul, whose every call packs its left
    /// operand) is called at most once per thread; the default cuts four per thread.
    @Test
    void chunksPerThreadBoundTheCalls() {
        for (int perThread : new int[] {1, 4}) {
            var calls = new AtomicInteger();
            int[] counts = new int[1000];
            new Executor(2, 0).run((buffers, start, end) -> {
                calls.incrementAndGet();
                for (int r = start; r < end; r++) counts[r]++;
            }, new Object[0], counts.length, 1, 1, perThread);
            assertEquals(2 * perThread, calls.get());
            for (int r = 0; r < counts.length; r++) assertEquals(1, counts[r], "row " + r);
        }
    }
}
