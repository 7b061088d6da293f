// SPDX-License-Identifier: Apache-2.0
package dev.smelt.stress;

/// The stress tests' knobs, as system properties: the default build runs a small slice, the
/// `stress` Maven profile (`mvn -Pstress verify`) sets the counts it runs at scale, and one seed
/// can be rerun alone. Every property is `smelt.stress.<name>`:
///
/// | property | meaning | default |
/// | --- | --- | --- |
/// | `seed` | run only this seed (of every random test), printing its program | all seeds |
/// | `firstSeed` | the first seed of each range | 0 |
/// | `programs`, `gradients` | random programs, random gradient checks | 1,000, 1,000 |
/// | `largeShare`, `largeElements` | share of large programs, their elements per value | 0.004, 3·2^20 |
/// | `concurrentFunctions`, `concurrentPrograms`, `concurrentCalls` | functions shared by 8 threads, programs each serves, calls per thread | 3, 12, 200 |
/// | `compilations` | compilations under a 64 MiB metaspace (`stress` profile only) | 30,000 |
/// | `trainingSteps` | steps of the long training run (`stress` profile only) | 2,000 |
/// | `threads` | threads checking seeds side by side | 1 |
/// | `timeoutSeconds` | a seed still running after this is reported as hung | 300 |
public final class Settings {
    private Settings() {}

    /// The seeds to run: `smelt.stress.seed` alone if set, else `count` seeds from `firstSeed`,
    /// where `count` is `smelt.stress.<countProperty>` or `defaultCount`.
    public static long[] seeds(String countProperty, long defaultCount) {
        Long only = Long.getLong("smelt.stress.seed");
        if (only != null) return new long[] {only};
        long first = Long.getLong("smelt.stress.firstSeed", 0), count = Long.getLong("smelt.stress." + countProperty, defaultCount);
        return java.util.stream.LongStream.range(first, first + count).toArray();
    }

    /// Whether one seed was asked for: tests then print its program even when it passes.
    public static boolean singleSeed() { return Long.getLong("smelt.stress.seed") != null; }

    public static int integer(String name, int defaultValue) { return Integer.getInteger("smelt.stress." + name, defaultValue); }

    public static double decimal(String name, double defaultValue) {
        String value = System.getProperty("smelt.stress." + name);
        return value == null ? defaultValue : Double.parseDouble(value);
    }

    static Scale programScale() { return Scale.mixed(decimal("largeShare", 0.004), integer("largeElements", 3 << 20)); }
}
