// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;

/// The best of several timed calls: how every warm-up tells code C2 has compiled from boxed or
/// interpreted code (tiered kernels, the matmul tile, packing, the tiny product). The best, not
/// the mean, since on a shared machine a call is only ever slowed down.
public final class Stopwatch {
    private Stopwatch() {}

    /// Calls of the code a warm-up waits for after which C2 has been asked to compile it: HotSpot
    /// moves a method from C1's profiling code to C2 after `Tier4InvocationThreshold` (5,000) calls
    /// of the profiled code, sooner with long loops. Resting earlier (after 400 calls) starved the C1
    /// stage of calls: TierSwitchTest's softmax-tanh-sin-cos kernel then lost five rounds and stayed
    /// scalar for over a minute on a quiet machine.
    public static final int CALLS_TO_COMPILE = 6_000;
    /// Rest after each lost round once C2 has been asked, in multiples of the round's time: the
    /// warm-up then takes at most a quarter of a core while it waits.
    static final int REST = 3;

    /// A warm-up that lost tries again after a back-off that doubles with each loss from the first
    /// to [#LAST_BACK_OFF_NANOS]: a lost round on a busy machine is no verdict on the vector code
    /// (C2 may not have compiled it yet), and one that keeps losing costs ever less.
    public static final long FIRST_BACK_OFF_NANOS = 1_000_000_000L, LAST_BACK_OFF_NANOS = 32_000_000_000L;

    /// The back-off after `lost` earlier losses, from `first`.
    public static long backOff(long first, int lost) { return Math.min(LAST_BACK_OFF_NANOS, first << Math.min(lost, 30)); }

    /// Parks [#REST] times as long as the round begun at `roundStart` (System.nanoTime) took, never
    /// past `deadline`. C2 compiles on its own threads once the calls have counted up; spinning while
    /// it works only takes a core from the program and from C2 itself (a GPT step's 251 kernels kept
    /// the kernel warm-up as busy as the caller; the matmul warm-ups took 0.4 s of a core during the
    /// 784-512-10 MLP's compile and 0.5 s more during its first 100 steps).
    public static void rest(long roundStart, long deadline) {
        long now = System.nanoTime();
        LockSupport.parkNanos(Math.min(REST * (now - roundStart), deadline - now));
    }

    /// The fewest nanoseconds any of `calls` calls of `call` took; each call gets its number, which
    /// a warm-up uses to vary the path it exercises (the tile alternates `accumulate`).
    public static long best(int calls, IntConsumer call) {
        long best = Long.MAX_VALUE;
        for (int i = 0; i < calls; i++) {
            long start = System.nanoTime();
            call.accept(i);
            best = Math.min(best, System.nanoTime() - start);
        }
        return best;
    }
}
