// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import java.util.concurrent.atomic.AtomicLongArray;

/// Wall time per launch of a program, summed over its calls, when `-Dsmelt.profile=true`: what
/// `explain()` prints beside each kernel to say where a call's time goes. Off by default, and then
/// a launch costs one static read more; on, two `nanoTime` calls per launch.
///
/// Beside the mean over every call it keeps a moving average that weights each call 1/[#RECENT]:
/// the first calls of a fresh kernel run before the JIT has compiled it (and on the scalar
/// variant while the vector one warms up), so after a few hundred calls the mean still says more
/// about warm-up than about how fast the kernel runs now.
final class Profile {
    static final boolean ON = Boolean.getBoolean("smelt.profile");
    static final int RECENT = 16;

    private final AtomicLongArray nanos;
    private final AtomicLongArray counts;
    private final AtomicLongArray recent;

    Profile(int launches) {
        nanos = new AtomicLongArray(launches);
        counts = new AtomicLongArray(launches);
        recent = new AtomicLongArray(launches);
    }

    void add(int launch, long elapsed) {
        nanos.addAndGet(launch, elapsed);
        long calls = counts.incrementAndGet(launch);
        // Launches of one program run one at a time per call; a race between two calls loses one sample, no more.
        long before = recent.get(launch);
        recent.set(launch, calls == 1 ? elapsed : before + (elapsed - before) / Math.min(calls, RECENT));
    }

    /// Mean milliseconds per run of `launch`, or NaN before its first.
    double millis(int launch) {
        long count = counts.get(launch);
        return count == 0 ? Double.NaN : nanos.get(launch) / 1e6 / count;
    }

    /// The moving average of the recent runs of `launch`, in milliseconds, or NaN before its first.
    double recentMillis(int launch) { return counts.get(launch) == 0 ? Double.NaN : recent.get(launch) / 1e6; }

    /// `  time: 1.234 ms per call, recently 0.456 ms (12.3% of the program's recent 3.7 ms), 40 calls`.
    String line(int launch) {
        double total = 0;
        for (int l = 0; l < nanos.length(); l++) if (!Double.isNaN(recentMillis(l))) total += recentMillis(l);
        return "  time: %.3f ms per call, recently %.3f ms (%.1f%% of the program's recent %.1f ms), %d calls%n".formatted(millis(launch), recentMillis(launch),
                100 * recentMillis(launch) / total, total, counts.get(launch));
    }
}
