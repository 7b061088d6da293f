// SPDX-License-Identifier: Apache-2.0
package dev.smelt.stress;

import dev.smelt.Compiled;
import java.util.List;

/// Waits for a compiled function's vector variants to take over. Kernels of at least 2^14
/// elements start on their scalar variant while the vector variant warms up on a background
/// thread (`runtime.TieredKernel`); no setting forces the switch, so a test waits for it, reading
/// each kernel's tier from `explain()` (`runs vector`, `runs scalar (vector variant warming up)`).
final class VectorTier {
    private VectorTier() {}

    /// What the wait found: whether any kernel runs vector code now, whether some were still warming
    /// up when the wait ended, and the tier lines of kernels whose vector variant failed to load.
    record State(boolean vector, boolean warming, List<String> failed) {}

    /// Polls `compiled`'s tiers until none is warming up or `timeoutMillis` have passed.
    static State await(Compiled compiled, long timeoutMillis) {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        while (true) {
            State state = state(compiled.explain());
            if (!state.warming() || System.nanoTime() > deadline) return state;
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return state;
            }
        }
    }

    /// Whether `compiled`'s latest program has a kernel that starts scalar and may switch.
    static boolean isTiered(Compiled compiled) {
        State state = state(compiled.explain());
        return state.vector() || state.warming();
    }

    static State state(String explained) {
        var tiers = explained.lines().filter(line -> line.contains("; runs ")).map(line -> line.substring(line.indexOf("; runs ") + 7)).toList();
        return new State(tiers.stream().anyMatch(tier -> tier.equals("vector")), tiers.stream().anyMatch(tier -> tier.contains("warming up")),
                tiers.stream().filter(tier -> tier.contains("failed")).toList());
    }
}
