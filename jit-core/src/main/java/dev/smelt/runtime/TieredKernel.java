// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import dev.smelt.ir.Storage;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelFunction;
import java.lang.reflect.Array;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/// Serves a kernel with its scalar variant while the vector variant warms up in the background,
/// then switches. Vector API code runs boxed, 50–500× slower, until C2 compiles it (a fresh
/// kernel's first call on 1M floats took about 700 ms here); plain loops do not box, so the
/// scalar variant is fast from the first call, and the user never pays for the warm-up.
///
/// The warm-up runs the vector variant on a slice of rows against scratch outputs (reading the
/// first call's inputs, which is harmless) until a call is faster than the scalar variant on the
/// same slice, or gives up after [#WARM_UP_LIMIT_NANOS] and keeps the scalar variant.
public final class TieredKernel implements KernelFunction {
    /// Rows worth about this many elements are run per warm-up call: enough for the loop to be
    /// compiled on its own (OSR), small enough that warm-up costs milliseconds.
    static final int WARM_UP_ELEMENTS = 1 << 12;
    static final long WARM_UP_LIMIT_NANOS = 3_000_000_000L;

    private static final ExecutorService WARMER = Executors.newSingleThreadExecutor(runnable -> {
        var thread = new Thread(runnable, "smelt-kernel-warm-up");
        thread.setDaemon(true);
        thread.setPriority(Thread.MIN_PRIORITY);
        return thread;
    });

    private final Kernel kernel;
    private final KernelFunction scalar;
    private final Supplier<KernelFunction> vector;
    private volatile KernelFunction active;
    private volatile boolean warming;
    private volatile String tier = "scalar (vector variant warming up)";

    public TieredKernel(Kernel kernel, KernelFunction scalar, Supplier<KernelFunction> vector) {
        this.kernel = kernel;
        this.scalar = scalar;
        this.vector = vector;
        this.active = scalar;
    }

    /// Which variant runs now, for `explain()`.
    public String tier() { return tier; }

    @Override
    public void run(Object[] buffers, int start, int end) {
        KernelFunction current = active;
        current.run(buffers, start, end);
        if (current == scalar && !warming) startWarmUp(buffers, end);
    }

    private synchronized void startWarmUp(Object[] buffers, int end) {
        if (warming) return;
        warming = true;
        Object[] inputs = buffers.clone();
        WARMER.execute(() -> warmUp(inputs, end));
    }

    // Outputs sized as the first call's and rows within its range: `kernel` may stand for kernels
    // of any row count (RowExtent), so its own sizes are not the call's.
    private void warmUp(Object[] firstCall, int end) {
        try {
            KernelFunction candidate = vector.get();
            Object[] buffers = firstCall.clone();
            for (int i = kernel.inputs().size(); i < buffers.length; i++)
                buffers[i] = Storage.newArray(kernel.outputs().get(i - kernel.inputs().size()).dtype(), Array.getLength(firstCall[i]));
            int rows = Math.max(1, Math.min(end, WARM_UP_ELEMENTS / Math.max(1, kernel.rowLength())));
            long scalarNanos = time(scalar, buffers, rows, 200);
            long deadline = System.nanoTime() + WARM_UP_LIMIT_NANOS;
            while (System.nanoTime() < deadline) {
                if (time(candidate, buffers, rows, 50) < scalarNanos) {
                    active = candidate;
                    tier = "vector";
                    return;
                }
            }
            tier = "scalar (the vector variant was not faster after warm-up)";
        } catch (RuntimeException | LinkageError e) {
            tier = "scalar (vector variant failed: " + e + ")";
        }
    }

    // The fastest of `calls` calls on the first `rows` rows.
    private static long time(KernelFunction function, Object[] buffers, int rows, int calls) {
        long best = Long.MAX_VALUE;
        for (int call = 0; call < calls; call++) {
            long start = System.nanoTime();
            function.run(buffers, 0, rows);
            best = Math.min(best, System.nanoTime() - start);
        }
        return best;
    }
}
