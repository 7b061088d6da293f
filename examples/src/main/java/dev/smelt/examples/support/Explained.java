// SPDX-License-Identifier: Apache-2.0
package dev.smelt.examples.support;

import dev.smelt.Compiled;
import dev.smelt.Tensor;

/// What the tours read from `explain()`.
public final class Explained {
    private Explained() {}

    /// Calls `compiled` until its vector kernels have replaced the scalar ones (at most 5 s):
    /// the timings then show the steady state, not the background warm-up.
    public static void warm(Compiled compiled, Tensor... arguments) {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (compiled.explain(arguments).contains("warming up") && System.nanoTime() < deadline) compiled.apply(arguments);
    }

    public static int kernels(Compiled compiled, Tensor... arguments) {
        String line = lines(compiled.explain(arguments), "kernels:").strip();
        return Integer.parseInt(line.substring("kernels: ".length(), line.indexOf(' ', "kernels: ".length())));
    }

    /// The lines of `text` starting with any of `prefixes`.
    public static String lines(String text, String... prefixes) {
        var out = new StringBuilder();
        for (String line : text.lines().toList())
            for (String prefix : prefixes) if (line.startsWith(prefix)) { out.append("  ").append(line).append('\n'); break; }
        return out.toString();
    }

    public static void section(String title) { System.out.println("\n== " + title + " =="); }
}
