// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import dev.smelt.kernel.KernelFunction;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

/// A small kernel's scalar code, which becomes a [TieredKernel] once the kernel is hot: after
/// [#HOT_CALLS] calls, [#HOT_NANOS] more spent in it. Most small kernels run a few times (a
/// program's first calls, an eager op), and for them a vector class and its warm-up would cost
/// more than they save; a decode step runs the SiLU gate after its up-projection (2,048 elements
/// at stories110M, about 7 µs a call on scalar code) a dozen times a token, thousands of times a
/// generation, and there the vector variant takes most of every call off. From then on the
/// [TieredKernel] decides, as for a large kernel: its vector variant runs only once it is faster,
/// and both give the same bits, so the switch never changes a result.
///
/// The promotion happens on the warming thread: the call that finds the kernel hot only queues it
/// (with the call's inputs, weakly), and keeps running scalar code until the tiered function,
/// made and given its first warm-up round there, is published. So a training step that makes a
/// kernel hot loads no class on its own thread (the classes it does touch are loaded on a thread of
/// their own when the first small kernel is made: [TieredKernel#loadWarmUpClasses]).
///
/// The budget keeps warm-ups out of short runs, where they take the second core from the program:
/// the digits' training (1,350 steps of a 64-128-10 MLP, 1.3 s in all) ran 8–12% longer end to
/// end when five of its kernels became hot at 5 ms each. The first calls are not timed: they run
/// interpreted or in C1's code while the JIT is busiest. One call in [#SAMPLE] is timed and counts
/// for that many (timing every call would add two `nanoTime` reads to calls of a microsecond), at
/// most [#LONGEST_SAMPLE]: warm code of a kernel under 16,384 elements takes far less (16,384
/// lanes of `Math.pow`, about 120 µs). The counters are updated without synchronisation: a lost
/// update between threads only delays the switch.
public final class SmallKernel implements KernelFunction {
    static final int HOT_CALLS = 256;
    static final long HOT_NANOS = 20_000_000L;
    static final int SAMPLE = 16;
    /// A timed call counts for at most this: a GC pause or the thread descheduled during one
    /// sampled call, times [#SAMPLE], made a digits run's kernel hot at once (69 ms "spent").
    static final long LONGEST_SAMPLE = 200_000L;

    private static volatile boolean warmUpClassesLoaded;

    // On a thread of its own, and from a lambda, so that the first call does not even load
    // TieredKernel: the pool's classes took 9–12 ms of a fresh JVM, a thread's start takes 2.
    static {
        var thread = new Thread(() -> {
            TieredKernel.loadWarmUpClasses();
            warmUpClassesLoaded = true;
        }, "smelt-warm-up-classes");
        thread.setDaemon(true);
        thread.start();
    }

    private final KernelFunction scalar;
    private final Function<TieredKernel.Held, KernelFunction> tiered;
    private final int inputs;
    private final long hotNanos;
    private final Runnable promotion = this::promote; // made now: a hot call loads no class
    private volatile KernelFunction promoted;
    private final AtomicBoolean queued = new AtomicBoolean(); // one promotion at a time, whichever threads call
    private TieredKernel.Held held; // the hot call's, handed to the warming thread through its queue
    private volatile String failure;
    private int calls;
    private long spent;

    /// `inputs`: how many of a call's buffers are inputs (the rest are outputs).
    public SmallKernel(KernelFunction scalar, Supplier<TieredKernel> tiered, int inputs) {
        this(scalar, held -> {
            TieredKernel kernel = tiered.get();
            kernel.warmUpHere(held);
            return kernel;
        }, inputs, HOT_NANOS);
    }

    /// `tiered` makes the tiered function, on the warming thread, from the inputs of the call that
    /// found the kernel hot.
    SmallKernel(KernelFunction scalar, Function<TieredKernel.Held, KernelFunction> tiered, int inputs, long hotNanos) {
        this.scalar = scalar;
        this.tiered = tiered;
        this.inputs = inputs;
        this.hotNanos = hotNanos;
    }

    @Override
    public void run(Object[] buffers, int start, int end) {
        KernelFunction current = promoted;
        if (current != null) {
            current.run(buffers, start, end);
            return;
        }
        int call = ++calls;
        if (call <= HOT_CALLS || call % SAMPLE != 0) {
            scalar.run(buffers, start, end);
            return;
        }
        long begin = System.nanoTime();
        scalar.run(buffers, start, end);
        spent += SAMPLE * Math.min(System.nanoTime() - begin, LONGEST_SAMPLE);
        if (spent >= hotNanos && warmUpClassesLoaded && !queued.get() && queued.compareAndSet(false, true)) queuePromotion(buffers, end);
    }

    // A full queue (other kernels warming up) costs the kernel another budget.
    private void queuePromotion(Object[] buffers, int end) {
        held = new TieredKernel.Held(inputs, buffers, end);
        if (TieredKernel.offer(promotion)) return;
        held = null;
        spent = 0;
        queued.set(false);
    }

    // On the warming thread. A promotion that fails leaves the kernel on scalar code for good (queued stays set).
    private void promote() {
        try {
            promoted = tiered.apply(held);
        } catch (RuntimeException | LinkageError e) {
            failure = e.toString();
        } finally {
            held = null;
        }
    }

    @Override
    public String tier() {
        KernelFunction current = promoted;
        if (current != null) return current.tier() + " (a small kernel, run often)";
        if (failure != null) return "scalar (small kernel; its vector variant failed: " + failure + ")";
        return queued.get() ? "scalar (small kernel, run often: its vector variant is warming up)"
                : "scalar (small kernel; a vector variant is tried once it has run %d times, then for %d ms)".formatted(HOT_CALLS, hotNanos / 1_000_000);
    }
}
