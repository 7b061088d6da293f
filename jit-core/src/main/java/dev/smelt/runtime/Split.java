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
    private final long started = System.nanoTime();
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

    /// Runs chunks until none is left to claim and returns how many this thread ran. A chunk that
    /// throws still counts as run; the first failure is kept for the caller.
    int help() {
        int ran = 0;
        for (int c = next.getAndIncrement(); c < chunks; c = next.getAndIncrement(), ran++) {
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
        return ran;
    }

    /// Whether every chunk has been claimed: a worker holding this split has nothing left to take.
    boolean claimed() { return next.get() >= chunks; }

    /// Waits, spinning first, until every chunk has run, the caller having run `ran` of them; then
    /// throws the first failure. A wait much longer than the caller's own chunks took means a
    /// worker was descheduled in the middle of one: [Workers#disturbed] hears of it.
    void join(int ran) {
        long waiting = System.nanoTime(), until = waiting + Workers.SPIN_NANOS;
        while (finished.get() < chunks) {
            if (System.nanoTime() < until) Thread.onSpinWait();
            else LockSupport.park(this);
        }
        long now = System.nanoTime();
        if (now - waiting > Math.max(Workers.GAP_NANOS, 2 * (waiting - started) / Math.max(1, ran))) Workers.disturbed(now);
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
