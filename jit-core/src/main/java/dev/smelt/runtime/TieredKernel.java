// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import dev.smelt.codegen.KernelEmitter;
import dev.smelt.ir.Storage;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelFunction;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.lang.reflect.Array;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/// Serves a kernel with its scalar variant while the vector variant warms up in the background,
/// then switches. Vector API code runs boxed, 50–500× slower, until C2 compiles it (a fresh
/// kernel's first call on 1M floats took about 700 ms here); plain loops do not box, so the
/// scalar variant is fast from the first call, and the user never pays for the warm-up.
///
/// A warm-up runs both variants on a slice of rows, alternately, against scratch outputs, until
/// the vector variant is the faster (then it takes over) or a round of [#ROUND_NANOS] passes. A lost round
/// is no verdict, since on a busy machine C2 may not have compiled the vector code yet: the
/// kernel tries again after a back-off that doubles from [Stopwatch#FIRST_BACK_OFF_NANOS] to
/// [Stopwatch#LAST_BACK_OFF_NANOS], for as long as it is called, and stays at the first while the JIT
/// finished other compilations during the round (C2's queue was not empty), unless the vector variant
/// already ran within [#COMPILED] times the scalar one's time. Warm-ups are bounded: a few wait in a
/// queue (a kernel that finds it full tries again on a later call), and a waiting warm-up holds
/// its inputs weakly, so it keeps no array alive that the program dropped. No warm-up starts while
/// the matmul tile of a program with a large product warms up ([WarmUpOrder]).
///
/// Both variants give the same bits (see `KernelEmitter`), so the switch never changes a result.
/// `-Dsmelt.tier=scalar` or `=vector` fixes every tiered kernel's variant, for debugging.
public final class TieredKernel implements KernelFunction {
    /// Rows worth about this many elements are run per warm-up call: enough for the loop to be
    /// compiled on its own (OSR), small enough that warm-up costs milliseconds.
    static final int WARM_UP_ELEMENTS = 1 << 12;
    static final long ROUND_NANOS = 3_000_000_000L;
    /// Back edges per call the warm-up's calls of the vector class average at most. HotSpot
    /// compiles a method whole once it has been called `Tier4MinInvocationThreshold` (600) times
    /// and its calls and back edges add up to `Tier4CompileThreshold` (15,000), but compiles a loop
    /// on its own (OSR) once its back edges reach `Tier4BackEdgeThreshold` (40,000) first: a
    /// warm-up call over rows of 1,024 floats made hundreds, so each of a kernel's loops was
    /// compiled on its own, then the method again, three or four C2 compilations of a large method
    /// instead of one. Below 40,000 / 600 ≈ 66 the whole method is compiled first, and with it queued
    /// no loop is.
    static final int BACK_EDGES_PER_CALL = 32;
    /// At most this many idle calls follow a timed one: a column reduction over 100,000 rows makes
    /// that many back edges per pass, and so many idle calls would cost the warm-up more than the
    /// compilations they save.
    static final int IDLE_CALLS = 1 << 12;
    /// Boxed vector code (before C2) runs 50–500× slower than compiled code; within this many
    /// times the scalar variant's time, the vector variant is compiled.
    static final int COMPILED = 4;
    /// Batches a compiled vector variant may lose before its round ends: a round that ran its full
    /// [#ROUND_NANOS] would hold the warming thread, which every other kernel's warm-up waits for,
    /// for seconds that tell nothing more (the training step's 26 AdamW updates, which C2
    /// vectorises as well from the scalar loops, held it for most of every minute).
    static final int COMPILED_LOSSES = 3;
    /// Warm-ups that may wait for the warming thread at once.
    static final int QUEUE = 4;
    static final String FORCED = dev.smelt.ir.Settings.choice("smelt.tier", "auto", "auto", "scalar", "vector");

