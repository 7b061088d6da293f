// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Jit;
import dev.smelt.Tensor;

/// The first call of a fresh JVM, run by [ColdStart]: `Jit.compile` of [Chain#apply] plus its first
/// call on 1M floats, printed as `firstCall=<ms>`, with the CPU time it took (`firstCallCpu`: every
/// thread; `mainThreadCpu`: the calling thread's, the compile and its share of the kernel) and
/// the second call for comparison. Nothing of Smelt runs before the timed part but `Tensor.of` on
/// the inputs, which a program has to do too.
public final class FirstCall {
    private FirstCall() {}

    static final int SIZE = 1 << 20;

    public static void main(String[] args) {
        float[] xs = new float[SIZE], ys = new float[SIZE];
        int state = 1;
        for (int i = 0; i < SIZE; i++) { // values in [-4, 4): Gaussian inputs would cost a fresh JVM more than the call
            state = state * 1_103_515_245 + 12_345;
            xs[i] = (state >>> 8) * 0x1p-21f - 4;
            state = state * 1_103_515_245 + 12_345;
            ys[i] = (state >>> 8) * 0x1p-21f - 4;
        }
        Tensor x = Tensor.of(xs, SIZE), y = Tensor.of(ys, SIZE);
        var threads = java.lang.management.ManagementFactory.getThreadMXBean(); // loaded before the clock starts
        long[] sched = schedstat();
        long cpu = processCpuMillis(), threadCpu = threads.getCurrentThreadCpuTime(), start = System.nanoTime();
        var compiled = Jit.compile(Chain::apply);
        Tensor first = compiled.apply(x, y);
        long firstDone = System.nanoTime(), firstCpu = processCpuMillis() - cpu, firstThreadCpu = threads.getCurrentThreadCpuTime() - threadCpu;
        String waits = waits(sched, firstDone - start);
        compiled.apply(x, y);
        long secondDone = System.nanoTime();
        float[] loop = new float[SIZE]; // the scalar tail of ChainBench.fusedLoop: its vector loop would run interpreted here
        for (int i = 0; i < SIZE; i++) loop[i] = Math.max(((float) Math.sin(xs[i]) * (float) Math.cos(ys[i]) + xs[i]) * ys[i], 0f);
        Tolerance.ELEMENTWISE.check("first call vs hand-written loop", loop, first.toFloatArray());
        System.out.printf("firstCall=%.1f firstCallCpu=%d mainThreadCpu=%.1f %s secondCall=%.1f%n", (firstDone - start) / 1e6, firstCpu, firstThreadCpu / 1e6,
                waits, (secondDone - firstDone) / 1e6);
    }

    /// The calling thread's `/proc/thread-self/schedstat`: nanoseconds on a CPU, nanoseconds runnable
    /// but waiting for one (descheduled), and time slices; empty where there is no such file.
    static long[] schedstat() {
        try {
            String[] fields = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/thread-self/schedstat")).strip().split(" ");
            return new long[] {Long.parseLong(fields[0]), Long.parseLong(fields[1]), Long.parseLong(fields[2])};
        } catch (java.io.IOException | RuntimeException e) {
            return new long[0];
        }
    }

    /// Where the calling thread's `wall` nanoseconds since `before` (a [#schedstat]) went besides
    /// its CPU: `runQueue`, runnable but descheduled (other threads had the cores); `blocked`, the
    /// rest: parked, waiting for a lock or a class, or in a safepoint.
    static String waits(long[] before, long wall) {
        long[] after = schedstat();
        if (before.length == 0 || after.length == 0) return "";
        long onCpu = after[0] - before[0], queued = after[1] - before[1];
        return "runQueue=%.1f blocked=%.1f".formatted(queued / 1e6, (wall - onCpu - queued) / 1e6);
    }

    /// CPU time of every thread of this process (compiler threads and warm-ups too), from
    /// `/proc/self/stat` (-1 elsewhere): on a busy machine it varies less than the wall clock.
    static long processCpuMillis() {
        try {
            String[] fields = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/stat")).split(" ");
            return (Long.parseLong(fields[13]) + Long.parseLong(fields[14])) * 10; // utime + stime, in ticks of 10 ms
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
    }
}
