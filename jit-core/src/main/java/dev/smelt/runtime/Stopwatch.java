// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import java.util.function.IntConsumer;

/// The best of several timed calls: how every warm-up tells code C2 has compiled from boxed or
/// interpreted code (tiered kernels, the matmul tile, packing, the tiny product). The best, not
/// the mean, since on a shared machine a call is only ever slowed down.
public final class Stopwatch {
    private Stopwatch() {}

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
