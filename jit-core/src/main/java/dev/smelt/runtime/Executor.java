// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import dev.smelt.kernel.KernelForm;
import dev.smelt.kernel.KernelFunction;
import java.util.ArrayList;

/// Runs a kernel's rows: on the calling thread when the kernel is small, else split into one
/// contiguous block of rows per thread, the caller's first and the others on [Workers].
public final class Executor {
    /// Below this much work (KernelForm.work: about one unit per pointwise element) a kernel stays on
    /// the calling thread. A [Workers] thread that is still spinning takes a block within a
    /// microsecond; one that has parked (no kernel for 50 µs) takes long to wake on a 2-core VM.
    /// SplitBench (`sin(x·y + z)`, JMH, AMD EPYC AVX-512, 2026-11-23), two threads against one:
    /// back to back 1.69× at 2^17 elements and 1.84× at 2^20; after 1 ms idle 0.90× at 2^17 (about
    /// 0.13 ms more) and 1.01× at 2^20. Kernels of a program follow each other, so 2^17.
    public static final int PARALLEL_THRESHOLD = 1 << 17;

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
        var all = new Workers.Block[blocks - 1];
        var kept = new ArrayList<Workers.Block>(); // no idle worker: the caller runs them after its own block
        for (int b = 1; b < blocks; b++) {
            all[b - 1] = new Workers.Block(function, buffers, split(rows, blocks, b, granule), split(rows, blocks, b + 1, granule));
            if (!Workers.offer(all[b - 1], threads - 1)) kept.add(all[b - 1]);
        }
        Throwable failure = null;
        try {
            function.run(buffers, 0, split(rows, blocks, 1, granule));
            for (var block : kept) block.run();
        } catch (Throwable e) {
            failure = e;
        }
        for (var block : all) { // every block has finished before the call returns or throws
            block.join();
            if (failure == null) failure = block.failure();
        }
        if (failure instanceof RuntimeException e) throw e;
        if (failure instanceof Error e) throw e;
        if (failure != null) throw new IllegalStateException(failure);
    }

    // Block boundaries rounded down to the kernel's granule (KernelForm.splitGranule).
    private static int split(int rows, int blocks, int b, int granule) {
        if (b >= blocks) return rows;
        long boundary = (long) rows * b / blocks;
        return (int) Math.min(rows, boundary / granule * granule);
    }
}
