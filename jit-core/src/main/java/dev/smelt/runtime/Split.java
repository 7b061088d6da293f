// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import dev.smelt.kernel.KernelFunction;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/// One kernel's rows cut into chunks that the caller and the [Workers] it was handed to claim one
/// at a time from a counter. A worker that starts late (parked, or descheduled on a busy 2-core
/// VM) finds the chunks taken and leaves: the caller waits only for chunks already running,
/// never for a share set aside for a thread that has not come. With one fixed block per thread
/// the caller waited out the late thread's whole block.
final class Split {
    private final KernelFunction function;
    private final Object[] buffers;
    private final int rows, chunks, granule;
    private final Thread caller = Thread.currentThread();
    private final AtomicInteger next = new AtomicInteger(), finished = new AtomicInteger();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    /// `rows` in `chunks` pieces, their boundaries multiples of `granule`.
    Split(KernelFunction function, Object[] buffers, int rows, int chunks, int granule) {
        this.function = function;
        this.buffers = buffers;
        this.rows = rows;
        this.chunks = chunks;
        this.granule = granule;
    }

    /// Runs chunks until none is left to claim. A chunk that throws still counts as run; the first
    /// failure is kept for the caller.
    void help() {
        for (int c = next.getAndIncrement(); c < chunks; c = next.getAndIncrement()) {
            try {
                int start = boundary(c), end = boundary(c + 1);
                if (start < end) function.run(buffers, start, end);
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            } finally {
                // the count publishes the chunk's writes to the caller, who reads it before returning
                if (finished.incrementAndGet() == chunks && Thread.currentThread() != caller) LockSupport.unpark(caller);
            }
        }
    }

    /// Whether every chunk has been claimed: a worker holding this split has nothing left to take.
    boolean claimed() { return next.get() >= chunks; }

    /// Waits, spinning first, until every chunk has run; then throws the first failure.
    void join() {
        long until = System.nanoTime() + Workers.SPIN_NANOS;
        while (finished.get() < chunks) {
            if (System.nanoTime() < until) Thread.onSpinWait();
            else LockSupport.park(this);
        }
        Throwable thrown = failure.get();
        if (thrown instanceof RuntimeException e) throw e;
        if (thrown instanceof Error e) throw e;
        if (thrown != null) throw new IllegalStateException(thrown);
    }

    // Chunk boundaries rounded down to the kernel's granule (KernelForm.splitGranule).
    private int boundary(int c) {
        if (c >= chunks) return rows;
        long boundary = (long) rows * c / chunks;
        return (int) Math.min(rows, boundary / granule * granule);
    }
}
