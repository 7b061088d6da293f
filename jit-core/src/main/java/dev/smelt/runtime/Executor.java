// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import dev.smelt.kernel.KernelForm;
import dev.smelt.kernel.KernelFunction;
import java.util.ArrayList;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;

/// Runs a kernel's rows: on the calling thread when the kernel is small, else split into one
/// contiguous block of rows per core on one shared pool sized to the machine.
public final class Executor {
    /// Below this much work (KernelForm.work: about one unit per pointwise element) a kernel stays on
    /// the calling thread. Handing a block to a parked pool thread costs about 45 µs (median) on a
    /// 2-core VM, where waking the other core takes the host's time: split at 2^16 elements, a
    /// `sin(x·y + z)` kernel took 66 µs on two threads against 40 µs on one, and 128³ matmuls 74
    /// against 46 µs; both gain from 2^18 (164 → 135 µs; 256³ 329 → 243 µs, medians of a harness,
    /// AMD EPYC AVX-512, 2026-11-22).
    public static final int PARALLEL_THRESHOLD = 1 << 18;

    private static final ForkJoinPool POOL = ForkJoinPool.commonPool();

    private final int threads;
    private final long threshold;

    /// `threads` ≤ 1 runs everything on the calling thread.
    public Executor(int threads) { this(threads, PARALLEL_THRESHOLD); }

    /// Splitting kernels of at least `threshold` work (tests split small ones to check the split).
    public Executor(int threads, long threshold) {
        this.threads = threads;
        this.threshold = threshold;
    }

    /// Threads a kernel may use: `-Dsmelt.threads=N`, else one per core.
    public static Executor shared() {
        return new Executor(Integer.getInteger("smelt.threads", Runtime.getRuntime().availableProcessors()));
    }

    public static Executor sequential() { return new Executor(1); }

    void run(KernelFunction function, Object[] buffers, KernelForm kernel) {
        run(function, buffers, kernel.workItems(), kernel.work(), kernel.splitGranule());
    }

    /// [#run(KernelFunction, Object[], KernelForm)] with the kernel's sizes worked out beforehand.
    void run(KernelFunction function, Object[] buffers, int rows, long work, int granule) {
        if (threads <= 1 || rows < 2 || work < threshold) {
            function.run(buffers, 0, rows);
            return;
        }
        int blocks = Math.min(threads, rows);
        var tasks = new ArrayList<ForkJoinTask<?>>();
        for (int b = 1; b < blocks; b++) {
            int start = split(rows, blocks, b, granule), end = split(rows, blocks, b + 1, granule);
            tasks.add(POOL.submit(() -> function.run(buffers, start, end)));
        }
        function.run(buffers, 0, split(rows, blocks, 1, granule));
        for (var task : tasks) task.join();
    }

    // Block boundaries rounded down to the kernel's granule (KernelForm.splitGranule).
    private static int split(int rows, int blocks, int b, int granule) {
        if (b >= blocks) return rows;
        long boundary = (long) rows * b / blocks;
        return (int) Math.min(rows, boundary / granule * granule);
    }
}
