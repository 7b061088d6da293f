// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/// The threads that help callers run the chunks of split kernels ([Split]). Each worker spins for
/// [#SPIN_NANOS] after a kernel before it parks, as OpenMP runtimes do: on a 2-core VM, waking a
/// parked thread took about 45 µs (the host schedules the other core), longer than a whole
/// kernel of 2^16 elements, while a spinning worker starts within a microsecond. A caller only
/// hands a split to an idle worker and runs the chunks itself when there is none, so no call ever
/// waits for another call's chunks.
final class Workers {
    /// How long a worker waits for the next kernel before it parks, and a caller for its chunks
    /// before it parks (`-Dsmelt.spinNanos`): longer than the unsplit kernels a program runs between
    /// two split ones (a Llama decode layer's attention, ~90 µs at stories110M), so that the next
    /// split kernel finds the worker awake; a caller's process that stops calling pays at most this
    /// much of one core.
    static final long SPIN_NANOS = dev.smelt.ir.Settings.longValue("smelt.spinNanos", 400_000, 0);
    private static final int MAX = 256;
    /// How recent a split must be for [#wake] to wake a parked worker: a program is then between
    /// its split kernels, and the next one will find the worker spinning.
    static final long RECENT_NANOS = 10 * SPIN_NANOS;

    private static volatile long lastOffer = System.nanoTime() - RECENT_NANOS;

    private static volatile Worker[] workers = new Worker[0];

    private Workers() {}

    /// Hands `split` to an idle worker (of the first `count`, started on first use) that does not
    /// hold it yet; false if every one is busy, and the caller then runs the chunks itself.
    static boolean offer(Split split, int count) {
        Worker[] all = workers;
        if (all.length < Math.min(count, MAX)) all = grow(Math.min(count, MAX));
        for (int i = 0; i < Math.min(count, all.length); i++)
            if (all[i].offer(split)) {
                lastOffer = System.nanoTime();
                return true;
            }
        return false;
    }

    /// Wakes the parked workers of the first `count`, with no work, when a split was handed out
    /// within [#RECENT_NANOS]. A kernel too small to wait for a parked worker calls this before it
    /// runs alone: otherwise a worker that parked during a pause (the caller descheduled for a
    /// moment) stays parked for every such kernel that follows, until the next large one; in a
    /// stories15M decode on two threads, one in seven to one in three of its GEMVs ran alone so.
    static void wake(int count) {
        if (System.nanoTime() - lastOffer > RECENT_NANOS) return;
        Worker[] all = workers;
        for (int i = 0; i < Math.min(count, all.length); i++) all[i].wake();
    }

    /// Whether one of the first `count` workers is awake: busy, or spinning for the next kernel.
    static boolean awake(int count) {
        Worker[] all = workers;
        for (int i = 0; i < Math.min(count, all.length); i++)
            if (!all[i].parked) return true;
        return false;
    }

    private static synchronized Worker[] grow(int count) {
        Worker[] all = workers;
        if (all.length >= count) return all;
        Worker[] more = java.util.Arrays.copyOf(all, count);
        for (int i = all.length; i < count; i++) more[i] = new Worker(i);
        workers = more;
        return more;
    }

    private static final class Worker implements Runnable {
        // The split being helped or waiting to be: null, or one whose chunks are all claimed, when
        // the worker is idle. A claimed one may be replaced before the worker has let go of it, so
        // that the next kernel, launched as soon as the last chunk finished, finds the worker free.
        private final AtomicReference<Split> slot = new AtomicReference<>();
        private final Thread thread;
        private volatile boolean parked;

        Worker(int index) {
            thread = Thread.ofPlatform().daemon().name("smelt-worker-" + index).unstarted(this);
            thread.start();
        }

        // Again when the compare-and-set fails because the worker has just let go of a claimed
        // split: a caller launching its next kernel as soon as the last chunk finished meets that
        // race every time, and took the whole kernel itself (a stories15M decode on two threads
        // left its worker idle for most of each split GEMV).
        boolean offer(Split split) {
            while (true) {
                Split held = slot.get();
                if (held == split || held != null && !held.claimed()) return false;
                if (slot.compareAndSet(held, split)) break;
            }
            // The worker sets `parked` before it checks the slot a last time, and the slot is set
            // before this reads `parked` (both volatile): one of the two sees the other.
            if (parked) LockSupport.unpark(thread);
            return true;
        }

        void wake() {
            if (parked) LockSupport.unpark(thread);
        }

        @Override
        public void run() {
            long idleSince = System.nanoTime();
            while (true) {
                Split split = slot.get();
                if (split != null) {
                    split.help();
                    slot.compareAndSet(split, null);
                    idleSince = System.nanoTime();
                } else if (System.nanoTime() - idleSince < SPIN_NANOS) {
                    Thread.onSpinWait();
                } else {
                    parked = true;
                    if (slot.get() == null) LockSupport.park(this);
                    // An interrupt asks nothing of Smelt's own thread, and left set it would make
                    // every park return at once: the worker would spin for good.
                    Thread.interrupted();
                    parked = false;
                    idleSince = System.nanoTime();
                }
            }
        }
    }
}
