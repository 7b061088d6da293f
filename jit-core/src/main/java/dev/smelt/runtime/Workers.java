// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import dev.smelt.kernel.KernelFunction;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/// The threads that run the blocks of split kernels besides the caller's. Each worker spins for
/// [#SPIN_NANOS] after a block before it parks, as OpenMP runtimes do: on a 2-core VM, waking a
/// parked thread took about 45 µs (the host schedules the other core), longer than a whole
/// kernel of 2^16 elements, while a spinning worker starts within a microsecond. A caller only
/// hands a block to an idle worker and runs it itself when there is none, so no call ever waits
/// for another call's block.
final class Workers {
    /// How long a worker waits for the next block before it parks, and a caller for its blocks
    /// before it parks: about one mid-size kernel, so back-to-back kernels find the worker awake.
    static final long SPIN_NANOS = 50_000;
    private static final int MAX = 256;

    private static volatile Worker[] workers = new Worker[0];

    private Workers() {}

    /// A block of a kernel handed to a worker: run once, then `done`, with what it threw.
    static final class Block {
        private final KernelFunction function;
        private final Object[] buffers;
        private final int start, end;
        private final Thread caller = Thread.currentThread();
        private volatile boolean done;
        private Throwable failure;

        Block(KernelFunction function, Object[] buffers, int start, int end) {
            this.function = function;
            this.buffers = buffers;
            this.start = start;
            this.end = end;
        }

        void run() {
            try {
                function.run(buffers, start, end);
            } catch (Throwable e) {
                failure = e;
            } finally {
                done = true; // publishes the block's writes and `failure` to the caller
                if (Thread.currentThread() != caller) LockSupport.unpark(caller);
            }
        }

        /// Waits for the block to finish, spinning first.
        void join() {
            long until = System.nanoTime() + SPIN_NANOS;
            while (!done) {
                if (System.nanoTime() < until) Thread.onSpinWait();
                else LockSupport.park(this);
            }
        }

        /// What the block threw, or null; read after [#join].
        Throwable failure() { return failure; }
    }

    /// Hands `block` to an idle worker (of the first `count`, started on first use); false if
    /// every one is busy, and the caller then runs the block itself.
    static boolean offer(Block block, int count) {
        Worker[] all = workers;
        if (all.length < Math.min(count, MAX)) all = grow(Math.min(count, MAX));
        for (int i = 0; i < Math.min(count, all.length); i++)
            if (all[i].offer(block)) return true;
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
        // The block being run or waiting to be: null when the worker is idle.
        private final AtomicReference<Block> slot = new AtomicReference<>();
        private final Thread thread;
        private volatile boolean parked;

        Worker(int index) {
            thread = Thread.ofPlatform().daemon().name("smelt-worker-" + index).unstarted(this);
            thread.start();
        }

        boolean offer(Block block) {
            if (!slot.compareAndSet(null, block)) return false;
            // The worker sets `parked` before it checks the slot a last time, and the slot is set
            // before this reads `parked` (both volatile): one of the two sees the other.
            if (parked) LockSupport.unpark(thread);
            return true;
        }

        @Override
        public void run() {
            long idleSince = System.nanoTime();
            while (true) {
                Block block = slot.get();
                if (block != null) {
                    block.run();
                    slot.set(null);
                    idleSince = System.nanoTime();
                } else if (System.nanoTime() - idleSince < SPIN_NANOS) {
                    Thread.onSpinWait();
                } else {
                    parked = true;
                    if (slot.get() == null) LockSupport.park(this);
                    parked = false;
                    idleSince = System.nanoTime();
                }
            }
        }
    }
}