    /// The warming thread, in a holder: a program's first call starts no warm-up, so it need not
    /// load the pool's classes either (a small kernel has them loaded aside: [#loadWarmUpClasses]).
    private static final class Warmer {
        static final ThreadPoolExecutor POOL = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(QUEUE), runnable -> {
            var thread = new Thread(runnable, "smelt-kernel-warm-up");
            thread.setDaemon(true);
            return thread;
        });
    }

    private final Kernel kernel;
    private final KernelFunction scalar;
    private final Supplier<KernelFunction> vector;
    private final long firstBackOff, round;
    private final LongSupplier jitMillis;
    private final AtomicBoolean warming = new AtomicBoolean();
    private volatile KernelFunction active;
    private volatile KernelFunction candidate;
    private volatile long nextTry = System.nanoTime();
    private volatile int lost;
    private volatile boolean calledBefore;
    private int vectorCalls; // by the warming thread only
    private long scalarNanos, vectorNanos; // by the warming thread only: the last comparison's best times
    private volatile String tier;

    public TieredKernel(Kernel kernel, KernelFunction scalar, Supplier<KernelFunction> vector) {
        this(kernel, scalar, vector, FORCED, Stopwatch.FIRST_BACK_OFF_NANOS, ROUND_NANOS);
    }

    /// `forced`: "scalar", "vector" or "auto"; `firstBackOff` and `round` in nanoseconds.
    TieredKernel(Kernel kernel, KernelFunction scalar, Supplier<KernelFunction> vector, String forced, long firstBackOff, long round) {
        this(kernel, scalar, vector, forced, firstBackOff, round, () -> JitClock.MILLIS.getAsLong());
    }

    /// `jitMillis`: the JIT's total compilation time, read before and after each round.
    TieredKernel(Kernel kernel, KernelFunction scalar, Supplier<KernelFunction> vector, String forced, long firstBackOff, long round, LongSupplier jitMillis) {
        this.kernel = kernel;
        this.jitMillis = jitMillis;
        this.scalar = scalar;
        this.vector = vector;
        this.firstBackOff = firstBackOff;
        this.round = round;
        this.active = forced.equals("vector") ? vector.get() : scalar;
        this.tier = switch (forced) {
            case "vector" -> "vector (forced by -Dsmelt.tier=vector)";
            case "scalar" -> "scalar (forced by -Dsmelt.tier=scalar)";
            default -> "scalar (vector variant warming up)";
        };
        if (!forced.equals("auto")) warming.set(true); // never warms up
    }

    /// Which variant runs now and why, for `explain()`.
    @Override
    public String tier() { return tier; }

    /// Until the first call: KernelCache gives every program with the same kernel this instance, so
    /// its scalar class has not run at a size that splits, and its code is interpreted or C1's.
    @Override
    public boolean cold() { return !calledBefore; }

    /// Starts the warm-up from the kernel's second call on, after the block from row 0 (one per
    /// call). Not from the first: that is usually its program's first call, which the compile has
    /// just kept waiting, and the warm-up (generating, loading and running the vector class) takes
    /// a core from it (`ColdStart FirstCall` on 2 cores: about 30 ms more); a kernel called once
    /// never needs the vector variant.
    @Override
    public void run(Object[] buffers, int start, int end) {
        KernelFunction current = active;
        current.run(buffers, start, end);
        if (start != 0) return;
        if (!calledBefore) {
            calledBefore = true;
            return;
        }
        if (current == scalar && !warming.get() && System.nanoTime() - nextTry >= 0 && !WarmUpOrder.kernelsWait() && warming.compareAndSet(false, true))
            startWarmUp(buffers, end);
    }

    private void startWarmUp(Object[] buffers, int end) {
        if (offer(new WarmUp(this, new Held(kernel.inputs().size(), buffers, end)))) return;
        nextTry = System.nanoTime() + firstBackOff / 10;
        warming.set(false);
    }

    /// A small kernel's promotion ([SmallKernel]), on the warming thread: its first round runs
    /// here, so that the classes of a warm-up load on this thread and not on a caller's.
    void warmUpHere(Held held) {
        calledBefore = true;
        if (active == scalar && warming.compareAndSet(false, true)) warmUp(held);
    }

    /// Queues `task` for the warming thread; false when the queue is full.
    static boolean offer(Runnable task) {
        try {
            Warmer.POOL.execute(task);
            return true;
        } catch (RejectedExecutionException full) {
            return false;
        }
    }

    /// Loads the classes a caller's thread needs to start a warm-up, and starts the warming thread:
    /// [SmallKernel] has it done on a thread of its own when the first small kernel is made, so
    /// that a training step that makes one hot loads no class (`SmallKernelPromotionTest`).
    /// The JDK's classes count too: the flight recorder reports a load for the first class of
    /// Smelt's loader that names one.
    static List<Class<?>> loadWarmUpClasses() {
        Warmer.POOL.prestartCoreThread();
        return List.of(Held.class, WarmUp.class, WarmUpOrder.class, RejectedExecutionException.class, WeakReference.class, Array.class);
    }

    /// A call's inputs weakly and its outputs by length: a waiting warm-up keeps no array alive
    /// and writes none of the program's.
    static final class Held {
        private final WeakReference<?>[] inputs;
        private final int[] outputLengths;
        private final int end;

        Held(int inputs, Object[] buffers, int end) {
            this.inputs = new WeakReference<?>[inputs];
            for (int i = 0; i < inputs; i++) this.inputs[i] = new WeakReference<>(buffers[i]);
            this.outputLengths = new int[buffers.length - inputs];
            for (int i = 0; i < outputLengths.length; i++) outputLengths[i] = Array.getLength(buffers[inputs + i]);
            this.end = end;
        }

        // The inputs, if the program still holds them, and fresh outputs of their sizes. An input
        // read as a gather's index is zeros of its size instead: the call's array may hold other
        // values by now (a gather computed in place over its own indices, as x.gather(a, x.argsort(a))
        // is planned, or a later launch's result in that slot), and out-of-range ones would fail
        // the vector variant for good.
        Object[] buffers(Kernel kernel) {
            Object[] buffers = new Object[inputs.length + outputLengths.length];
            boolean[] indices = gatherIndices(kernel);
            for (int i = 0; i < inputs.length; i++) {
                if ((buffers[i] = inputs[i].get()) == null) return null;
                if (indices[i]) buffers[i] = Storage.newArray(kernel.inputs().get(i).dtype(), Array.getLength(buffers[i]));
            }
            for (int i = 0; i < outputLengths.length; i++)
                buffers[inputs.length + i] = Storage.newArray(kernel.outputs().get(i).dtype(), outputLengths[i]);
            return buffers;
        }
    }

    /// Per input of `kernel`, whether a gather's index reads it, directly or through a gather of its own.
    static boolean[] gatherIndices(Kernel kernel) {
        boolean[] indices = new boolean[kernel.inputs().size()];
        for (Expr node : Expr.nodes(kernel.expressions()))
            if (node instanceof Expr.Gather gather)
                for (Expr read : Expr.nodes(List.of(gather.index()))) {
                    if (read instanceof Expr.Load load) indices[load.input()] = true;
                    if (read instanceof Expr.Gather inner) indices[inner.input()] = true;
                }
        return indices;
    }

    // A class of its own, not a lambda: loadWarmUpClasses loads it ahead.
    private static final class WarmUp implements Runnable {
        private final TieredKernel target;
        private final Held held;

        WarmUp(TieredKernel target, Held held) {
            this.target = target;
            this.held = held;
        }

        @Override
        public void run() { target.warmUp(held); }
    }

    private void warmUp(Held held) {
        long compiled = jitMillis.getAsLong();
        try {
            Object[] buffers = held.buffers(kernel);
            if (buffers != null && faster(buffers, held.end)) return;
        } catch (RuntimeException | LinkageError e) {
            tier = "scalar (vector variant failed: " + e + ")";
            return; // warming stays set: a variant that fails is not tried again
        }
        // While the JIT is still finishing compilations (ours may be queued behind them), a lost
        // round says nothing of the vector code: try again soon rather than back off further.
        // Unless the vector variant already ran within COMPILED of the scalar one, which boxed code
        // never does: C2 has compiled it and it is not faster (in an MLP's training step, a kernel
        // over [2, 784] lost round after round a second apart, 1.45 against 0.78 µs, while the
        // steps kept the JIT busy).
        boolean compiledButSlower = compiledButSlower();
        boolean jitBusy = jitMillis.getAsLong() != compiled && !compiledButSlower;
        long backOff = jitBusy ? firstBackOff : Stopwatch.backOff(firstBackOff, lost);
        if (!jitBusy) lost++;
        nextTry = System.nanoTime() + backOff;
        long seconds = Math.max(1, backOff / 1_000_000_000L);
        tier = compiledButSlower
                ? "scalar (the vector variant, compiled, was slower: %,d against %,d ns on the first rows; trying again in %d s)".formatted(vectorNanos, scalarNanos, seconds)
                : "scalar (the vector variant was not faster yet%s; trying again in %d s)".formatted(jitBusy ? ", the JIT still compiling" : "", seconds);
        warming.set(false);
    }

    // The last comparison's vector variant ran within COMPILED of the scalar one: compiled, and slower.
    private boolean compiledButSlower() { return vectorNanos < COMPILED * scalarNanos; }

    /// The JIT's total compilation time so far, in milliseconds (HotSpot adds each compilation's
    /// time when it ends), or a constant where the JVM does not say. A holder class: the warm-up
    /// thread, not a program's first call, pays for the management bean.
    private static final class JitClock {
        static final LongSupplier MILLIS = millis();

        private static LongSupplier millis() {
            var jit = ManagementFactory.getCompilationMXBean();
            return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit::getTotalCompilationTime : () -> 0;
        }
    }

    /// The rows a warm-up call runs: about [#WARM_UP_ELEMENTS] elements, but at least the rows the
    /// vector class needs to run its vector loops ([KernelEmitter#vectorRows]: a column reduction's
    /// lanes are rows, and fewer rows would time its scalar leftovers), and at most `end`.
    static int warmUpRows(Kernel kernel, int end) {
        int rows = Math.max(WARM_UP_ELEMENTS / Math.max(1, kernel.rowLength()), KernelEmitter.vectorRows(kernel));
        return Math.max(1, Math.min(end, rows));
    }

    /// Calls on no rows that follow each timed call of the vector class on `rows` rows, so that its
    /// calls average at most [#BACK_EDGES_PER_CALL] back edges (up to [#IDLE_CALLS]).
    static int idleCalls(Kernel kernel, int rows) {
        return (int) Math.min(IDLE_CALLS, (KernelEmitter.backEdges(kernel, rows) - 1) / BACK_EDGES_PER_CALL);
    }

    // Both variants on the first rows, alternately, until the vector one is the faster, has lost
    // COMPILED_LOSSES times compiled, or the round ends.
    private boolean faster(Object[] buffers, int end) {
        if (candidate == null) candidate = vector.get();
        int rows = warmUpRows(kernel, end), idle = idleCalls(kernel, rows);
        long deadline = System.nanoTime() + round;
        for (int compiledLosses = 0; System.nanoTime() - deadline < 0; ) {
            long batch = System.nanoTime();
            scalarNanos = Stopwatch.best(20, call -> scalar.run(buffers, 0, rows));
            vectorNanos = Stopwatch.best(20, call -> candidate.run(buffers, 0, rows));
            if (vectorNanos < scalarNanos) {
                active = candidate;
                tier = "vector";
                return true;
            }
            if (compiledButSlower() && ++compiledLosses == COMPILED_LOSSES) return false;
            for (int call = 0; call < 20 * idle; call++) candidate.run(buffers, 0, 0);
            vectorCalls += 20 * (1 + idle);
            if (vectorCalls >= Stopwatch.CALLS_TO_COMPILE) Stopwatch.rest(batch, deadline);
        }
        return false;
    }
}
