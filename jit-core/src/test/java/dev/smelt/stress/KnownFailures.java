// SPDX-License-Identifier: Apache-2.0
package dev.smelt.stress;

import java.util.Map;

/// Seeds of the random tests that fail for a compiler bug already reported and not yet fixed,
/// each with the text its failure must contain. They still run: a listed seed that fails that way
/// is counted as known and does not fail the build; one that passes, or fails otherwise, does, so
/// the entry goes with the fix. `KnownFailuresTest` holds each bug's minimal program.
final class KnownFailures {
    private KnownFailures() {}

    /// A matmul epilogue value shaped like the matmul's iteration space `[batch…, M, N, K]` (here
    /// `c.unsqueeze(-1)` of a `[1,1]·[1,1]` product, beside another epilogue value) is planned as
    /// written at every point of that space rather than once per `[m, n]`, and `MatMulKernel`
    /// refuses it: fusion's `ScheduleBuilder` takes a root whose shape equals the signature's
    /// operand shape for a pointwise root (`signature`, `launch`'s `perRow`), which is right for
    /// reductions and not for a matmul's virtual `[M, N, K]`. Reported 2026-11-26 (issue 16).
    static final String MATMUL_EPILOGUE_SHAPED_LIKE_ITS_SPACE = "is not written once per [m, n]";

    static final Map<Long, String> PROGRAMS = Map.of(35200L, MATMUL_EPILOGUE_SHAPED_LIKE_ITS_SPACE);

    /// Null when `seed` is not listed; else whether its problems are the listed failure's.
    static Boolean matches(long seed, ProgramCheck.Outcome outcome) {
        String expected = PROGRAMS.get(seed);
        if (expected == null) return null;
        return !outcome.passed() && outcome.problems().stream().allMatch(problem -> problem.contains(expected));
    }
}
