// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import java.util.concurrent.atomic.AtomicLongArray;

/// Wall time per launch of a program, summed over its calls, when `-Dsmelt.profile=true`: what
/// `explain()` prints beside each kernel to say where a call's time goes. Off by default, and then
/// a launch costs one static read more; on, two `nanoTime` calls per launch.
final class Profile {
    static final boolean ON = Boolean.getBoolean("smelt.profile");

    private final AtomicLongArray nanos;
    private final AtomicLongArray counts;

    Profile(int launches) {
        nanos = new AtomicLongArray(launches);
        counts = new AtomicLongArray(launches);
    }

    void add(int launch, long elapsed) {
        nanos.addAndGet(launch, elapsed);
        counts.incrementAndGet(launch);
    }

    /// Mean milliseconds per run of `launch`, or NaN before its first.
    double millis(int launch) {
        long count = counts.get(launch);
        return count == 0 ? Double.NaN : nanos.get(launch) / 1e6 / count;
    }

    /// `  time: 1.234 ms per call (12.3% of the program's 10.0 ms), 40 calls`.
    String line(int launch) {
        double total = 0;
        for (int l = 0; l < nanos.length(); l++) if (!Double.isNaN(millis(l))) total += millis(l);
        return "  time: %.3f ms per call (%.1f%% of the program's %.1f ms), %d calls%n".formatted(millis(launch), 100 * millis(launch) / total, total,
                counts.get(launch));
    }
}
