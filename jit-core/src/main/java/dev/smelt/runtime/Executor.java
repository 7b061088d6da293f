// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import dev.smelt.kernel.KernelForm;
import dev.smelt.kernel.KernelFunction;

/// Runs a kernel's rows: on the calling thread when the kernel is small (below [#PARALLEL_THRESHOLD],
/// or below [#AWAKE_THRESHOLD] while a worker is awake) or its code has not run yet
/// ([KernelFunction#cold]), else cut into chunks that the caller and idle [Workers] claim until
/// none is left ([Split]): KernelForm.chunksPerThread per thread for a large kernel, one per
/// thread for one that splits only because a worker is awake.
///
/// A cold kernel's first call runs interpreted, then in C1's code, until C2 has compiled it on
/// another core; a split would give that core to a second thread running the same slow code, and
/// C2's code would come later.
public final class Executor {
    /// Below this much work (KernelForm.work: about one unit per pointwise element) a kernel stays on
    /// the calling thread unless a worker is awake ([#AWAKE_THRESHOLD]). A [Workers] thread that is
    /// still spinning takes a chunk within a microsecond; one that has parked (no kernel for
    /// [Workers#SPIN_NANOS]) takes long to wake on a 2-core VM, and the caller meanwhile runs the
    /// chunks itself.
    /// SplitBench (`sin(x·y + z)`, JMH, AMD EPYC AVX-512, 2026-11-23), two threads against one:
    /// back to back 1.69× at 2^17 elements and 1.84× at 2^20; after 1 ms idle 0.90× at 2^17 (about
    /// 0.13 ms more) and 1.01× at 2^20. Kernels of a program follow each other, so 2^17.
    public static final int PARALLEL_THRESHOLD = 1 << 17;

    /// Down to this much work a kernel still splits while a worker is awake (busy, or spinning
    /// after the previous split kernel): it starts within a microsecond, so only the chunks' claims
    /// and the join are overhead. A decode step's products are of this size and follow each other
    /// within the spin: stories15M's 288×288 and 768×288 GEMVs (28 and 74 thousand units), which
    /// ran on the caller alone while the worker spun beside it.
    static final int AWAKE_THRESHOLD = 1 << 13;

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
        return new Executor(dev.smelt.ir.Settings.integer("smelt.threads", Runtime.getRuntime().availableProcessors(), 1));
    }

    public static Executor sequential() { return new Executor(1); }

    /// What explain() says about the threads a program's kernels use.
    String describe() {
        if (threads <= 1) return "threads: 1 (-Dsmelt.threads): every kernel runs on the calling thread";
        return ("threads: %d (-Dsmelt.threads, default one per core): a kernel of at least %,d work units is cut into chunks for"
                + " the caller and the workers; one of %,d or more, in one piece per thread, while a worker is awake").formatted(threads, threshold, AWAKE_THRESHOLD);
    }

    void run(KernelFunction function, Object[] buffers, KernelForm kernel) {
        run(function, buffers, kernel.workItems(), kernel.work(), kernel.splitGranule(), kernel.chunksPerThread());
    }

    /// Pieces of about [#COLD_PIECE_WORK] work that a large cold kernel runs first, before its pieces double.
    static final int COLD_PIECES = 128;
    static final int COLD_PIECE_WORK = 64;

    /// A large cold kernel on the caller, in [#COLD_PIECES] small pieces, then in pieces that
    /// double. Run whole, its loop would be compiled while running (OSR) from a profile in which it
    /// never ended, and C2 compiles a branch never taken as a trap: the loop's end threw C2's code
    /// away when the first call finished (`-Xlog:deoptimization`: `unstable_if`), and the second
    /// call ran in C1's code again. Small pieces end their loops early and often, while C1's
    /// profiling code counts it, and have HotSpot compile the method after about 100 calls
    /// (`Tier3MinInvocationThreshold`) rather than its loop after 60,000 back edges. A kernel below
    /// [#PARALLEL_THRESHOLD] runs whole: its first call ends before C2 compiles its loop.
    private static void runCold(KernelFunction function, Object[] buffers, int rows, long work, int granule) {
        long perRow = Math.max(1, work / Math.max(1, rows));
        long piece = Math.max(1, (COLD_PIECE_WORK / perRow + granule - 1) / granule) * granule;
        for (int p = 0, start = 0; start < rows; p++) {
            int end = (int) Math.min(rows, start + piece);
            function.run(buffers, start, end);
            start = end;
            if (p >= COLD_PIECES) piece *= 2;
        }
    }

    /// [#run(KernelFunction, Object[], KernelForm)] with the kernel's sizes worked out beforehand.
    void run(KernelFunction function, Object[] buffers, int rows, long work, int granule, int chunksPerThread) {
        // a small kernel runs whole whether its code is cold or not: no need to ask on every launch
        if (rows < 2 || work < threshold && (work < AWAKE_THRESHOLD || threads <= 1)) {
            function.run(buffers, 0, rows);
            return;
        }
        if (function.cold()) {
            if (work >= threshold) runCold(function, buffers, rows, work, granule);
            else function.run(buffers, 0, rows);
            return;
        }
        if (threads <= 1) {
            function.run(buffers, 0, rows);
            return;
        }
        if (work < threshold && !Workers.awake(threads - 1)) {
            Workers.wake(threads - 1); // for the next kernel: this one does not wait for it
            function.run(buffers, 0, rows);
            return;
        }
        // A kernel below the threshold splits only because a worker is awake, and it starts within a
        // microsecond: one piece each, since every further claim costs a cache line passed
        // between the cores (about 0.2 µs on these VMs) and pieces taken in turn end unevenly.
        int perThread = work < threshold ? 1 : chunksPerThread;
        int chunks = (int) Math.min((long) threads * perThread, Math.max(2, (rows + granule - 1) / granule));
        var split = new Split(function, buffers, rows, chunks, granule);
        for (int w = 1; w < Math.min(threads, chunks); w++)
            if (!Workers.offer(split, threads - 1)) break; // no idle worker: the caller takes the chunks
        split.help();
        split.join();
    }
}
