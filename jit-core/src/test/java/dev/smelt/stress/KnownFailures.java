// SPDX-License-Identifier: Apache-2.0
package dev.smelt.stress;

import java.util.Map;

/// Seeds of the random tests that fail for a compiler bug already reported and not yet fixed,
/// each with the text its failure must contain. They still run: a listed seed that fails that way
/// is counted as known and does not fail the build; one that passes, or fails otherwise, does, so
/// the entry goes with the fix. Each bug's minimal program goes beside it as a disabled test in
/// the tests of the code at fault, enabled by the fix (seed 35200's is
/// `MatMulTest.aValueShapedLikeTheProductsLoopBesideItsEpilogueMatchesTheInterpreter`).
final class KnownFailures {
    private KnownFailures() {}

    static final Map<Long, String> PROGRAMS = Map.of();

    /// Null when `seed` is not listed; else whether its problems are the listed failure's.
    static Boolean matches(long seed, ProgramCheck.Outcome outcome) {
        String expected = PROGRAMS.get(seed);
        if (expected == null) return null;
        return !outcome.passed() && outcome.problems().stream().allMatch(problem -> problem.contains(expected));
    }
}
