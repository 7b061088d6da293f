// SPDX-License-Identifier: Apache-2.0
package dev.smelt.stress;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/// Random programs over the public API, each compiled and run every way a user can
/// ([ProgramCheck]) and compared with the reference interpreter. The default build runs
/// `smelt.stress.programs` = 1,000 of them; the `stress` profile runs 100,000. A failure prints the
/// seed, what differed in which call mode, the program as Java and its graph as IR; rerun it
/// alone with `-Dsmelt.stress.seed=<seed>`.
class RandomProgramsTest {
    @Test
    void randomProgramsMatchTheInterpreterInEveryCallMode() {
        Scale scale = Settings.programScale();
        var large = new AtomicLong();
        var vector = new AtomicLong();
        var resized = new AtomicLong();
        var knownFailures = new AtomicLong();
        var summary = SeedRunner.run("RandomProgramsTest", Settings.seeds("programs", 1000), Settings.integer("threads", 1), seed -> {
            Program program = ProgramGenerator.generate(seed, scale);
            var outcome = ProgramCheck.check(program);
            if (program.arguments().stream().anyMatch(argument -> argument.shape().size() > Scale.SMALL_ELEMENTS)) large.incrementAndGet();
            if (outcome.vectorChecked()) vector.incrementAndGet();
            if (outcome.resizedChecked()) resized.incrementAndGet();
            if (Settings.singleSeed()) System.out.println(outcome.report());
            Boolean known = KnownFailures.matches(seed, outcome);
            if (known == null) return outcome.passed() ? null : outcome.report();
            if (known) knownFailures.incrementAndGet();
            return known ? null : "seed %d is listed in KnownFailures but %s%n%s".formatted(seed, outcome.passed() ? "passes: remove it" : "fails otherwise:", outcome.report());
        });
        long compared = Reference.COMPARED.get(), unstable = Reference.UNSTABLE.get();
        System.out.printf("RandomProgramsTest: %,d programs (%,d large, %,d checked at another extent of axis 0, %,d after the vector variant took over) in %.1f s, %.1f programs/s;"
                + " %,d elements compared, %,d left out as unstable; %d failed, %d failed as KnownFailures lists%n", summary.seedsRun(), large.get(),
                resized.get(), vector.get(), summary.millis() / 1000.0, summary.perSecond(), compared, unstable, summary.failures().size(), knownFailures.get());
        if (!summary.failures().isEmpty()) fail(summary.firstFailures(3));
        // over a run, not one seed: a single program may leave all its few elements out (a cast of a
        // variance near 1 to i32)
        if (!Settings.singleSeed()) assertTrue(compared > unstable, "a tolerance that leaves most elements out would pass anything");
        if (!Settings.singleSeed()) assertTrue(resized.get() * 10 > summary.seedsRun(), "few programs took another extent: " + resized.get());
    }
}
