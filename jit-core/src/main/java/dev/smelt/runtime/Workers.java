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
///
/// Whether the machine is shared is watched from both sides: a spinning worker that finds more
/// than [#GAP_NANOS] between two turns of its loop was descheduled, and so was a worker whose
/// chunk a caller waits for much longer than its own chunks took ([Split#join]). Either makes
/// [#ready] false for a while, so mid-size kernels stay on their caller while other processes
/// compete for the cores: splitting the layers' GEMVs of a stories15M decode unconditionally
/// gained 8–10% on a quiet 2-core VM and lost 15–20% on a busy one, each split waiting out a
/// descheduled worker's time slice now and then.
final class Workers {
    /// How long a worker waits for the next kernel before it parks, and a caller for its chunks
    /// before it parks: about one mid-size kernel, so back-to-back kernels find the worker awake.
    static final long SPIN_NANOS = 50_000;
    /// A pause between two turns of a worker's spin loop longer than this is a deschedule (a
    /// timer interrupt takes a few microseconds; another runnable thread takes the core for
    /// milliseconds).
    static final long GAP_NANOS = 50_000;
    /// How long after a deschedule [#ready] stays false, at first. A deschedule soon after a
    /// window ended (mid-size splits had just resumed) doubles the next window, up to
    /// [#MAX_CALM_NANOS]: on a busy machine a spinning worker is descheduled every few
    /// milliseconds, so splits resume for a moment every 1.6 s, and one wait for a descheduled
    /// worker then costs a fraction of a percent. A deschedule after a long calm (a GC pause on a
    /// quiet machine) starts again from the shortest window.
    static final long CALM_NANOS = 100_000_000, MAX_CALM_NANOS = 1_600_000_000L;
    /// A spinning worker that has not turned its loop for this long is not on a core right now.
    private static final long HOT_NANOS = 10_000;
    private static final int MAX = 256;

    private static volatile Worker[] workers = new Worker[0];
    private static volatile long disturbedAt = System.nanoTime() - MAX_CALM_NANOS, calm = CALM_NANOS;

    private Workers() {}

    /// Hands `split` to an idle worker (of the first `count`, started on first use) that does not
    /// hold it yet; false if every one is busy, and the caller then runs the chunks itself.
    static boolean offer(Split split, int count) {
        Worker[] all = workers;
        if (all.length < Math.min(count, MAX)) all = grow(Math.min(count, MAX));
        for (int i = 0; i < Math.min(count, all.length); i++)
            if (all[i].offer(split)) return true;
        return false;
    }

    /// Whether a split handed out now would be taken up soon: no thread was seen descheduled
    /// lately (see [#CALM_NANOS]), and one of the first `count` workers is idle and either
    /// spinning on its core or parked. A parked one is woken by the split (about 45 µs here, while
    /// the caller runs the chunks) and spins through the next kernels: without that, a decode's
    /// worker, parked between tokens, was woken by nothing but the classifier and never shared a
    /// GEMV. One that should be spinning but has not turned its loop lately is descheduled: not
    /// ready. True before the workers are started, so that the first split starts them.
    static boolean ready(int count) {
        long now = System.nanoTime();
        if (now - disturbedAt < calm) return false;
        Worker[] all = workers;
        for (int i = 0; i < Math.min(count, all.length); i++)
            if (all[i].ready(now)) return true;
        return all.length < Math.min(count, MAX);
    }

    /// Notes that a thread helping with splits was descheduled at `now`: [#ready] says no for the
    /// next window. Calls from several threads may race; a window a little off is harmless.
    static void disturbed(long now) {
        long since = now - disturbedAt, window = calm;
        if (since >= window) calm = since < 2 * window ? Math.min(2 * window, MAX_CALM_NANOS) : CALM_NANOS;
        disturbedAt = now;
    }

    /// When a thread was last seen descheduled ([System#nanoTime]).
    static long disturbedAt() { return disturbedAt; }

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
        private volatile long turned = System.nanoTime(); // the latest turn of the spin loop, or end of a split

        Worker(int index) {
            thread = Thread.ofPlatform().daemon().name("smelt-worker-" + index).unstarted(this);
            thread.start();
        }

        boolean ready(long now) {
            Split held = slot.get();
            return (held == null || held.claimed()) && (parked || now - turned < HOT_NANOS);
        }

        boolean offer(Split split) {
            Split held = slot.get();
            if (held == split || held != null && !held.claimed() || !slot.compareAndSet(held, split)) return false;
            // The worker sets `parked` before it checks the slot a last time, and the slot is set
            // before this reads `parked` (both volatile): one of the two sees the other.
            if (parked) LockSupport.unpark(thread);
            return true;
        }

        @Override
        public void run() {
            long idleSince = System.nanoTime(), last = idleSince;
            while (true) {
                Split split = slot.get();
                long now = System.nanoTime();
                if (now - last > GAP_NANOS) disturbed(now);
                if (split != null) {
                    split.help();
                    slot.compareAndSet(split, null);
                    idleSince = last = turned = System.nanoTime();
                } else if (now - idleSince < SPIN_NANOS) {
                    last = turned = now;
                    Thread.onSpinWait();
                } else {
                    parked = true;
                    if (slot.get() == null) LockSupport.park(this);
                    parked = false;
                    idleSince = last = turned = System.nanoTime();
                }
            }
        }
    }
}
