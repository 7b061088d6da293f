// SPDX-License-Identifier: Apache-2.0
package dev.smelt.examples.support;

/// Wall-clock timing for the examples (the benchmarks module has the JMH figures).
public final class Timing {
    private Timing() {}

    /// The best of 20 timed runs, after 20 untimed ones that let the JIT compile the code.
    public static double millis(Runnable work) {
        long best = Long.MAX_VALUE;
        for (int run = 0; run < 40; run++) {
            long start = System.nanoTime();
            work.run();
            if (run >= 20) best = Math.min(best, System.nanoTime() - start);
        }
        return best / 1e6;
    }
}
