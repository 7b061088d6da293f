// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import dev.smelt.kernel.KernelFunction;
import java.util.function.Supplier;

/// A small kernel's scalar code, which becomes a [TieredKernel] once the kernel is hot: called
/// [#HOT_CALLS] times or more, with [#HOT_NANOS] spent in it. Most small kernels run a few times
/// (a program's first calls, an eager op), and for them a vector class and its warm-up would cost
/// more than they save; but a decode step runs each of its norms and the SiLU gate after its GEMV
/// (768–2,048 elements) a dozen times a token, thousands of times a generation, and there the
/// vector variant takes microseconds off every call. From then on the [TieredKernel] decides, as
/// for a large kernel: its vector variant runs only once it is faster, and both give the same
/// bits, so the switch never changes a result.
///
/// One call in [#SAMPLE] is timed and counts for that many: timing every call would add two
/// `nanoTime` reads to calls of a microsecond. The counters are updated without synchronisation:
/// a lost update between threads only delays the switch.
public final class SmallKernel implements KernelFunction {
    static final int HOT_CALLS = 256;
    static final long HOT_NANOS = 5_000_000L;
    static final int SAMPLE = 16;

    private final KernelFunction scalar;
    private final Supplier<KernelFunction> tiered;
    private final long hotNanos;
    private volatile KernelFunction promoted;
    private int calls;
    private long spent;

    public SmallKernel(KernelFunction scalar, Supplier<KernelFunction> tiered) {
        this(scalar, tiered, HOT_NANOS);
    }

    SmallKernel(KernelFunction scalar, Supplier<KernelFunction> tiered, long hotNanos) {
        this.scalar = scalar;
        this.tiered = tiered;
        this.hotNanos = hotNanos;
    }

    @Override
    public void run(Object[] buffers, int start, int end) {
        KernelFunction current = promoted;
        if (current != null) {
            current.run(buffers, start, end);
            return;
        }
        if (++calls % SAMPLE != 0) {
            scalar.run(buffers, start, end);
            return;
        }
        long begin = System.nanoTime();
        scalar.run(buffers, start, end);
        spent += SAMPLE * (System.nanoTime() - begin);
        if (calls >= HOT_CALLS && spent >= hotNanos) promoted = tiered.get();
    }

    @Override
    public String tier() {
        KernelFunction current = promoted;
        return current == null ? "scalar (small kernel; a vector variant is tried once it has run %d times for %d ms)".formatted(HOT_CALLS, hotNanos / 1_000_000)
                : current.tier() + " (a small kernel, run often)";
    }
}
